-- A holder's poll: which of its offered leases has a waiting visitor preempted? Keeps the offers key
-- alive while someone holds offers (it lapses a lease time after the last holder stops polling).
-- KEYS[1] offers, KEYS[2] preempted.  ARGV[1] lease ms, ARGV[2..] the holder's offered lease members.
-- Returns the members marked preempted.
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
local marked = {}
for i = 2, #ARGV do
  local until_ms = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if until_ms and tonumber(until_ms) > now then
    marked[#marked + 1] = ARGV[i]
  end
end
return marked

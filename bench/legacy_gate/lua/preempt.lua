-- Find (and, asked to, mark) the most recently offered lease that is still held: the one a waiting
-- visitor preempts. Marking moves it from the offers to the preempted set, where its holder's poll
-- finds it; an offer whose lease is gone (released, expired) is dropped on the way.
-- KEYS[1] leases, KEYS[2] offers, KEYS[3] preempted.  ARGV[1] lease ms, ARGV[2] '1' to mark, '0' to look.
-- Returns the offer's score (microseconds) as a string, or false when no offered lease is held.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
for _, member in ipairs(redis.call('ZREVRANGE', KEYS[2], 0, -1)) do
  local expiry = redis.call('ZSCORE', KEYS[1], member)
  if expiry and tonumber(expiry) > now then
    local offered = redis.call('ZSCORE', KEYS[2], member)
    if ARGV[2] == '1' then
      redis.call('ZREM', KEYS[2], member)
      redis.call('ZADD', KEYS[3], now + tonumber(ARGV[1]), member)
      expire_with_last_lease(KEYS[3])
    end
    return offered
  end
  redis.call('ZREM', KEYS[2], member)
end
return false

-- Count what has not expired, how long ago the newest live lease was admitted, and the limit admitted
-- against now (lua/limit.lua) with why it last moved and whether it yields to another load.
-- KEYS: as in queues.lua (KEYS[1] leases, KEYS[2], KEYS[3] waiters, KEYS[12] the shared limit).
-- ARGV[1] declared slots, ARGV[2] the adaptive limit's floor (0: fixed).
-- Returns {leases, interactive waiters, background waiters, age in ms of the newest lease or -1, limit,
-- its last move or "", 1 while it yields to another load else 0}.
local newest = -1
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
  local admitted = tonumber(string.match(member, '^(%d+):'))
  if admitted and (newest < 0 or now - admitted < newest) then
    newest = now - admitted
  end
end
local floor = tonumber(ARGV[2])
local reason = ''
local yielding = 0
if floor > 0 then
  reason = redis.call('HGET', KEYS[12], 'reason') or ''
  yielding = tonumber(redis.call('HGET', KEYS[12], 'neighbour') or '0')
end
return {
  redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf'),
  newest,
  gate_slots(tonumber(ARGV[1]), floor),
  reason,
  yielding,
}

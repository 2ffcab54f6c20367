-- Take a gate slot if `admits` says so; a waiter that gets its slot stops being counted as waiting.
-- KEYS[1] leases, KEYS[2] interactive waiters, KEYS[3] background waiters.
-- ARGV[1] lease id, ARGV[2] lease ms, ARGV[3] priority, ARGV[4] slots, ARGV[5] reserve,
-- ARGV[6] own waiter id (or "").  Returns the lease's member, "<admitted ms>:<lease id>" (so the
-- admission time travels with the lease, on Redis's clock), when granted; 0 otherwise.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local in_use = redis.call('ZCARD', KEYS[1])
local visitors = redis.call('ZCARD', KEYS[2])
if not admits(ARGV[3], tonumber(ARGV[4]), in_use, tonumber(ARGV[5]), visitors) then
  return 0
end
local member = now .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), member)
expire_with_last_lease(KEYS[1])
if ARGV[6] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[6])
  redis.call('ZREM', KEYS[3], ARGV[6])
end
return member

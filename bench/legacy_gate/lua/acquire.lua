-- Take a gate slot if `admits` says so and no waiter of the same priority comes first; a waiter that
-- gets its slot stops being counted as waiting.
-- KEYS[1] leases, KEYS[2] interactive waiters, KEYS[3] background waiters (both: id -> expiry ms),
-- KEYS[4] the queue of this priority (waiter -> score), KEYS[5] scores, KEYS[6] seen.
-- ARGV[1] lease id, ARGV[2] lease ms, ARGV[3] priority, ARGV[4] slots, ARGV[5] reserve,
-- ARGV[6] own waiter id (or "" on arrival), ARGV[7] visitor, ARGV[8] half-life ms, ARGV[9] recent ms,
-- ARGV[10] forget ms, ARGV[11] "1" for least attained service first, "0" for first come.
-- Returns the lease's member, "<admitted ms>:<lease id>" (so the admission time travels with the
-- lease, on Redis's clock), when granted; 0 otherwise.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local waiters = KEYS[3]
if ARGV[3] == 'interactive' then
  waiters = KEYS[2]
end
-- A waiter whose announcement lapsed (its replica died) leaves the queue too.
for _, member in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  if not redis.call('ZSCORE', waiters, fair_waiter_id(member)) then
    redis.call('ZREM', KEYS[4], member)
  end
end
local fair = ARGV[11] == '1'
local half_ms = tonumber(ARGV[8])
local mine = ARGV[6] .. ':' .. ARGV[7]
local ahead
if ARGV[6] == '' then
  -- Arriving: every waiter at or below this call's score comes first.
  local score = now
  if fair then
    score = fair_arrive(KEYS[5], KEYS[6], ARGV[7], half_ms, tonumber(ARGV[9]), tonumber(ARGV[10]))
  end
  ahead = redis.call('ZCOUNT', KEYS[4], '-inf', fair_fmt(score))
else
  if fair then
    -- Re-read the ledger: a charge released through another backend's pool may have moved it.
    redis.call('ZADD', KEYS[4], 'XX', fair_fmt(fair_current(KEYS[5], ARGV[7], half_ms)), mine)
    redis.call('ZADD', KEYS[6], now, ARGV[7])
  end
  ahead = redis.call('ZRANK', KEYS[4], mine) or redis.call('ZCARD', KEYS[4])
end
local in_use = redis.call('ZCARD', KEYS[1])
local visitors = redis.call('ZCARD', KEYS[2])
if not admits(ARGV[3], tonumber(ARGV[4]), in_use, tonumber(ARGV[5]), visitors) then
  return 0
end
local room = tonumber(ARGV[4]) - in_use
if ARGV[3] ~= 'interactive' then
  room = room - tonumber(ARGV[5])
end
if ahead >= room then
  return 0
end
local member = now .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), member)
expire_with_last_lease(KEYS[1])
if ARGV[6] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[6])
  redis.call('ZREM', KEYS[3], ARGV[6])
  redis.call('ZREM', KEYS[4], mine)
end
return member

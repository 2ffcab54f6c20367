-- Announce a wait that expires by itself (so background work on every replica defers to visitors),
-- and queue the waiter by its visitor's score (least attained service first) or its arrival (first come).
-- KEYS: as in queues.lua.  ARGV[1] priority, ARGV[2] 16 random hex digits, ARGV[3] expiry ms from now,
-- ARGV[4] visitor, ARGV[5] half-life ms, ARGV[6] "1" fair.  Returns the waiter's queue member.
local waiting, queue, own = gate_keys(ARGV[1])
local ttl = tonumber(ARGV[3])
local member = string.format('%016d', tonumber(now_t[1]) * 1000000 + tonumber(now_t[2])) .. ARGV[2] .. ':' .. ARGV[4]
redis.call('ZADD', waiting, now + ttl, member)
expire_with_last_lease(waiting)
local score = now
if ARGV[6] == '1' then
  score = fair_current(KEYS[8], ARGV[4], tonumber(ARGV[5]))
end
redis.call('ZADD', queue, fair_fmt(score), member)
gate_keep_longest(queue, ttl)
gate_own_add(own, member, ttl)
return member

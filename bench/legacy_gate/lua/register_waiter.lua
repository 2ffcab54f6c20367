-- Announce a wait that expires by itself (so background work on every replica defers to visitors),
-- and queue the waiter by its visitor's score (least attained service first) or its arrival (first come).
-- KEYS[1] waiters of one priority (id -> expiry), KEYS[2] the queue of that priority, KEYS[3] scores.
-- ARGV[1] waiter id, ARGV[2] expiry ms from now, ARGV[3] visitor, ARGV[4] half-life ms, ARGV[5] "1" fair.
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
expire_with_last_lease(KEYS[1])
local score = now
if ARGV[5] == '1' then
  score = fair_current(KEYS[3], ARGV[3], tonumber(ARGV[4]))
end
redis.call('ZADD', KEYS[2], fair_fmt(score), ARGV[1] .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))
return 1

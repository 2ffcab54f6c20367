-- Announce a wait that expires by itself (so background work on every replica defers to visitors).
-- KEYS[1] waiters of one priority.  ARGV[1] waiter id, ARGV[2] expiry ms from now.
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
expire_with_last_lease(KEYS[1])
return 1

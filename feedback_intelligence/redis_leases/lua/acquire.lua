-- Take a lease if fewer than `limit` unexpired leases are held.
-- KEYS[1] lease set.  ARGV[1] lease id, ARGV[2] lease ms, ARGV[3] limit.  Returns 1 when granted.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
-- Idempotent: the same id sent again (a retry whose first reply was lost) holds the one place it got.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
  expire_with_last_lease(KEYS[1])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
expire_with_last_lease(KEYS[1])
return 1

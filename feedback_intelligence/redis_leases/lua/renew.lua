-- Extend a lease that still exists.
-- KEYS[1] lease set.  ARGV[1] lease id, ARGV[2] lease ms.  Returns 0 when the lease was already lost.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
  expire_with_last_lease(KEYS[1])
  return 1
end
return 0

-- Give a lease back; with a second key, announce the release on that channel.
-- KEYS[1] lease set, KEYS[2] (optional) channel.  ARGV[1] lease id.  Returns 1 if the lease was held.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
end
if KEYS[2] then
  redis.call('PUBLISH', KEYS[2], ARGV[1])
end
return removed

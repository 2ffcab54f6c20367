-- Write the shared limit's new state if nobody wrote since it was read (compare-and-set on `version`),
-- stamp it with Redis's clock, and wake the waiter a raised limit lets in (whose admission then wakes
-- the next, acquire.lua). The arithmetic is gate/limit.py's, done by the replica; this only stores.
-- KEYS: as in queues.lua (KEYS[12] the limit hash).  ARGV[1] the version read ("0": none yet),
-- ARGV[2] ms to keep an untouched state, ARGV[3] declared slots, ARGV[4] floor, ARGV[5] reserve,
-- ARGV[6..] field, value, ... to set.  Returns 1 when written, 0 when another replica wrote first.
local version = tonumber(redis.call('HGET', KEYS[12], 'version') or '0')
if version ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[12], 'version', version + 1, 'updated_ms', now, unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[12], tonumber(ARGV[2]))
gate_wake(gate_slots(tonumber(ARGV[3]), tonumber(ARGV[4])), tonumber(ARGV[5]))
return 1

-- Offer a held lease for preemption: background work that a visitor waiting on any replica may cancel.
-- KEYS[1] leases, KEYS[2] offers.  ARGV[1] lease member, ARGV[2] lease ms.
-- An offer is scored by when it was made, in microseconds on Redis's clock, so "most recently started"
-- is one order across replicas. The offers key lives while holders poll it (lua/preempted.lua).
-- Returns 1 when offered; 0 when the lease is no longer held.
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
redis.call('ZADD', KEYS[2], tonumber(now_t[1]) * 1000000 + tonumber(now_t[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))
return 1

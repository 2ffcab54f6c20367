-- The shared limit's state and the calls in flight on the backend across replicas (its live leases),
-- read together for the replica that applies its samples (gate/shared_limit.py).
-- KEYS[1] limit hash, KEYS[2] leases.  Returns {flat field/value list, live leases}.
return {redis.call('HGETALL', KEYS[1]), redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')}

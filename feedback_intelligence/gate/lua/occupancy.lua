-- Count what has not expired.
-- KEYS[1] leases, KEYS[2] interactive waiters, KEYS[3] background waiters.
return {
  redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf'),
}

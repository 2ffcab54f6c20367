-- Count what has not expired, and how long ago the newest live lease was admitted.
-- KEYS[1] leases, KEYS[2] interactive waiters, KEYS[3] background waiters.
-- Returns {leases, interactive waiters, background waiters, age in ms of the newest lease or -1}.
local newest = -1
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
  local admitted = tonumber(string.match(member, '^(%d+):'))
  if admitted and (newest < 0 or now - admitted < newest) then
    newest = now - admitted
  end
end
return {
  redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf'),
  newest,
}

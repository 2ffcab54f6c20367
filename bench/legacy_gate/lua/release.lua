-- Give a gate slot back: charge its visitor the time it was held, re-queue that visitor's waiters by
-- the new score, and announce the release.
-- KEYS[1] leases, KEYS[2] channel, KEYS[3] scores, KEYS[4] seen, KEYS[5] interactive queue,
-- KEYS[6] background queue.  ARGV[1] lease member "<admitted ms>:<id>", ARGV[2] visitor,
-- ARGV[3] half-life ms, ARGV[4] forget ms, ARGV[5] "1" fair.  Returns 1 if the lease was held.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
end
if removed == 1 and ARGV[5] == '1' then
  local admitted = tonumber(string.match(ARGV[1], '^(%d+):'))
  local held_ms = 0
  if admitted and now > admitted then
    held_ms = now - admitted
  end
  local score = fair_charge(KEYS[3], KEYS[4], ARGV[2], held_ms, tonumber(ARGV[3]), tonumber(ARGV[4]))
  for _, queue in ipairs({KEYS[5], KEYS[6]}) do
    for _, member in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
      if string.sub(member, 34) == ARGV[2] then
        redis.call('ZADD', queue, 'XX', fair_fmt(score), member)
      end
    end
  end
end
redis.call('PUBLISH', KEYS[2], ARGV[1])
return removed

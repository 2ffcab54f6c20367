-- Give a gate slot back: charge its visitor the time it was held, re-queue that visitor's waiters by
-- the new score (found through its members, not by reading the queues), and wake the one waiter the
-- freed slot goes to. KEYS: as in queues.lua.
-- ARGV[1] lease member "<admitted ms>:<id>", ARGV[2] visitor, ARGV[3] half-life ms, ARGV[4] forget ms,
-- ARGV[5] "1" fair, ARGV[6] declared slots, ARGV[7] reserve, ARGV[8] the adaptive limit's floor (0: fixed).
-- Returns 1 if the lease was held.
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
  local score = fair_fmt(fair_charge(KEYS[8], KEYS[9], KEYS[11], ARGV[2], held_ms, tonumber(ARGV[3]), tonumber(ARGV[4])))
  for _, priority in ipairs({'interactive', 'background'}) do
    local _, queue, own = gate_keys(priority)
    local list = redis.call('HGET', own, ARGV[2])
    if list then
      for member in string.gmatch(list, '[^\n]+') do
        redis.call('ZADD', queue, 'XX', score, member)
      end
    end
  end
end
gate_wake(gate_slots(tonumber(ARGV[6]), tonumber(ARGV[8])), tonumber(ARGV[7]))
return removed

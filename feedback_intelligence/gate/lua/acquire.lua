-- Take a gate slot when gate/policy.py `may_take` says this call's rank allows it; a waiter that gets
-- its slot stops waiting, and if room is left the next head is woken. O(log W): no queue is read whole.
-- KEYS: as in queues.lua.
-- ARGV[1] lease id, ARGV[2] lease ms, ARGV[3] priority, ARGV[4] declared slots, ARGV[5] reserve,
-- ARGV[6] own queue member (or "" on arrival), ARGV[7] visitor, ARGV[8] half-life ms, ARGV[9] recent ms,
-- ARGV[10] forget ms, ARGV[11] "1" for least attained service first, "0" for first come,
-- ARGV[12] the adaptive limit's floor (0: the slots are fixed; lua/limit.lua).
-- Returns the lease's member, "<admitted ms>:<lease id>" (the admission time travels with the lease,
-- on Redis's clock), when granted; otherwise -1 - rank (how many waiters come first).
gate_sweep()
local priority = ARGV[3]
local _, queue = gate_keys(priority)
local fair = ARGV[11] == '1'
local half_ms = tonumber(ARGV[8])
local mine = ARGV[6]
local ahead
if mine == '' then
  -- Arriving: every waiter at or below this call's score comes first.
  local score = now
  if fair then
    score = fair_arrive(KEYS[8], KEYS[9], KEYS[11], ARGV[7], half_ms, tonumber(ARGV[9]), tonumber(ARGV[10]))
  end
  ahead = redis.call('ZCOUNT', queue, '-inf', fair_fmt(score))
else
  if fair then
    -- Re-read the ledger: a charge released through another backend's pool may have moved it.
    local score = fair_current(KEYS[8], ARGV[7], half_ms)
    redis.call('ZADD', queue, 'XX', fair_fmt(score), mine)
    fair_seen(KEYS[9], KEYS[11], ARGV[7], score)
  end
  ahead = redis.call('ZRANK', queue, mine) or redis.call('ZCARD', queue)
end
local slots = gate_slots(tonumber(ARGV[4]), tonumber(ARGV[12]))
local reserve = tonumber(ARGV[5])
local in_use = redis.call('ZCARD', KEYS[1])
if not may_take(priority, ahead, slots, in_use, reserve, redis.call('ZCARD', KEYS[2])) then
  return -1 - ahead
end
local member = now .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), member)
expire_with_last_lease(KEYS[1])
if mine ~= '' then
  gate_drop(priority, mine)
end
gate_wake(slots, reserve)
return member

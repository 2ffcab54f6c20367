-- The gate's waiters in Redis, kept so that every step costs O(log W) with W waiters: no script
-- reads a whole queue. Every gate script takes the same keys:
-- KEYS[1] leases (member "<admitted ms>:<id>" -> expiry ms),
-- KEYS[2], KEYS[3] interactive / background waiters (queue member -> expiry ms: the announcement),
-- KEYS[4], KEYS[5] interactive / background queues (queue member -> score: who comes first),
-- KEYS[6], KEYS[7] interactive / background members by visitor (visitor -> members, "\n"-joined),
-- KEYS[8] ledger scores, KEYS[9] ledger seen, KEYS[10] the wake-up channel, KEYS[11] ledger active
-- (lua/fair.lua), KEYS[12] the limit the replicas share (lua/limit.lua).
-- A queue member is "<32-char waiter id>:<visitor>"; the id starts with its arrival on Redis's clock
-- (16 digits of microseconds), so members of equal score are in arrival order.
local SWEEP_LIMIT = 16

local function gate_keys(priority)
  if priority == 'interactive' then
    return KEYS[2], KEYS[4], KEYS[6]
  end
  return KEYS[3], KEYS[5], KEYS[7]
end

local function gate_visitor_of(member)
  return string.sub(member, 34)
end

local function gate_keep_longest(key, ttl_ms)
  if redis.call('PTTL', key) < ttl_ms then
    redis.call('PEXPIRE', key, ttl_ms)
  end
end

local function gate_own_add(own, member, ttl_ms)
  local visitor = gate_visitor_of(member)
  local list = redis.call('HGET', own, visitor)
  if list then
    list = list .. '\n' .. member
  else
    list = member
  end
  redis.call('HSET', own, visitor, list)
  gate_keep_longest(own, ttl_ms)
end

local function gate_own_remove(own, member)
  local visitor = gate_visitor_of(member)
  local list = redis.call('HGET', own, visitor)
  if not list then
    return
  end
  local kept = {}
  for other in string.gmatch(list, '[^\n]+') do
    if other ~= member then
      kept[#kept + 1] = other
    end
  end
  if #kept == 0 then
    redis.call('HDEL', own, visitor)
  else
    redis.call('HSET', own, visitor, table.concat(kept, '\n'))
  end
end

-- A waiter stops waiting (granted, gave up, or its announcement lapsed).
local function gate_drop(priority, member)
  local waiting, queue, own = gate_keys(priority)
  redis.call('ZREM', waiting, member)
  redis.call('ZREM', queue, member)
  gate_own_remove(own, member)
end

-- Expired leases go; so do a few waiters whose replica stopped announcing them (bounded per call).
local function gate_sweep()
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  for _, priority in ipairs({'interactive', 'background'}) do
    local waiting = gate_keys(priority)
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', waiting, '-inf', now, 'LIMIT', 0, SWEEP_LIMIT)) do
      gate_drop(priority, member)
    end
  end
end

-- The head of the queue a free slot goes to (gate/policy.py `served_next`) is told, and only it:
-- one message per freed slot, read by the one waiter it names.
local function gate_wake(slots, reserve)
  local in_use = redis.call('ZCARD', KEYS[1])
  local served = served_next(slots, in_use, reserve, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]))
  if not served then
    return
  end
  local _, queue = gate_keys(served)
  local head = redis.call('ZRANGE', queue, 0, 0)
  if head[1] then
    redis.call('PUBLISH', KEYS[10], head[1])
  end
end

-- The Lua twin of gate/fairness.py: attained service per visitor, kept as time-invariant scores
-- log2(service s + FLOOR) + t / half-life (t and the half-life in ms here, on Redis's clock), in a
-- hash visitor -> score; a sorted set visitor -> when last seen (ms) tells who is active.
local FAIR_FLOOR = 0.001
local FAIR_LN2 = math.log(2)

local function fair_fmt(score)
  return string.format('%.17g', score)
end

local function fair_score_of(service_s, t, half_ms)
  return math.log(service_s + FAIR_FLOOR) / FAIR_LN2 + t / half_ms
end

local function fair_service_of(score, t, half_ms)
  local service = 2 ^ (score - t / half_ms) - FAIR_FLOOR
  if service < 0 then
    return 0
  end
  return service
end

-- The visitor's stored score, or that of no service yet.
local function fair_current(scores, visitor, half_ms)
  local stored = redis.call('HGET', scores, visitor)
  if stored then
    return tonumber(stored)
  end
  return fair_score_of(0, now, half_ms)
end

-- Forget a few visitors idle longer than forget_ms; both keys lapse when the whole gate is idle.
local function fair_keep(scores, seen, forget_ms)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', seen, '-inf', now - forget_ms, 'LIMIT', 0, 16)) do
    redis.call('HDEL', scores, gone)
    redis.call('ZREM', seen, gone)
  end
  redis.call('PEXPIRE', scores, forget_ms)
  redis.call('PEXPIRE', seen, forget_ms)
end

-- A call arrives: a visitor not seen within recent_ms starts level with the least served active one.
local function fair_arrive(scores, seen, visitor, half_ms, recent_ms, forget_ms)
  local score = fair_current(scores, visitor, half_ms)
  local last = redis.call('ZSCORE', seen, visitor)
  if not last or tonumber(last) < now - recent_ms then
    local least = nil
    for _, other in ipairs(redis.call('ZRANGEBYSCORE', seen, now - recent_ms, '+inf')) do
      if other ~= visitor then
        local stored = redis.call('HGET', scores, other)
        if stored and (least == nil or tonumber(stored) < least) then
          least = tonumber(stored)
        end
      end
    end
    if least and least > score then
      score = least
    end
  end
  redis.call('HSET', scores, visitor, fair_fmt(score))
  redis.call('ZADD', seen, now, visitor)
  fair_keep(scores, seen, forget_ms)
  return score
end

-- A slot held for held_ms comes back: add it to the visitor's decayed service.
local function fair_charge(scores, seen, visitor, held_ms, half_ms, forget_ms)
  local service = fair_service_of(fair_current(scores, visitor, half_ms), now, half_ms) + held_ms / 1000
  local score = fair_score_of(service, now, half_ms)
  redis.call('HSET', scores, visitor, fair_fmt(score))
  redis.call('ZADD', seen, now, visitor)
  fair_keep(scores, seen, forget_ms)
  return score
end

-- A waiter's member in a queue is "<32-hex waiter id>:<visitor>".
local function fair_waiter_id(member)
  return string.sub(member, 1, 32)
end

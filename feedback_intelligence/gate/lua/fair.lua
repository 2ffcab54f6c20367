-- The Lua twin of gate/fairness.py: attained service per visitor, kept as time-invariant scores
-- log2(service s + FLOOR) + t / half-life (t and the half-life in ms here, on Redis's clock), in a
-- hash visitor -> score; a sorted set visitor -> when last seen (ms) tells who is active, and
-- another visitor -> score finds the least served active one without reading every visitor.
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

-- Forget a few visitors idle longer than forget_ms; the keys lapse when the whole gate is idle.
local function fair_keep(scores, seen, active, forget_ms)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', seen, '-inf', now - forget_ms, 'LIMIT', 0, 16)) do
    redis.call('HDEL', scores, gone)
    redis.call('ZREM', seen, gone)
    redis.call('ZREM', active, gone)
  end
  redis.call('PEXPIRE', scores, forget_ms)
  redis.call('PEXPIRE', seen, forget_ms)
  redis.call('PEXPIRE', active, forget_ms)
end

-- The visitor was seen now with this score: `active` (visitor -> score) holds every visitor seen
-- recently, and possibly some that were not, dropped from its low end when they reach it.
local function fair_seen(seen, active, visitor, score)
  redis.call('ZADD', seen, now, visitor)
  redis.call('ZADD', active, fair_fmt(score), visitor)
end

-- The least score of a visitor other than `visitor` seen within recent_ms, or nil: amortised
-- O(log V), because a visitor no longer active is dropped once, when it is the least.
local function fair_least_active(seen, active, visitor, recent_ms)
  while true do
    local low = redis.call('ZRANGE', active, 0, 1, 'WITHSCORES')
    if not low[1] then
      return nil
    end
    local chosen = nil
    for i = 1, #low, 2 do
      local last = redis.call('ZSCORE', seen, low[i])
      if not last or tonumber(last) < now - recent_ms then
        redis.call('ZREM', active, low[i])
        chosen = false
        break
      end
      if low[i] ~= visitor then
        chosen = tonumber(low[i + 1])
        break
      end
    end
    if chosen then
      return chosen
    end
    if chosen == nil then
      return nil  -- only the visitor itself is active
    end
  end
end

-- A call arrives: a visitor not seen within recent_ms starts level with the least served active one.
local function fair_arrive(scores, seen, active, visitor, half_ms, recent_ms, forget_ms)
  local score = fair_current(scores, visitor, half_ms)
  local last = redis.call('ZSCORE', seen, visitor)
  if not last or tonumber(last) < now - recent_ms then
    local least = fair_least_active(seen, active, visitor, recent_ms)
    if least and least > score then
      score = least
    end
  end
  redis.call('HSET', scores, visitor, fair_fmt(score))
  fair_seen(seen, active, visitor, score)
  fair_keep(scores, seen, active, forget_ms)
  return score
end

-- A slot held for held_ms comes back: add it to the visitor's decayed service.
local function fair_charge(scores, seen, active, visitor, held_ms, half_ms, forget_ms)
  local service = fair_service_of(fair_current(scores, visitor, half_ms), now, half_ms) + held_ms / 1000
  local score = fair_score_of(service, now, half_ms)
  redis.call('HSET', scores, visitor, fair_fmt(score))
  fair_seen(seen, active, visitor, score)
  fair_keep(scores, seen, active, forget_ms)
  return score
end

-- How many slots a backend's pool admits against now. A fixed limit (floor 0) is the declared slots;
-- an adaptive one is the limit the replicas share (KEYS[12], a hash written only by limit_write.lua),
-- within its floor and the declared slots whatever the hash holds, and the floor before its first move.
local function gate_slots(declared, floor)
  if floor <= 0 then
    return declared
  end
  local shared = tonumber(redis.call('HGET', KEYS[12], 'limit'))
  if not shared then
    return floor
  end
  return math.max(floor, math.min(declared, shared))
end

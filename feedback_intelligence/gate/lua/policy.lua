-- The Lua twins of gate/policy.py, for the scripts that run inside Redis (priorities are the strings
-- 'interactive' and 'background'). tests/gate/test_policy.py runs one table through each pair.

local function admits(priority, slots, in_use, reserve, interactive_waiting)
  local free = slots - in_use
  if priority == 'interactive' then
    return free > 0
  end
  return free > reserve and interactive_waiting == 0
end

local function policy_room(priority, slots, in_use, reserve)
  local free = slots - in_use
  if priority ~= 'interactive' then
    free = free - reserve
  end
  if free < 0 then
    return 0
  end
  return free
end

local function may_take(priority, rank, slots, in_use, reserve, interactive_waiting)
  if not admits(priority, slots, in_use, reserve, interactive_waiting) then
    return false
  end
  return rank < policy_room(priority, slots, in_use, reserve)
end

-- Returns 'interactive', 'background' or false.
local function served_next(slots, in_use, reserve, interactive_waiting, background_waiting)
  if interactive_waiting > 0 and admits('interactive', slots, in_use, reserve, interactive_waiting) then
    return 'interactive'
  end
  if background_waiting > 0 and admits('background', slots, in_use, reserve, interactive_waiting) then
    return 'background'
  end
  return false
end

-- The admission rule of gate/slots.py `admits`, for the scripts that run inside Redis.
-- tests/gate/test_admits.py runs the same table of cases through both.
local function admits(priority, slots, in_use, reserve, interactive_waiting)
  local free = slots - in_use
  if priority == 'interactive' then
    return free > 0
  end
  return free > reserve and interactive_waiting == 0
end

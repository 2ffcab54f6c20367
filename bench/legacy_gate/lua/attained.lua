-- Every remembered visitor's decayed attained service, for the operator (and the tests).
-- KEYS[1] scores.  ARGV[1] half-life ms.  Returns {visitor, service as a string, ...}.
local out = {}
local pairs_ = redis.call('HGETALL', KEYS[1])
for i = 1, #pairs_, 2 do
  out[#out + 1] = pairs_[i]
  out[#out + 1] = fair_fmt(fair_service_of(tonumber(pairs_[i + 1]), now, tonumber(ARGV[1])))
end
return out

-- Put before every lease script. The clock is Redis's own (TIME), never a replica's, so leases
-- written by different machines compare on one clock.
local now_t = redis.call('TIME')
local now = tonumber(now_t[1]) * 1000 + math.floor(tonumber(now_t[2]) / 1000)

-- A lease set is a sorted set of lease id -> expiry (ms). The key itself lives exactly as long as
-- its last lease, so an idle client or gate leaves nothing behind.
local function expire_with_last_lease(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIREAT', key, last[2])
  end
end

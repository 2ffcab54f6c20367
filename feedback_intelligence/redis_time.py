"""Shared Lua for leases kept in Redis sorted sets (gate slots, per-client in-flight places).

Every script reads the clock from Redis itself (``TIME``), never from a replica, so leases written
by different machines compare on one clock.
"""

LUA_NOW_MS = """
local now_t = redis.call('TIME')
local now = tonumber(now_t[1]) * 1000 + math.floor(tonumber(now_t[2]) / 1000)
"""

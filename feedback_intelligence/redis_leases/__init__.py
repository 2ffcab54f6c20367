"""Leases kept in Redis: the one primitive behind the gate's shared slots and the edge's in-flight places.

A lease set is a sorted set of lease id -> expiry in milliseconds, read on Redis's own clock. A holder
renews its leases every third of the lease (:class:`LeaseKeeper`) and releases them when done; a
replica that dies simply stops renewing, and its leases lapse within one lease time; a release Redis
could not take while away is sent again once it answers (:class:`GiveBacks`). The scripts are
``.lua`` files beside this module (:mod:`.scripts`).
"""

from feedback_intelligence.redis_leases.client import connect
from feedback_intelligence.redis_leases.giveback import GiveBacks
from feedback_intelligence.redis_leases.keeper import LeaseKeeper
from feedback_intelligence.redis_leases.scripts import ACQUIRE, RELEASE, RENEW, lua_script

__all__ = ["ACQUIRE", "RELEASE", "RENEW", "GiveBacks", "LeaseKeeper", "connect", "lua_script"]

"""The Lua scripts of the lease primitive, kept as ``.lua`` files and read once at import.

Every script is sent with ``lua/prelude.lua`` in front of it: Redis's clock as ``now`` and
``expire_with_last_lease``. A package may add scripts of its own from its own ``lua/`` folder
(the gate's admission does), built the same way with :func:`lua_script`.
"""

from __future__ import annotations

from importlib.resources import files

PRELUDE_PACKAGE = "feedback_intelligence.redis_leases"


def _read(package: str, name: str) -> str:
    return files(package).joinpath("lua", name).read_text(encoding="utf-8")


def lua_script(package: str, *names: str) -> str:
    """The prelude followed by the named ``lua/`` files of ``package``, in order."""
    return "\n".join([_read(PRELUDE_PACKAGE, "prelude.lua"), *(_read(package, name) for name in names)])


# KEYS[1] lease set.  ARGV: lease id, lease ms, limit.  1 when granted.
ACQUIRE = lua_script(PRELUDE_PACKAGE, "acquire.lua")
# KEYS[1] lease set.  ARGV: lease id, lease ms.  0 when the lease was already lost.
RENEW = lua_script(PRELUDE_PACKAGE, "renew.lua")
# KEYS[1] lease set, KEYS[2] optional channel to announce on.  ARGV: lease id.
RELEASE = lua_script(PRELUDE_PACKAGE, "release.lua")

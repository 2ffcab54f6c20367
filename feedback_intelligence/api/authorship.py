"""Who wrote an item: the ``author`` column (docs/data-model.md), named from the request, never its body.

- a signed-in person: ``account:<id>``;
- under ``FI_AUTH=none``, a browser with the desk's signed visitor key: ``visitor:<first 16 hex of
  SHA-256 of the key>`` (the key itself is a credential of sorts: it never reaches the database);
- anyone else (a program through the operator token or loopback): no author.

The same names identify the caller when a rule asks "is this their own entry" (``services/change_rule``)
and when the desk lists "my entries" (``GET /live/feedback?mine=true``). The value is never sent to a
page: the wire model has no author field, so a clerk never sees a colleague's id.
"""

from __future__ import annotations

import hashlib

from starlette.types import Scope

from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.edge.visitor import STATE_KEY as VISITOR_STATE_KEY

__all__ = ["author_of", "visitor_hash"]


def visitor_hash(visitor_key: str) -> str:
    """The 16 hex the author column and the audit log keep of a visitor key."""
    return hashlib.sha256(visitor_key.encode()).hexdigest()[:16]


def author_of(scope: Scope) -> str | None:
    principal = principal_of(scope)
    if principal is not None:
        return principal.author
    visitor = scope.get("state", {}).get(VISITOR_STATE_KEY)
    return f"visitor:{visitor_hash(visitor)}" if visitor else None

"""The signed-in person as the edge and the routes see them: an account and its role grants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from starlette.types import Scope

from feedback_intelligence.store.accounts import Grant, Person

__all__ = ["CHAIN", "ROLES", "STATE_KEY", "Grant", "Principal", "parse_grants", "principal_of"]

ROLES = ("clerk", "manager", "operator")
CHAIN = "*"  # a grant's store for the whole chain
STATE_KEY = "principal"


@dataclass(frozen=True)
class Principal:
    account_id: str
    username: str
    display_name: str
    grants: tuple[Grant, ...]
    #: What the CSRF token is bound to: the session's id hash, or the proxy's user.
    session_key: str

    @classmethod
    def of(cls, person: Person, session_key: str) -> Principal:
        return cls(person.account_id, person.username, person.display_name, person.grants, session_key)

    @property
    def roles(self) -> frozenset[str]:
        return frozenset(grant.role for grant in self.grants)

    def has(self, role: str, store: str | None = None) -> bool:
        """A grant of ``role`` for ``store`` (or the chain); ``store=None`` asks for the role anywhere."""
        return any(grant.role == role and (store is None or grant.store in (CHAIN, store)) for grant in self.grants)

    @property
    def author(self) -> str:
        """The item's ``author`` column for this person (docs/data-model.md)."""
        return f"account:{self.account_id}"


def principal_of(scope: Scope) -> Principal | None:
    """The person the edge's people layer found on this request, if any."""
    return cast(Principal | None, scope.get("state", {}).get(STATE_KEY))


def parse_grants(roles: list[str], stores: list[str]) -> tuple[Grant, ...]:
    """Roles × stores from claims or headers; an operator is always of the chain, others need a store."""
    grants: list[Grant] = []
    for role in dict.fromkeys(roles):
        if role not in ROLES:
            continue
        for store in [CHAIN] if role == "operator" else stores:
            grants.append(Grant(role, store))
    return tuple(dict.fromkeys(grants))

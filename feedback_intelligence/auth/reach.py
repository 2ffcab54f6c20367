"""Which items a person may touch, to read or to change (ADR 0035, amended by ADR 0041): the one rule.

A person's reach, for some roles, is the stores of their grants of those roles; a grant for ``*`` is the
chain (None: every store), and so are an operator and every caller when there are no accounts. An item
is within reach when its store is one of them; an item **without a store** is the chain's alone: a person
whose grants reach only some stores neither reads it nor changes nor erases it.

Everything that decides about one item calls :func:`reaches`: the routes of one item or case (through
``api/scope.StoreScope``) and the change rule (``services/change_rule.py``). Lists express the same rule
in SQL: they read one store the person reaches (``store = …`` never matches an item without one), or,
for the chain, everything.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.auth.principal import CHAIN, Principal

__all__ = ["reach", "reaches"]


def reach(principal: Principal | None, *, operator: bool, roles: Iterable[str]) -> frozenset[str] | None:
    """The stores the caller's grants of ``roles`` reach; None = every store (the chain)."""
    if principal is None or operator or principal.has("operator"):
        return None
    wanted = frozenset(roles)
    stores = frozenset(grant.store for grant in principal.grants if grant.role in wanted)
    return None if CHAIN in stores else stores


def reaches(stores: frozenset[str] | None, store: str | None) -> bool:
    """May a caller whose reach is ``stores`` touch an item of ``store``? An item without a store is the chain's."""
    return stores is None or (store is not None and store in stores)

"""Which stores a read answers for (issue 28, ADR 0035): the one place reads are narrowed by store.

A signed-in person reads the stores of their grants of the route's roles (the managers' routes count
manager grants, the desk's clerk and manager grants); a grant for ``*`` is the chain. A read that names
a store outside them is 403 ``store_forbidden`` (never an empty answer, which would read as "no
feedback"); one that names none reads the person's only store, and a person of several stores must
name one (400 ``store_required``). An operator, and every caller under ``FI_AUTH=none``, reads as asked.

Routes take the scope as a dependency: the managers' lists and reports ``manager_scope``, which reads
the ``store`` query parameter itself; a route of one item or case ``desk_reach`` / ``manager_reach``,
checking the item's store with :meth:`StoreScope.check`; the desk's list ``desk_reach`` with
:func:`narrow` (its ``mine=true`` needs no store). A test over the app's routes checks that every read
of the desk and the managers takes one. A desk save is held to the same stores (:func:`store_for_save`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Query, Request

from feedback_intelligence.api import validation as v
from feedback_intelligence.api.errors import InputError, StoreForbidden
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.auth.principal import CHAIN, Principal, principal_of
from feedback_intelligence.edge.surface import DESK, MANAGERS

__all__ = [
    "STORE_QUERY_HELP",
    "StoreScope",
    "desk_reach",
    "manager_reach",
    "manager_scope",
    "narrow",
    "reach",
    "store_for_save",
]

STORE_QUERY_HELP = (
    "Only this store's items (one of FI_STORES, or an id of FI_STORE_PATTERN). A person of one store "
    "reads only that store (the default); another store is 403 `store_forbidden`."
)


@dataclass(frozen=True)
class StoreScope:
    #: The stores the caller may read; None = every store (the chain).
    stores: frozenset[str] | None
    #: The store this read answers for: as asked, or the person's one store; None = all it may read.
    store: str | None

    @property
    def chain(self) -> bool:
        return self.stores is None

    def allows(self, store: str | None) -> bool:
        return self.stores is None or store in self.stores

    def check(self, store: str | None) -> None:
        """One item's (or case's) store: raises :class:`StoreForbidden` outside the scope."""
        if not self.allows(store):
            raise StoreForbidden(store)

    def require_chain(self) -> None:
        """Reads that answer for the whole chain at once (the saved snapshot, the audit log)."""
        if not self.chain:
            raise StoreForbidden(None)


def reach(principal: Principal | None, *, operator: bool, roles: frozenset[str]) -> frozenset[str] | None:
    """The stores the caller's grants of ``roles`` reach; None = every store."""
    if principal is None or operator or principal.has("operator"):
        return None
    stores = frozenset(grant.store for grant in principal.grants if grant.role in roles)
    return None if CHAIN in stores else stores


def narrow(stores: frozenset[str] | None, asked: str | None) -> StoreScope:
    """The read's store within ``stores``: as asked, or the only one; see the module's rules."""
    if stores is None:
        return StoreScope(None, asked)
    if asked is not None:
        if asked not in stores:
            raise StoreForbidden(asked)
        return StoreScope(stores, asked)
    if len(stores) == 1:
        return StoreScope(stores, next(iter(stores)))
    if not stores:
        raise StoreForbidden(None)
    names = ", ".join(sorted(stores))
    raise InputError([Problem(f"name one of your stores with store= ({names}).", "store_required", field="store")])


def store_for_save(stores: frozenset[str] | None, asked: str | None) -> str | None:
    """The store a person's save is for: the one named (the body's, or FI_DESK_STORE), which must be
    theirs (403 ``store_forbidden``), else their only store, else none (as without accounts)."""
    if stores is None:
        return asked
    if asked is not None:
        if asked not in stores:
            raise StoreForbidden(asked)
        return asked
    return next(iter(stores)) if len(stores) == 1 else None


def _reach_of(request: Request, roles: frozenset[str]) -> frozenset[str] | None:
    operator = request.app.state.edge.auth.is_operator(request.scope)
    return reach(principal_of(request.scope), operator=operator, roles=roles)


def _scope_for(roles: frozenset[str]) -> Callable[..., StoreScope]:
    def scope(request: Request, store: str | None = Query(None, description=STORE_QUERY_HELP)) -> StoreScope:
        unknown = v.store_errors(store, request.app.state.runtime.settings.chain.stores)
        if unknown:  # 400 store_unknown, as on every route that takes a store
            raise InputError(unknown)
        return narrow(_reach_of(request, roles), store)

    return scope


def _reach_for(roles: frozenset[str]) -> Callable[..., StoreScope]:
    def scope(request: Request) -> StoreScope:
        return StoreScope(_reach_of(request, roles), None)

    return scope


#: The managers' reads of many items, which take ``store=``. (The desk's list narrows with :func:`narrow`
#: itself: its ``mine=true`` reads one's own entries of any store.)
manager_scope = _scope_for(MANAGERS)
#: Reads and changes of one item or case: its store is checked with :meth:`StoreScope.check`.
desk_reach = _reach_for(DESK)
manager_reach = _reach_for(MANAGERS)

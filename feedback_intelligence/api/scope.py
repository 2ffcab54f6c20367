"""Which stores a read answers for and a write may touch (ADR 0035, amended by ADR 0041): the one place
routes are narrowed by store.

A signed-in person reads and changes the stores of their grants of the route's roles (the managers'
routes count manager grants, the desk's clerk and manager grants); a grant for ``*`` is the chain. An
item without a store is the chain's alone (``auth/reach.py`` holds the rule). A read that names a store
outside them is 403 ``store_forbidden`` (never an empty answer, which would read as "no feedback"); one
that names none reads the person's only store, and a person of several stores must name one (400
``store_required``). An operator, and every caller under ``FI_AUTH=none``, reads as asked.

Routes take the scope as a dependency: the managers' lists and reports ``manager_scope``, which reads
the ``store`` query parameter itself; a route of one item (GET, PATCH, DELETE of either channel) or case
``desk_reach`` / ``manager_reach`` with :func:`item_in_reach` / :func:`reached`, which check the item's
store; the desk's list ``desk_reach`` with :func:`narrow` (its ``mine=true`` needs no store, and keeps
the rows the caller reaches). A test over the app's routes checks that every read and write of the desk
and the managers takes one. A save, and a correction that moves an item, is for a store as a read is
(:func:`store_for_save`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request

from feedback_intelligence.api import validation as v
from feedback_intelligence.api.deps import RuntimeDep, is_operator
from feedback_intelligence.api.errors import InputError, NotFound, StoreForbidden
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.auth.reach import reach, reaches
from feedback_intelligence.config.stores import StoreDirectory
from feedback_intelligence.edge.surface import DESK, MANAGERS
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store.errors import Erased
from feedback_intelligence.store.feedback_store import FeedbackStore

__all__ = [
    "STORE_QUERY_HELP",
    "StoreScope",
    "desk_reach",
    "item_in_reach",
    "manager_reach",
    "manager_scope",
    "narrow",
    "reach",
    "reached",
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
        """An item of ``store`` is within the scope (``auth/reach.reaches``: none = the chain's)."""
        return reaches(self.stores, store)

    def check(self, store: str | None) -> None:
        """One item's (or case's) store: raises :class:`StoreForbidden` outside the scope."""
        if not self.allows(store):
            raise StoreForbidden(store)

    def require_chain(self) -> None:
        """Reads that answer for the whole chain at once (the saved snapshot, the audit log)."""
        if not self.chain:
            raise StoreForbidden(None)


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


def store_for_save(stores: frozenset[str] | None, asked: str | None, directory: StoreDirectory) -> str | None:
    """The store a save is for, and the store a correction moves an item to: one this deployment knows
    (FI_STORES or FI_STORE_PATTERN, else 400 ``store_unknown``) and, for a person, as a read's is
    (:func:`narrow`): the one named must be theirs (403 ``store_forbidden``), none named is their only
    store, and a person of several stores must name one (400 ``store_required``). An operator, and every
    caller under ``FI_AUTH=none``, saves for the store named, or for none (the chain's)."""
    unknown = v.store_errors(asked, directory)
    if unknown:
        raise InputError(unknown)
    return narrow(stores, asked).store


async def reached(store: FeedbackStore, feedback_id: str, scope: StoreScope) -> StoredFeedback | None:
    """The item ``feedback_id`` if the caller may touch it, None when there is no such item; one of
    another store (or without a store, for a person of some stores) is 403 ``store_forbidden``, before
    anything of it is answered."""
    item = await store.get(feedback_id)
    if item is not None:
        scope.check(item.store)
    return item


async def item_in_reach(
    store: FeedbackStore, feedback_id: str, scope: StoreScope, id_max_length: int
) -> StoredFeedback:
    """The one item a route reads, corrects or erases (GET, PATCH, DELETE of either channel): 400 a
    malformed id (before the database: no NUL reaches PostgreSQL), 404 none, 410 erased, 403 outside
    the caller's reach (:func:`reached`)."""
    problems = v.id_errors(feedback_id, id_max_length)
    if problems:
        raise InputError(problems)
    item = await reached(store, feedback_id, scope)
    if item is None:
        if await store.erased(feedback_id):
            raise Erased(feedback_id)
        raise NotFound(feedback_id)
    return item


def _reach_of(request: Request, roles: frozenset[str]) -> frozenset[str] | None:
    operator = is_operator(request)
    return reach(principal_of(request.scope), operator=operator, roles=roles)


def _scope_for(roles: frozenset[str]) -> Callable[..., StoreScope]:
    def scope(
        request: Request, rt: RuntimeDep, store: str | None = Query(None, description=STORE_QUERY_HELP)
    ) -> StoreScope:
        unknown = v.store_errors(store, rt.settings.chain.stores)
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
#: Reads and changes of one item or case: its store is checked by :func:`reached`.
desk_reach = _reach_for(DESK)
manager_reach = _reach_for(MANAGERS)

# The same, as parameter types: a route takes ``scope: ManagerScope`` rather than repeating ``Depends``.
ManagerScope = Annotated[StoreScope, Depends(manager_scope)]
DeskReach = Annotated[StoreScope, Depends(desk_reach)]
ManagerReach = Annotated[StoreScope, Depends(manager_reach)]

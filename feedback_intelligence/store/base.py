"""The store's base: a driver's error becomes the store's in one place, for every store class.

Every public coroutine method of a subclass of :class:`StoreBase` is wrapped when the class is made
(``__init_subclass__``, as the ``limits`` storage base wraps its methods with ``_wrap_errors``), so no
method is decorated by hand and none can be forgotten. The wrapper turns

* an error that says "the database is not there" (refused, reset, timed out, pool exhausted, server
  shutting down) into :class:`~feedback_intelligence.store.errors.StoreUnavailable`;
* one where the server answers and refuses the service (no such database, wrong password, no privileges)
  into :class:`~feedback_intelligence.store.errors.StoreAccessDenied`;
* one that says "no room left" into :class:`~feedback_intelligence.store.errors.StoreFull`, and records
  it on the channel's store (``storage_fault``) until a method named in ``proves_space`` succeeds;

and lets everything else through unchanged: the store's own refusals, and a bad query, which is a bug
and not an outage. Code kept beside a store as functions over it (``store/aggregates.py``,
``store/item_list.py``, the case service) reaches the database through :meth:`StoreBase.connection` and
:meth:`StoreBase.transaction`, which translate the same way.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.store.errors import ACCESS_DENIED, StoreAccessDenied, StoreError, StoreFull, StoreUnavailable

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S", bound="StoreBase")

SQLITE_FULL = 13


class StoreBase:
    """A store class over one channel database. Subclasses set ``name`` (the channel, for the errors'
    messages) and ``engine``; the channel's own store holds ``storage_fault``."""

    #: Methods whose success shows the database takes writes again (clears a recorded storage fault): the
    #: ones that add rows. A write that only rewrites pages it has (a queue claim or an outbox claim finding
    #: nothing, a counter tick, a lease renewal) proves no space came back, and background loops run those
    #: all the time: with them on this list a disk-full fault a save just met read "healthy" a moment later.
    proves_space: ClassVar[frozenset[str]] = frozenset()

    name: str
    engine: AsyncEngine
    #: Dates what the store writes (``updated_at``, a lease's expiry, a due time); the runtime's clock.
    clock: Clock = SYSTEM_CLOCK
    #: Why the last write failed for want of space (disk full), until a write succeeds again.
    storage_fault: str | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute, method in list(vars(cls).items()):
            if attribute.startswith("_") or not inspect.iscoroutinefunction(method):
                continue
            setattr(cls, attribute, _translated(method, proves_space=attribute in cls.proves_space))

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection]:
        """A connection of this store's database (no transaction begun), its errors translated."""
        with translating(self):
            async with self.engine.connect() as conn:
                yield conn

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A transaction of this store's database, committed when the block ends, its errors translated."""
        with translating(self):
            async with self.engine.begin() as conn:
                yield conn


class StoreView(StoreBase):
    """A room of one channel store's database (its outbox, its structure queue, its accounts): the same
    engine and name, and a storage fault met here is the store's (``/admin/status`` reads it there).
    It dates what it writes by its store's clock unless handed another."""

    def __init__(self, store: StoreBase, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = store.clock if clock is None else clock
        self.name = store.name
        self.engine = store.engine

    @property  # the store's attribute, read and written through the view
    def storage_fault(self) -> str | None:
        return self.store.storage_fault

    @storage_fault.setter
    def storage_fault(self, fault: str | None) -> None:
        self.store.storage_fault = fault


@contextlib.contextmanager
def translating(owner: StoreBase, *, proves_space: bool = False) -> Iterator[None]:
    """The one translation: what the block raises, as the store's error (see the module's docstring)."""
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:
        if _is_storage_full(exc):
            owner.storage_fault = _short(exc)
            raise StoreFull(owner.name, _short(exc)) from exc
        denied = _access_denial(exc)
        if denied is not None:
            raise StoreAccessDenied(owner.name, _short(denied), ACCESS_DENIED[denied.sqlstate]) from exc
        if _is_unavailability(exc):
            raise StoreUnavailable(owner.name, _short(exc)) from exc
        raise
    if proves_space:
        owner.storage_fault = None


def _translated(
    method: Callable[Concatenate[S, P], Awaitable[T]], *, proves_space: bool
) -> Callable[Concatenate[S, P], Awaitable[T]]:
    @functools.wraps(method)
    async def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> T:
        with translating(self, proves_space=proves_space):
            return await method(self, *args, **kwargs)

    return wrapper


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and everything it wraps: the driver's error under SQLAlchemy's, its cause, its context."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen):
        seen.append(current)
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return seen


def _is_storage_full(exc: BaseException) -> bool:
    """Does ``exc`` (or anything it wraps) say "no room left" rather than "not there" or "bad query"?"""
    for current in _chain(exc):
        if getattr(current, "sqlite_errorcode", None) == SQLITE_FULL or "database or disk is full" in str(current):
            return True
        if getattr(current, "sqlstate", None) == "53100":  # PostgreSQL disk_full (asyncpg DiskFullError)
            return True
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            return True
    return False


def _access_denial(exc: BaseException) -> Any:
    """The driver's error when the server answered "not you, not here" (a SQLSTATE of ACCESS_DENIED), else None."""
    for current in _chain(exc):
        if getattr(current, "sqlstate", None) in ACCESS_DENIED:
            return current
    return None


def _is_unavailability(exc: BaseException) -> bool:
    """Does ``exc`` (or anything it wraps) say "the database is not there", rather than "bad query"?"""
    try:
        import asyncpg.exceptions as pg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        pg = None
    for current in _chain(exc):
        if isinstance(current, OSError | PoolTimeout | OperationalError | InterfaceError):
            return True  # refused, reset, timed out (TimeoutError is an OSError), pool exhausted
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if pg is not None and isinstance(
            current,
            pg.PostgresConnectionError | pg.OperatorInterventionError | pg.TooManyConnectionsError | pg.InterfaceError,
        ):
            return True  # connection lost, server shutting down or starting up, no connection slots
    return False


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:200]

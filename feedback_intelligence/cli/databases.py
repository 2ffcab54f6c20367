"""The service's two databases as commands see them, and the one line a database fault becomes.

``serve`` and ``feedctl migrate`` reach the channel databases through
here, so a database that is down, missing, refusing the password or the role's privileges reads the same
everywhere: one line naming the variable to change and the fix, exit 3 (:data:`ExitCode.CANNOT_START`).
"""

from __future__ import annotations

import asyncio
import getpass
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.engine import make_url

from feedback_intelligence.cli import failures
from feedback_intelligence.config import Settings, StorageSettings
from feedback_intelligence.store.errors import NewerSchema, StoreAccessDenied, StoreUnavailable
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.revisions import Revisions

T = TypeVar("T")

_VARIABLES = StorageSettings.variables()


@dataclass(frozen=True, slots=True)
class Database:
    channel: str  # corpus | live: the store's name in the service's messages
    variable: str  # the setting that names it
    url: str


def databases(settings: Settings) -> tuple[Database, Database]:
    """The corpus and the live database (the accounts, sessions and audit rows live in the live one)."""
    storage = settings.storage
    return (
        Database("corpus", _VARIABLES["database_url"], storage.database_url),
        Database("live", _VARIABLES["live_database_url"], storage.live_database_url),
    )


def fault_line(database: Database, exc: StoreUnavailable | NewerSchema, doing: str) -> str:
    """The one line for a database fault: what happened, the variable, the fix. Never the URL's password."""
    if isinstance(exc, NewerSchema):
        return (
            f"{doing}: the {database.channel} database ({database.variable}) is at schema revision {exc.revision}, "
            f"newer than this release's {exc.head}: a newer release migrated it; run that release, or restore "
            "the backup taken before the upgrade (docs/operations/backups.md)"
        )
    url = make_url(database.url)
    host, port, name = url.host or "localhost", url.port or 5432, url.database
    role = url.username or getpass.getuser()  # no user in the URL: the driver connects as the OS user
    where = f"{host}:{port}"
    var = database.variable
    what = f"{doing}: the {database.channel} database"
    if isinstance(exc, StoreAccessDenied):
        if exc.kind == "no-database":
            return (
                f'{what} "{name}" does not exist on {where} ({var}); create it (createdb -h {host} -p {port} '
                f"-O {role} {name}) or correct the database name in {var}"
            )
        if exc.kind == "password":
            return f'{what} refused the password of role "{role}" ({var}); correct the password in {var}'
        if exc.kind == "privileges":
            return (
                f'{what} "{name}" refuses role "{role}" ({exc.detail}) ({var}); make the role its owner (ALTER '
                f"DATABASE {name} OWNER TO {role}, and of its tables if they exist) or use the owner's role in {var}"
            )
        return (
            f'{what} on {where} refused role "{role}" ({exc.detail}) ({var}); create the role, allow it in '
            f"pg_hba.conf or correct the user in {var}"
        )
    return f"{what} cannot be reached ({exc.detail}); is it running, and does {var} name it?"


def on_each(settings: Settings, work: Callable[[FeedbackStore], Awaitable[T]], doing: str) -> list[tuple[Database, T]]:
    """``work`` on each channel's store in turn; a database fault is one line and exit 3 (:func:`fault_line`)."""

    async def each() -> list[tuple[Database, T]]:
        done: list[tuple[Database, T]] = []
        for database in databases(settings):
            store = FeedbackStore(database.url, name=database.channel)
            try:
                done.append((database, await work(store)))
            except (StoreUnavailable, NewerSchema) as exc:
                raise failures.CliError(fault_line(database, exc, doing), failures.ExitCode.CANNOT_START) from exc
            finally:
                await store.aclose()
        return done

    return asyncio.run(each())


def migrate_all(settings: Settings, doing: str) -> list[tuple[Database, Revisions]]:
    """Both databases brought to the head (safe twice; the store logs the revision each is at)."""
    return on_each(settings, FeedbackStore.migrate, doing)

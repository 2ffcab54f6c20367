"""A SQLite database at the migrations' head for a test, copied from one migrated once a process.

Migrating a fresh SQLite file costs 0.1–0.3 s (alembic's batch mode rebuilds tables with reflection),
and the unit tests started a few hundred apps and stores. A copy of the file the same migrations made is
the same database: the store's own ``migrate()`` still runs on it (and finds it at head). Tests of the
migrations themselves start from empty files and do not use this.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from feedback_intelligence.store.feedback_store import FeedbackStore


async def migrate(url: str) -> None:
    """The default filling: the migrations alone."""
    store = FeedbackStore(url)
    try:
        await store.migrate()
    finally:
        await store.aclose()  # the last connection closing folds the WAL into the file


@functools.cache
def _template(fill: Callable[[str], Awaitable[None]]) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fi-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "template.db"
    # A thread of its own: the callers run inside a test's event loop, which must not be re-entered.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, fill(f"sqlite+aiosqlite:///{path}")).result()
    return path


def migrated(path: Path, fill: Callable[[str], Awaitable[None]] = migrate) -> Path:
    """``path``, holding a database at the migrations' head unless a file is there already: a copy of the
    one ``fill`` (a module-level function, so that it is made once) made from an empty file, closing it."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(fill), path)
    return path


def migrated_url(directory: Path, name: str = "feedback.db", fill: Callable[[str], Awaitable[None]] = migrate) -> str:
    """:func:`sqlite_url <feedback_intelligence.devtools.databases.sqlite_url>` of a :func:`migrated` file."""
    return f"sqlite+aiosqlite:///{migrated(directory / name, fill)}"

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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from feedback_intelligence.store.feedback_store import FeedbackStore


@functools.cache
def _template() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fi-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "head.db"

    async def migrate() -> None:
        store = FeedbackStore(f"sqlite+aiosqlite:///{path}")
        try:
            await store.migrate()
        finally:
            await store.aclose()  # the last connection closing folds the WAL into the file

    # A thread of its own: the callers run inside a test's event loop, which must not be re-entered.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, migrate()).result()
    return path


def migrated(path: Path) -> Path:
    """``path``, holding an empty database at the migrations' head unless a file is there already."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(), path)
    return path


def migrated_url(directory: Path, name: str = "feedback.db") -> str:
    """:func:`sqlite_url <feedback_intelligence.devtools.databases.sqlite_url>` of a :func:`migrated` file."""
    return f"sqlite+aiosqlite:///{migrated(directory / name)}"

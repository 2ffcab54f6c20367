"""A consistent copy of a SQLite channel database through SQLite's online backup API, and its check.

The backup API copies the database as one snapshot while the service keeps writing to it (a write that
lands during the copy restarts it), WAL included; a file copy (``cp``) of a live WAL database may not open.
Used by ``feedctl backup`` and ``feedctl restore`` (docs/operations/backups.md).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Checked:
    """What a copy holds: ``PRAGMA integrity_check``'s answer, its schema revision, its feedback rows."""

    integrity: str
    revision: str | None
    feedback_rows: int

    @property
    def ok(self) -> bool:
        return self.integrity == "ok"


def copy(source: Path, target: Path) -> None:
    """``source`` copied to ``target`` as one consistent snapshot, through SQLite (never a half-written
    ``target``: a new file is written beside it and moved into place; an existing one is overwritten page
    by page under SQLite's own lock, so a restore never leaves a database and a stale WAL that disagree)."""
    # opened read-write (it only reads): a read-only open of a WAL database fails without its -shm file
    with closing(sqlite3.connect(_existing(source), uri=True)) as src:
        if target.exists():
            with closing(sqlite3.connect(target)) as dst:
                src.backup(dst)
            return
        draft = target.with_name(f".{target.name}.partial")
        draft.unlink(missing_ok=True)
        with closing(sqlite3.connect(draft)) as dst:
            src.backup(dst)
        os.replace(draft, target)


def check(path: Path) -> Checked:
    """Read ``path`` once: is it whole, which revision is it at, how many feedback rows does it hold. A file
    SQLite cannot read at all (not a database, encrypted, truncated) is not whole: its error is the answer."""
    try:
        return _check(path)
    except sqlite3.DatabaseError as exc:
        return Checked(str(exc), None, 0)


def _check(path: Path) -> Checked:
    with closing(sqlite3.connect(_existing(path), uri=True)) as db:
        integrity = "; ".join(str(row[0]) for row in db.execute("PRAGMA integrity_check"))
        tables = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        revision = (
            db.execute("SELECT version_num FROM alembic_version").fetchone() if "alembic_version" in tables else None
        )
        rows = db.execute("SELECT count(*) FROM feedback").fetchone()[0] if "feedback" in tables else 0
    return Checked(integrity, str(revision[0]) if revision else None, int(rows))


def _existing(path: Path) -> str:
    """A URI that opens ``path`` only if it is there (``mode=rw``): a missing file is an error, never made."""
    if not path.is_file():
        raise FileNotFoundError(2, "no such file", str(path))
    return f"{path.resolve().as_uri()}?mode=rw"

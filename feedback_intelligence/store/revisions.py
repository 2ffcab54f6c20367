"""Which migration a channel database is at, and the one way it is brought to the head.

The store's ``migrate()`` and ``feedctl migrate`` both come here: the revision before and after, so the
boot log and the command can name what was applied. Upgrading is safe twice (alembic applies nothing at
the head) and, on PostgreSQL, serialised between replicas by the advisory lock in ``migrations/env.py``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from feedback_intelligence.store.errors import NewerSchema

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


@dataclass(frozen=True, slots=True)
class Revisions:
    """A database's revision before and after an upgrade (or a look), and the code's head."""

    before: str | None  # None: an empty database, no migration applied yet
    after: str | None
    head: str

    @property
    def at_head(self) -> bool:
        return self.after == self.head

    @property
    def applied(self) -> bool:
        return self.before != self.after


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@cache
def head() -> str:
    """The newest revision this code ships (one head: the migrations are a line)."""
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None, "no migrations"
    return found


def current(connection: Connection) -> str | None:
    """The revision the database is at; None for a database no migration has touched. A revision this
    release does not ship raises :class:`NewerSchema` (alembic's own error would be a traceback)."""
    revision = MigrationContext.configure(connection).get_current_revision()
    if revision is not None and revision not in _known():
        raise NewerSchema(revision, head())
    return revision


@cache
def _known() -> frozenset[str]:
    return frozenset(script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions())


def look(connection: Connection) -> Revisions:
    revision = current(connection)
    return Revisions(before=revision, after=revision, head=head())


def upgrade(connection: Connection) -> Revisions:
    """Apply what is missing up to the head, in the connection's transaction."""
    before = current(connection)
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    return Revisions(before=before, after=current(connection), head=head())


def log_upgrade(channel: str, revisions: Revisions) -> None:
    """The boot log's line: which revision the channel's database is at, and what was applied."""
    if revisions.applied:
        log.info("%s database migrated from %s to %s (head)", channel, revisions.before or "empty", revisions.after)
    else:
        log.info("%s database at revision %s (head), nothing to apply", channel, revisions.after)

"""``feedctl migrate status`` and ``feedctl migrate upgrade``: each channel database's schema revision.

Run against the databases of this machine's settings (FI_DATABASE_URL, FI_LIVE_DATABASE_URL), not over
HTTP. The service upgrades at boot as well; the command is for doing it first, on purpose, and for
seeing where a database is before and after a release or a restore (docs/operations/backups.md).
"""

from __future__ import annotations

import typer

from feedback_intelligence.cli import databases
from feedback_intelligence.cli.failures import ExitCode
from feedback_intelligence.cli.output import JsonFlag, console, emit_json, key_value_table
from feedback_intelligence.config import load_settings
from feedback_intelligence.config.storage import sqlite_file
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.revisions import Revisions, head

migrate_app = typer.Typer(no_args_is_help=True, help="The databases' schema revisions (alembic): status, upgrade.")


def _show(done: list[tuple[databases.Database, Revisions]], json_output: bool) -> None:
    if json_output:
        emit_json(
            {
                d.channel: {"variable": d.variable, "before": r.before, "revision": r.after, "head": r.head}
                for d, r in done
            }
        )
        return
    rows = []
    for database, revisions in done:
        state = "head" if revisions.at_head else f"behind head {revisions.head}"
        applied = f", applied from {revisions.before or 'empty'}" if revisions.applied else ""
        rows.append((f"{database.channel} ({database.variable})", f"{revisions.after or 'empty'} ({state}{applied})"))
    console.print(key_value_table(rows))


async def _look(store: FeedbackStore) -> Revisions:
    path = sqlite_file(store.url)
    if path is not None and not path.exists():  # a look makes no file: a SQLite database not made yet is empty
        return Revisions(before=None, after=None, head=head())
    return await store.schema_revision()


@migrate_app.command("status")
def status(json_output: JsonFlag = False) -> None:
    """Each database's revision against the code's head, changing nothing. Exit 1 when one is behind."""
    done = databases.on_each(load_settings(), _look, "cannot read the revision")
    _show(done, json_output)
    if not all(revisions.at_head for _, revisions in done):
        raise typer.Exit(ExitCode.DEGRADED)


@migrate_app.command("upgrade")
def upgrade(json_output: JsonFlag = False) -> None:
    """Apply the migrations each database lacks, up to the head; safe twice (a database at head is left as is)."""
    _show(databases.migrate_all(load_settings(), "cannot migrate"), json_output)

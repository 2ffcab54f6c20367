"""``feedctl rollups rebuild``: refill the report's rollups of both channel databases from their rows.

Needed only when rows were written past the service (a restore, a ``COPY`` load, a hand edit): every
write of the service keeps the rollups itself, and migration 0010 fills them once. It runs against the
databases of this machine's settings, not over HTTP; writes wait while a database's refill runs (one
transaction each, ADR 0033), readers do not.
"""

from __future__ import annotations

import asyncio

import typer

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.output import JsonFlag, console, counts_table, emit_json, spinner
from feedback_intelligence.config import ConfigurationError, load_settings

rollups_app = typer.Typer(no_args_is_help=True, help="The report's rollups (feedback_daily, theme_daily, …).")


async def _rebuild(database_url: str, live_url: str) -> dict[str, dict[str, int]]:
    from feedback_intelligence.store.feedback_store import FeedbackStore

    done: dict[str, dict[str, int]] = {}
    for name, url in (("live", live_url), ("corpus", database_url)):
        store = FeedbackStore(url, name=name)
        try:
            await store.migrate()
            done[name] = await store.rebuild_rollups()
        finally:
            await store.aclose()
    return done


@rollups_app.command("rebuild")
def rebuild(json_output: JsonFlag = False) -> None:
    """Refill the rollups from the rows (after rows were written past the service)."""
    from feedback_intelligence.store.errors import StoreUnavailable

    try:
        settings = load_settings()
    except ConfigurationError as exc:
        raise CliError(str(exc), ExitCode.BAD_INPUT) from exc
    try:
        with spinner("rebuilding the rollups", quiet=json_output):
            done = asyncio.run(_rebuild(settings.storage.database_url, settings.storage.live_database_url))
    except StoreUnavailable as exc:
        message = f"rollups rebuild: the {exc.store} database cannot be reached ({exc.detail})"
        raise CliError(message, ExitCode.UNREACHABLE) from exc
    if json_output:
        emit_json({"rebuilt": done})
    else:
        rows = {f"{name} {table} rows": n for name, tables in done.items() for table, n in tables.items()}
        console.print(counts_table("rollups rebuild", rows))

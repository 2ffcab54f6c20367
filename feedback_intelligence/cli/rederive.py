"""``feedctl rederive``: write the derived columns of every stale row now, in the foreground.

It runs against the databases of this machine's settings (``FI_DATABASE_URL``, ``FI_LIVE_DATABASE_URL``,
``FI_DOMAIN``), not over HTTP: the same batches as the service's start-up pass, so running both at once
is safe (PostgreSQL's replicas skip each other's rows; SQLite's writer serialises).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.output import JsonFlag, console, counts_table, emit_json, spinner
from feedback_intelligence.config import ConfigurationError, load_settings


async def _rederive(database_url: str, live_url: str, domain_name: str, root: Path | None) -> dict[str, int]:
    from feedback_intelligence.derivation import DomainDeriver
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.store.feedback_store import FeedbackStore

    derive = DomainDeriver(load_domain(domain_name, root))
    done: dict[str, int] = {}
    for name, url in (("live", live_url), ("corpus", database_url)):
        store = FeedbackStore(url, name=name, derive=derive)
        try:
            await store.migrate()
            done[name] = await store.rederive_all()
        finally:
            await store.aclose()
    return done


def rederive(json_output: JsonFlag = False) -> None:
    """Re-derive the rows whose derived columns are missing or stale (after an upgrade or a lexicon change)."""
    from feedback_intelligence.domain.loader import DomainError
    from feedback_intelligence.store.errors import StoreUnavailable

    try:
        settings = load_settings()
    except ConfigurationError as exc:
        raise CliError(str(exc), ExitCode.BAD_INPUT) from exc
    try:
        with spinner("re-deriving stale rows", quiet=json_output):
            done = asyncio.run(
                _rederive(
                    settings.storage.database_url,
                    settings.storage.live_database_url,
                    settings.domain.name,
                    settings.domain.root,
                )
            )
    except DomainError as exc:
        raise CliError(f"rederive: FI_DOMAIN: {exc}", ExitCode.BAD_INPUT) from exc
    except StoreUnavailable as exc:
        message = f"rederive: the {exc.store} database cannot be reached ({exc.detail})"
        raise CliError(message, ExitCode.UNREACHABLE) from exc
    if json_output:
        emit_json({"rederived": done})
    else:
        console.print(counts_table("rederive", {f"{name} rows": n for name, n in done.items()}))

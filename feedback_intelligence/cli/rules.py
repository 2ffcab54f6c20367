"""``feedctl rules suggest``: keyword rules proposed from what people decided, and ``--accept ID`` to write
one into the domain's files (ADR 0065). Reads this machine's channel databases, not over HTTP; nothing in
the domain changes without the operator naming a suggestion, and the service reads the files at its next
start (the re-derivation pass then brings the stored rows to the new rules, ADR 0024)."""

from __future__ import annotations

import asyncio
from typing import Any

import typer
from rich.table import Table

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.output import JsonFlag, console, emit_json
from feedback_intelligence.config import ConfigurationError, load_settings

rules_app = typer.Typer(no_args_is_help=True, help="The domain's deterministic rules, learned from corrections.")

DEFAULT_DAYS = 31


async def _evidence(urls: dict[str, str], since: str) -> tuple[list[Any], list[Any]]:
    from feedback_intelligence.store.feedback_store import FeedbackStore

    choices: list[Any] = []
    judgements: list[Any] = []
    for name, url in urls.items():
        store = FeedbackStore(url, name=name)
        try:
            await store.migrate()
            found = await store.rule_evidence(since)
        finally:
            await store.aclose()
        choices += found[0]
        judgements += found[1]
    return choices, judgements


def _since(days: int) -> str:
    from datetime import UTC, datetime, timedelta

    from feedback_intelligence.instants.timestamps import format_instant

    return format_instant(datetime.now(UTC) - timedelta(days=days))


def _effect_text(suggestion: Any) -> str:
    def pct(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    return "; ".join(f"{e.figure} {pct(e.before)} → {pct(e.after)}" for e in suggestion.effects)


@rules_app.command("suggest")
def suggest(
    days: int = typer.Option(DEFAULT_DAYS, "--days", min=1, help="Read the decisions of the last N days."),
    min_evidence: int = typer.Option(3, "--min-evidence", min=2, help="Entries a suggestion needs at least."),
    accept: str | None = typer.Option(None, "--accept", help="Write this suggestion (its ID) into the domain's files."),
    json_output: JsonFlag = False,
) -> None:
    """Propose keyword rules from corrections that repeat (word → category, phrase → not an alert), each with
    its evidence and the labelled set's figures with and without it; --accept ID writes one."""
    from feedback_intelligence.domain.lexicon_edits import LexiconEditError
    from feedback_intelligence.domain.loader import DomainError, load_domain
    from feedback_intelligence.evaluation.rule_suggestions import (
        category_suggestions,
        not_alert_suggestions,
        with_effects,
    )
    from feedback_intelligence.store.errors import StoreUnavailable

    try:
        settings = load_settings()
        domain = load_domain(settings.domain.name, settings.domain.root)
    except (ConfigurationError, DomainError) as exc:
        raise CliError(str(exc), ExitCode.BAD_INPUT) from exc
    urls = {"live": settings.storage.live_database_url, "corpus": settings.storage.database_url}
    try:
        choices, judgements = asyncio.run(_evidence(urls, _since(days)))
    except StoreUnavailable as exc:
        message = f"rules suggest: the {exc.store} database cannot be reached ({exc.detail})"
        raise CliError(message, ExitCode.UNREACHABLE) from exc
    found = [
        *category_suggestions(choices, domain, min_evidence=min_evidence),
        *not_alert_suggestions(judgements, domain, min_evidence=min_evidence),
    ]
    if accept is not None:
        chosen = next((s for s in found if s.id == accept), None)
        if chosen is None or domain.directory is None:
            raise CliError(f"no suggestion {accept} in the last {days} days' decisions", ExitCode.BAD_INPUT)
        try:
            chosen.edit.apply(domain.directory)
            load_domain(settings.domain.name, settings.domain.root)  # the edited files still load
        except (LexiconEditError, DomainError) as exc:
            raise CliError(f"rules suggest: {exc}", ExitCode.BAD_INPUT) from exc
        where = domain.directory / chosen.edit.file
        if json_output:
            emit_json({"accepted": chosen.to_json(), "file": str(where)})
        else:
            console.print(f"accepted {chosen.id}: '{chosen.term}' → {chosen.target} written into {where}")
            console.print("restart the service to apply it (stored rows follow through the re-derivation pass)")
        return
    found = [with_effects(s, domain) for s in found]
    if json_output:
        emit_json({"suggestions": [s.to_json() for s in found]})
        return
    if not found:
        console.print(f"no rule to suggest from the last {days} days' decisions (at least {min_evidence} each)")
        return
    table = Table(show_header=True)
    for column in ("id", "rule", "evidence", "agreement", "labelled set (before → after)"):
        table.add_column(column)
    for s in found:
        rule = f"'{s.term}' → {s.target}" if s.kind == "category" else f"'{s.term}' is not {s.target}"
        table.add_row(s.id, rule, str(s.evidence), s.support, _effect_text(s))
    console.print(table)
    console.print("accept one with: feedctl rules suggest --accept ID")

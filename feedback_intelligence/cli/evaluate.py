"""``feedctl eval``: measure how right a service's interpretations are on a domain's labelled set.

Against a running service (``--url``, default ``FEEDCTL_URL``), or against one it starts itself with
``--backend``/``--model`` (a fresh process on a free port with empty SQLite stores, stopped afterwards),
so operators can compare backends and models on the same items.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.domain.loader import DomainError
from feedback_intelligence.evaluation.client import RunOptions
from feedback_intelligence.evaluation.dataset import CORRECTIONS_SPLIT, SCORED_FIELDS, EvalItem, EvalSetError, load_set

console = Console()
DEFAULT_URL = "http://127.0.0.1:8080"


@contextmanager
def target_service(
    url: str | None, backend: str | None, model: str | None, backend_url: str | None, domain: str
) -> Iterator[str]:
    """The URL to evaluate: the given one, or a service this command starts and stops."""
    if backend is None and model is None and backend_url is None:
        yield (url or os.environ.get("FEEDCTL_URL", DEFAULT_URL)).rstrip("/")
        return
    from feedback_intelligence.devtools.processes import app_server

    env = {"FI_DOMAIN": domain}
    for key, value in (("FI_LLM_BACKEND", backend), ("FI_LLM_MODEL", model), ("FI_LLM_BASE_URL", backend_url)):
        if value:
            env[key] = value
    console.print(f"starting a service: {', '.join(f'{k}={v}' for k, v in env.items())}")
    with app_server(env) as server:
        yield server.url


def run_eval(
    domain_name: str,
    split: str,
    url: str | None,
    backend: str | None,
    model: str | None,
    backend_url: str | None,
    concurrency: int | None,
    limit: int | None,
    items: list[EvalItem] | None = None,
) -> dict[str, Any]:
    """The set's ``split`` (or ``items``, already chosen) through the service, scored."""
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.evaluation.dataset import select
    from feedback_intelligence.evaluation.run import evaluate

    domain = load_domain(domain_name)
    if items is None:
        items = select(load_set(domain), split)
    if limit is not None:
        items = items[:limit]
    options = RunOptions(concurrency=concurrency, token=os.environ.get("FI_OPERATOR_TOKEN"))
    progress = Progress(
        TextColumn("[bold]interpreting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
        console=console,
    )
    with target_service(url, backend, model, backend_url, domain_name) as target, progress:
        task = progress.add_task("eval", total=len(items), note="")
        errors = 0

        def done(observation: Any) -> None:
            nonlocal errors
            errors += observation.error is not None
            progress.update(task, advance=1, note=f"[red]{errors} error(s)[/red]" if errors else "")

        return asyncio.run(evaluate(target, domain, split, options, done, items=items))


def eval_command(
    domain: str = typer.Option("retail", "--domain", help="Domain whose shipped set is run (domains/<name>/eval)."),
    split: str = typer.Option("all", "--split", help="dev, holdout or all (all also scores each part)."),
    url: str | None = typer.Option(None, "--url", help="Service to measure (default FEEDCTL_URL or :8080)."),
    backend: str | None = typer.Option(None, "--backend", help="Start a service with this backend instead."),
    model: str | None = typer.Option(None, "--model", help="Model for the started service (FI_LLM_MODEL)."),
    backend_url: str | None = typer.Option(None, "--backend-url", help="Backend URL for the started service."),
    concurrency: int | None = typer.Option(
        None, "--concurrency", min=1, help="Requests at once (default and ceiling: the gate's slots)."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N items of the split."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the full result (with each answer) here."),
    markdown_out: Path | None = typer.Option(None, "--markdown", help="Write the docs/benchmarks.md table here."),
    prior_only: bool = typer.Option(
        False,
        "--prior-only",
        help="Only the deterministic layer (alerts, the prior, keyword rules): no model, no service.",
    ),
    from_corrections: bool = typer.Option(
        False,
        "--from-corrections",
        help="Score against the chain's own corrected entries (their saved structure the gold) instead of the "
        "shipped set: read from this machine's databases, erased entries never; needs FI_EVAL_FROM_CORRECTIONS=true.",
    ),
    store: str | None = typer.Option(None, "--store", help="With --from-corrections: one store's entries only."),
    since: str | None = typer.Option(
        None, "--since", help="With --from-corrections: entries from this date or instant on (ISO-8601)."
    ),
    misses: str | None = typer.Option(
        None,
        "--misses",
        help="With --prior-only: list the dev items the alert stems miss or raise wrongly, plus the prior's "
        "mistakes on these comma-separated fields ('theme': a theme naming no gold topic; 'issue': the issue rule "
        "with the prior's type and category; 'alerts' for alerts only). Never holdout items.",
    ),
) -> None:
    """Run a labelled set through POST /interpret and report accuracy beside the baselines."""
    from feedback_intelligence.evaluation.render import markdown, render

    if split not in ("dev", "holdout", "all"):
        raise typer.BadParameter("must be dev, holdout or all", param_hint="--split")
    if misses is not None and not prior_only:
        raise typer.BadParameter("needs --prior-only", param_hint="--misses")
    if (store is not None or since is not None) and not from_corrections:
        raise typer.BadParameter("needs --from-corrections", param_hint="--store/--since")
    chosen = corrected_items(domain, store, since) if from_corrections else None
    if chosen is not None:
        split = CORRECTIONS_SPLIT
    if prior_only:
        deterministic_eval(domain, split, limit, json_out, markdown_out, misses, chosen)
        return
    try:
        result = run_eval(domain, split, url, backend, model, backend_url, concurrency, limit, chosen)
    except (EvalSetError, DomainError, LookupError, TimeoutError) as exc:
        raise CliError(str(exc)) from exc
    console.print(render(result))
    _print_prior_advice(result)
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    if markdown_out is not None:
        markdown_out.write_text(markdown(result), encoding="utf-8")
    if result["splits"][split]["errors"]:
        raise CliError(
            f"{result['splits'][split]['errors']} item(s) got no answer; the figures count them wrong",
            ExitCode.DEGRADED,
        )


def corrected_items(domain_name: str, store: str | None, since: str | None) -> list[EvalItem]:
    """The chain's corrected entries as items, from this machine's databases (evaluation/corrections.py)."""
    from feedback_intelligence.config import ConfigurationError, load_settings
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.evaluation.corrections import corrected_set
    from feedback_intelligence.instants.timestamps import normalize_bound
    from feedback_intelligence.store.errors import StoreUnavailable

    try:
        settings = load_settings()
    except ConfigurationError as exc:
        raise CliError(str(exc), ExitCode.BAD_INPUT) from exc
    if not settings.chain.eval_from_corrections:
        raise CliError(
            "the chain's corrected entries are not an evaluation set until the operator opts in: "
            "FI_EVAL_FROM_CORRECTIONS=true (their texts go to the backend measured)",
            ExitCode.BAD_INPUT,
        )
    from_ = None
    if since is not None:
        try:  # a date is its first instant, UTC
            from_ = normalize_bound(since + "T00:00:00Z" if len(since.strip()) == 10 else since)
        except ValueError as exc:
            raise typer.BadParameter("not an ISO-8601 date or instant", param_hint="--since") from exc
    urls = {"live": settings.storage.live_database_url, "corpus": settings.storage.database_url}
    try:
        found = asyncio.run(corrected_set(urls, load_domain(domain_name), store=store, since=from_))
    except StoreUnavailable as exc:
        raise CliError(
            f"eval: the {exc.store} database cannot be reached ({exc.detail})", ExitCode.UNREACHABLE
        ) from exc
    except DomainError as exc:
        raise CliError(str(exc)) from exc
    if found.skipped:
        console.print(f"{found.skipped} corrected entries left out: the domain no longer declares a value of theirs")
    if not found.items:
        raise CliError("no corrected entries to score" + (f" in store {store}" if store else ""), ExitCode.BAD_INPUT)
    console.print(f"{len(found.items)} corrected entries" + (f" of store {store}" if store else ""))
    return found.items


def _print_prior_advice(result: dict[str, Any]) -> None:
    """The FI_PRIOR_FIELDS line these figures recommend, as the last line a person reads."""
    from feedback_intelligence.evaluation.prior_advice import prior_fields_line, recommended_prior_fields

    advice = recommended_prior_fields(result)
    if advice is None:
        return
    split, fields = advice
    kept = [f for f in SCORED_FIELDS if f not in fields]
    console.print(
        f"Recommended for this model (from the {split} split: the prior takes each field where the model alone "
        f"does not beat it; the model keeps {', '.join(kept) or 'no field'}):"
    )
    console.print(prior_fields_line(fields), markup=False, highlight=False)


def deterministic_eval(
    domain_name: str,
    split: str,
    limit: int | None,
    json_out: Path | None,
    markdown_out: Path | None,
    misses: str | None,
    chosen: list[EvalItem] | None = None,
) -> None:
    """``feedctl eval --prior-only``: the alert and prior figures per split, computed in-process (on
    ``chosen`` when given: the corrected entries)."""
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.evaluation.dataset import select
    from feedback_intelligence.evaluation.offline import MISS_FIELDS, deterministic_result, dev_misses
    from feedback_intelligence.evaluation.render import markdown_deterministic, render_deterministic

    try:
        domain = load_domain(domain_name)
        items = (chosen if chosen is not None else select(load_set(domain), split))[:limit]
        fields = [f.strip() for f in (misses or "").split(",") if f.strip() and f.strip() != "alerts"]
        unknown = [f for f in fields if f not in MISS_FIELDS]
        if unknown:
            raise typer.BadParameter(f"not a scored field, theme or issue: {', '.join(unknown)}", param_hint="--misses")
        result = deterministic_result(items, domain, split)
        listed = dev_misses([i for i in items if i.split == "dev"], domain, fields) if misses is not None else []
    except (EvalSetError, DomainError) as exc:
        raise CliError(str(exc)) from exc
    console.print(render_deterministic(result))
    for miss in listed:
        console.print(f"[bold]{miss.item_id}[/bold] {miss.kind} {escape(miss.detail)}: {escape(miss.text)}")
    if misses is not None and split != "dev":
        console.print("(misses are listed for the dev part only; the holdout part is reported in aggregate)")
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    if markdown_out is not None:
        markdown_out.write_text(markdown_deterministic(result), encoding="utf-8")

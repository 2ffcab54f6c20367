"""feedctl commands that talk to a running service over HTTP (``FEEDCTL_URL``).

Failures are raised as :class:`~feedback_intelligence.cli.failures.CliError` and printed in one
place (:func:`feedback_intelligence.cli.failures.run`); exit codes are those of ``ExitCode``.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Group
from rich.markup import escape
from rich.table import Table

from feedback_intelligence.cli.failures import CliError, ExitCode, read_json_file
from feedback_intelligence.cli.http import base_url, body_of, client, send, server_errors
from feedback_intelligence.cli.import_file import as_cli_errors, read_csv_file, read_value_map
from feedback_intelligence.cli.jsonl import Line, read_items
from feedback_intelligence.cli.load_preview import report_dry_run
from feedback_intelligence.cli.output import (
    JsonFlag,
    PlainProgress,
    bar,
    console,
    counts_table,
    emit_json,
    key_value_table,
    progress_console,
    spinner,
)
from feedback_intelligence.cli.report_wait import alert_words, wait_for_prose
from feedback_intelligence.cli.report_words import Lang, direction, pick_lang, prose_origin, shop_time, word
from feedback_intelligence.imports.checks import bad_lines
from feedback_intelligence.imports.preview import label_hint, line_order, map_values
from feedback_intelligence.imports.rows import with_id
from feedback_intelligence.imports.values import ValueMapper

__all__ = ["base_url", "client"]  # imported by other feedctl modules


StoreOption = Annotated[
    str | None, typer.Option("--store", help="Only this store's items (an id of FI_STORES or FI_STORE_PATTERN).")
]


class Channel(StrEnum):
    corpus = "corpus"
    live = "live"


def _fail_on_refusal(response: httpx.Response, what: str) -> None:
    """A 4xx is the caller's input (exit 2); anything else not 2xx is the service's state (exit 1)."""
    if response.is_success:
        return
    code = ExitCode.BAD_INPUT if 400 <= response.status_code < 500 else ExitCode.DEGRADED
    raise CliError(f"{what}: {response.status_code} {server_errors(response)}", code)


def warm(
    wait_s: Annotated[float, typer.Option(min=0, help="How long to wait for /health to say ok.")] = 120.0,
    json_output: JsonFlag = False,
) -> None:
    """Load the model and keep it loaded, then wait until /health answers ok.

    Exit 0 when ready, 1 when the backend is down or not ready in time, 2 when the service cannot be reached.
    """
    started = time.monotonic()
    with client(timeout=max(30.0, wait_s)) as http:
        with spinner("loading the model", quiet=json_output):
            warmed = send(http, "POST", "/admin/warm")
        _fail_on_refusal(warmed, "warm")
        answer = body_of(warmed)
        readiness = answer.get("readiness") if isinstance(answer, dict) else None
        detail = answer.get("detail", "") if isinstance(answer, dict) else ""
        outcome = _wait_ready(http, readiness, started + wait_s, json_output)
    elapsed = round(time.monotonic() - started, 1)
    result = {
        "ready": outcome.ready,
        "readiness": outcome.readiness,
        "health": outcome.health,
        "detail": outcome.detail or detail,
        "seconds": elapsed,
    }
    backends = answer.get("backends") if isinstance(answer, dict) else None
    if backends:
        result["backends"] = backends
    if json_output:
        emit_json(result)
    elif outcome.ready:
        console.print(
            f"[green]ready[/green] in {elapsed:g} s · /health {outcome.health.get('status', '')} "
            f"({outcome.health.get('probe', '')})"
        )
    else:
        console.print(f"[red]not ready[/red] after {elapsed:g} s: {escape(outcome.reason)}")
    for row in backends or []:
        if row.get("readiness") != "ready":  # the pool serves, but this backend did not warm
            console.print(
                f"[yellow]backend {escape(str(row.get('name')))}[/yellow]: {row.get('readiness')} "
                f"{escape(str(row.get('detail') or ''))}"
            )
    if not outcome.ready:
        raise typer.Exit(int(ExitCode.DEGRADED))


class _Ready:
    def __init__(
        self, ready: bool, readiness: str | None, health: dict[str, Any], reason: str = "", detail: str = ""
    ) -> None:
        self.ready, self.readiness, self.health, self.reason, self.detail = ready, readiness, health, reason, detail


def _wait_ready(http: httpx.Client, readiness: str | None, deadline: float, quiet: bool) -> _Ready:
    """Poll /health until ok; stop at once when the backend is down (waiting cannot help then)."""
    health: dict[str, Any] = {}
    with spinner("waiting for /health", quiet=quiet):
        while True:
            if readiness == "down":
                detail = str(health.get("detail", "")) if health else ""
                return _Ready(
                    False, readiness, health, f"the LLM backend is down{': ' + detail if detail else ''}", detail
                )
            response = send(http, "GET", "/health")
            body = body_of(response)
            health = body if isinstance(body, dict) else {"status": str(body)}
            if response.status_code == 200:
                return _Ready(True, "ready", health)
            if time.monotonic() >= deadline:
                return _Ready(
                    False, readiness, health, f"/health still says {health.get('status')} ({health.get('probe', '')})"
                )
            time.sleep(1.0)
            state = send(http, "GET", "/admin/status")
            status = body_of(state)
            if isinstance(status, dict):
                readiness = status.get("backend", {}).get("readiness", readiness)


def interpret(
    text: Annotated[str, typer.Argument(help="The feedback text.")],
    json_output: JsonFlag = False,
) -> None:
    """Interpret one text (timed); stores nothing. Exit 1 when the model is busy or failed."""
    with client(timeout=130) as http:
        started = time.perf_counter()
        response = send(http, "POST", "/interpret", json={"text": text})
        elapsed_ms = (time.perf_counter() - started) * 1000
    if response.status_code == 400:
        raise CliError(f"interpret: {server_errors(response)}", ExitCode.BAD_INPUT)
    body = body_of(response)
    if json_output:
        emit_json({"httpStatus": response.status_code, "ms": round(elapsed_ms), "body": body})
    elif response.status_code == 200 and isinstance(body, dict):
        structure = body.get("structure") or {}
        rows = [
            (name, str(structure.get(name, "–")))
            for name in ("category", "theme", "severity", "type", "sentiment", "language")
        ]
        rows.append(("alerts", ", ".join(body.get("alertCategories", [])) or "–"))
        if body.get("failed"):
            rows.insert(0, ("result", "[yellow]the model's answer was unusable; fill in by hand[/yellow]"))
        console.print(f"[green]200[/green] in {elapsed_ms:.0f} ms")
        console.print(key_value_table(rows))
    else:
        console.print(
            f"[yellow]{response.status_code} in {elapsed_ms:.0f} ms[/yellow]: {escape(server_errors(response))}"
        )
    if response.status_code != 200 or (isinstance(body, dict) and body.get("failed")):
        raise typer.Exit(int(ExitCode.DEGRADED))


class FileFormat(StrEnum):
    auto = "auto"
    jsonl = "jsonl"
    csv = "csv"


DEFAULT_CHUNK = 500  # items a batch request carries (the service takes up to FI_BATCH_MAX_ITEMS, 1,000 by default)
DEFAULT_WRITERS = 1  # batch requests in flight; more help only with more service processes (docs/benchmarks.md)


def load(
    file: Annotated[
        Path | None,
        typer.Argument(
            help="JSONL file (one {source, text, …} object per line) or CSV file (--map); "
            "default: the packaged demo corpus."
        ),
    ] = None,
    channel: Annotated[Channel, typer.Option(help="corpus (/feedback) or live (/live/feedback).")] = Channel.corpus,
    later: Annotated[
        bool,
        typer.Option(
            "--later",
            help="Save every item now and let the background worker structure it (never shed): an import that "
            "never competes with the clerks for the model. Sent in batches (POST …/feedback/batch).",
        ),
    ] = False,
    file_format: Annotated[
        FileFormat, typer.Option("--format", help="jsonl or csv; auto: csv for a .csv file, else jsonl.")
    ] = FileFormat.auto,
    mapping: Annotated[
        str | None,
        typer.Option(
            "--map",
            help="CSV: which column holds which field, e.g. text=Palaute,timestamp=Aika,source=Kanava,store=Myymälä "
            "(a field left out is read from the column of its own name).",
        ),
    ] = None,
    delimiter: Annotated[str | None, typer.Option(help="CSV delimiter (default: found from the header).")] = None,
    encoding: Annotated[str | None, typer.Option(help="CSV encoding (default: UTF-8, else Windows-1252).")] = None,
    source: Annotated[str | None, typer.Option(help="CSV: the source of every row without a source column.")] = None,
    values: Annotated[
        Path | None,
        typer.Option(
            "--values",
            help='A JSON file mapping labels to values, e.g. {"source": {"Verkkolomake": "web_form"}}; store '
            "names of FI_STORES are mapped to their ids without it.",
        ),
    ] = None,
    naive_utc: Annotated[
        bool,
        typer.Option("--naive-utc", help="A time without an offset is UTC (default: the service's FI_TIMEZONE)."),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Read and map the whole file, say how many rows would be stored, the first problems and three "
            "mapped rows; send nothing.",
        ),
    ] = False,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="A backfill: store the rows in batches (as --later) and let none of them open a case or notify "
            "anyone, however recent.",
        ),
    ] = False,
    by_model: Annotated[
        bool,
        typer.Option(
            "--by-model",
            help="With --history: the model also structures the rows later, in the background (at background "
            "priority; `feedctl status` shows the time left). Without it a backfill keeps the rules' structures.",
        ),
    ] = False,
    store: Annotated[str | None, typer.Option("--store", help="The store of every item that names none.")] = None,
    chunk_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="Items per batch request (at most the service's FI_BATCH_MAX_ITEMS).")
    ] = DEFAULT_CHUNK,
    writers: Annotated[
        int,
        typer.Option(
            min=1,
            max=32,
            help="Batch requests in flight at once: one per service replica behind the load balancer (one "
            "service process gains nothing from a second: the batches share its one core).",
        ),
    ] = DEFAULT_WRITERS,
    progress_every: Annotated[
        float,
        typer.Option(min=0.1, help="Without a terminal (a log, a pipe): print a progress line this often (s)."),
    ] = 10.0,
    json_output: JsonFlag = False,
) -> None:
    """Load a JSONL or CSV file; 409 or `duplicate` counts as already there, 410 or `erased` as erased (an
    erased item's id is never stored again, nor is it a failure), 503 is retried.

    Items the model need not structure now (with --later, or each carrying an acceptedStructure) go in
    batches of --chunk-size, --writers of them in flight at once: each batch is one transaction, so it is
    stored whole or not at all, and its result names every refused item by its line. Other items are sent
    one by one, structured by the model. An item without an id gets one made from its line (the file's
    name, line number and text), so loading the same file again answers "already there" instead of
    storing it twice.

    Values are mapped first: labels by --values, store names of FI_STORES to ids,
    Finnish dates read, a time without an offset on the service's FI_TIMEZONE clock (--naive-utc: UTC).
    Every line is then checked against the service's own /schema (sources, taxonomy, text bounds):
    a file with bad lines is refused whole before anything is sent, each bad line named with its number;
    --dry-run says what would be stored and sends nothing. --history: a backfill, no case, nobody paged,
    the rules' structures kept (--by-model: the model structures them later, in the background).
    Exit 0 when every item is stored with a structure, 1 when some failed or were stored without one
    (`feedctl restructure` retries those of the live channel), 2 for a bad file or an unreachable service.
    """
    name = str(file) if file is not None else "demo corpus"
    if by_model and not history:
        raise CliError("--by-model is for --history (other imports are structured by the model anyway)")
    value_map = read_value_map(values)
    unread: list[str] | None = [] if dry_run else None  # a dry run reports the unreadable rows with the rest
    lines = _read_lines(file, file_format, mapping, delimiter, encoding, source, unread)
    if store is not None:
        lines = [line if "store" in line.item else Line(line.number, {**line.item, "store": store}) for line in lines]
    path = "/live/feedback" if channel is Channel.live else "/feedback"
    with client(timeout=300) as http:
        # A service that is down or a wrong FEEDCTL_URL is said in one line, before anything is sent.
        schema = send(http, "GET", "/schema")
    _fail_on_refusal(schema, "schema")
    if file is not None:  # the packaged corpus's values are the service's own
        with as_cli_errors():
            mapper = ValueMapper.of(value_map, body_of(schema), naive_utc)
        lines, mapping_bad = map_values(lines, mapper, name)
    else:
        mapping_bad = []
    if dry_run:
        if report_dry_run(name, lines, [*(unread or []), *mapping_bad], body_of(schema), json_output=json_output):
            raise typer.Exit(int(ExitCode.BAD_INPUT))  # as the load itself would refuse the file
        return
    bad = sorted([*mapping_bad, *bad_lines(lines, body_of(schema), name)], key=line_order)
    if bad:
        summary = [
            f"nothing was sent: {len(bad)} of {len(lines)} lines need fixing",
            *label_hint(lines, body_of(schema)),
        ]
        raise CliError("\n".join([*bad, *summary]))
    counts = {
        "created": 0,
        "saved for later": 0,
        "already there": 0,
        "erased": 0,
        "failed": 0,
        "stored without structure": 0,
    }
    failures: list[dict[str, Any]] = []
    progress = _load_progress(len(lines), counts, progress_every, quiet=json_output)
    batched = later or history or all(line.item.get("acceptedStructure") is not None for line in lines)
    with client(timeout=300) as http, progress:
        if batched:
            batches = _Batches(path, name, chunk_size, writers, history, by_model)
            _load_in_batches(http, batches, lines, counts, failures, progress, json_output)
        else:
            _load_one_by_one(http, path, lines, counts, failures, progress, json_output)
    if json_output:
        emit_json(
            {
                "channel": channel.value,
                "items": len(lines),
                "created": counts["created"],
                "savedForLater": counts["saved for later"],
                "alreadyThere": counts["already there"],
                "erased": counts["erased"],
                "failed": counts["failed"],
                "structureFailed": counts["stored without structure"],
                "batched": batched,
                "history": history,
                "byModel": by_model if history else True,
                "failures": failures,
            }
        )
    else:
        console.print(counts_table(f"load → {path}{'/batch' if batched else ''} ({len(lines)} items)", counts))
    if counts["failed"] or counts["stored without structure"]:
        raise typer.Exit(int(ExitCode.DEGRADED))


def _read_lines(
    file: Path | None,
    file_format: FileFormat,
    mapping: str | None,
    delimiter: str | None,
    encoding: str | None,
    source: str | None,
    bad: list[str] | None,
) -> list[Line]:
    """The file's rows; every bad one raised at once, or added to ``bad`` when given (a dry run)."""
    if file is None:
        return _demo_lines()
    as_csv = file_format is FileFormat.csv or (file_format is FileFormat.auto and file.suffix.lower() == ".csv")
    if not as_csv:
        if mapping or delimiter or encoding or source:
            raise CliError("--map, --delimiter, --encoding and --source are for CSV files (--format csv)")
        return read_items(file, bad)
    return read_csv_file(file, mapping=mapping, delimiter=delimiter, encoding=encoding, source=source, bad=bad)


@dataclass(frozen=True)
class _Batches:
    """How a file goes out in batches: where, named how, how many rows a batch, how many in flight, and
    whether it is history (its rows open no case and page nobody, ADR 0059) structured by the model later
    or by the rules alone (ADR 0063)."""

    path: str
    name: str
    chunk_size: int
    writers: int
    history: bool
    by_model: bool = False


def _load_in_batches(
    http: httpx.Client,
    batches: _Batches,
    lines: list[Line],
    counts: dict[str, int],
    failures: list[dict[str, Any]],
    progress: _BarProgress | PlainProgress,
    quiet: bool,
) -> None:
    """Each chunk is one batch request: one transaction on the service, a result per item. ``writers``
    requests are in flight at once, so replicas behind a load balancer store chunks side by side; results
    are counted in the file's order."""
    name, size = batches.name, batches.chunk_size
    chunks = [lines[start : start + size] for start in range(0, len(lines), size)]
    extra: dict[str, bool] = {"history": True, "byModel": batches.by_model} if batches.history else {}

    def post(chunk: list[Line]) -> httpx.Response:
        items = [with_id(name, line) for line in chunk]
        return _post_with_retry(http, f"{batches.path}/batch", {"items": items, **extra})

    done = 0
    with ThreadPoolExecutor(max_workers=batches.writers, thread_name_prefix="feedctl-load") as pool:
        sent = [pool.submit(post, chunk) for chunk in chunks]
        try:
            for chunk, future in zip(chunks, sent, strict=True):
                _count_results(future.result(), chunk, name, counts, failures, quiet)
                done += len(chunk)
                progress.advance(len(chunk))
        except BaseException as exc:
            for future in sent:
                future.cancel()  # nothing more is sent (also on Ctrl-C); what is in flight finishes
            if not isinstance(exc, CliError):
                raise
            raise CliError(
                f"{exc.message} — the first {done} of {len(lines)} items were answered before; loading the "
                "file again stores nothing twice",
                exc.code,
            ) from exc


def _count_results(
    response: httpx.Response,
    chunk: list[Line],
    name: str,
    counts: dict[str, int],
    failures: list[dict[str, Any]],
    quiet: bool,
) -> None:
    """One batch's answer into the counts: a refused batch stops the load, a refused item is a failure
    named by its line."""
    if not response.is_success:
        what = f"batch of lines {chunk[0].number}–{chunk[-1].number} (nothing of it was stored)"
        if response.status_code == 413:
            raise CliError(f"{what}: {server_errors(response)}; try a smaller --chunk-size", ExitCode.BAD_INPUT)
        _fail_on_refusal(response, what)
    body = body_of(response)
    results = body.get("results", []) if isinstance(body, dict) else []
    for line, result in zip(chunk, results, strict=False):
        status = result.get("status")
        if status == "created":
            counts["created"] += 1
        elif status == "accepted":
            counts["saved for later"] += 1
        elif status == "duplicate":
            counts["already there"] += 1
        elif status == "erased":
            counts["erased"] += 1
        else:
            counts["failed"] += 1
            error = "; ".join(result.get("errors") or [str(status)])
            failures.append({"line": line.number, "id": line.item.get("id"), "httpStatus": 200, "error": error})
            if not quiet:
                progress_console.print(f"[red]{escape(name)}:{line.number}: {escape(error)}[/red]")


def _load_one_by_one(
    http: httpx.Client,
    path: str,
    lines: list[Line],
    counts: dict[str, int],
    failures: list[dict[str, Any]],
    progress: _BarProgress | PlainProgress,
    quiet: bool,
) -> None:
    for index, line in enumerate(lines):
        try:
            outcome = _post_with_retry(http, path, line.item)
        except CliError as exc:
            raise CliError(f"{exc.message} — {index} of {len(lines)} items were sent before", exc.code) from exc
        if outcome.status_code == 201:
            counts["created"] += 1
            counts["stored without structure"] += bool(body_of(outcome).get("structureFailed"))
        elif outcome.status_code == 202:
            counts["saved for later"] += 1
        elif outcome.status_code == 409:
            counts["already there"] += 1
        elif outcome.status_code == 410:
            counts["erased"] += 1
        else:
            counts["failed"] += 1
            failures.append(
                {
                    "line": line.number,
                    "id": line.item.get("id"),
                    "httpStatus": outcome.status_code,
                    "error": server_errors(outcome),
                }
            )
            if not quiet:
                progress_console.print(
                    f"[red]{escape(line.label)}: {outcome.status_code} {escape(server_errors(outcome))}[/red]"
                )
        progress.advance(1)


class _BarProgress:
    """The Rich bar on a terminal, behind the same two calls as :class:`PlainProgress`."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.bar = bar("loading", quiet=quiet)
        self.total = total

    def __enter__(self) -> _BarProgress:
        self.bar.__enter__()
        self.task = self.bar.add_task("load", total=self.total)
        return self

    def advance(self, n: int) -> None:
        self.bar.advance(self.task, n)

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)


def _load_progress(total: int, counts: dict[str, int], every_s: float, *, quiet: bool) -> _BarProgress | PlainProgress:
    """A bar on a terminal; without one, plain lines at least every ``every_s`` (also with --json: on stderr)."""
    if progress_console.is_terminal:
        return _BarProgress(total, quiet)

    def extra() -> str:
        return " · ".join(f"{n} {name}" for name, n in counts.items() if n)

    return PlainProgress("load", total, every_s, extra)


def _demo_lines() -> list[Line]:
    from feedback_intelligence.demo.corpus import CorpusError, load_corpus

    try:
        items = load_corpus()
    except CorpusError as exc:
        raise CliError(f"the packaged demo corpus: {exc}") from exc
    return [Line(number, item) for number, item in enumerate(items, start=1)]


def _post_with_retry(http: httpx.Client, path: str, item: dict[str, Any], attempts: int = 20) -> httpx.Response:
    """A shed stores nothing, so the same item (same id) is simply sent again after Retry-After."""
    response = send(http, "POST", path, json=item)
    for _ in range(attempts):
        if response.status_code != 503:
            break
        time.sleep(min(10.0, float(response.headers.get("retry-after", "1"))))
        response = send(http, "POST", path, json=item)
    return response


def report(
    days: Annotated[int, typer.Option(min=1, max=92, help="Window length in days, ending now.")] = 30,
    snapshot: Annotated[bool, typer.Option("--snapshot", help="Also save it as the snapshot.")] = False,
    lang: Annotated[
        Lang | None, typer.Option("--lang", help="Language of the headings and words (default: the domain's).")
    ] = None,
    json_output: JsonFlag = False,
    wait: Annotated[bool, typer.Option("--wait", help="Follow the language model's summaries until written.")] = False,
    store: StoreOption = None,
) -> None:
    """Print the management report at once; --wait follows the summaries until they are written."""
    now = datetime.now(UTC)
    params = {"from": (now - timedelta(days=days)).isoformat(), "to": now.isoformat()}
    if store is not None:
        params["store"] = store
    if snapshot:
        params["snapshot"] = "true"
    with client(timeout=600) as http:
        with spinner("compiling the report", quiet=json_output):
            response = send(http, "GET", "/report", params=params)
        _fail_on_refusal(response, "report")
        if wait:  # the first answer is the deterministic report; its prose is written in the background
            body = wait_for_prose(
                lambda headers: send(http, "GET", "/report", params=params, headers=headers), response, console
            )
        else:
            body = body_of(response)
        chosen = pick_lang(lang, body.get("language") if isinstance(body, dict) else None)
        schema = {} if json_output else body_of(send(http, "GET", "/schema"))
    if json_output:
        emit_json(body)
    else:
        own = isinstance(schema, dict) and pick_lang(None, schema.get("language")) is chosen
        console.print(render_report(body, chosen, schema.get("sentimentLabels", {}) if own else {}))


def render_report(body: dict[str, Any], lang: Lang = Lang.en, sentiment_labels: dict[str, str] | None = None) -> Group:
    """The report for a terminal, every word in ``lang``; ``sentiment_labels``: the domain's, when it is ``lang``."""
    labels = sentiment_labels or {}
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    zone = body.get("timezone")
    head.add_row(
        word(lang, "window"),
        f"{shop_time(body['windowFrom'], zone)} – {shop_time(body['windowTo'], zone)} ({zone or 'UTC'})",
    )
    if body.get("store"):
        head.add_row(word(lang, "store"), escape(str(body["store"])))
    head.add_row(
        word(lang, "items"),
        f"{body['totalItems']} ({word(lang, 'without', n=body['structureFailedCount'])})"
        + (f" · {word(lang, 'truncated')}" if body.get("truncated") else ""),
    )
    head.add_row(
        word(lang, "sentiment"),
        ", ".join(f"{labels.get(k, k)} {v}" for k, v in body.get("sentimentCounts", {}).items()) or "–",
    )
    automatic = (body.get("llm") or {}).get("prose") == "automatic"  # the model writes no summaries here
    counters = word(
        lang,
        "llm_line",
        fallback=body["llmFallbackCount"],
        dropped=body["droppedClaimCount"],
        directive=body["actionDroppedCount"],
    )
    head.add_row(word(lang, "llm"), word(lang, "llm_automatic") if automatic else counters)
    alerts = Table(
        word(lang, "when"),
        word(lang, "source"),
        word(lang, "alert"),
        word(lang, "excerpt"),
        title=word(lang, "alerts", n=len(body["alerts"])),
        expand=True,
    )
    for alert in body["alerts"]:
        origin = alert_words(alert) or word(lang, "by_model", reason=alert.get("llmReason"))
        when = shop_time(alert["timestamp"], zone)
        alerts.add_row(when, alert["source"], escape(origin), escape(alert["textExcerpt"]))
    themes = Table(
        word(lang, "theme"),
        word(lang, "count"),
        word(lang, "trend"),
        word(lang, "by"),
        title=word(lang, "themes"),
        expand=True,
    )
    for theme in body["themes"][:6]:
        themes.add_row(escape(theme["title"]), str(theme["count"]), direction(lang, theme), prose_origin(lang, theme))
    return Group(head, alerts, themes)


def restructure(json_output: JsonFlag = False) -> None:
    """Re-structure live rows that lack a usable structure (background priority).

    Exit 1 when the LLM was busy (the pass stopped early; the work done so far is kept) or items failed.
    """
    with client(timeout=600) as http, spinner("re-structuring the live channel", quiet=json_output):
        response = send(http, "POST", "/live/restructure")
    body = body_of(response)
    if response.status_code not in (200, 503) or not isinstance(body, dict):
        _fail_on_refusal(response, "restructure")
        raise CliError(f"restructure: unexpected answer {response.status_code}", ExitCode.DEGRADED)
    counters = {key: int(body.get(key, 0)) for key in ("restructured", "failed", "skipped", "alertsUpdated", "total")}
    busy = response.status_code == 503
    if json_output:
        emit_json({**counters, "stoppedEarly": busy})
    else:
        if busy:
            console.print("[yellow]LLM busy — the pass stopped early; the work done so far is kept.[/yellow]")
        console.print(
            counts_table(
                "restructure (live channel)",
                {
                    "re-structured": counters["restructured"],
                    "still failed": counters["failed"],
                    "skipped": counters["skipped"],
                    "alerts updated": counters["alertsUpdated"],
                    "looked at": counters["total"],
                },
            )
        )
    if busy or counters["failed"]:
        raise typer.Exit(int(ExitCode.DEGRADED))


def verify(
    ground_truth: Annotated[Path | None, typer.Option(help="Ground-truth JSON; default: the demo corpus's.")] = None,
    report_file: Annotated[
        Path | None, typer.Option("--report", help="Report JSON; default: the saved snapshot.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Check that a saved report grounds each planted story of the demo corpus.

    Exit 0 when every story is found, 1 when one is not, 2 for unreadable data or an unreachable service.
    """
    from feedback_intelligence.demo.corpus import CorpusError, load_ground_truth
    from feedback_intelligence.demo.verify import exit_code, format_result, verify_report

    try:
        truth = load_ground_truth(ground_truth)
    except CorpusError as exc:
        raise CliError(str(exc)) from exc
    body = read_json_file(report_file) if report_file is not None else _saved_snapshot()
    result = verify_report(body, truth)
    if json_output:
        from dataclasses import asdict

        emit_json(asdict(result))
    else:
        console.print(format_result(result), markup=False)
    raise typer.Exit(exit_code(result))


def _saved_snapshot() -> Any:
    with client() as http:
        response = send(http, "GET", "/report/snapshot")
    if response.status_code != 200:
        raise CliError("no saved snapshot yet; run `feedctl report --snapshot` first", ExitCode.BAD_INPUT)
    return body_of(response)

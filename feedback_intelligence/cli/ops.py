"""feedctl commands that talk to a running service over HTTP (``FEEDCTL_URL``)."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import typer
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from feedback_intelligence.cli.report_wait import alert_words, prose_origin, wait_for_prose

console = Console()
DEFAULT_URL = "http://127.0.0.1:8080"


def base_url() -> str:
    return os.environ.get("FEEDCTL_URL", DEFAULT_URL).rstrip("/")


def client(timeout: float = 30.0) -> httpx.Client:
    headers = {}
    token = os.environ.get("FI_OPERATOR_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=base_url(), timeout=timeout, headers=headers)


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]{message}[/red]")
    return typer.Exit(1)


def _get_json(http: httpx.Client, path: str) -> tuple[int | None, Any]:
    try:
        response = http.get(path)
    except httpx.HTTPError as exc:
        return None, str(exc)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


def status_board() -> Panel:
    with client(timeout=15) as http:
        status_code, status = _get_json(http, "/admin/status")
        health_code, health = _get_json(http, "/health")
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    if status_code != 200 or not isinstance(status, dict):
        table.add_row("API", f"[red]not answering at {base_url()}[/red] ({status})")
        return Panel(table, title="feedctl status")
    backend, gate, channels = status["backend"], status["gate"], status["channels"]
    readiness_colour = {"ready": "green", "warming": "yellow"}.get(backend["readiness"], "red")
    table.add_row("API", f"[green]up[/green] at {base_url()} · domain {status['domain']}")
    table.add_row("Backend", f"{backend['kind']} · {backend.get('baseUrl') or 'in-process'}")
    table.add_row("Model", f"{backend['model']} · [{readiness_colour}]{backend['readiness']}[/{readiness_colour}]")
    in_use, slots = gate.get("inUse", "?"), gate["slots"]
    gate_state = "[green]healthy[/green]" if gate.get("healthy") else f"[red]unhealthy[/red] {gate.get('detail', '')}"
    table.add_row(
        "Gate",
        f"{in_use}/{slots} slots in use · waiting {gate.get('waitingInteractive', 0)} interactive, "
        f"{gate.get('waitingBackground', 0)} background · {gate_state}"
        + (" · shared via Redis" if gate.get("shared") else ""),
    )
    sheds = gate.get("shedsLastMinute", 0)
    table.add_row("Sheds (1 min)", f"[{'yellow' if sheds else 'green'}]{sheds}[/]")
    health_colour = "green" if health_code == 200 else "red"
    probe = health.get("probe", "") if isinstance(health, dict) else ""
    health_status = health.get("status", health) if isinstance(health, dict) else health
    table.add_row("/health", f"[{health_colour}]{health_code} {health_status}[/] ({probe})")
    for name, channel in channels.items():
        if channel.get("healthy", True):
            table.add_row(f"Rows: {name}", f"{channel['rows']} (version {channel['version']})")
        else:
            table.add_row(f"Rows: {name}", f"[red]store unreachable[/red] {channel.get('detail', '')}")
    return Panel(table, title="feedctl status", subtitle=datetime.now().strftime("%H:%M:%S"))


def status(watch: bool = typer.Option(False, "--watch", help="Refresh the board until Ctrl-C."),
           interval: float = typer.Option(2.0, help="Seconds between refreshes with --watch.")) -> None:
    """One board: backend, model, gate occupancy, sheds, /health and row counts."""
    if not watch:
        console.print(status_board())
        return
    with Live(status_board(), console=console, refresh_per_second=4) as live:
        try:
            while True:
                time.sleep(interval)
                live.update(status_board())
        except KeyboardInterrupt:
            pass


def warm(wait_s: float = typer.Option(120.0, help="How long to wait for /health to say ok.")) -> None:
    """Load the model and keep it loaded, then wait until /health answers ok."""
    with client(timeout=wait_s) as http:
        try:
            response = http.post("/admin/warm")
        except httpx.HTTPError as exc:
            raise _fail(f"API not answering at {base_url()}: {exc}") from exc
        console.print(f"warm: {response.status_code} {response.text}")
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            code, body = _get_json(http, "/health")
            if code == 200:
                console.print(f"[green]ready[/green]: {body}")
                return
            time.sleep(1.0)
    raise _fail(f"the model was not ready within {wait_s:g} s")


def interpret(text: str = typer.Argument(..., help="The feedback text.")) -> None:
    """Interpret one text (timed); stores nothing."""
    with client(timeout=130) as http:
        started = time.perf_counter()
        try:
            response = http.post("/interpret", json={"text": text})
        except httpx.HTTPError as exc:
            raise _fail(f"API not answering at {base_url()}: {exc}") from exc
        elapsed = time.perf_counter() - started
    console.print(f"{response.status_code} in {elapsed * 1000:.0f} ms")
    console.print_json(response.text)
    if response.status_code != 200:
        raise typer.Exit(1)


def load(
    file: Path | None = typer.Argument(None, help="JSONL corpus; default: the packaged demo corpus."),
    channel: str = typer.Option("corpus", help="corpus (/feedback) or live (/live/feedback)."),
) -> None:
    """Post a JSONL corpus item by item; 409 counts as already there, 503 is retried."""
    if file is None:
        from feedback_intelligence.demo.corpus import load_corpus

        items = load_corpus()
    else:
        items = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = "/live/feedback" if channel == "live" else "/feedback"
    counts = {"created": 0, "already": 0, "failed": 0, "structureFailed": 0}
    progress = Progress(TextColumn("[bold]loading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=console)
    with client(timeout=300) as http, progress:
        task = progress.add_task("load", total=len(items))
        for item in items:
            outcome = _post_with_retry(http, path, item)
            if outcome.status_code == 201:
                counts["created"] += 1
                counts["structureFailed"] += bool(outcome.json().get("structureFailed"))
            elif outcome.status_code == 409:
                counts["already"] += 1
            else:
                counts["failed"] += 1
                progress.console.print(f"[red]{item.get('id')}: {outcome.status_code} {outcome.text[:200]}[/red]")
            progress.advance(task)
    console.print(counts)
    if counts["failed"]:
        raise typer.Exit(1)


def _post_with_retry(http: httpx.Client, path: str, item: dict[str, Any], attempts: int = 20) -> httpx.Response:
    """A shed stores nothing, so the same item (same id) is simply sent again after Retry-After."""
    response = http.post(path, json=item)
    for _ in range(attempts):
        if response.status_code != 503:
            break
        time.sleep(min(10.0, float(response.headers.get("retry-after", "1"))))
        response = http.post(path, json=item)
    return response


def report(
    days: int = typer.Option(30, min=1, max=92, help="Window length in days, ending now."),
    snapshot: bool = typer.Option(False, "--snapshot", help="Also save it as the snapshot."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the language model's summaries (with progress)."),
) -> None:
    """Print the management report at once; --wait follows the summaries until they are written."""
    now = datetime.now(UTC)
    params = {"from": (now - timedelta(days=days)).isoformat(), "to": now.isoformat()}
    if snapshot:
        params["snapshot"] = "true"
    with client(timeout=600) as http:
        try:
            response = http.get("/report", params=params)
            if response.status_code != 200:
                raise _fail(f"report failed: {response.status_code} {response.text[:300]}")
            body = wait_for_prose(http, params, response, console) if wait else response.json()
        except httpx.HTTPError as exc:
            raise _fail(f"API not answering at {base_url()}: {exc}") from exc
    console.print(render_report(body))


def render_report(body: dict[str, Any]) -> Group:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("Window", f"{body['windowFrom'][:16]} – {body['windowTo'][:16]}")
    head.add_row("Items", f"{body['totalItems']} ({body['structureFailedCount']} without structure)"
                 + (" · TRUNCATED" if body.get("truncated") else ""))
    head.add_row("Sentiment", ", ".join(f"{k} {v}" for k, v in body.get("sentimentCounts", {}).items()) or "–")
    head.add_row("LLM", f"{body['llmFallbackCount']} fallback(s) · {body['droppedClaimCount']} ungrounded claim(s) "
                 f"dropped · {body['actionDroppedCount']} directive summary(ies) dropped")
    alerts = Table("when", "source", "alert", "excerpt", title=f"Alerts ({len(body['alerts'])})", expand=True)
    for alert in body["alerts"]:
        origin = alert_words(alert) or f"model: {alert.get('llmReason')}"
        alerts.add_row(alert["timestamp"][:16], alert["source"], origin, alert["textExcerpt"])
    themes = Table("theme", "n", "trend", "by", title="Top themes", expand=True)
    for theme in body["themes"][:6]:
        themes.add_row(theme["title"], str(theme["count"]), theme.get("directionLabel") or "–",
                       prose_origin(theme))
    return Group(head, alerts, themes)


def restructure() -> None:
    """Re-structure live rows that lack a usable structure (background priority)."""
    with client(timeout=600) as http:
        try:
            response = http.post("/live/restructure")
        except httpx.HTTPError as exc:
            raise _fail(f"API not answering at {base_url()}: {exc}") from exc
    if response.status_code == 503:
        console.print(f"[yellow]LLM busy — the pass stopped early; work done so far is kept:[/yellow] {response.text}")
        raise typer.Exit(1)
    if response.status_code != 200:
        raise _fail(f"restructure failed: {response.status_code} {response.text[:300]}")
    console.print(response.json())


def verify(
    ground_truth: Path | None = typer.Option(None, help="Ground-truth JSON; default: the demo corpus's."),
    report_file: Path | None = typer.Option(None, "--report", help="Report JSON; default: the saved snapshot."),
) -> None:
    """Check that a saved report grounds each planted story of the demo corpus."""
    from feedback_intelligence.demo.corpus import load_ground_truth
    from feedback_intelligence.demo.verify import exit_code, format_result, verify_report

    truth = load_ground_truth(ground_truth)
    if report_file is not None:
        body = json.loads(report_file.read_text(encoding="utf-8"))
    else:
        with client() as http:
            code, body = _get_json(http, "/report/snapshot")
        if code != 200:
            console.print(f"[red]no saved snapshot ({code}); run `feedctl report --snapshot` first[/red]")
            raise typer.Exit(2)
    result = verify_report(body, truth)
    console.print(format_result(result))
    raise typer.Exit(exit_code(result))

"""``feedctl status``: one board (backend, model, gate, sheds, /health, rows) and its exit code.

With ``--watch`` the board refreshes in place on a terminal; when stdout is not a terminal (a log, a
pipe, ``watch``-less cron) each refresh is one line, so the history stays readable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live
from rich.panel import Panel

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.http import base_url, body_of, client, send
from feedback_intelligence.cli.output import JsonFlag, console, emit_json, key_value_table
from feedback_intelligence.report.field_quality import percent


@dataclass(frozen=True)
class Snapshot:
    status: dict[str, Any]
    health_code: int
    health: Any
    corrections: dict[str, Any] | None = None  # GET /report/corrections (ADR 0065); None: not answered

    @property
    def exit_code(self) -> ExitCode:
        """1 when anything is unwell: /health not 200, the gate's store or a feedback store unreachable."""
        gate_ok = bool(self.status.get("gate", {}).get("healthy", True))
        stores_ok = all(c.get("healthy", True) for c in self.status.get("channels", {}).values())
        return ExitCode.OK if self.health_code == 200 and gate_ok and stores_ok else ExitCode.DEGRADED

    def to_json(self) -> dict[str, Any]:
        return {
            "url": base_url(),
            "status": self.status,
            "health": {"httpStatus": self.health_code, "body": self.health},
            "corrections": self.corrections,
        }


def take() -> Snapshot:
    with client(timeout=15) as http:
        status_response = send(http, "GET", "/admin/status")
        health_response = send(http, "GET", "/health")
        rates_response = send(http, "GET", "/report/corrections")
    status = body_of(status_response)
    rates = body_of(rates_response)
    if status_response.status_code != 200 or not isinstance(status, dict):
        raise CliError(
            f"/admin/status answered {status_response.status_code}: {str(status)[:200]}", ExitCode.UNREACHABLE
        )
    corrections = rates if rates_response.status_code == 200 and isinstance(rates, dict) else None
    return Snapshot(status, health_response.status_code, body_of(health_response), corrections)


def _health_text(snap: Snapshot) -> tuple[str, str]:
    health = snap.health if isinstance(snap.health, dict) else {}
    state = str(health.get("status", snap.health))
    probe = str(health.get("probe", ""))
    return state, probe


def _where(backend: dict[str, Any]) -> str:
    """A served model's address; the embedded engine's processes (it never runs inside the service)."""
    if backend.get("baseUrl"):
        return str(backend["baseUrl"])
    engines = len(backend.get("engines") or [])
    threads = backend.get("threadsPerEngine")
    each = f", {threads} thread{'s' if threads != 1 else ''} each" if threads else ""
    return f"llama.cpp in {engines} supervised engine process{'es' if engines != 1 else ''}{each}"


def _model_name(backend: dict[str, Any]) -> str:
    """A model file by its name (the full path is in /admin/status); a served model by what it is called."""
    model = str(backend.get("model", "?"))
    return Path(model).name if not backend.get("baseUrl") and "/" in model else model


def board(snap: Snapshot) -> Panel:
    status = snap.status
    backend, gate, channels = status["backend"], status["gate"], status["channels"]
    readiness_colour = {"ready": "green", "warming": "yellow"}.get(backend["readiness"], "red")
    in_use, slots = gate.get("inUse", "?"), gate["slots"]
    gate_state = "[green]healthy[/green]" if gate.get("healthy") else f"[red]unhealthy[/red] {gate.get('detail', '')}"
    if gate.get("stalled"):
        gate_state = (
            f"[red]stalled[/red]: every slot held {gate.get('newestHoldSeconds') or 0:.0f} s with no call "
            f"finished (threshold {gate.get('stallThresholdSeconds', '?')} s)"
        )
    sheds = gate.get("shedsLastMinute", 0)
    state, probe = _health_text(snap)
    health_colour = "green" if snap.health_code == 200 else "red"
    rows = [
        ("API", f"[green]up[/green] at {base_url()} · domain {status['domain']}"),
        ("Backend", f"{backend['kind']} · {_where(backend)}"),
        ("Model", f"{_model_name(backend)} · [{readiness_colour}]{backend['readiness']}[/{readiness_colour}]"),
        (
            "Gate",
            f"{in_use}/{slots} slots in use · waiting {gate.get('waitingInteractive', 0)} interactive, "
            f"{gate.get('waitingBackground', 0)} background · {gate_state}"
            + (" · shared via Redis" if gate.get("shared") else ""),
        ),
        *[
            (
                f"Backend {row['name']}",
                f"[{'green' if row['state'] == 'ok' else 'yellow' if row['state'] == 'warming' else 'red'}]"
                f"{row['state']}[/] · {row['inUse']}/{row['slots']} slots in use"
                + (f" · adaptive limit {row['slots']}" if row.get("adaptiveLimit") else "")
                + (" · yielding to another load on the GPU" if row.get("limitYields") else "")
                + (f" (last {row['limitReason']})" if row.get("limitReason") else "")
                + (f" · none freed for {row.get('newestHoldSeconds') or 0:.0f} s" if row["state"] == "stalled" else "")
                + (f" · {row.get('failuresInARow', 0)} failed calls in a row" if row.get("failuresInARow") else ""),
            )
            for row in gate.get("backends", [])
        ],
        *[(f"Engine {row['name']}", _engine_text(row)) for row in backend.get("engines") or []],
        ("Sheds (1 min)", f"[{'yellow' if sheds else 'green'}]{sheds}[/]"),
        ("Largest shares", _shares_text(gate.get("largestShares"))),
        ("/health", f"[{health_colour}]{snap.health_code} {state}[/] ({probe})"),
    ]
    for name, channel in channels.items():
        if channel.get("healthy", True):
            rows.append((f"Rows: {name}", f"{channel['rows']} (version {channel['version']})"))
        elif channel.get("fault") == "store_full":
            rows.append((f"Rows: {name}", f"{channel['rows']} [red]disk full, saves refused[/red] {channel['detail']}"))
        else:
            rows.append((f"Rows: {name}", f"[red]store unreachable[/red] {channel.get('detail', '')}"))
    rows.append(("Structure later", _backlog_text(status.get("structureLater"))))
    rows.append(("Notifications", _outbox_text(status.get("notify"))))
    rows.append(("Corrected (week)", _corrections_text(snap.corrections)))
    rows.extend((f"Corrected: {name}", text) for name, text in _backend_corrections(snap.corrections))
    return Panel(key_value_table(rows), title="feedctl status", subtitle=datetime.now().strftime("%H:%M:%S"))


def _engine_text(row: dict[str, Any]) -> str:
    """One embedded engine process: its state, memory and restarts, and while it is down, why."""
    colour = {"running": "green", "loading": "yellow", "restarting": "yellow"}.get(row["state"], "red")
    memory = f" · {row['rssBytes'] / 2**20:.0f} MiB" if row.get("rssBytes") else ""
    pid = f" · pid {row['pid']}" if row.get("pid") else ""
    restarts = f" · {row['restarts']} restart(s), last {row['lastExit']}" if row.get("restarts") else ""
    reason = f" · {row['reason']}" if row["state"] != "running" and row.get("reason") else ""
    return f"[{colour}]{row['state']}[/]{pid}{memory}{restarts}{reason}"


def _engines_line(backend: dict[str, Any]) -> str:
    engines = backend.get("engines") or []
    return "".join(f" {row['name']}={row['state']}/r{row['restarts']}" for row in engines)


def _shares_text(shares: list[dict[str, Any]] | None) -> str:
    """Who has held the slots most lately (decayed slot-seconds): the fair order serves them last."""
    if not shares:
        return "none yet"
    return " · ".join(f"{share['visitor']} {share['slotSeconds']:.1f} s" for share in shares)


def _backlog_text(later: dict[str, Any] | None) -> str:
    """Rows saved for later and not structured yet, per channel, with the oldest one's age."""
    if not later:
        return "not reported by this server"
    backlog = later.get("backlog")
    if backlog is None:
        return "[red]unknown[/red] (a store is unreachable)"
    parts = [
        f"{name} {b['items']} waiting"
        + (f", oldest {b['oldestAgeSeconds']:.0f} s{_time_left(b)}" if b["items"] else "")
        for name, b in backlog.items()
    ]
    worker = "" if later.get("worker", True) else " · [yellow]worker off on this replica[/yellow]"
    return " · ".join(parts) + worker


def _time_left(backlog: dict[str, Any]) -> str:
    """The estimate of the time left: rows waiting at the pace measured over the last ten minutes."""
    if "minutesLeft" not in backlog:
        return ""  # an older server
    if backlog["minutesLeft"] is None:
        return ", time left unknown (nothing structured in the last 10 min)"
    return f", {backlog['rowsPerMinute']:g} rows/min, about {backlog['minutesLeft']} min left"


def _outbox_text(notify: dict[str, Any] | None) -> str:
    """Outbox rows per channel database: waiting (with the oldest's age), failed, delivered."""
    if not notify:
        return "not reported by this server"
    if not notify.get("routes"):
        return "no routes configured (FI_NOTIFY_CHANNELS)"
    outbox = notify.get("outbox")
    if outbox is None:
        return "[red]unknown[/red] (a store is unreachable)"
    parts = []
    for name, o in outbox.items():
        failed = f", [red]{o['failed']} failed[/red]" if o.get("failed") else ""
        oldest = f", oldest {o['oldestPendingSeconds']:.0f} s" if o.get("pending") else ""
        parts.append(f"{name} {o['pending']} waiting{oldest}{failed}, {o['delivered']} delivered")
    worker = "" if notify.get("worker", True) else " · [yellow]worker off on this replica[/yellow]"
    return " · ".join(parts) + worker


def _rates(quality: dict[str, Any]) -> str:
    """``category 12 %, theme 31 %`` of one figure of the correction rates (fields with a saved proposal)."""
    return ", ".join(f"{f['field']} {percent(f['rate'])} %" for f in quality["fields"])


def _corrections_text(rates: dict[str, Any] | None) -> str:
    """This week's share of saved proposals whose field a person corrected, per field."""
    if rates is None:
        return "not reported by this server"
    week = rates["thisWeek"]
    if not week["saved"]:
        return "no entry saved from a proposal this week"
    return f"{week['saved']} saved from a proposal · " + _rates(week)


def _backend_corrections(rates: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The same per backend and model (over the span read: this week)."""
    if rates is None:
        return []
    return [
        (f"{row['backend']} {row['model']}", f"{row['saved']} saved · " + _rates(row))
        for row in rates["byBackend"]
        if row["saved"]
    ]


def _corrections_line(rates: dict[str, Any] | None) -> str:
    if rates is None or not rates["thisWeek"]["saved"]:
        return ""
    week = rates["thisWeek"]
    fields = " ".join(f"{f['field']}={percent(f['rate'])}%" for f in week["fields"])
    return f" corrected[saved={week['saved']} {fields}]"


def _backlog_line(later: dict[str, Any] | None) -> str:
    backlog = (later or {}).get("backlog") or {}
    return " ".join(f"{name}={b['items']}/{b['oldestAgeSeconds']:.0f}s" for name, b in backlog.items())


def line(snap: Snapshot) -> str:
    """The board as one plain line, for a log."""
    status = snap.status
    backend, gate = status["backend"], status["gate"]
    state, _ = _health_text(snap)
    rows = " ".join(
        f"{name}={c['rows']}"
        if c.get("healthy", True)
        else (f"{name}={c['rows']}:disk-full" if c.get("fault") == "store_full" else f"{name}=unreachable")
        for name, c in status["channels"].items()
    )
    gate_state = "" if gate.get("healthy") else " gate-store=unreachable"
    gate_state += " gate=stalled" if gate.get("stalled") else ""
    gate_state += "".join(f" {row['name']}={row['state']}" for row in gate.get("backends", []) if row["state"] != "ok")
    return (
        f"{_now()} api=up model={backend['model']} readiness={backend['readiness']}{_engines_line(backend)} "
        f"gate={gate.get('inUse', '?')}/{gate['slots']} waiting={gate.get('waitingInteractive', 0)}"
        f"+{gate.get('waitingBackground', 0)} sheds1m={gate.get('shedsLastMinute', 0)} "
        f"health={snap.health_code}:{state}{gate_state} rows[{rows}] "
        f"later[{_backlog_line(status.get('structureLater'))}]{_corrections_line(snap.corrections)}"
    )


def _now() -> str:
    return datetime.now().strftime("%H:%M:%S")


def status(
    watch: Annotated[
        bool, typer.Option("--watch", help="Refresh until Ctrl-C (one line per refresh when stdout is not a terminal).")
    ] = False,
    interval: Annotated[float, typer.Option(min=0.1, help="Seconds between refreshes with --watch.")] = 2.0,
    count: Annotated[int | None, typer.Option(min=1, help="With --watch: stop after this many refreshes.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """One board: backend, model, gate occupancy, sheds, /health and row counts.

    Exit 0 when /health is ok, 1 when the service answers but is unwell (/health 503, a store down),
    2 when the service cannot be reached.
    """
    if not watch:
        snap = take()
        if json_output:
            emit_json(snap.to_json())
        else:
            console.print(board(snap))
        raise typer.Exit(int(snap.exit_code))
    raise typer.Exit(int(_watch(interval, count, json_output)))


def _watch(interval: float, count: int | None, json_output: bool) -> ExitCode:
    """Refresh until Ctrl-C or ``count`` refreshes; the exit code is the last refresh's."""
    live = console.is_terminal and not json_output
    last = ExitCode.OK
    ticks = 0
    display = Live(console=console, refresh_per_second=4) if live else None
    try:
        if display is not None:
            display.start()
        while True:
            try:
                snap = take()
                last = snap.exit_code
                if display is not None:
                    display.update(board(snap))
                elif json_output:
                    console.out(_compact(snap.to_json()), highlight=False)
                else:
                    console.out(line(snap), highlight=False)
            except CliError as exc:
                last = exc.code
                message = f"{_now()} api=down {exc.message}"
                if display is not None:
                    display.update(Panel(f"[red]{message}[/red]", title="feedctl status"))
                elif json_output:
                    console.out(_compact({"url": base_url(), "error": exc.message}), highlight=False)
                else:
                    console.out(message, highlight=False)
            ticks += 1
            if count is not None and ticks >= count:
                return last
            time.sleep(interval)
    except KeyboardInterrupt:
        return last
    finally:
        if display is not None:
            display.stop()


def _compact(data: dict[str, Any]) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

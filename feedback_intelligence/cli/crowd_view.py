"""``feedctl crowd`` for a person: a progress bar while the crowd lasts, a table of what clerks felt,
or the same figures as JSON (``--json``). The crowd itself is :mod:`feedback_intelligence.cli.crowd`."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
from rich.progress import Progress
from rich.table import Table

from feedback_intelligence.cli.crowd import run_crowd
from feedback_intelligence.cli.failures import CliError, ExitCode, unreachable
from feedback_intelligence.cli.http import base_url, not_our_service
from feedback_intelligence.cli.output import bar, console, emit_json


def run_crowd_command(
    clerks: int,
    duration: float,
    think_min: float,
    think_max: float,
    seed: int | None,
    output: Path | None,
    json_output: bool,
    url: str | None = None,
) -> int:
    if think_min > think_max:
        raise CliError(f"--think-min ({think_min:g}) must not exceed --think-max ({think_max:g})")
    url = (url or base_url()).rstrip("/")
    try:
        livez = httpx.get(url + "/livez", timeout=10)
    except httpx.TransportError as exc:
        raise unreachable(url, exc) from exc
    if livez.status_code == 404:
        raise not_our_service(url, "/livez")
    try:
        livez.raise_for_status()
    except httpx.HTTPStatusError as exc:
        raise CliError(
            f"{url}/livez answered {exc.response.status_code}; is this a Feedback Intelligence service?",
            ExitCode.UNREACHABLE,
        ) from exc
    progress = bar(f"{clerks} clerks", quiet=json_output)
    with progress:
        result = asyncio.run(_with_progress(progress, url, clerks, duration, (think_min, think_max), seed))
    summary = result.summary()
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps({"summary": summary, "raw": asdict(result)}, indent=2), encoding="utf-8")
    if json_output:
        emit_json(summary)
    else:
        console.print(summary_table(summary))
    return int(ExitCode.DEGRADED if summary["otherErrors"] else ExitCode.OK)


async def _with_progress(
    progress: Progress, url: str, clerks: int, duration: float, think: tuple[float, float], seed: int | None
) -> Any:
    task = progress.add_task("crowd", total=round(duration))
    started = time.monotonic()

    async def tick() -> None:
        while True:
            progress.update(task, completed=min(round(duration), round(time.monotonic() - started)))
            await asyncio.sleep(0.5)

    ticker = asyncio.create_task(tick())
    try:
        return await run_crowd(url, clerks, duration, think, seed)
    finally:
        ticker.cancel()
        progress.update(task, completed=round(duration))


def summary_table(summary: dict[str, Any]) -> Table:
    table = Table(title=f"crowd: {summary['clerks']} clerks for {summary['durationS']} s", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")

    def ms(name: str) -> str:
        figures = summary[name]
        if not figures["n"]:
            return "–"
        return f"p50 {figures['p50']:.0f} · p90 {figures['p90']:.0f} · p99 {figures['p99']:.0f} ms (n={figures['n']})"

    fraction = summary["busySlotFraction"]
    rows = [
        ("presses", str(summary["presses"])),
        ("ended with a result", str(summary["results"])),
        ("ended with the busy message", str(summary["busyMessages"])),
        ("shed rate (per attempt)", f"{summary['shedRate']:.1%}"),
        ("throughput", f"{summary['throughputPerS']:.2f} results/s"),
        ("admitted latency", ms("admittedMs")),
        ("shed latency", ms("shedMs")),
        ("press latency (retries included)", ms("pressMs")),
        ("GPU (gate slots) busy", "–" if fraction is None else f"{fraction:.0%}"),
        ("other errors", ", ".join(f"{k}×{v}" for k, v in summary["otherErrors"].items()) or "none"),
    ]
    if summary.get("capped"):
        rows.append(("unfinished at the drain cap", str(summary["unfinished"])))
    for name, value in rows:
        table.add_row(name, value)
    return table

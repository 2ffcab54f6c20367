"""Shared bits of the benchmarks: percentiles, tables and result files."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary_ms(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 3),
        "p90": round(pct(values, 0.90), 3),
        "p99": round(pct(values, 0.99), 3),
        "n": len(values),
    }


def write_result(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def print_table(title: str, rows: list[tuple[str, str, str]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("measure", "value", "target", title=title)
    for row in rows:
        table.add_row(*row)
    Console(width=120).print(table)


def pf(ok: bool | None) -> str:
    """A target's verdict for a table: PASS, FAIL, or n/a where the run could not judge it."""
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def sim_pool_env(urls: list[str], *, slots: int, acquire_ms: int, first: int = 1, **extra: str) -> dict[str, str]:
    """The app's settings for a pool of sim-ollama backends (``FI_LLM_BACKENDS``), named gpu<first>...,
    each with ``slots`` slots; a long call deadline so only the gate's own timeout sheds."""
    backends = [
        {"name": f"gpu{i + first}", "kind": "ollama", "url": url, "model": "sim-model", "slots": slots}
        for i, url in enumerate(urls)
    ]
    return {
        "FI_LLM_BACKENDS": json.dumps(backends),
        "FI_LLM_ACQUIRE_TIMEOUT_MS": str(acquire_ms),
        "FI_LLM_CALL_TIMEOUT_S": "120",
        **extra,
    }

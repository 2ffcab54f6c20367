"""Save now, structure later under 8x overload: today's desk policy and the "save later" policy, side by side.

One run starts sim-ollama (2 parallel, 1.5 s per call, max-queue 8) and, one after the other, two app
processes in front of it, each facing the same crowd (40 clerks for 60 s, think times 1-6 s, the
same seed):

(a) today: the desk's 503 policy (two jittered retries, then "busy": the text is not saved);
(b) save later: an admitted interpretation is saved as the clerk's accepted structure; at the first
    shed the text is saved at once with ``structureLater`` (202) and the worker structures it later.
    ``FI_LLM_BACKGROUND_RESERVE=0`` so the worker may use every slot a clerk does not wait for.

A report generating during the crowd (target: the shed rate within 5 %) is measured, with and
without preemption, in bench/crowd_background.

After (b)'s crowd the bench measures the backlog's drain rate against the backend's capacity, then
SIGKILLs the app mid-drain, starts a fresh process on the same database and counts, once the backlog
is empty, that every saved press is a row and every row has a structure.

Run: .venv/bin/python -m bench.crowd_later [--clerks 40 --duration 60]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import pf, print_table, write_result
from feedback_intelligence.cli.crowd import CrowdResult, run_crowd
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama

PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
SIM_MAX_QUEUE = 8
TODAY = {"FI_LLM_SLOTS": str(PARALLEL), "FI_LLM_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_MS)}
LATER = {**TODAY, "FI_LLM_BACKGROUND_RESERVE": "0", "FI_STRUCTURE_LEASE_S": "5", "FI_STRUCTURE_POLL_S": "0.5"}
TARGETS = {
    "laterSavedP99MaxMs": 1500.0,
    "drainMinFraction": 0.90,
    "admittedP99MaxRatio": 1.10,
}


def backlog(app: ServerProcess) -> int:
    board = httpx.get(app.url + "/admin/status", timeout=30).json()["structureLater"]["backlog"]
    return int(board["live"]["items"])


def wait_backlog(app: ServerProcess, at_most: int, timeout_s: float) -> float:
    started = time.monotonic()
    while backlog(app) > at_most:
        if time.monotonic() - started > timeout_s:
            raise SystemExit(f"the backlog did not fall to {at_most} within {timeout_s} s")
        time.sleep(0.2)
    return time.monotonic()


def crowd(app: ServerProcess, clerks: int, duration_s: float, seed: int, later: bool) -> CrowdResult:
    return asyncio.run(
        run_crowd(app.url, clerks, duration_s, seed=seed, http_timeout_s=60.0, drain_timeout_s=600.0, later=later)
    )


def drain_and_kill(app: ServerProcess, env: dict[str, str], data: Path, saved_ids: list[str]) -> dict[str, Any]:
    """Drain rate over the first half of the backlog, SIGKILL, a fresh process finishes; then count."""
    start_items, started = backlog(app), time.monotonic()
    half = start_items // 2
    ended = wait_backlog(app, half, timeout_s=600)
    drained = start_items - backlog(app)
    rate = drained / (ended - started) if ended > started else 0.0
    app.kill()  # SIGKILL mid-drain: its claims are left to lapse
    killed_at = time.monotonic()
    with app_server(env, data_dir=data) as heir:
        wait_backlog(heir, 0, timeout_s=900)
        finished_s = time.monotonic() - killed_at
        rows = httpx.get(heir.url + "/live/feedback", params={"limit": 1000}, timeout=30).json()
    by_id = {r["id"]: r for r in rows}
    return {
        "backlogAtCrowdEnd": start_items,
        "drainedBeforeKill": drained,
        "drainRatePerS": round(rate, 3),
        "drainFraction": round(rate / (PARALLEL * 1000 / SERVICE_MS), 3),
        "afterKillFinishS": round(finished_s, 1),
        "savedPresses": len(saved_ids),
        "rowsFound": sum(1 for i in saved_ids if i in by_id),
        "rowsPending": sum(1 for r in rows if r["pending"]),
        "rowsWithoutStructure": sum(1 for r in rows if r["structure"] is None),
        "rowsStructureFailed": sum(1 for r in rows if r["structureFailed"]),
    }


def run(clerks: int, duration_s: float, seed: int) -> dict[str, Any]:
    common = {"FI_LLM_BACKEND": "ollama", "FI_LLM_MODEL": "sim-model", "FI_LLM_CALL_TIMEOUT_S": "120"}
    out: dict[str, Any] = {}
    with sim_ollama(parallel=PARALLEL, max_queue=SIM_MAX_QUEUE, service_ms=SERVICE_MS) as sim:
        env_today = {**common, "FI_LLM_BASE_URL": sim.url, **TODAY}
        with app_server(env_today) as app:
            out["today"] = crowd(app, clerks, duration_s, seed, later=False).summary()
        env_later = {**common, "FI_LLM_BASE_URL": sim.url, **LATER}
        data = Path(tempfile.mkdtemp(prefix="fi-bench-later-"))
        with app_server(env_later, data_dir=data) as app:
            result = crowd(app, clerks, duration_s, seed, later=True)
            out["later"] = result.summary()
            out["drain"] = drain_and_kill(app, env_later, data, result.saved_ids)
    return out


def evaluate(out: dict[str, Any]) -> dict[str, bool | None]:
    today, later, drain = out["today"], out["later"], out["drain"]
    later_p99 = later["laterSavedMs"]["p99"]
    return {
        "noPressUnsaved": later["unsaved"] == 0 and later["savedDirect"] + later["savedLater"] == later["presses"],
        "laterSavedP99": None if later_p99 is None else later_p99 <= TARGETS["laterSavedP99MaxMs"],
        "drainRate": (
            None
            if drain["backlogAtCrowdEnd"] < 10  # too few rows left to time a drain
            else drain["drainFraction"] >= TARGETS["drainMinFraction"]
        ),
        "admittedP99": (later["admittedMs"]["p99"] <= TARGETS["admittedP99MaxRatio"] * today["admittedMs"]["p99"]),
        "nothingLostAfterKill": (
            drain["rowsFound"] == drain["savedPresses"]
            and drain["rowsPending"] == 0
            and drain["rowsWithoutStructure"] == 0
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowd_later", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=40)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    out = run(args.clerks, args.duration, args.seed)
    verdicts = evaluate(out)
    path = write_result(
        "crowd_later",
        {
            "clerks": args.clerks,
            "durationS": args.duration,
            "seed": args.seed,
            "targets": TARGETS,
            "verdicts": verdicts,
            **out,
        },
    )
    t, lt, d = out["today"], out["later"], out["drain"]
    print_table(
        f"crowd_later: {args.clerks} clerks, {args.duration:g} s, sim {PARALLEL} x {SERVICE_MS} ms",
        [
            ("(a) today: presses / ending busy (text unsaved)", f"{t['presses']} / {t['busyMessages']}", ""),
            (
                "(a) today: admitted p50 / p99",
                f"{t['admittedMs']['p50']} / {t['admittedMs']['p99']} ms (n={t['admittedMs']['n']})",
                "",
            ),
            (
                "(b) later: presses / saved direct / saved later / unsaved",
                f"{lt['presses']} / {lt['savedDirect']} / {lt['savedLater']} / {lt['unsaved']}",
                f"unsaved 0  {pf(verdicts['noPressUnsaved'])}",
            ),
            (
                "(b) first press → saved, later path p50 / p99",
                f"{lt['laterSavedMs']['p50']} / {lt['laterSavedMs']['p99']} ms",
                f"p99 ≤ 1500 ms  {pf(verdicts['laterSavedP99'])}",
            ),
            (
                "(b) first press → saved, every press p50 / p99",
                f"{lt['savedMs']['p50']} / {lt['savedMs']['p99']} ms",
                "",
            ),
            (
                "(b) admitted p50 / p99",
                f"{lt['admittedMs']['p50']} / {lt['admittedMs']['p99']} ms (n={lt['admittedMs']['n']})",
                f"p99 ≤ 1.1 × (a)  {pf(verdicts['admittedP99'])}",
            ),
            (
                "backlog at crowd end; drain rate (share of capacity)",
                f"{d['backlogAtCrowdEnd']}; {d['drainRatePerS']}/s ({d['drainFraction']:.0%})",
                f"≥ 90 %  {pf(verdicts['drainRate'])}",
            ),
            (
                "SIGKILL mid-drain: rows found / saved; pending; without structure",
                f"{d['rowsFound']} / {d['savedPresses']}; {d['rowsPending']}; {d['rowsWithoutStructure']} "
                f"(failed {d['rowsStructureFailed']}; finished {d['afterKillFinishS']} s after the kill)",
                f"all, 0, 0  {pf(verdicts['nothingLostAfterKill'])}",
            ),
        ],
    )
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Background work during the crowd, with and without preemption (ADR 0017), side by side in one run.

One sim-ollama (2 parallel, 1.5 s per call, max-queue 8) and, one after the other, an app process per
phase in front of it, each facing the same crowd (today's desk policy: two jittered retries, then
"busy"; same seed, think times 1-6 s):

none        no background work at all;
drain-off   the structuring worker drains a preloaded backlog (rows saved "structure later" before the
            crowd) with ``FI_LLM_BACKGROUND_RESERVE=0``, preemption off (``FI_LLM_PREEMPT_MAX=0``);
drain-on    the same with preemption on (the default ``FI_LLM_PREEMPT_MAX=2``);
report-off  a manager watches report after report (a new window each time, so each one writes its
            prose in the background; the page's 1.5 s poll until no prose is pending), default
            reserve, preemption off;
report-on   the same with preemption on.

Per phase: the clerks' shed rate (of attempts) and admitted p50/p99, the background work done during
the crowd (rows structured, reports settled), preemptions (``fi_gate_preemptions_total``) and the
backend requests the sim saw cancelled.

Run: .venv/bin/python -m bench.crowd_background [--clerks 40 --duration 45 --phases none,drain-on,...]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.common import pf, print_table, write_result
from feedback_intelligence.cli.crowd import run_crowd
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from feedback_intelligence.domain.loader import load_domain

PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
SIM_MAX_QUEUE = 8
BACKLOG = 300  # rows saved for later before a drain phase: more than the backend can structure in the run
POLL_S = 1.5  # the management page's poll while prose is pending (ADR 0014)
REPORT_FROM = datetime(2026, 11, 1, tzinfo=UTC)
REPORT_TO = "2026-12-31T00:00:00Z"

BASE = {"FI_LLM_SLOTS": str(PARALLEL), "FI_LLM_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_MS)}
DRAIN = {"FI_LLM_BACKGROUND_RESERVE": "0", "FI_STRUCTURE_LEASE_S": "5", "FI_STRUCTURE_POLL_S": "0.5"}
PHASES: dict[str, dict[str, str]] = {
    "none": {},
    "drain-off": {**DRAIN, "FI_LLM_PREEMPT_MAX": "0"},
    "drain-on": {**DRAIN, "FI_LLM_PREEMPT_MAX": "2"},
    "report-off": {"FI_LLM_PREEMPT_MAX": "0"},
    "report-on": {"FI_LLM_PREEMPT_MAX": "2"},
}
# "Within 5 %" of the run without background work; near a zero baseline (a light crowd sheds nothing)
# a ratio means nothing, so one percentage point of attempts is allowed there.
TARGETS = {"shedRateMaxRatio": 1.05, "shedRateFloor": 0.01, "admittedP99MaxRatio": 1.10}


def backlog(app: ServerProcess) -> int:
    board = httpx.get(app.url + "/admin/status", timeout=30).json()["structureLater"]["backlog"]
    return sum(int(channel["items"]) for channel in board.values())


def preload_backlog(app: ServerProcess, rows: int) -> int:
    """Rows saved "structure later" (202) on the corpus channel: the worker's work during the crowd."""
    corpus = load_corpus()
    saved = 0
    with httpx.Client(base_url=app.url, timeout=30) as http:
        for n in range(rows):
            item = corpus[n % len(corpus)]
            body = {**item, "id": f"bg-{n}", "structureLater": True}
            saved += http.post("/feedback", json=body).status_code == 202
    return saved


def preload_corpus(app: ServerProcess) -> int:
    """The demo corpus saved with the rule-made structure as accepted (no LLM): what the reports read."""
    domain = load_domain("retail")
    stored = 0
    with httpx.Client(base_url=app.url, timeout=30) as http:
        for item in load_corpus():
            accepted = propose_structure(item["text"], domain).to_json()
            accepted.pop("sentiment", None)
            stored += http.post("/feedback", json={**item, "acceptedStructure": accepted}).status_code == 201
    return stored


def app_counters(app: ServerProcess) -> dict[str, float]:
    text = httpx.get(app.url + "/metrics", timeout=30).text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "fi_gate_preemptions_total":
                out[f"preempted:{sample.labels['route']}"] = sample.value
            elif sample.name == "fi_structure_later_total":
                out[f"worker:{sample.labels['outcome']}"] = sample.value
    return out


async def manager(app: ServerProcess, stop: asyncio.Event) -> list[dict[str, Any]]:
    """Report after report, each on a new window (10-minute steps: a new prose key), polled like the page."""
    reports: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
        for n in range(10_000):
            if stop.is_set():
                break
            params = {"from": (REPORT_FROM + timedelta(minutes=10 * n)).isoformat(), "to": REPORT_TO}
            started = time.perf_counter()
            body = (await http.get("/report", params=params)).json()
            while body["llm"]["status"] == "pending" and not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), timeout=POLL_S)
                except TimeoutError:
                    body = (await http.get("/report", params=params)).json()
            reports.append(
                {
                    "settled": body["llm"]["status"] != "pending",
                    "s": time.perf_counter() - started,
                    "calls": body["llm"].get("calls", 0),
                    "shed": body["llm"].get("shed", 0),
                    "stopped": body["llm"].get("stopped"),
                    "modelThemes": sum(
                        1 for t in body.get("themes", []) if t.get("prose", {}).get("status") == "model"
                    ),
                }
            )
    return reports


async def crowd_phase(app: ServerProcess, clerks: int, duration_s: float, seed: int, reports: bool) -> dict[str, Any]:
    stop = asyncio.Event()
    watcher = asyncio.create_task(manager(app, stop)) if reports else None

    async def at_deadline() -> None:
        stop.set()

    result = await run_crowd(
        app.url, clerks, duration_s, seed=seed, http_timeout_s=60.0, drain_timeout_s=600.0, at_deadline=at_deadline
    )
    out = result.summary()
    if watcher is not None:
        done = await watcher
        out["reports"] = {
            "started": len(done),
            "settled": sum(1 for r in done if r["settled"]),
            "withModelProse": sum(1 for r in done if r["modelThemes"]),
            "calls": sum(int(r["calls"] or 0) for r in done),
        }
    return out


def run_phase(sim: ServerProcess, name: str, clerks: int, duration_s: float, seed: int) -> dict[str, Any]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_CALL_TIMEOUT_S": "120",
        "FI_LLM_BASE_URL": sim.url,
        "FI_STRUCTURE_WORKER": "true" if name.startswith("drain") else "false",
        **BASE,
        **PHASES[name],
    }
    with app_server(env) as app:
        out: dict[str, Any] = {"env": PHASES[name]}
        if name.startswith("drain"):
            out["preloaded"] = preload_backlog(app, BACKLOG)
        if name.startswith("report"):
            out["corpus"] = preload_corpus(app)
        before = backlog(app)
        httpx.post(sim.url + "/sim/reset", timeout=10)
        out["crowd"] = asyncio.run(crowd_phase(app, clerks, duration_s, seed, reports=name.startswith("report")))
        sim_stats = httpx.get(sim.url + "/sim/stats", timeout=10).json()
        out["backlogBefore"], out["backlogAfter"] = before, backlog(app)
        out["counters"] = app_counters(app)
        out["sim"] = {k: sim_stats[k] for k in ("requestsSeen", "completed", "cancelled", "rejectedBusy")}
    return out


def evaluate(out: dict[str, Any]) -> dict[str, bool | None]:
    """The clerks with preemption on beside the run without background work: shed rate within 5 % (or
    one percentage point), admitted p99 within 10 %. ``None`` where a phase was not run."""
    base = out.get("none")
    verdicts: dict[str, bool | None] = {}
    for phase in ("drain-on", "report-on"):
        run = out.get(phase)
        if base is None or run is None:
            verdicts[f"{phase} shed rate"] = verdicts[f"{phase} admitted p99"] = None
            continue
        b, r = base["crowd"], run["crowd"]
        allowed = max(TARGETS["shedRateMaxRatio"] * b["shedRate"], b["shedRate"] + TARGETS["shedRateFloor"])
        verdicts[f"{phase} shed rate"] = r["shedRate"] <= allowed
        bp99, rp99 = b["admittedMs"]["p99"], r["admittedMs"]["p99"]
        verdicts[f"{phase} admitted p99"] = (
            None if bp99 is None or rp99 is None else rp99 <= TARGETS["admittedP99MaxRatio"] * bp99
        )
    return verdicts


def row(name: str, phase: dict[str, Any]) -> tuple[str, str, str]:
    c, counters, sim = phase["crowd"], phase["counters"], phase["sim"]
    preempted = sum(v for k, v in counters.items() if k.startswith("preempted:"))
    work = ""
    if "preloaded" in phase:
        work = f"; rows structured during the crowd {phase['backlogBefore'] - phase['backlogAfter']}"
    if "reports" in c:
        r = c["reports"]
        work = f"; reports settled {r['settled']}/{r['started']}, with model prose {r['withModelProse']}"
    return (
        name,
        f"presses {c['presses']}, ended busy {c['busyMessages']}; "
        f"shed {c['shedRate']:.3f}; admitted p50/p99 {c['admittedMs']['p50']}/{c['admittedMs']['p99']} ms "
        f"(n={c['admittedMs']['n']}); busy slots {c['busySlotFraction']}",
        f"preempted {int(preempted)}, sim cancelled {sim['cancelled']}{work}",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowd_background", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=40)
    parser.add_argument("--duration", type=float, default=45.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated, of: " + ", ".join(PHASES))
    args = parser.parse_args(argv)
    phases = [p for p in args.phases.split(",") if p]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        parser.error(f"unknown phase(s): {', '.join(unknown)}")
    out: dict[str, Any] = {}
    with sim_ollama(parallel=PARALLEL, max_queue=SIM_MAX_QUEUE, service_ms=SERVICE_MS) as sim:
        for name in phases:
            out[name] = run_phase(sim, name, args.clerks, args.duration, args.seed)
    verdicts = evaluate(out)
    path = write_result(
        "crowd_background",
        {
            "clerks": args.clerks,
            "durationS": args.duration,
            "seed": args.seed,
            "targets": TARGETS,
            "verdicts": verdicts,
            **out,
        },
    )
    rows = [row(name, out[name]) for name in phases]
    rows += [(f"verdict: {name}", "", pf(ok)) for name, ok in verdicts.items()]
    print_table(f"crowd_background: {args.clerks} clerks, {args.duration:g} s, sim {PARALLEL} x {SERVICE_MS} ms", rows)
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

"""The benchmarks cannot rot: each module imports and its cheapest piece runs on tiny inputs.

Behaviour only, never timing: figures belong to ``make bench`` on a quiet machine.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.gate.limit import LimitChange

BENCHES = [
    "gate_overhead",
    "ingest",
    "report",
    "crowd",
    "crowd_later",
    "crowd_background",
    "gate_redis",
    "quality",
    "crowd_gpus",
    "chain",
    "chain_sweep",
    "crowd_fair",
    "engine",
    "engine_build",
    "slowloris",
    "chain_scale",
    "chain_years",
    "bulk_import",
    "signin_burst",
    "batch_stall",
    "search_scale",
    "adaptive_limit",
    "interpret_cpu",
    "rules_cpu",
]


@pytest.fixture(scope="module")
def retail():
    return load_domain("retail")


@pytest.mark.parametrize("name", BENCHES)
def test_every_bench_imports_and_has_a_main(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert callable(module.main)


def test_results_are_written_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import common

    monkeypatch.setattr(common, "RESULTS", tmp_path)
    path = common.write_result("smoke", {"figure": common.summary_ms([1.0, 2.0, 3.0])})
    assert json.loads(path.read_text())["figure"]["p50"] == 2.0


@pytest.mark.postgres
async def test_bulk_import_splits_a_batch_and_inserts_both_ways() -> None:
    from bench.bulk_import import in_process

    split = await in_process(60)
    for key in ("insertBatch", "rows/values", "rows/copy"):
        assert split[key]["wallUs"] > 0 and split[key]["pythonUs"] > 0
    assert split["loopHold"]["ticks"] > 0


async def test_interpret_cpu_measures_both_paths_and_the_floor_on_a_few_texts() -> None:
    from bench import interpret_cpu

    result = await interpret_cpu.measure(rounds=1, limit=3)
    assert set(result["domains"]) == set(interpret_cpu.DOMAINS)
    for entry in result["domains"].values():
        assert entry["texts"] == 3
        assert entry["old"]["n"] == entry["new"]["n"] == entry["floor"]["n"] == 3
        assert entry["old"]["mean"] > 0 and entry["new"]["mean"] > 0 and entry["floor"]["mean"] > 0
    assert result["ratio"] > 0


def test_procfs_reads_this_process_s_cpu_and_finds_postgres_by_name() -> None:
    from bench import procfs

    before = procfs.cpu_seconds([os.getpid()])
    sum(i * i for i in range(3_000_000))  # a few tens of ms of CPU
    assert procfs.cpu_seconds([os.getpid()]) > before
    assert procfs.cpu_seconds([2**22 + 1]) == 0  # a pid that is not there counts nothing
    assert os.getpid() not in procfs.pids_named("postgres")


@pytest.mark.postgres
async def test_chain_scale_on_300_items_counts_exactly(retail) -> None:
    import argparse

    from bench.chain_scale import one_size

    args = argparse.Namespace(pg_sizes=[300], sqlite_sizes=[300])
    for engine in ("postgresql", "sqlite"):
        result = await one_size(engine, 300, retail, args)
        assert result["exact"] and result["items"] == 300


@pytest.mark.postgres
async def test_search_scale_on_400_items_answers_the_same_with_and_without_the_index() -> None:
    from bench.search_scale import measure
    from feedback_intelligence.devtools.databases import postgres_database

    async with postgres_database("fi_search_smoke") as url:
        result = await measure(url, 400)
    assert len(result["searches"]) == 6
    assert all(row["same"] for row in result["searches"])
    assert any(row["matching"] > 0 for row in result["searches"])


async def test_search_scale_on_sqlite_answers_the_same_through_the_index_and_by_the_scan() -> None:
    from bench.search_sqlite import measure_sqlite

    result = await measure_sqlite(400, runs=1)
    assert len(result["searches"]) == 6
    assert all(row["same"] for row in result["searches"])
    assert any(row["matching"] > 0 for row in result["searches"])
    assert result["indexBytes"] > 0 and result["writesPerSecond"]["withIndex"] > 0


async def test_report_layer_on_50_items(retail) -> None:
    from bench.report import deterministic_layer, report_window, synthetic_items

    items = synthetic_items(50, retail)
    assert len(items) == 50 and len({i.id for i in items}) == 50
    window = report_window()
    assert all(window.from_norm <= i.timestamp <= window.to_norm for i in items)
    assert [i.timestamp for i in items] == sorted((i.timestamp for i in items), reverse=True)
    layer = await deterministic_layer([50], retail, rounds_of=lambda size: 5)  # the bench's own count is 100
    entry = layer["50"]
    assert entry["themes"] >= 1
    for mode in ("standard", "summary"):
        assert entry[mode]["cold"]["p50"] > 0 and entry[mode]["warm"]["p99"] > 0
        assert entry[mode]["cold"]["n"] == entry["coldRounds"] and entry[mode]["warm"]["n"] == entry["warmRounds"]


async def test_ingest_of_20_rows_into_sqlite(tmp_path: Path, retail) -> None:
    from bench.ingest import store_rows_per_s

    result = await store_rows_per_s(f"sqlite+aiosqlite:///{tmp_path / 'live.db'}", 20, 2, retail)
    assert result["rows"] == 20 and result["rowsPerS"] > 0 and result["saveMs"]["n"] == 20


def test_ingest_layers_on_a_few_texts(retail) -> None:
    from bench.ingest import deterministic_layers

    result = deterministic_layers(retail, 10)
    assert set(result["us"]) == {"timestamp", "alerts", "override", "injection", "total"}
    assert result["us"]["total"]["p50"] > 0


def test_gate_overhead_sends_the_apps_own_chat_request() -> None:
    from bench.gate_overhead import TEXT, same_chat_request_as_the_app

    payload = same_chat_request_as_the_app(TEXT)
    assert TEXT in payload["messages"][0]["content"] and payload["format"]["type"] == "object"


def _phase(admitted_p99: float, shed_p99: float | None, busy: float, **extra) -> dict:
    crowd = {"admittedMs": {"p99": admitted_p99}, "shedMs": {"p99": shed_p99}, "otherErrors": {}, "capped": False}
    return {
        "crowd": crowd,
        "simBusyFraction": busy,
        "edgeCheck": {"rejected": []},
        "leak": {"gateInUse": 0, "simInFlight": 0},
        **extra,
    }


def test_crowd_targets_are_judged_as_specified() -> None:
    from bench.crowd import evaluate, targets_for

    targets = targets_for(service_ms=1500, acquire_ms=500)
    assert targets["admittedP99MaxMs"] == 2300 and targets["shedP99MaxMs"] == 600
    good = evaluate(_phase(2000, 520, 0.95), _phase(25_000, None, 0.97), targets)
    assert all(v is not False for v in good.values())
    bad = evaluate(_phase(2400, 700, 0.80), _phase(15_000, None, 0.97), targets)
    assert not bad["admittedP99"] and not bad["shedP99"] and not bad["backendBusy"] and not bad["deepQueueRatio"]
    leaked = _phase(2000, 520, 0.95, leak={"gateInUse": 1, "simInFlight": 0})
    assert evaluate(leaked, _phase(25_000, None, 0.97), targets)["noSlotLeaked"] is False


def test_crowd_over_gpus_targets_are_judged_as_specified() -> None:
    from bench.crowd_gpus import evaluate, targets

    def phase(throughput: float, p99: float, busy: list[float], peak: list[int]) -> dict:
        return {
            "crowd": {"throughputPerS": throughput, "admittedMs": {"p99": p99}, "otherErrors": {}},
            "simBusy": busy,
            "simMaxConcurrency": peak,
            "leak": 0,
        }

    good = evaluate(phase(1.3, 1600, [0.95], [2]), phase(2.6, 1650, [0.95, 0.94], [2, 2]), targets())
    assert all(good.values())
    bad = evaluate(phase(1.3, 1600, [0.95], [2]), phase(2.0, 2400, [0.95, 0.7], [2, 3]), targets())
    assert not bad["throughput"] and not bad["admittedP99"] and not bad["backendBusy"]
    assert not bad["perBackendSlots"]


def _chain_result(**changes) -> dict:
    sim = {"busy": 0.95, "maxConcurrency": 2, "maxWaitMs": 0.1, "parallel": 2}
    result = {
        "crowd": {"admittedMs": {"p99": 2000}, "shedMs": {"p99": 550}, "otherErrors": {}, "capped": False},
        "sims": [dict(sim) for _ in range(4)],
        "leak": {"gateInUse": [0, 0, 0], "redisLeases": 0},
    }
    result.update(changes)
    return result


def test_chain_targets_are_judged_as_specified() -> None:
    from bench.chain import evaluate, split, targets_for

    goal = targets_for(service_ms=1500, acquire_ms=500)
    assert goal["admittedP99MaxMs"] == 2300 and goal["shedP99MaxMs"] == 600
    assert all(evaluate(_chain_result(), goal).values())
    slow_sim = _chain_result(sims=[{"busy": 0.85, "maxConcurrency": 2, "maxWaitMs": 0.1, "parallel": 2}])
    assert evaluate(slow_sim, goal)["everyBackendBusy"] is False
    queued = _chain_result(sims=[{"busy": 0.95, "maxConcurrency": 3, "maxWaitMs": 900.0, "parallel": 2}])
    assert evaluate(queued, goal)["nothingQueuedBelowTheGate"] is False
    leaked = _chain_result(leak={"gateInUse": [0, 1, 0], "redisLeases": 0})
    assert evaluate(leaked, goal)["noSlotLeaked"] is False
    assert evaluate(_chain_result(leak={"gateInUse": [0, 0, 0], "redisLeases": 2}), goal)["noSlotLeaked"] is False
    assert split(160, 3) == [54, 53, 53] and sum(split(7, 3)) == 7


def test_chain_merges_the_crowds_of_every_replica() -> None:
    from bench.chain import merge
    from feedback_intelligence.cli.crowd import CrowdResult

    one = CrowdResult(clerks=2, duration_s=10, presses=4, busy=1, attempts=6)
    one.admitted_latencies_ms, one.shed_latencies_ms = [1500.0, 1600.0], [500.0, 510.0]
    two = CrowdResult(clerks=3, duration_s=10, presses=6, busy=2, attempts=9, other_errors={"500": 1})
    two.admitted_latencies_ms, two.shed_latencies_ms = [1700.0], [505.0]
    merged = merge([one, two], 10)
    assert (merged["clerks"], merged["presses"], merged["busyMessages"]) == (5, 10, 3)
    assert merged["busyShare"] == 0.3 and merged["shedRate"] == 0.2 and merged["throughputPerS"] == 0.3
    assert merged["admittedMs"]["n"] == 3 and merged["otherErrors"] == {"500": 1}
    assert merged["perReplica"] == [{"admitted": 2, "shed": 2}, {"admitted": 1, "shed": 1}]


def test_chain_sweep_rows_say_clerks_per_slot() -> None:
    from bench.chain_sweep import point

    phase = {
        "crowd": {
            "presses": 40,
            "busyShare": 0.1,
            "shedRate": 0.3,
            "admittedMs": {"p99": 2000},
            "shedMs": {"p99": 520},
            "throughputPerS": 2.5,
            "otherErrors": {},
        },
        "sims": [{"busy": 0.9}, {"busy": 0.94}],
        "client": {"lagMs": {"p99": 2.0}},
    }
    row = point(2, 16, phase)
    assert (row["slots"], row["clerksPerSlot"], row["simBusy"], row["busyShare"]) == (4, 4.0, 0.92, 0.1)


def test_quality_targets_are_judged_as_specified(retail) -> None:
    from bench.quality import targets
    from feedback_intelligence.evaluation.client import Observation
    from feedback_intelligence.evaluation.dataset import EvalItem
    from feedback_intelligence.evaluation.scoring import scorecard

    gold = {"category": "hevi", "severity": "low", "type": "praise", "sentiment": "positive", "language": "fi"}
    items = [EvalItem(f"i{n}", "holdout", "banaanit olivat hyviä", gold, frozenset()) for n in range(4)]
    right = {**gold, "theme": "banaanit"}
    observations = [Observation(i.id, right, latency_ms=1.0) for i in items[:3]]
    observations.append(Observation("i3", {**right, "category": "muu", "sentiment": "negative"}))
    prior = {i.id: {**gold, "category": "muu"} for i in items}
    card = scorecard(items, observations, retail, priors=prior, theme_rejected=lambda theme, text: False)
    checks = targets(card)
    assert checks["category accuracy"] == ("0.75", "≥ 0.60", True)
    assert checks["category above the prior alone"][2] is True
    assert checks["sentiment accuracy"][2] is False  # 0.75 < 0.8
    assert checks["severity above majority"][2] is False  # 1.00 is not above an all-low majority of 1.00
    assert checks["sentiment contradicting type"] == ("1", "0", False)
    assert checks["shown themes a guard rejects"] == ("0", "0", True)
    assert checks["alert recall (pooled)"][2] is False  # nothing to recall: no figure, not a pass


@pytest.mark.process
def test_signin_burst_answers_every_guess_with_a_refusal_or_a_shed() -> None:
    from bench import signin_burst

    result = signin_burst.run(requests=5, attackers=3)
    assert set(result["burstAnswers"]) <= {"401", "503 shed"} and sum(result["burstAnswers"].values()) > 0
    assert result["quietMs"]["n"] == result["burstMs"]["n"] == 5


@pytest.mark.process
def test_batch_stall_stores_every_item_of_four_writers_once_while_it_probes() -> None:
    from bench import batch_stall

    result = batch_stall.phase("sqlite", "short", writers=4, rounds=1, batch=20)
    assert result["storedOnce"] and result["corpusRows"] == result["items"] == 80
    assert result["answers"]["accepted"] == 80 and not result["failures"] and not result["probeFailures"]
    assert result["quietMs"]["n"] > 0 and result["duringMs"]["n"] > 0


@pytest.mark.process
@pytest.mark.redis
@pytest.mark.postgres
def test_a_tiny_chain_runs_end_to_end() -> None:
    """Two replicas on Redis and PostgreSQL in front of two sims, four clerks for two seconds: the
    plumbing (crowd split, sim stats, lease count) works; the figures belong to ``make chain``."""
    from bench.chain import evaluate, run, targets_for

    result = run(clerks=4, duration_s=2, sims=2, replicas=2, service_ms=100, seed=1)
    assert [sim["parallel"] for sim in result["sims"]] == [2, 2]
    assert result["crowd"]["clerks"] == 4 and result["crowd"]["presses"] >= 1
    assert result["leak"] == {"gateInUse": [0, 0], "redisLeases": 0}
    verdicts = evaluate(result, targets_for(service_ms=100))
    assert verdicts["noSlotLeaked"] and verdicts["noOtherErrors"] and verdicts["nothingQueuedBelowTheGate"]


@pytest.mark.embedded
def test_engine_bench_reads_an_engine_back_after_a_kill_and_finds_a_process_s_children() -> None:
    from bench import engine, procfs

    [seconds] = asyncio.run(engine.recovery(1))
    assert seconds > 0
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert child.pid in procfs.children_of(os.getpid()) and procfs.rss_bytes(child.pid) > 0
    finally:
        child.communicate(b"")


def test_quality_runs_one_part_or_both_never_neither(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.quality import main

    with pytest.raises(SystemExit) as refused:
        main(["--skip-openai", "--only-openai"])
    assert refused.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


async def test_adaptive_limit_answers_or_sheds_every_arrival_and_keeps_its_limit_in_bounds() -> None:
    from bench.adaptive_limit import CEILING, adaptive_limit, run_row

    row, _ = await run_row("adaptive", adaptive_limit(), rate=40, warmup_s=0, duration_s=1.0, seed=1)
    assert len(row.answered) + len(row.shed) > 10
    assert all(latency > 0 for _, latency in row.answered)
    assert all(2 <= limit <= CEILING for _, limit in row.limits)


async def test_adaptive_limit_through_the_openai_api_feeds_the_limit_the_tokens_the_sim_counted() -> None:
    from bench.adaptive_limit import OUTPUT_TOKENS, PROMPT_TOKENS, adaptive_limit, run_row

    limit = adaptive_limit()
    fed: list[int] = []
    prompts: list[int] = []
    sample = limit.sample

    def counted(latency_s: float, tokens: int, in_flight: int, prompt_tokens: int = 0) -> LimitChange | None:
        fed.append(tokens)
        prompts.append(prompt_tokens)
        return sample(latency_s, tokens, in_flight, prompt_tokens)

    limit.sample = counted  # type: ignore[method-assign]
    row, _ = await run_row("adaptive", limit, rate=40, warmup_s=0, duration_s=1.0, seed=1, openai=True)
    assert row.answered and len(row.answered) + len(row.shed) > 10
    assert len(fed) == len(row.answered), "every answer fed the limit"
    assert all(OUTPUT_TOKENS[0] <= tokens <= OUTPUT_TOKENS[1] for tokens in fed), "its usage.completion_tokens"
    assert set(prompts) == {PROMPT_TOKENS}, "and its usage.prompt_tokens (the sim counts a word a token)"


async def test_adaptive_limit_switches_to_long_prompts_at_the_time_it_is_given() -> None:
    from bench.adaptive_limit import adaptive_limit, run_row

    switch = asyncio.get_running_loop().time() + 0.5
    row, _ = await run_row(
        "adaptive", adaptive_limit(), rate=40, warmup_s=0, duration_s=1.0, seed=1, long_prompts_at=switch
    )
    arrivals = [at for at, _ in row.answered] + row.shed
    assert any(at < switch for at in arrivals) and any(at >= switch for at in arrivals)


@pytest.mark.redis
async def test_adaptive_limit_three_replicas_on_redis_never_run_the_gpu_past_the_shared_limit() -> None:
    from bench.adaptive_limit import CEILING, Row, drive, gate_over, three_replicas
    from feedback_intelligence.gate.limit import Gradient2Settings
    from feedback_intelligence.sim.batching import BatchingGpu

    pools, limit_now = three_replicas(Gradient2Settings(floor=2, ceiling=CEILING), "redis://127.0.0.1:6379/0")
    gates, gpu, row = [gate_over(pool) for pool in pools], BatchingGpu(), Row("shared")
    try:
        await drive(row, gates, gpu, limit_now, rate=60, warmup_s=0, duration_s=1.0, seed=1)
    finally:
        await gpu.aclose()
        for gate in gates:
            await gate.aclose()
    assert len(row.answered) + len(row.shed) > 20 and row.shed, "more arrive than the limit admits"
    assert 0 < row.peak_running <= max(limit for _, limit in row.limits)

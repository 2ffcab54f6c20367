"""What a report costs: the time to the deterministic answer at 200, 2,000 and 20,000 items, cold and
warm, and the time to full prose with the embedded model.

1. The deterministic answer: ``ReportService.view`` — what ``GET /report`` answers with — over synthetic
   stored feedback in the retail domain (skewed categories, realistic severities, types, alerts, review
   flags, failed structures, a growing story, timestamps over a 7-day window, texts from the demo
   corpus), standard and live-summary modes, with a model configured (the prose is marked pending and
   its generation started in the background, against a backend that never answers, so it costs the
   answer nothing but the scheduling). Cold: a window (data version) never asked before — fetch, build,
   guard every theme. Warm: the same window again (the deterministic cache). p50/p99 of each. Target:
   the cold 2,000-item standard answer under 200 ms.
2. Time to full prose with the embedded backend (the packaged SmolLM2 through llama.cpp) behind a real
   ``LlmGate`` and ``PromptRunner``, in process: the first answer, then the background generation until
   nothing is pending; budget 4 with the alert screen off, and the product's defaults (budget 4 plus
   the alert screen's 80 yes/no calls).

Run: .venv/bin/python -m bench.report [--skip-embedded] [--sizes 200,2000,20000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from bench.common import print_table, summary_ms, write_result
from feedback_intelligence.config import ReportSettings
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Window, build_window

NOW = datetime(2026, 6, 8, 12, 0, tzinfo=UTC)
WINDOW_DAYS = 7
SIZES = (200, 2_000, 20_000)
TARGET_ITEMS = 2_000
TARGET_MS = 200.0
SEVERITIES = (("low", 0.45), ("medium", 0.33), ("high", 0.17), ("critical", 0.05))
TYPES = (("complaint", 0.55), ("praise", 0.15), ("suggestion", 0.15), ("question", 0.10), ("other", 0.05))
SOURCES = (("desk", 0.5), ("google_review", 0.2), ("email", 0.15), ("web_form", 0.15))
THEME_WORDS = ("hinta", "laatu", "saatavuus", "tuoreus", "palvelu", "jono", "hylly", "pakkaus", "takuu", "opasteet")


def _pick(rng: random.Random, weighted: Sequence[tuple[str, float]]) -> str:
    return rng.choices([v for v, _ in weighted], weights=[w for _, w in weighted])[0]


def report_window(days: int = WINDOW_DAYS) -> Window:
    return build_window(None, None, NOW, ReportSettings(default_window_days=days, max_window_days=max(days, 92)))


def synthetic_items(count: int, domain: Domain, *, seed: int = 7, window: Window | None = None) -> list[StoredFeedback]:
    """``count`` stored items over ``window`` (default: the 7 days to :data:`NOW`), newest first.

    Categories follow a Zipf-like spread over the domain's rated categories, with one "story"
    category growing in the window's second half; about 4 % carry a keyword alert, 1.5 % fall in a
    demoted category, 2 % failed structuring and 1 % are flagged for review.
    """
    rng = random.Random(seed)
    window = window or report_window()
    texts = [entry["text"] for entry in load_corpus(now=NOW)]
    rated = [c for c in domain.categories if not domain.is_demoted(c)]
    rng.shuffle(rated)
    weights = [1 / (rank + 1) for rank in range(len(rated))]
    story = rated[3]
    themes = {c: [f"{c.split('_')[0]} {w}" for w in rng.sample(THEME_WORDS, 6)] for c in domain.categories}
    alert_pool = [(cat, pats[0]) for cat, pats in domain.alert_keywords.items() if pats and not domain.is_demoted(cat)]
    demoted = list(domain.demoted_categories)
    span = window.to_ticks - window.from_ticks
    items: list[StoredFeedback] = []
    for n in range(count):
        ticks = window.from_ticks + rng.randrange(span)
        roll = rng.random()
        if roll < 0.015 and demoted:
            category = rng.choice(demoted)
        elif roll < 0.06 and ticks - window.from_ticks > span // 2:
            category = story
        else:
            category = rng.choices(rated, weights=weights)[0]
        type_ = _pick(rng, TYPES)
        structure = None
        if rng.random() >= 0.02:
            structure = Structure(
                category=category,
                theme=rng.choices(themes[category], weights=(6, 4, 3, 2, 1, 1))[0],
                severity=_pick(rng, SEVERITIES),
                type=type_,
                language="fi",
                sentiment=rng.choice(("negative", "neutral", "positive")) if rng.random() < 0.2 else None,
            )
        alerts: tuple[AlertHit, ...] = ()
        if alert_pool and rng.random() < 0.04:
            alerts = (AlertHit(*rng.choice(alert_pool)),)
        flagged = rng.random() < 0.01
        stamp = format_instant(ticks)
        items.append(
            StoredFeedback(
                id=f"syn-{n:06d}",
                source=_pick(rng, SOURCES),
                text=rng.choice(texts),
                timestamp=stamp,
                created_at=stamp,
                structure=structure,
                structure_failed=structure is None,
                alerts=alerts,
                needs_review=flagged,
                review_flags=("override",) if flagged else (),
            )
        )
    items.sort(key=lambda i: (i.timestamp, i.id), reverse=True)
    return items


def list_fetch(items: list[StoredFeedback]):
    """The store's fetch over a newest-first list (inclusive window, limited)."""

    async def fetch(from_norm: str, to_norm: str, limit: int) -> list[StoredFeedback]:
        return [i for i in items if from_norm <= i.timestamp <= to_norm][:limit]

    return fetch


def deterministic_service(items: list[StoredFeedback], domain: Domain) -> ReportService:
    """A service as the API builds it (a model configured, cache on), over a backend that never answers."""
    from feedback_intelligence.gate.gate import LlmGate
    from feedback_intelligence.gate.local import LocalSlotPool
    from feedback_intelligence.gate.pooled import PooledSlotPool
    from feedback_intelligence.llm.testing import FakeBackend
    from feedback_intelligence.prompting.runner import PromptRunner

    gate = LlmGate(PooledSlotPool.single(LocalSlotPool(2, 1)), acquire_timeout_s=0.5, call_timeout_s=3600)
    options = ReportSettings(max_items=max(len(items), 1))
    silent = FakeBackend(reply="", hold=asyncio.Event(), kind="silent")  # never answers: costs the answer nothing
    return ReportService(domain, options, PromptRunner(gate, silent), list_fetch(items))


async def time_answers(service: ReportService, window: Window, mode: str, rounds: int, *, cold: bool) -> list[float]:
    """Milliseconds to the deterministic answer; cold rounds move the data version first (nothing cached)."""
    await service.view(window, mode=mode)  # warm the domain's and the interpreter's own caches
    timings = []
    for _ in range(rounds):
        if cold:
            await service.invalidate()
        started = time.perf_counter()
        report = await service.view(window, mode=mode)
        timings.append((time.perf_counter() - started) * 1000)
        assert report.llm.status == "pending" or not report.llm.pending
    return timings


def cold_rounds_of(size: int) -> int:
    """Cold answers timed at ``size`` items: 100 for a small window, fewer as each costs more (at least 5)."""
    return max(5, min(100, 60_000 // size))


async def deterministic_layer(
    sizes: Sequence[int], domain: Domain, rounds_of: Callable[[int], int] = cold_rounds_of
) -> dict[str, Any]:
    """Cold and warm p50/p99 of the deterministic answer per size; ``rounds_of`` sets the cold rounds
    (the warm ones are four times as many)."""
    window = report_window()
    results: dict[str, Any] = {}
    for size in sizes:
        items = synthetic_items(size, domain)
        service = deterministic_service(items, domain)
        cold_rounds = rounds_of(size)
        entry: dict[str, Any] = {"items": size, "coldRounds": cold_rounds, "warmRounds": cold_rounds * 4}
        try:
            for mode in ("standard", "summary"):
                cold = await time_answers(service, window, mode, cold_rounds, cold=True)
                warm = await time_answers(service, window, mode, cold_rounds * 4, cold=False)
                entry[mode] = {"cold": summary_ms(cold), "warm": summary_ms(warm)}
            report = await service.view(window)
        finally:
            await service.aclose()
        entry["themes"] = len(report.themes)
        entry["alerts"] = len(report.alerts)
        results[str(size)] = entry
    return results


async def embedded_report(items: int, verify_budget: int, domain: Domain) -> dict[str, Any]:
    """The first answer and the time until its prose is written, with the packaged SmolLM2 behind a real gate."""
    from feedback_intelligence.config import BackendSettings, GateSettings
    from feedback_intelligence.gate.gate import LlmGate
    from feedback_intelligence.gate.local import LocalSlotPool
    from feedback_intelligence.gate.pooled import PooledSlotPool
    from feedback_intelligence.llm.embedded import EmbeddedBackend
    from feedback_intelligence.prompting.runner import PromptRunner

    backends, gates = BackendSettings(), GateSettings()  # the defaults, whatever the environment says
    backend = TimedBackend(EmbeddedBackend(None, slots=backends.slots, context_tokens=backends.context_tokens))
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(backends.slots, gates.background_reserve)),
        acquire_timeout_s=gates.acquire_timeout_s,
        call_timeout_s=gates.call_timeout_s,
    )
    runner = PromptRunner(gate, backend)
    # prose as on the packaged model (what FI_REPORT_PROSE=auto resolves to there)
    options = ReportSettings(llm_budget=4, alert_verify_budget=verify_budget, prose="automatic")
    stored = synthetic_items(items, domain, seed=11)
    service = ReportService(domain, options, runner, list_fetch(stored))
    window = report_window()
    await backend.start()
    load_started = time.perf_counter()
    await backend.wait_loaded()
    load_s = time.perf_counter() - load_started
    try:
        started = time.perf_counter()
        first = await service.view(window)
        first_ms = (time.perf_counter() - started) * 1000
        report = (await service.report(window)).to_json()
        total_s = time.perf_counter() - started
    finally:
        await service.aclose()
        await backend.aclose()
        await gate.aclose()
    themes = [t for t in report["themes"] if not t["unrated"]]
    reasons: dict[str, int] = {}
    for theme in themes:
        reason = theme["prose"]["reason"]
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
    return {
        "items": items,
        "llmBudget": 4,
        "verifyBudget": verify_budget,
        "modelLoadS": round(load_s, 2),
        "firstAnswerMs": round(first_ms, 2),
        "firstAnswerPending": len(first.llm.pending),
        "fullProseS": round(total_s, 2),
        "llm": report["llm"],
        "fallbacks": report["llmFallbackCount"],
        "themesFromLlm": sum(1 for t in themes if t["narrativeFromLlm"]),
        "themes": len(themes),
        "automaticReasons": reasons,
        "droppedClaims": report["droppedClaimCount"],
        "actionDropped": report["actionDroppedCount"],
        "callTimings": backend.calls,
    }


class TimedBackend:
    """Delegates to a backend and records each completion's seconds, output tokens and token cap."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.calls: list[dict[str, Any]] = []

    async def complete(self, request: Any) -> Any:
        started = time.perf_counter()
        completion = await self.inner.complete(request)
        self.calls.append(
            {
                "seconds": round(time.perf_counter() - started, 2),
                "maxTokens": request.max_tokens,
                "outputTokens": completion.completion_tokens,
                "promptTokens": completion.prompt_tokens,
            }
        )
        return completion

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def store_read(items: list[StoredFeedback], rounds: int = 5) -> dict[str, Any]:
    """What the report's fetch adds: the window's rows read from a SQLite store and decoded into records."""
    import tempfile

    from feedback_intelligence.store.feedback_store import FeedbackStore

    window = report_window()
    with tempfile.TemporaryDirectory(prefix="fi-bench-") as tmp:
        store = FeedbackStore(f"sqlite+aiosqlite:///{tmp}/corpus.db")
        try:
            await store.migrate()
            for item in items:
                await store.insert(item)
            await store.query(window.from_norm, window.to_norm, len(items) + 1)
            timings = []
            for _ in range(rounds):
                started = time.perf_counter()
                fetched = await store.query(window.from_norm, window.to_norm, len(items) + 1)
                timings.append((time.perf_counter() - started) * 1000)
        finally:
            await store.aclose()
    assert len(fetched) == len(items)
    return {"items": len(items), "medianMs": round(statistics.median(timings), 2), "minMs": round(min(timings), 2)}


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES), help="item counts, comma separated")
    parser.add_argument("--embedded-items", type=int, default=200)
    parser.add_argument("--skip-embedded", action="store_true", help="deterministic layer only")
    parser.add_argument("--skip-screen", action="store_true", help="embedded: only the run without the alert screen")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    domain = load_domain("retail")

    layer = asyncio.run(deterministic_layer(sizes, domain))
    result: dict[str, Any] = {"deterministic": layer, "targetMs": TARGET_MS, "targetItems": TARGET_ITEMS}
    rows = []
    target_ok: bool | None = None
    for size, entry in layer.items():
        for mode, label in (("standard", "standard"), ("summary", "live summary")):
            cold, warm = entry[mode]["cold"], entry[mode]["warm"]
            target = ""
            if int(size) == TARGET_ITEMS and mode == "standard":
                target_ok = cold["p50"] < TARGET_MS
                target = f"cold p50 < {TARGET_MS:g} ms  {verdict(target_ok)}"
            rows.append(
                (
                    f"{int(size):,} items, {label}: cold p50 / p99 · warm p50 / p99",
                    f"{cold['p50']} / {cold['p99']} · {warm['p50']} / {warm['p99']} ms",
                    target,
                )
            )
    result["targetPass"] = target_ok
    if TARGET_ITEMS in sizes:
        read = asyncio.run(store_read(synthetic_items(TARGET_ITEMS, domain)))
        result["storeRead"] = read
        rows.append(
            (
                f"  + reading those {read['items']:,} rows from SQLite (median / min)",
                f"{read['medianMs']} / {read['minMs']} ms",
                "not in the target",
            )
        )

    if not args.skip_embedded:
        runs = [0] if args.skip_screen else [0, ReportSettings().alert_verify_budget]
        result["embedded"] = []
        for verify_budget in runs:
            run = asyncio.run(embedded_report(args.embedded_items, verify_budget, domain))
            result["embedded"].append(run)
            llm = run["llm"]
            rows.append(
                (
                    f"embedded SmolLM2, {run['items']} items, budget 4, screen {verify_budget}: "
                    "first answer / full prose",
                    f"{run['firstAnswerMs']} ms ({run['firstAnswerPending']} pending) / {run['fullProseS']} s",
                    "",
                )
            )
            rows.append(
                (
                    "  calls / verify calls / shed / failed / fallbacks",
                    f"{llm['calls']} / {llm['verifyCalls']} / {llm['shed']} / {llm['failed']} / {run['fallbacks']}",
                    "",
                )
            )
            rows.append(
                (
                    "  themes with model prose / themes; automatic because; model load",
                    f"{run['themesFromLlm']} / {run['themes']}; {run['automaticReasons']}; {run['modelLoadS']} s",
                    "",
                )
            )

    path = write_result("report", result)
    print_table("report: deterministic layer and embedded end to end", rows)
    print(f"written: {path}")
    return 0 if target_ok in (True, None) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Builders for report tests: a small domain, feedback items, and a scripted backend behind a real gate."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.llm.backend import CompletionRequest
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.records import AlertHit, Correction, StoredFeedback, Structure
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Mode, Window, build_window
from tests.support.calls import call

WINDOW_FROM = "2026-06-01T00:00:00Z"
WINDOW_TO = "2026-06-08T00:00:00Z"
NOW = datetime(2026, 6, 8, tzinfo=UTC)

SYNTH_PROMPT = "SYNTH\nKirjoita kuvaus.\n{{data}}"
NOMINATE_PROMPT = "NOMINATE\nArvioi turvallisuus.\n{{data}}"
VERIFY_PROMPT = 'VERIFY\nVastaa kyllä tai ei.\nPalaute: "{{text}}"\nVastaus:'


def make_domain(language: str = "fi", *, prompts: dict[str, str] | None = None, categories: int = 0) -> Domain:
    names = {
        "maito_kylma": "Maito & kylmä",
        "hevi": "Hevi",
        "kassa_palvelu": "Kassa & palvelu",
        "rasismi": "Rasistinen palaute",
        "asiaton": "Asiaton palaute",
        "muu": "Muu",
    }
    names.update({f"cat{i:02d}": f"Category {i}" for i in range(categories)})
    return Domain(
        name="test",
        language=language,
        category_field_label="osasto" if language == "fi" else "category",
        categories=names,
        category_hints={},
        catch_all_category="muu",
        demoted_categories=("rasismi", "asiaton"),
        severities={"low": "Matala", "medium": "Keskitaso", "high": "Korkea", "critical": "Kriittinen"},
        types={
            "complaint": "Valitus",
            "praise": "Kehu",
            "suggestion": "Ehdotus",
            "question": "Kysymys",
            "other": "Muu",
        },
        sentiments={"positive": "Myönteinen", "negative": "Kielteinen", "neutral": "Neutraali"},
        type_sentiment={
            "complaint": "negative",
            "praise": "positive",
            "suggestion": "neutral",
            "question": "neutral",
            "other": "neutral",
        },
        sources=("google_review", "email", "web_form", "desk"),
        alert_keywords={"injury_safety": ("loukkaantu",), "rasismi": ("ryssä",)},
        prompts=(
            prompts
            if prompts is not None
            else {"synthesis": SYNTH_PROMPT, "alertNomination": NOMINATE_PROMPT, "alertVerify": VERIFY_PROMPT}
        ),
    )


def window(from_raw: str = WINDOW_FROM, to_raw: str = WINDOW_TO, options: ReportSettings | None = None) -> Window:
    return build_window(from_raw, to_raw, NOW, options or ReportSettings())


def stamp(day: float) -> str:
    """Normalised timestamp ``day`` days after the test window opens (0 <= day < 7)."""
    whole = int(day)
    seconds = round((day - whole) * 86_400)
    return f"2026-06-{1 + whole:02d}T{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}.0000000+00:00"


def item(
    id_: str,
    day: float = 3.0,
    *,
    category: str | None = "maito_kylma",
    theme: str = "vanha maito",
    severity: str = "medium",
    type_: str = "complaint",
    sentiment: str | None = None,
    text: str | None = None,
    source: str = "web_form",
    alerts: Sequence[tuple[str, str]] = (),
    needs_review: bool = False,
    structure_failed: bool = False,
    model_failed: bool = False,
    corrections: Sequence[tuple[str, str, str]] | None = None,
    timestamp: str | None = None,
    store: str | None = None,
) -> StoredFeedback:
    structure = (
        Structure(category, theme, severity, type_, "fi", sentiment)
        if category is not None and not structure_failed
        else None
    )
    return StoredFeedback(
        id=id_,
        source=source,
        text=text if text is not None else f"palaute {id_}: {theme}",
        timestamp=timestamp or stamp(day),
        created_at=timestamp or stamp(day),
        structure=structure,
        structure_failed=structure_failed,
        model_failed=model_failed,
        alerts=tuple(AlertHit(c, p) for c, p in alerts),
        corrections=tuple(Correction(f, m, h) for f, m, h in corrections) if corrections is not None else None,
        needs_review=needs_review,
        store=store,
    )


def newest_first(items: Sequence[StoredFeedback]) -> list[StoredFeedback]:
    return sorted(items, key=lambda i: i.timestamp, reverse=True)


@dataclass
class StoreFake:
    """``fetch`` over a list, like the store: inclusive window, newest first, limited."""

    items: list[StoredFeedback]
    fetches: list[tuple[str, str, int]] = field(default_factory=list)

    async def fetch(self, from_norm: str, to_norm: str, limit: int) -> list[StoredFeedback]:
        self.fetches.append((from_norm, to_norm, limit))
        return newest_first([i for i in self.items if from_norm <= i.timestamp <= to_norm])[:limit]

    @property
    def builds(self) -> int:
        """Reads of a report window; the series' read of the previous period (ending a tick before the
        window opens, at ``.9999999``) is not one."""
        return sum(1 for _from, to, _limit in self.fetches if not to.endswith(".9999999+00:00"))

    async def count(self, from_norm: str, to_norm: str) -> int:
        return sum(1 for i in self.items if from_norm <= i.timestamp <= to_norm)


Reply = str | BaseException
EXCERPT_ID = re.compile(r"^- \[([^\]]+)\]", re.MULTILINE)


def shown_ids(prompt: str) -> list[str]:
    return EXCERPT_ID.findall(prompt)


def good_synthesis(prompt: str) -> str:
    ids = shown_ids(prompt)
    return json.dumps(
        {
            "title": "Maidon tuoreus",
            "narrative": "Asiakkaat kuvaavat vanhaa maitoa ja hapanta jogurttia.",
            "citedIds": ids[:2],
        }
    )


class ScriptedBackend(FakeBackend):
    """A fake backend whose replies a test scripts per prompt kind (the prompt's first line)."""

    def __init__(
        self,
        *,
        synth: Callable[[str], Reply] = good_synthesis,
        verify: Callable[[str], Reply] = lambda _p: "ei",
        nominate: Callable[[str], Reply] = lambda _p: '{"alerts": []}',
    ) -> None:
        super().__init__(reply=self._answer)
        self.handlers = {"SYNTH": synth, "VERIFY": verify, "NOMINATE": nominate}

    def _answer(self, request: CompletionRequest) -> Reply:
        prompt = request.messages[0].content
        return self.handlers[prompt.split("\n", 1)[0]](prompt)

    def prompts_of(self, kind: str | None = None) -> list[str]:
        texts = [r.messages[0].content for r in self.requests]
        return [t for t in texts if kind is None or t.startswith(kind)]


def real_runner(backend: ScriptedBackend, *, slots: int = 2, acquire_timeout_s: float = 0.05) -> PromptRunner:
    pool = PooledSlotPool.single(LocalSlotPool(slots, background_reserve=1))
    gate = LlmGate(pool, acquire_timeout_s=acquire_timeout_s, call_timeout_s=5)
    return PromptRunner(gate, backend)


def service(
    items: Sequence[StoredFeedback],
    backend: ScriptedBackend | None = None,
    *,
    options: ReportSettings | None = None,
    domain: Domain | None = None,
    runner: PromptRunner | None = None,
    shed_retry_s: float = 0.0,
    store_name: Callable[[str], str] | None = None,
) -> tuple[ReportService, StoreFake]:
    store = StoreFake(list(items))
    if runner is None and backend is not None:
        runner = real_runner(backend)
    svc = ReportService(
        domain or make_domain(),
        options or ReportSettings(),
        runner,
        store.fetch,
        clock=ManualClock(NOW),  # "generated at" NOW; a shed retry waits until the test moves time
        shed_retry_s=shed_retry_s,  # no retries after a shed unless a test asks for them
        store_name=store_name,
    )
    return svc, store


async def full(svc: ReportService, win: Window, mode: Mode = "standard") -> dict:
    """The report once its prose is written, in its wire form (what a client reads)."""
    return (await svc.report(win, mode=mode)).to_json()


@asynccontextmanager
async def desk_calls_holding_every_slot(runner: PromptRunner, slots: int = 2) -> AsyncIterator[None]:
    """Clerks' interactive calls hold every slot of the runner's gate until the block ends."""
    release, all_held = asyncio.Event(), asyncio.Event()
    held = 0

    async def desk_call(_grant: Grant) -> None:
        nonlocal held
        held += 1
        if held == slots:
            all_held.set()
        await release.wait()

    holders = [
        asyncio.create_task(runner.gate.run(desk_call, call(runner.gate, Priority.INTERACTIVE, "interpret")))
        for _ in range(slots)
    ]
    await all_held.wait()
    try:
        yield
    finally:
        release.set()
        await asyncio.gather(*holders)

"""The report's background work says what it waits for and ends: the state the API returns when the alert
screen and the prose are stopped by a busy model, the per-minute rate bound, an unreachable model, or no
model at all — on the service's clock, never by sleeping."""

from __future__ import annotations

from datetime import timedelta

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.llm.errors import LlmBusy, LlmUnavailable
from feedback_intelligence.report.model import Report
from feedback_intelligence.report.service import SHED_BACKOFF_S, SHED_LAYER_SECONDS, STOPPED_REST_S, ReportService
from tests.report.prose.test_background_prose import settled
from tests.report.support import NOW, ScriptedBackend, service, window
from tests.report.test_report_service import RATED, corpus, themes_by_category
from tests.support.waiting import wait_for

RETRY_S = 30.0
SCREENING = ReportSettings(alert_verify_budget=80)


def at(seconds: float) -> str:
    return format_instant(to_ticks(NOW + timedelta(seconds=seconds)))


def clock_of(svc: ReportService) -> ManualClock:
    assert isinstance(svc.clock, ManualClock)
    return svc.clock


async def first_shed(svc: ReportService) -> Report:
    """The view once the generation was shed and waits to retry."""
    await clock_of(svc).sleepers()  # the generation pauses before its retry, on the service's clock
    return await svc.view(window())


async def give_up(svc: ReportService) -> None:
    """Move the clock through every retry pause until the generation gives up."""
    clock = clock_of(svc)
    while svc._tasks:
        await wait_for(lambda: _parked_or_done(svc), what="the generation to pause or end")
        if svc._tasks:
            clock.advance(SHED_BACKOFF_S[-1])
    await settled(svc)


async def _parked_or_done(svc: ReportService) -> bool:
    return not svc._tasks or clock_of(svc).parked > 0


def busy(_prompt: str) -> LlmBusy:
    return LlmBusy("slots")


async def test_a_busy_model_keeps_the_work_pending_saying_so_until_its_bound_then_it_ends_and_stays_ended():
    backend = ScriptedBackend(synth=busy, verify=busy)
    svc, _ = service(corpus(), backend, options=SCREENING, shed_retry_s=RETRY_S)

    first = (await svc.view(window())).llm
    assert first.status == "pending" and first.stopped is None  # working: nothing to wait for yet
    assert first.screen is not None and first.screen.running

    waiting = (await first_shed(svc)).llm
    assert waiting.status == "pending" and sorted(waiting.pending) == sorted(RATED)
    assert waiting.stopped == "busy" and waiting.until == at(RETRY_S)  # what it waits for, and how long at most
    assert waiting.screen is not None and not waiting.screen.running and waiting.screen.stopped == "busy"

    await give_up(svc)
    ended = (await svc.view(window())).to_json()
    assert ended["llm"]["status"] == "done" and ended["llm"]["pending"] == [] and ended["llm"]["until"] is None
    assert ended["llm"]["stopped"] == "busy" and ended["llm"]["retryAt"] is not None
    assert ended["llm"]["screen"]["stopped"] == "busy" and ended["llm"]["screen"]["screened"] == 0
    assert all(themes_by_category(ended)[c]["prose"] == {"status": "automatic", "reason": "busy"} for c in RATED)

    # the shed layer expires and the desk saves on: the report stays final, no generation starts over
    calls = len(backend.requests)
    clock_of(svc).advance(SHED_LAYER_SECONDS + 1)
    await svc.invalidate()
    again = (await svc.view(window())).llm
    assert (again.status, again.stopped, again.pending, again.retry_at) == ("done", "busy", [], ended["llm"]["retryAt"])
    assert again.screen is not None and again.screen.stopped == "busy" and not again.screen.running
    assert not svc._tasks and len(backend.requests) == calls

    # after the rest, a report asks the model again
    clock_of(svc).advance(STOPPED_REST_S)
    assert (await svc.view(window())).llm.status == "pending"
    await svc.aclose()


async def test_the_rate_bound_ends_the_screen_at_once_with_its_reason_and_the_next_version_does_not_restart_it():
    backend = ScriptedBackend(verify=lambda _p: "ei")
    options = ReportSettings(alert_verify_budget=80, model_calls_per_minute=2)
    svc, _ = service(corpus(), backend, options=options)
    await svc.view(window())
    await settled(svc)
    ended = (await svc.view(window())).llm
    assert ended.status == "done" and ended.stopped == "rate"
    assert ended.screen is not None and ended.screen.stopped == "rate" and 0 < ended.screen.screened < 6
    assert ended.retry_at == at(STOPPED_REST_S)

    await svc.invalidate()  # a desk saved: a new data version
    next_version = (await svc.view(window())).to_json()["llm"]
    assert (next_version["status"], next_version["stopped"], next_version["pending"]) == ("done", "rate", [])
    assert next_version["screen"] == {
        "candidates": 6,
        "screened": 0,
        "confirmed": 0,
        "running": False,
        "stopped": "rate",
    }
    assert not svc._tasks


async def test_an_unreachable_model_ends_the_work_with_its_reason():
    down = LlmUnavailable("connection refused")
    backend = ScriptedBackend(synth=lambda _p: down, verify=lambda _p: down)
    svc, _ = service(corpus(), backend, options=SCREENING)
    await svc.view(window())
    await settled(svc)
    ended = (await svc.view(window())).to_json()
    assert ended["llm"]["status"] == "done" and ended["llm"]["stopped"] == "unavailable"
    assert ended["llm"]["screen"]["stopped"] == "unavailable" and ended["llm"]["retryAt"] == at(STOPPED_REST_S)
    assert themes_by_category(ended)["maito_kylma"]["prose"] == {"status": "automatic", "reason": "unavailable"}


async def test_no_model_is_off_at_once_with_nothing_pending():
    svc, _ = service(corpus(), None, options=SCREENING)
    off = (await svc.view(window())).llm
    assert (off.status, off.pending, off.screen, off.until, off.retry_at) == ("off", [], None, None, None)
    assert not svc._tasks

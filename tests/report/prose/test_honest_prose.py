"""Honest prose (ADR 0028): automatic at once where the model cannot write, no spinner for parts the
model will never be asked for, and the alert screen's progress in the view."""

from __future__ import annotations

import asyncio

from feedback_intelligence.config import ReportSettings, load_settings
from feedback_intelligence.report.service import ReportService
from tests.report.support import ScriptedBackend, service, window
from tests.report.test_report_service import RATED, corpus, themes_by_category
from tests.support.waiting import wait_for


async def settled(svc: ReportService) -> None:
    await wait_for(lambda: _idle(svc), what="the background generation to finish")


async def _idle(svc: ReportService) -> bool:
    return not svc._tasks


def test_auto_prose_is_automatic_on_the_packaged_model_only():
    assert load_settings().report.prose == "automatic"
    assert load_settings(llm_backend="ollama").report.prose == "model"
    assert load_settings(report_prose="model").report.prose == "model"


async def test_automatic_prose_shows_at_once_and_the_model_only_screens():
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()
    svc, _ = service(corpus(), backend, options=ReportSettings(prose="automatic"))

    first = (await svc.view(window())).to_json()
    themes = themes_by_category(first)
    assert all(themes[c]["prose"] == {"status": "automatic", "reason": "automatic_model"} for c in RATED)
    assert first["llm"]["prose"] == "automatic" and first["llm"]["pending"] == []
    # the screen still runs, and the view says how far it got
    assert first["llm"]["status"] == "pending"
    assert first["llm"]["screen"]["candidates"] > 0 and first["llm"]["screen"]["running"]

    await backend.arrived.wait()
    backend.hold.set()
    await settled(svc)
    later = (await svc.view(window())).to_json()
    assert later["llm"]["status"] == "done"
    screen = later["llm"]["screen"]
    assert screen["screened"] == screen["candidates"] and not screen["running"]
    assert backend.prompts_of("SYNTH") == []  # never asked for prose
    assert later["llmFallbackCount"] == 0  # automatic by design is not a fallback


async def test_a_report_budget_of_none_says_no_model_not_a_share_used_up():
    """FI_REPORT_LLM_BUDGET=0 is the operator's "no model for reports": the page said "the model's share
    was used up" under "the model is not in use", which contradicted it."""
    svc, _ = service(corpus(), ScriptedBackend(), options=ReportSettings(llm_budget=0, alert_nomination=False))
    report = (await svc.view(window())).to_json()
    assert report["llm"]["status"] == "off"
    reasons = {t["prose"]["reason"] for t in report["themes"] if t["category"] in RATED}
    assert reasons == {"no_model"}


async def test_parts_beyond_the_budget_are_automatic_at_once_not_pending():
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()
    svc, _ = service(corpus(), backend, options=ReportSettings(llm_budget=1, alert_nomination=False))
    first = (await svc.view(window())).to_json()
    statuses = [t["prose"] for t in first["themes"] if t["category"] in RATED]
    assert statuses[0] == {"status": "pending", "reason": None}
    assert all(s == {"status": "automatic", "reason": "budget"} for s in statuses[1:])
    assert first["llm"]["pending"] == [first["themes"][0]["category"]]
    backend.hold.set()
    await settled(svc)


async def test_a_second_report_does_not_ask_the_screen_again_about_the_same_items():
    backend = ScriptedBackend()
    svc, _ = service(corpus(), backend, options=ReportSettings(prose="automatic"))
    await svc.report(window())
    asked = len(backend.prompts_of("VERIFY"))
    assert asked > 0
    await svc.invalidate()  # a new data version: a new generation
    again = (await svc.report(window())).to_json()
    assert len(backend.prompts_of("VERIFY")) == asked
    assert again["llm"]["screen"]["screened"] == again["llm"]["screen"]["candidates"]

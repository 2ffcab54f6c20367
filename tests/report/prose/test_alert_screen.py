"""The per-item yes/no alert screen and the nomination call: may add alerts, never removes one."""

from __future__ import annotations

import json

import pytest

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure
from feedback_intelligence.report.prose.llm_layer import alert_verdict
from feedback_intelligence.wording.sentences import ENGLISH, FINNISH
from tests.report.support import ScriptedBackend, full, item, make_domain, service, window

GENERIC_FI = FINNISH.generic_alert_reason


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("kyllä", True),
        ("Kyllä.", True),
        ("KYLLÄ!", True),
        ("  kyllä\n", True),
        ('"kyllä"', True),
        ("(kyllä)", True),
        ("Vastaus: kyllä", True),
        ("<think>ei kai</think> kyllä", True),
        ("ei", False),
        ("Ei.", False),
        ("kyllä, ei", False),
        ("ei—kyllä", False),
        ("kylläkin", False),
        ("en tiedä", False),
        ("", False),
    ],
)
def test_finnish_verdicts(reply, expected):
    assert alert_verdict(reply, FINNISH) is expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("yes", True), ("Yes.", True), ("YES - clearly", True), ("no", False), ("yes-no", False), ("yesterday", False)],
)
def test_english_verdicts(reply, expected):
    assert alert_verdict(reply, ENGLISH) is expected


def screened_corpus():
    return [
        item("safe", 1.0, text="Maito oli hyvää"),
        item("stairs", 2.0, text="Portaat romahtivat allani", category="kassa_palvelu", theme="portaat"),
        item("praise", 3.0, type_="praise", text="Kiitos avusta"),
        item("hit", 4.0, text="Lapsi loukkaantui", alerts=[("injury_safety", "loukkaantu")]),
        item("failed", 5.0, structure_failed=True, text="Hylly kaatui päälle"),
    ]


def verify_by_text(*alarming: str):
    def verify(prompt: str) -> str:
        return "Kyllä." if any(word in prompt for word in alarming) else "Ei."

    return verify


async def test_confirmed_items_become_model_alerts_after_the_keyword_alerts():
    def nominate(prompt: str) -> str:
        return json.dumps(
            {
                "alerts": [
                    {"id": "stairs", "reason": "Rakenne petti [stairs] asiakkaan alla."},
                    {"id": "stairs", "reason": "toinen syy"},
                    {"id": "safe", "reason": "ei vahvistettu, ei käytetä"},
                ]
            }
        )

    backend = ScriptedBackend(verify=verify_by_text("romahtivat", "kaatui"), nominate=nominate)
    svc, _ = service(screened_corpus(), backend)
    report = await full(svc, window())
    alerts = report["alerts"]
    assert [a["feedbackId"] for a in alerts] == ["hit", "failed", "stairs"]
    assert alerts[0]["llmReason"] is None
    assert alerts[1]["deterministicHits"] == [] and alerts[1]["llmReason"] == GENERIC_FI
    assert alerts[2]["llmReason"] == "Rakenne petti asiakkaan alla."
    assert len(backend.prompts_of("NOMINATE")) == 1
    assert report["llm"]["calls"] == 3  # nomination + two rated themes
    assert report["llm"]["verifyCalls"] == 3


async def test_candidates_exclude_praise_and_keyword_hits():
    backend = ScriptedBackend()
    svc, _ = service(screened_corpus(), backend)
    await full(svc, window())
    screened = backend.prompts_of("VERIFY")
    assert len(screened) == 3
    assert not any("Kiitos avusta" in p or "Lapsi loukkaantui" in p for p in screened)


async def test_rejections_add_nothing_and_make_no_nomination_call():
    backend = ScriptedBackend(verify=lambda _p: "ei")
    svc, _ = service(screened_corpus(), backend)
    report = await full(svc, window())
    assert [a["feedbackId"] for a in report["alerts"]] == ["hit"]
    assert backend.prompts_of("NOMINATE") == []


async def test_the_screen_fails_closed_on_any_error_and_is_not_a_fallback():
    backend = ScriptedBackend(verify=lambda _p: LlmFailure("model crashed"))
    svc, _ = service(screened_corpus(), backend)
    report = await full(svc, window())
    assert [a["feedbackId"] for a in report["alerts"]] == ["hit"]
    assert report["llmFallbackCount"] == 0
    assert report["llm"]["failed"] == 3


async def test_a_shed_screen_fails_closed_and_stops_the_report_calling_the_model():
    backend = ScriptedBackend(verify=lambda _p: LlmBusy("backend_busy"))
    svc, _ = service(screened_corpus(), backend)
    report = await full(svc, window())
    assert [a["feedbackId"] for a in report["alerts"]] == ["hit"]
    assert len(backend.requests) == 1
    assert report["llmFallbackCount"] == 2  # both rated themes


async def test_the_verify_budget_prevents_a_flood_of_calls():
    items = [item(f"q{n}", 1 + n / 10, text=f"hylly {n} huojuu") for n in range(10)]
    backend = ScriptedBackend(verify=lambda _p: "kyllä")
    svc, _ = service(items, backend, options=ReportSettings(alert_verify_budget=3))
    report = await full(svc, window())
    assert len(backend.prompts_of("VERIFY")) == 3
    assert [a["feedbackId"] for a in report["alerts"]] == ["q9", "q8", "q7"]  # newest first, in item order


@pytest.mark.parametrize(
    ("nomination", "fallbacks"),
    [
        ('{"alerts": [{"id": "stairs", "reason": "   "}]}', 0),
        ('{"alerts": [{"id": "stairs", "reason": "Suosittelemme portaiden sulkemista."}]}', 0),
        ('{"alerts": [{"id": "stairs", "reason": "[stairs]"}]}', 0),
        ('{"something": 1}', 0),
        ("tämä ei ole JSONia", 1),
        (LlmFailure("nomination timed out"), 1),
    ],
    ids=["blank", "directive", "all-echo", "no-array", "unparseable", "error"],
)
async def test_unusable_nomination_reasons_read_the_generic_line(nomination, fallbacks):
    backend = ScriptedBackend(verify=verify_by_text("romahtivat"), nominate=lambda _p: nomination)
    svc, _ = service(screened_corpus(), backend)
    report = await full(svc, window())
    model_alert = report["alerts"][-1]
    assert model_alert["feedbackId"] == "stairs"
    assert model_alert["llmReason"] == GENERIC_FI
    assert report["llmFallbackCount"] == fallbacks


async def test_nomination_lines_carry_id_category_severity_and_a_neutralised_excerpt():
    backend = ScriptedBackend(verify=verify_by_text("romahtivat", "kaatui"))
    svc, _ = service(screened_corpus(), backend)
    await full(svc, window())
    data = backend.prompts_of("NOMINATE")[0]
    assert '- [failed] (?/?) "Hylly kaatui päälle"' in data
    assert '- [stairs] (kassa_palvelu/medium) "Portaat romahtivat allani"' in data


async def test_no_screen_when_nomination_is_disabled_or_the_budget_is_zero():
    for options in (ReportSettings(alert_nomination=False), ReportSettings(alert_verify_budget=0)):
        backend = ScriptedBackend(verify=lambda _p: "kyllä")
        svc, _ = service(screened_corpus(), backend, options=options)
        report = await full(svc, window())
        assert backend.prompts_of("VERIFY") == []
        assert [a["feedbackId"] for a in report["alerts"]] == ["hit"]


async def test_english_domain_screens_with_yes_and_no():
    backend = ScriptedBackend(verify=lambda p: "Yes." if "romahtivat" in p else "No.")
    svc, _ = service(screened_corpus(), backend, domain=make_domain("en"))
    report = await full(svc, window())
    assert report["alerts"][-1]["llmReason"] == ENGLISH.generic_alert_reason

"""The structuring service applies the guards after a valid parse: a replaced value, a note, a count."""

from __future__ import annotations

import json
from dataclasses import replace

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.llm.errors import LlmUnavailable
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.structuring.guards import Rejection
from feedback_intelligence.structuring.service import StructuringService
from tests.structuring.fakes import make_runner

TEXT = "Kassajono oli taas puoli tuntia pitkä, vain yksi kassa auki."
ECHO = "2-4 word lowercase noun phrase in base form, in the feedback"


def reply(**fields: object) -> str:
    base = {
        "category": "kassa_palvelu",
        "theme": "pitkä kassajono",
        "severity": "medium",
        "type": "complaint",
        "sentiment": "negative",
        "language": "fi",
    }
    return json.dumps({**base, **fields}, ensure_ascii=False)


def rejected(metrics: Metrics, field: str, reason: str) -> float:
    value = metrics.registry.get_sample_value("fi_guard_rejections_total", {"field": field, "reason": reason})
    return value or 0.0


async def structure(backend: FakeBackend, metrics: Metrics | None = None):  # type: ignore[no-untyped-def]
    # every field guarded: the shipped priorFields would count these as prior_field instead
    svc = StructuringService(make_runner(backend), replace(load_domain("retail"), prior_fields=()), metrics=metrics)
    return await svc.structure(TEXT, CallContext.interactive("test", "interpret"))


async def test_a_prompt_echo_theme_is_replaced_noted_and_counted() -> None:
    metrics = Metrics()
    result = await structure(FakeBackend(reply(theme=ECHO)), metrics)
    assert result.structure is not None
    assert result.structure.theme != ECHO
    assert result.structure.theme in TEXT.lower()  # the prior's theme comes from the text
    (rejection,) = result.rejections
    assert rejection == Rejection("theme", "prompt_echo", ECHO, result.structure.theme)
    assert any("prompt_echo" in note and "theme" in note for note in result.notes)
    assert rejected(metrics, "theme", "prompt_echo") == 1
    assert not result.retried  # a guard is not a reason to ask the model again


async def test_every_broken_field_is_counted_by_field_and_reason() -> None:
    metrics = Metrics()
    broken = reply(theme="PALAUTE_LOPPU", language="al", sentiment="positive")
    result = await structure(FakeBackend(broken), metrics)
    assert result.structure is not None
    assert (result.structure.language, result.structure.sentiment) == ("fi", "negative")
    assert {(r.field, r.reason) for r in result.rejections} == {
        ("theme", "prompt_echo"),
        ("language", "not_iso639_1"),
        ("sentiment", "contradicts_type"),
    }
    assert rejected(metrics, "language", "not_iso639_1") == 1
    assert rejected(metrics, "sentiment", "contradicts_type") == 1
    assert len(result.notes) == 3


async def test_a_clean_reply_counts_nothing() -> None:
    metrics = Metrics()
    result = await structure(FakeBackend(reply()), metrics)
    assert result.rejections == () and result.notes == ()
    assert rejected(metrics, "theme", "prompt_echo") == 0


async def test_guards_apply_to_the_corrected_reply_too() -> None:
    metrics = Metrics()
    result = await structure(FakeBackend("no json here", reply(theme="kielen kielen kielen")), metrics)
    assert result.retried and result.structure is not None
    assert [r.reason for r in result.rejections] == ["repeated_word"]
    assert rejected(metrics, "theme", "repeated_word") == 1


async def test_a_failed_structuring_keeps_its_contract() -> None:
    metrics = Metrics()
    result = await structure(FakeBackend("nope", "still nope"), metrics)
    assert result.failed and result.structure is None and result.rejections == ()


async def test_transport_failures_still_raise() -> None:
    backend = FakeBackend(LlmUnavailable("down"))
    try:
        await structure(backend, Metrics())
    except LlmUnavailable:
        pass
    else:
        raise AssertionError("LlmUnavailable should propagate")


async def test_without_metrics_the_guards_still_apply() -> None:
    result = await structure(FakeBackend(reply(theme="Sentiment")))
    assert result.structure is not None and result.structure.theme != "Sentiment"


async def test_interpret_lists_the_guards_in_its_wire_shape() -> None:
    from feedback_intelligence.api.models import InterpretOut
    from feedback_intelligence.services.interpret import InterpretService

    domain = replace(load_domain("retail"), prior_fields=())  # every field guarded, not handed to the prior
    metrics = Metrics()
    broken = reply(theme="2-4", language="al", sentiment="positive")
    svc = StructuringService(make_runner(FakeBackend(broken)), domain, metrics=metrics)
    body = (await InterpretService(domain, svc).interpret(TEXT, visitor="test")).to_json()
    InterpretOut.model_validate(body)  # the documented wire model
    assert body["guards"] == [
        {"field": "sentiment", "reason": "contradicts_type", "modelValue": "positive", "replacement": "negative"},
        {"field": "language", "reason": "not_iso639_1", "modelValue": "al", "replacement": "fi"},
        {"field": "theme", "reason": "prompt_echo", "modelValue": "2-4", "replacement": body["structure"]["theme"]},
    ]
    assert body["structure"]["theme"] != "2-4" and body["structure"]["language"] == "fi"
    assert len(body["notes"]) == 3
    exposition = metrics.registry.get_sample_value(
        "fi_guard_rejections_total", {"field": "theme", "reason": "prompt_echo"}
    )
    assert exposition == 1

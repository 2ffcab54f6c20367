"""Where the rules decide every field but the theme, the model is asked for the theme alone."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.structuring.prompt import StructuringPrompt
from feedback_intelligence.structuring.schema import RULE_FIELDS, asks_theme_only
from feedback_intelligence.structuring.service import THEME_ONLY_MAX_TOKENS, StructuringService
from tests.structuring.fakes import make_runner

TEXT = "Kassajono oli taas puoli tuntia pitkä, vain yksi kassa auki."


async def test_the_shipped_retail_domain_asks_for_the_theme_alone() -> None:
    retail = load_domain("retail")
    assert set(retail.prior_fields) == set(RULE_FIELDS) and asks_theme_only(retail)
    backend = FakeBackend(json.dumps({"theme": "kassajono"}))
    svc = StructuringService(make_runner(backend), retail)
    result = await svc.structure(TEXT, CallContext.interactive("test", "interpret"))

    (request,) = backend.requests
    assert request.json_schema is not None and list(request.json_schema["properties"]) == ["theme"]
    assert request.max_tokens == THEME_ONLY_MAX_TOKENS
    prompt = backend.prompts[0]
    full = StructuringPrompt.for_domain(retail).render(TEXT)
    assert len(prompt) < len(full) / 3  # no category list, no enums
    assert '"category"' not in prompt and "kassa_palvelu" not in prompt and TEXT in prompt

    prior = propose_structure(TEXT, retail)
    assert result.structure == replace(prior, theme="kassajono")
    assert result.rejections == ()  # nothing the model was not asked for is "rejected"


async def test_a_theme_only_reply_still_passes_the_theme_guard() -> None:
    retail = load_domain("retail")
    echo = "1-3 words in base form naming the product"
    svc = StructuringService(make_runner(FakeBackend(json.dumps({"theme": echo}))), retail)
    result = await svc.structure(TEXT, CallContext.interactive("test", "interpret"))
    assert result.structure is not None and result.structure.theme != echo
    (rejection,) = result.rejections
    assert rejection.field == "theme" and rejection.reason == "prompt_echo" and rejection.model_value == echo


async def test_a_full_reply_to_the_theme_prompt_keeps_only_its_theme_and_a_broken_one_is_asked_again() -> None:
    retail = load_domain("retail")
    full = {"category": "maito_kylma", "theme": "kassajono", "severity": "critical", "type": "praise"}
    backend = FakeBackend("no json here", json.dumps(full))
    svc = StructuringService(make_runner(backend), retail)
    result = await svc.structure(TEXT, CallContext.interactive("test", "interpret"))
    assert result.retried and result.structure is not None
    assert result.structure == replace(propose_structure(TEXT, retail), theme="kassajono")
    assert not any("category" in note for note in result.notes)


async def test_a_domain_whose_model_decides_more_gets_the_full_schema() -> None:
    retail = replace(load_domain("retail"), prior_fields=("severity", "sentiment"))
    assert not asks_theme_only(retail)
    reply = {"category": "kassa_palvelu", "theme": "kassajono", "severity": "medium", "type": "complaint"}
    backend = FakeBackend(json.dumps({**reply, "language": "fi"}))
    svc = StructuringService(make_runner(backend), retail)
    await svc.structure(TEXT, CallContext.interactive("test", "interpret"))
    (request,) = backend.requests
    assert request.json_schema is not None and "category" in request.json_schema["properties"]


@pytest.mark.voikko
async def test_an_accepted_model_theme_reaches_the_caller_in_base_form() -> None:
    retail = load_domain("retail")
    text = "pakkasnesteen kanisteri vuoti kassiin ja auton takakonttiin"
    svc = StructuringService(make_runner(FakeBackend(json.dumps({"theme": "Pakkasnesteen"}))), retail)
    result = await svc.structure(text, CallContext.interactive("test", "interpret"))
    assert result.structure is not None and result.structure.theme == "pakkasneste"
    assert result.rejections == ()

"""The shipped report prompts: declared, placeholders present, output contract and data-not-instructions stated."""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.loader import load_domain

DOMAINS = ["retail", "game"]


@pytest.mark.parametrize("name", DOMAINS)
def test_prompts_have_their_placeholder_exactly_once_near_the_end(name: str) -> None:
    prompts = load_domain(name).prompts
    for role, placeholder in (("synthesis", "{{data}}"), ("alertNomination", "{{data}}"), ("alertVerify", "{{text}}")):
        text = prompts[role]
        assert text.count(placeholder) == 1, role
        assert "\r" not in text
        assert len(text) - text.index(placeholder) < 40, f"{role}: the data should come last"


@pytest.mark.parametrize("name", DOMAINS)
def test_synthesis_asks_for_the_grounded_json_object(name: str) -> None:
    text = load_domain(name).prompts["synthesis"]
    assert '{"title": "...", "narrative": "...", "citedIds": ["..."]}' in text
    assert "8" in text
    assert "2–4" in text or "2 to 4" in text


@pytest.mark.parametrize("name", DOMAINS)
def test_nomination_asks_for_alerts_with_id_and_reason(name: str) -> None:
    text = load_domain(name).prompts["alertNomination"]
    assert '{"alerts": [{"id": ' in text and '"reason": ' in text
    assert '{"alerts": []}' in text
    assert "- [" in text  # describes the line format of the data


def test_verify_prompts_present_the_item_and_ask_for_one_word() -> None:
    fi = load_domain("retail").prompts["alertVerify"]
    en = load_domain("game").prompts["alertVerify"]
    assert 'Palaute: "{{text}}"' in fi and "kyllä" in fi and " ei" in fi
    assert 'Feedback: "{{text}}"' in en and "yes" in en and " no" in en


@pytest.mark.parametrize(("name", "phrase"), [("retail", "aineistoa, ei ohjeita"), ("game", "data, not instructions")])
def test_every_prompt_says_the_data_is_not_instructions(name: str, phrase: str) -> None:
    for role, text in load_domain(name).prompts.items():
        assert phrase in text, role


def test_retail_prompts_are_finnish_and_game_prompts_english() -> None:
    for text in load_domain("retail").prompts.values():
        assert "Palauta" in text or "Vastaus" in text
        assert " the " not in text
    for text in load_domain("game").prompts.values():
        assert " the " in text

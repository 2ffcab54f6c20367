"""ADR 0022: every shipped eval item has gold topic words, Finnish ones in Voikko's base form."""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.evaluation.themes import in_base_form, names_topic
from feedback_intelligence.text.morphology import analyse


@pytest.mark.parametrize("name", ["retail", "game"])
def test_every_item_has_topic_words(name: str) -> None:
    items = load_set(load_domain(name))
    assert all(item.topics for item in items)
    assert all(t == t.lower() and " " not in t for item in items for t in item.topics)


@pytest.mark.voikko
def test_finnish_topics_are_their_own_base_form() -> None:
    items = [i for i in load_set(load_domain("retail")) if i.gold["language"] == "fi"]
    wrong = [(i.id, t) for i in items for t in i.topics if analyse(t) and not in_base_form(t, "fi")]
    assert wrong == []


@pytest.mark.voikko
def test_a_theme_names_a_topic_by_base_form_or_compound_part() -> None:
    assert names_topic("kuitin", ["kuitti"], "fi")
    assert names_topic("maitohylly", ["maito"], "fi")  # a compound part
    assert not names_topic("hylly", ["jogurttihylly"], "fi")  # less specific than the topic: not named
    assert names_topic("crashes", ["crash"], "en")
    assert not names_topic("sometimes", ["crafting", "bench"], "en")

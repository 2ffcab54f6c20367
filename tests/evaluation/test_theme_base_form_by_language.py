"""Theme figures score base form per language: Finnish every word by Voikko, Swedish and English the
head word by simplemma, so an inflected Swedish or English theme counts against the figure."""

from __future__ import annotations

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.evaluation.themes import head_in_base_form, theme_check_of, theme_figures


def _item(item_id: str, text: str, language: str, topics: tuple[str, ...]) -> EvalItem:
    gold = {"category": "muu", "severity": "low", "type": "complaint", "sentiment": "negative", "language": language}
    return EvalItem(id=item_id, split="dev", text=text, gold=gold, alerts=frozenset(), topics=topics, tags=())


def test_an_inflected_swedish_or_english_head_is_not_in_base_form() -> None:
    assert head_in_base_form("toaletterna", "sv") is False
    assert head_in_base_form("toalett", "sv") is True
    assert head_in_base_form("young men", "en") is False
    assert head_in_base_form("loading screen", "en") is True
    assert head_in_base_form("kuitti", "de") is None


def test_the_figures_give_a_share_per_language() -> None:
    items = [
        _item("a", "Kunden klagade på toaletterna", "sv", ("toaletterna",)),
        _item("b", "Kunden klagade på priserna", "sv", ("priserna",)),
        _item("c", "The toilets were dirty", "en", ("toilets",)),
    ]
    themes = {"a": "toalett", "b": "priserna", "c": "toilet"}
    figures = theme_figures(items, themes, theme_check_of(load_domain("retail")))
    assert figures["baseFormByLanguage"] == {"en": {"n": 1, "share": 1.0}, "sv": {"n": 2, "share": 0.5}}
    assert figures["namesTopic"] == 1.0  # "toalett" names "toaletterna": a prefix form of it

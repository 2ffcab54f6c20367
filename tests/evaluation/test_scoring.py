"""Scoring on tiny hand-made inputs: every figure checked against a count done by hand."""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.client import Observation, observation_from
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.evaluation.render import markdown, render
from feedback_intelligence.evaluation.scoring import (
    accuracy,
    alert_scores,
    confusions,
    contradicts,
    keyword_precision,
    majority,
    model_alone,
    pooled,
    scorecard,
)


@pytest.fixture(scope="module")
def retail():
    return load_domain("retail")


def item(
    id_: str,
    category: str,
    type_: str = "complaint",
    *,
    alerts=(),
    split: str = "dev",
    severity: str = "medium",
    language: str = "fi",
) -> EvalItem:
    sentiment = {"complaint": "negative", "praise": "positive"}.get(type_, "neutral")
    gold = {"category": category, "severity": severity, "type": type_, "sentiment": sentiment, "language": language}
    return EvalItem(id_, split, f"teksti {id_}", gold, frozenset(alerts))


def structure(
    category: str,
    type_: str = "complaint",
    sentiment: str | None = "negative",
    severity: str = "medium",
    language: str = "fi",
    theme: str = "maito",
) -> dict:
    body = {"category": category, "theme": theme, "severity": severity, "type": type_, "language": language}
    return body | ({"sentiment": sentiment} if sentiment else {})


def test_accuracy_and_majority_count_exact_matches() -> None:
    assert accuracy(["a", "b", "b", "c"], ["a", "b", None, "b"]) == 0.5
    assert accuracy([], []) is None
    assert majority(["low", "high", "low", "medium"]) == ("low", 0.5)
    assert majority(["x", "y"]) == ("x", 0.5)  # a tie goes to the first seen
    assert majority([]) == (None, None)


def test_model_alone_swaps_each_guarded_field_back_to_what_the_model_said() -> None:
    final = structure("hevi", theme="banaanit", language="fi")
    guards = [
        {"field": "theme", "reason": "prompt_echo", "modelValue": "2-4", "replacement": "banaanit"},
        {"field": "language", "reason": "not_iso", "modelValue": "al", "replacement": "fi"},
        # a second guard on the same field saw the first one's replacement, not the model
        {"field": "language", "reason": "evidence", "modelValue": "fi", "replacement": "fi"},
    ]
    alone = model_alone(final, guards)
    assert alone == final | {"theme": "2-4", "language": "al"}
    assert final["language"] == "fi"  # the input is not mutated
    assert model_alone(None, guards) is None
    assert model_alone(final, []) == final


def test_confusions_list_the_most_frequent_mistakes_first() -> None:
    gold = ["hevi", "hevi", "hevi", "leipa", "leipa"]
    predicted = ["maito_kylma", "maito_kylma", "hevi", "maito_kylma", None]
    assert confusions(gold, predicted) == [
        {"gold": "hevi", "predicted": "maito_kylma", "count": 2},
        {"gold": "leipa", "predicted": "maito_kylma", "count": 1},
        {"gold": "leipa", "predicted": "(none)", "count": 1},
    ]


def test_alert_recall_and_precision_per_category_and_pooled() -> None:
    gold = [{"injury_safety"}, {"injury_safety"}, {"payment"}, set(), set()]
    predicted = [{"injury_safety"}, set(), {"payment", "injury_safety"}, {"legal_threat"}, set()]
    scores = alert_scores(gold, predicted, ["injury_safety", "payment", "legal_threat"])
    assert scores["injury_safety"] == {"tp": 1, "fp": 1, "fn": 1, "recall": 0.5, "precision": 0.5}
    assert scores["payment"] == {"tp": 1, "fp": 0, "fn": 0, "recall": 1.0, "precision": 1.0}
    assert scores["legal_threat"] == {"tp": 0, "fp": 1, "fn": 0, "recall": None, "precision": 0.0}
    both = pooled(scores, ["injury_safety", "payment", "legal_threat"])
    assert both == {"tp": 2, "fp": 2, "fn": 1, "recall": 2 / 3, "precision": 0.5}


def test_contradiction_is_a_polar_sentiment_opposite_to_the_types(retail) -> None:
    assert contradicts("complaint", "positive", retail)
    assert contradicts("praise", "negative", retail)
    assert not contradicts("complaint", "neutral", retail)
    assert not contradicts("question", "negative", retail)  # neutral by type, not polar: no contradiction
    assert not contradicts("complaint", None, retail)


def test_keyword_precision_counts_where_the_rules_name_a_category() -> None:
    items = [item("1", "hevi"), item("2", "hevi"), item("3", "kassa_palvelu"), item("4", "leipa")]
    named = {"teksti 1": "hevi", "teksti 2": "kassa_palvelu", "teksti 3": "kassa_palvelu"}
    result = keyword_precision(items, named.get)
    assert result == {
        "kassa_palvelu": {"fired": 2, "correct": 1, "precision": 0.5},
        "hevi": {"fired": 1, "correct": 1, "precision": 1.0},
    }


def test_a_scorecard_puts_final_model_alone_prior_and_majority_side_by_side(retail) -> None:
    items = [
        item("1", "hevi"),
        item("2", "leipa"),
        item("3", "hevi", "praise", severity="low"),
        item("4", "tilat_siisteys", alerts=["injury_safety"], severity="critical"),
    ]
    observations = [
        # the model said maito_kylma, a guard put hevi back: final right, model alone wrong
        Observation(
            "1",
            structure("hevi"),
            guards=(
                {"field": "category", "reason": "keyword_evidence", "modelValue": "maito_kylma", "replacement": "hevi"},
            ),
            latency_ms=100.0,
        ),
        Observation("2", structure("maito_kylma"), latency_ms=300.0, salvaged=True),
        Observation("3", structure("hevi", "praise", "negative", severity="low"), latency_ms=200.0),
        Observation("4", None, failed=True, alerts=frozenset({"injury_safety"}), latency_ms=400.0),
    ]
    priors = {
        "1": structure("hevi"),
        "2": structure("leipa"),
        "3": structure("hevi", "complaint"),
        "4": structure("tilat_siisteys", severity="critical"),
    }
    card = scorecard(items, observations, retail, priors=priors, theme_rejected=lambda theme, text: theme == "maito")
    category = card["fields"]["category"]
    assert category == {"final": 0.5, "modelAlone": 0.25, "prior": 1.0, "majority": 0.5, "majorityLabel": "hevi"}
    assert card["fields"]["type"]["final"] == 0.75 and card["fields"]["type"]["prior"] == 0.75
    assert card["fields"]["severity"]["majority"] == 0.5 and card["fields"]["severity"]["majorityLabel"] == "medium"
    assert card["fields"]["sentiment"]["final"] == 0.5  # item 3's negative praise is wrong, item 4 failed
    assert card["categoryConfusions"] == [
        {"gold": "leipa", "predicted": "maito_kylma", "count": 1},
        {"gold": "tilat_siisteys", "predicted": "(none)", "count": 1},
    ]
    assert card["alerts"]["watchedPooled"] == {"tp": 1, "fp": 0, "fn": 0, "recall": 1.0, "precision": 1.0}
    assert card["guards"] == {"category": {"keyword_evidence": 1}} and card["guardedItems"] == 1
    assert (card["failed"], card["salvaged"], card["errors"]) == (1, 1, 0)
    assert card["latencyMs"] == {"p50": 300.0, "p90": 400.0, "n": 4}
    assert card["invariants"] == {"sentimentContradictsType": 1, "missingSentiment": 0, "rejectedThemesShown": 3}


def test_an_item_without_an_answer_counts_wrong_and_as_an_error(retail) -> None:
    items = [item("1", "hevi"), item("2", "hevi")]
    card = scorecard(items, [Observation("1", structure("hevi"), latency_ms=5.0)], retail)
    assert card["fields"]["category"]["final"] == 0.5 and card["errors"] == 1
    assert card["fields"]["category"]["prior"] is None  # no prior given: no figure, not zero


def test_an_interpret_body_becomes_an_observation() -> None:
    body = {
        "structure": structure("hevi"),
        "failed": False,
        "salvaged": True,
        "notes": [],
        "alertCategories": ["injury_safety"],
        "guards": [{"field": "theme", "reason": "r", "modelValue": "x", "replacement": "y"}],
    }
    seen = observation_from("a", body, 12.0, retries=2)
    assert seen.structure == body["structure"] and seen.salvaged and not seen.failed
    assert seen.alerts == {"injury_safety"} and seen.guards[0]["modelValue"] == "x" and seen.retries == 2
    failed = observation_from("b", {"structure": None, "failed": True, "alertCategories": []}, 3.0)
    assert failed.failed and failed.structure is None and failed.guards == ()


def test_render_and_markdown_show_every_field_for_every_split(retail) -> None:
    items = [item("1", "hevi", split="dev"), item("2", "leipa", split="holdout")]
    observations = [Observation("1", structure("hevi"), latency_ms=1.0), Observation("2", structure("hevi"))]
    cards = {"dev": scorecard(items[:1], observations, retail), "holdout": scorecard(items[1:], observations, retail)}
    result = {"domain": "retail", "target": "http://x", "splits": cards}
    table = markdown(result)
    assert "| dev (1) | category | 1.00 |" in table and "| holdout (1) | category | 0.00 |" in table
    assert table.count("| language |") == 2
    assert render(result) is not None

"""The deterministic half of an evaluation (alerts, the prior): no model, no service, the holdout in aggregate."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from feedback_intelligence.devtools.processes import REPO
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import EvalItem, EvalSetError, load_set
from feedback_intelligence.evaluation.offline import deterministic_result, dev_misses
from feedback_intelligence.evaluation.render import markdown_deterministic


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


def item(
    id_: str, split: str, text: str, category: str, alerts: tuple[str, ...] = (), type_: str = "complaint"
) -> EvalItem:
    sentiment = {"complaint": "negative", "question": "neutral"}[type_]
    severity = "critical" if "injury_safety" in alerts else "high" if alerts else "low"
    gold = {"category": category, "severity": severity, "type": type_, "sentiment": sentiment, "language": "fi"}
    return EvalItem(id_, split, text, gold, frozenset(alerts))


ITEMS = [
    item("d1", "dev", "Asiakas kaatui märällä lattialla hedelmäosaston edessä", "tilat_siisteys", ("injury_safety",)),
    item("d2", "dev", "asiakas kysyi onko tässä allergeeneja?", "makeiset", type_="question"),
    item("d3", "dev", "kassalla oli sekavaa, asiakas ei saanut apua", "kassa_palvelu", ("payment",)),  # a miss
    item("h1", "holdout", "asiakkaalta veloitettiin kortilta kahdesti", "kassa_palvelu", ("payment",)),
    item("h2", "holdout", "Salainen holdout-teksti kaatui", "muu"),  # a false alarm nobody should read
]


def test_alerts_and_the_prior_are_scored_per_split(retail: Domain) -> None:
    result = deterministic_result(ITEMS, retail, "all")
    assert list(result["splits"]) == ["dev", "holdout", "all"]
    dev, holdout, everything = (result["splits"][s] for s in ("dev", "holdout", "all"))
    assert (dev["n"], holdout["n"], everything["n"]) == (3, 2, 5)
    pooled = dev["alerts"]["watchedPooled"]
    assert (pooled["tp"], pooled["fp"], pooled["fn"]) == (1, 0, 1)  # the fall alerts, the allergy question does not
    assert dev["alerts"]["byCategory"]["payment"]["recall"] == 0.0
    assert holdout["alerts"]["byCategory"]["injury_safety"]["fp"] == 1
    assert dev["alerts"]["watched"] == [
        "injury_safety",
        "food_safety",
        "payment",
        "legal_threat",
    ]  # rasismi routes, is not pooled
    # the prior: the fall goes to the premises, not to produce; the question is a question
    assert dev["fields"]["category"]["prior"] == pytest.approx(2 / 3)
    assert dev["fields"]["type"]["prior"] == 1.0
    assert dev["fields"]["language"]["prior"] == 1.0
    assert dev["priorThemesRejected"] == 0


def test_the_holdout_card_names_no_item(retail: Domain) -> None:
    card = deterministic_result(ITEMS, retail, "holdout")["splits"]["holdout"]
    dumped = json.dumps(card, ensure_ascii=False)
    assert "h1" not in dumped and "h2" not in dumped and "Salainen" not in dumped and "veloitettiin" not in dumped


def test_misses_are_listed_for_dev_only(retail: Domain) -> None:
    misses = dev_misses([i for i in ITEMS if i.split == "dev"], retail, fields=("category",))
    assert [(m.item_id, m.kind, m.detail) for m in misses] == [
        ("d2", "category wrong", "makeiset -> muu"),
        ("d3", "alert missed", "payment"),
    ]
    with pytest.raises(EvalSetError, match="dev items only"):
        dev_misses(ITEMS, retail)


def test_theme_misses_name_the_gold_topics_and_the_priors_theme() -> None:
    game = load_domain("game")
    gold = {"category": "bugs_crashes", "severity": "low", "type": "question", "sentiment": "neutral", "language": "en"}
    items = [
        EvalItem(
            "g1", "dev", "is the damage falloff on shotguns intended or a bug?", gold, frozenset(), topics=("shotguns",)
        ),
        EvalItem("g2", "dev", "the crafting bench sometimes eats materials", gold, frozenset(), topics=("bench",)),
    ]
    misses = dev_misses(items, game, fields=("theme",))
    listed = [(m.item_id, m.kind, m.detail) for m in misses]
    assert listed == [("g1", "theme names no topic", "shotguns -> damage falloff")]
    card = deterministic_result(items, game, "dev")["splits"]["dev"]
    assert card["priorThemes"]["namesTopic"] == 0.5


def test_markdown_has_a_row_per_split(retail: Domain) -> None:
    table = markdown_deterministic(deterministic_result(ITEMS, retail, "all"))
    assert "| dev (3) | 0.50 | 1.00 |" in table
    assert "| holdout | pooled (watched) |" in table


def feedctl_eval(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    command = [sys.executable, "-m", "feedback_intelligence", "eval", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.process
def test_feedctl_eval_prior_only_needs_no_service_and_lists_no_holdout_item(tmp_path, retail: Domain) -> None:
    out = tmp_path / "det.json"
    run = feedctl_eval(
        "--prior-only", "--split", "all", "--misses", "alerts", "--url", "http://127.0.0.1:9", "--json", str(out)
    )
    assert run.returncode == 0, run.stdout + run.stderr
    body = json.loads(out.read_text())
    shipped = load_set(retail)
    assert body["splits"]["all"]["n"] == len(shipped)
    holdout_ids = [i.id for i in shipped if i.split == "holdout"]
    assert not any(i in run.stdout for i in holdout_ids)  # the holdout is reported in aggregate only
    assert "misses are listed for the dev part only" in run.stdout


@pytest.mark.process
def test_feedctl_eval_misses_needs_prior_only() -> None:
    run = feedctl_eval("--misses", "alerts")
    assert run.returncode == 2 and "--prior-only" in run.stderr

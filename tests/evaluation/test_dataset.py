"""The shipped evaluation sets: loadable, labelled with the domain's own keys, split, and apart from the demo."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import EvalSetError, load_set, select
from feedback_intelligence.evaluation.scoring import watched_alert_categories


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


@pytest.mark.parametrize(("name", "minimum", "language"), [("retail", 150, "fi"), ("game", 50, "en")])
def test_each_set_is_big_enough_labelled_by_the_domain_and_has_a_holdout_third(name, minimum, language) -> None:
    domain = load_domain(name)
    items = load_set(domain)  # validates every label against the domain
    assert len(items) >= minimum
    holdout = select(items, "holdout")
    assert len(holdout) * 3 >= len(items)
    assert len(select(items, "dev")) + len(holdout) == len(items)
    assert Counter(i.gold["language"] for i in items).most_common(1)[0][0] == language
    for item in items:
        assert item.gold["sentiment"] == domain.type_sentiment[item.gold["type"]], item.id
    # every kind of feedback and every warning alert category has gold examples in both parts
    for part in (select(items, "dev"), holdout):
        assert {i.gold["type"] for i in part} >= {"complaint", "praise", "question", "suggestion"}
        raised = {a for i in part for a in i.alerts}
        assert set(watched_alert_categories(domain)) <= raised


def test_the_retail_set_covers_the_departments_and_the_hard_cases() -> None:
    domain = load_domain("retail")
    items = load_set(domain)
    assert {i.gold["category"] for i in items} == set(domain.categories)
    languages = Counter(i.gold["language"] for i in items)
    assert languages["en"] >= 3 and languages["sv"] >= 3
    tags = Counter(t for i in items for t in i.tags)
    for tag in ("injection", "incident", "payment", "legal", "no-umlauts", "spoken", "long"):
        assert tags[tag] >= 2, tag
    assert any("kaatui" in i.text for i in items if "injury_safety" in i.alerts)


def test_no_eval_text_is_in_the_demo_corpus() -> None:
    demo = {_norm(entry["text"]) for entry in load_corpus()}
    for name in ("retail", "game"):
        texts = [_norm(i.text) for i in load_set(load_domain(name))]
        assert len(texts) == len(set(texts)), f"{name}: duplicate texts"
        assert not demo & set(texts)


def _write(path: Path, *rows: dict) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


GOOD = {
    "id": "x-1",
    "split": "dev",
    "text": "Maito oli hapanta.",
    "alerts": [],
    "gold": {
        "category": "maito_kylma",
        "severity": "medium",
        "type": "complaint",
        "sentiment": "negative",
        "language": "fi",
    },
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gold": {**GOOD["gold"], "category": "dairy"}}, "gold category 'dairy'"),
        ({"gold": {**GOOD["gold"], "severity": "Korkea"}}, "gold severity 'Korkea'"),
        ({"gold": {**GOOD["gold"], "language": "finnish"}}, "gold language 'finnish'"),
        ({"alerts": ["fire"]}, "alert category 'fire'"),
        ({"split": "test"}, "split 'test'"),
    ],
)
def test_a_label_the_domain_does_not_declare_is_refused_with_its_line(tmp_path, change, message) -> None:
    path = _write(tmp_path / "set.jsonl", GOOD, {**GOOD, "id": "x-2", **change})
    with pytest.raises(EvalSetError, match=r"set\.jsonl:2") as raised:
        load_set(load_domain("retail"), path)
    assert message in str(raised.value)


def test_duplicate_ids_missing_fields_and_missing_files_are_refused(tmp_path) -> None:
    retail = load_domain("retail")
    with pytest.raises(EvalSetError, match="duplicate id 'x-1'"):
        load_set(retail, _write(tmp_path / "a.jsonl", GOOD, GOOD))
    without_gold = {k: v for k, v in GOOD.items() if k != "gold"}
    with pytest.raises(EvalSetError, match="missing or malformed 'gold'"):
        load_set(retail, _write(tmp_path / "b.jsonl", without_gold))
    with pytest.raises(EvalSetError, match="no evaluation set"):
        load_set(retail, tmp_path / "absent.jsonl")
    assert [i.id for i in load_set(retail, _write(tmp_path / "c.jsonl", GOOD))] == ["x-1"]

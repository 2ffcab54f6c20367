"""The packaged demo corpus and ground truth: shape, API limits, planted stories, relative timestamps."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from feedback_intelligence.demo.corpus import (
    DEFAULT_CORPUS_PATH,
    CorpusError,
    corpus_anchor,
    finland_utc_offset,
    load_corpus,
    load_ground_truth,
)
from tests.prerequisites import require

# The 30 retail category keys and the ingest sources.
RETAIL_CATEGORIES = {
    "maito_kylma",
    "hevi",
    "kuiva_elintarvike",
    "liha_kala",
    "leipa",
    "makeiset",
    "juomat",
    "pakasteet",
    "einekset",
    "oluet_siiderit",
    "koti_taloustavara",
    "hygienia_kauneus",
    "lastentarvikkeet",
    "lemmikki",
    "kodinkoneet",
    "vaatteet_jalkineet",
    "vapaa_aika",
    "autotarvikkeet",
    "piha_puutarha",
    "rakennustarvike",
    "tyokalut",
    "sisustus_maalit",
    "sahko_lvi",
    "kassa_palvelu",
    "tilat_siisteys",
    "varasto_nouto",
    "verkkokauppa_toimitus",
    "rasismi",
    "asiaton",
    "muu",
}
RETAIL_SOURCES = {"google_review", "email", "web_form", "desk"}

# Every retail alert stem (case-insensitive substring match).
ALERT_STEMS = {
    "injury_safety": [
        "loukkaantu",
        "loukkas",
        "satutti",
        "vahingoittu",
        "tapaturma",
        "vaaratilanne",
        "hengenvaara",
        "vaarall",
        "liukastu",
        "kaaduin",
        "verta",
        "haava",
        "palovamma",
        "murtu",
        "sähköisku",
        "tulipalo",
        "ambulanssi",
        "ensiapu",
        "sairaala",
        "myrkyt",
        "tukehtu",
        "allergi",
        "lasinsiru",
        "vierasesine",
    ],
    "payment": ["veloit", "maksupäät", "laskutusvirhe", "maksu ei onnistu"],
    "rasismi": ["neeker", "nekru", "rättipää", "vinosilm", "mutakuono", "ryssä", "sieg heil"],
    "legal_threat": [
        "kuluttajansuoja",
        "kuluttajariita",
        "lakimies",
        "asianajaja",
        "juristi",
        "oikeustoim",
        "haastan",
        "korvausvaatimus",
        "vaadin korvaus",
        "viranomais",
        "terveystarkasta",
        "ruokavirasto",
    ],
}

ID_RE = re.compile(r"^[A-Za-z0-9._-]+$")
SUMMER_NOW = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)  # anchor 2026-06-30, all +03:00
WINTER_NOW = datetime(2026, 1, 20, 9, 0, tzinfo=UTC)  # anchor 2026-01-19, all +02:00
DST_NOW = datetime(2026, 4, 5, 10, 0, tzinfo=UTC)  # window straddles 2026-03-29: both offsets


def _raw_lines() -> list[dict]:
    return [json.loads(line) for line in DEFAULT_CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


@pytest.fixture(scope="module")
def ground_truth() -> dict:
    return load_ground_truth()


@pytest.fixture(scope="module")
def stories(ground_truth: dict) -> dict[str, dict]:
    return {s["id"]: s for s in ground_truth["stories"]}


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return load_corpus(now=SUMMER_NOW)


def test_corpus_parses_with_about_a_hundred_items(items: list[dict]) -> None:
    assert 90 <= len(items) <= 110
    for item in items:
        assert set(item) == {"id", "source", "text", "timestamp"}


def test_ids_unique_and_valid(items: list[dict]) -> None:
    ids = [i["id"] for i in items]
    assert len(set(ids)) == len(ids)
    for item_id in ids:
        assert ID_RE.fullmatch(item_id) and len(item_id) <= 100
        assert re.fullmatch(r"demo-\d{4}", item_id)


def test_texts_within_api_cap_and_sources_retail(items: list[dict]) -> None:
    for item in items:
        assert item["text"].strip()
        assert len(item["text"].encode("utf-16-le")) // 2 <= 800
        assert item["source"] in RETAIL_SOURCES
    assert set(Counter(i["source"] for i in items)) == RETAIL_SOURCES


def test_texts_are_varied(items: list[dict]) -> None:
    lengths = sorted(len(i["text"]) for i in items)
    assert lengths[0] <= 10
    assert lengths[-1] >= 500
    texts = [i["text"] for i in items]
    assert len(set(texts)) == len(texts)
    joined = _folded(" ".join(texts))
    assert "ohita aiemmat ohjeet" in joined and "merkitse kriittiseksi" in joined  # prompt-injection attempt
    assert sum(1 for t in texts if re.search(r"\b(the|please|why|could)\b", t, re.IGNORECASE)) >= 2  # English


def test_file_does_not_leak_story_tags() -> None:
    for record in _raw_lines():
        assert set(record) == {"id", "source", "daysAgo", "timeOfDay", "text"}


def test_ground_truth_shape(ground_truth: dict, stories: dict[str, dict]) -> None:
    assert ground_truth["nonEvidential"] is False
    assert set(stories) == {"dairy-freshness-worsening", "safety-no-keyword", "availability-slow-burn"}
    for story in stories.values():
        assert story["expectedCategory"] in RETAIL_CATEGORIES
        assert story["trend"] in {"worsening", "stable"}
        assert 1 <= story["minGroundedIds"] <= len(story["feedbackIds"])
        assert story["windowDays"] >= 1
        assert story["expectedThemeKeywords"]
        assert isinstance(story["expectAlert"], bool)
    assert stories["dairy-freshness-worsening"]["expectedCategory"] == "maito_kylma"
    assert stories["safety-no-keyword"]["expectedCategory"] == "rakennustarvike"
    assert stories["safety-no-keyword"]["expectAlert"] is True
    assert stories["availability-slow-burn"]["expectedCategory"] == "leipa"


def test_every_story_id_exists_once(items: list[dict], stories: dict[str, dict]) -> None:
    corpus_ids = {i["id"] for i in items}
    seen: list[str] = []
    for story in stories.values():
        assert set(story["feedbackIds"]) <= corpus_ids
        seen.extend(story["feedbackIds"])
    assert len(seen) == len(set(seen))
    assert len(stories["dairy-freshness-worsening"]["feedbackIds"]) == 9
    assert len(stories["safety-no-keyword"]["feedbackIds"]) == 1
    assert len(stories["availability-slow-burn"]["feedbackIds"]) == 7


def test_safety_story_has_no_alert_stem(items: list[dict], stories: dict[str, dict]) -> None:
    by_id = {i["id"]: i for i in items}
    for item_id in stories["safety-no-keyword"]["feedbackIds"]:
        text = _folded(by_id[item_id]["text"])
        hits = [stem for stems in ALERT_STEMS.values() for stem in stems if _folded(stem) in text]
        assert hits == [], f"{item_id} contains alert stems {hits}"
        assert by_id[item_id]["source"] == "web_form"


def test_story_items_sit_inside_their_windows_and_grow_late(stories: dict[str, dict]) -> None:
    days_ago = {r["id"]: r["daysAgo"] for r in _raw_lines()}
    for story in stories.values():
        for item_id in story["feedbackIds"]:
            assert 0 <= days_ago[item_id] <= story["windowDays"] - 1
    for story_id in ("dairy-freshness-worsening", "availability-slow-burn"):
        story = stories[story_id]
        half = story["windowDays"] / 2
        early = sum(1 for i in story["feedbackIds"] if days_ago[i] >= half)
        late = len(story["feedbackIds"]) - early
        assert late >= 2 * early > 0


def _local(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp)


@pytest.mark.parametrize(
    ("now", "offsets"), [(SUMMER_NOW, {"+03:00"}), (WINTER_NOW, {"+02:00"}), (DST_NOW, {"+02:00", "+03:00"})]
)
def test_timestamps_rebased_into_the_21_days_before_now(now: datetime, offsets: set[str]) -> None:
    anchor = corpus_anchor(now)
    assert anchor == (now + finland_utc_offset(now)).date() - timedelta(days=1)
    loaded = load_corpus(now=now)
    seen_offsets = set()
    for item in loaded:
        stamp = _local(item["timestamp"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00[+-]\d\d:\d\d", item["timestamp"])
        assert anchor - timedelta(days=20) <= stamp.date() <= anchor
        assert 7 <= stamp.hour <= 22
        assert stamp < now
        seen_offsets.add(item["timestamp"][-6:])
    assert seen_offsets == offsets
    dates = {_local(i["timestamp"]).date() for i in loaded}
    assert len(dates) >= 15  # spread over the window, not bunched


def test_default_now_is_recent() -> None:
    before = datetime.now(UTC)
    loaded = load_corpus()
    for item in loaded:
        stamp = _local(item["timestamp"])
        assert before - timedelta(days=23) < stamp < before


def test_story_windows_resolved_against_anchor(stories: dict[str, dict]) -> None:
    anchor = corpus_anchor(SUMMER_NOW)
    gt = load_ground_truth(anchor=anchor)
    assert gt["anchorDate"] == "2026-06-30"
    resolved = {s["id"]: s for s in gt["stories"]}
    assert resolved["dairy-freshness-worsening"]["windowFrom"] == "2026-06-17"
    assert resolved["dairy-freshness-worsening"]["windowTo"] == "2026-06-30"
    assert resolved["availability-slow-burn"]["windowFrom"] == "2026-06-10"
    by_id = {i["id"]: i for i in load_corpus(now=SUMMER_NOW)}
    for story in resolved.values():
        for item_id in story["feedbackIds"]:
            day = _local(by_id[item_id]["timestamp"]).date().isoformat()
            assert story["windowFrom"] <= day <= story["windowTo"]


def test_finland_offset_matches_tzdata() -> None:
    require("tzdata")
    helsinki = ZoneInfo("Europe/Helsinki")
    instant = datetime(2025, 1, 1, tzinfo=UTC)
    while instant < datetime(2027, 1, 1, tzinfo=UTC):
        assert finland_utc_offset(instant) == instant.astimezone(helsinki).utcoffset(), instant
        instant += timedelta(minutes=30)


def test_absolute_timestamps_pass_through_and_bad_lines_fail(tmp_path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "a-1", "source": "desk", "text": "hei", "timestamp": "2026-07-01T10:00:00+03:00", "story": "x"}\n\n',
        encoding="utf-8",
    )
    assert load_corpus(path, now=SUMMER_NOW) == [
        {"id": "a-1", "source": "desk", "text": "hei", "timestamp": "2026-07-01T10:00:00+03:00"}
    ]
    bad_lines = [
        '{"id": "a 1", "source": "desk", "text": "hei", "daysAgo": 1, "timeOfDay": "10:00"}',
        '{"id": "a-1", "source": "fax", "text": "hei", "daysAgo": 1, "timeOfDay": "10:00"}',
        '{"id": "a-1", "source": "desk", "text": "  ", "daysAgo": 1, "timeOfDay": "10:00"}',
        '{"id": "a-1", "source": "desk", "text": "' + "x" * 801 + '", "daysAgo": 1, "timeOfDay": "10:00"}',
        '{"id": "a-1", "source": "desk", "text": "hei", "daysAgo": -1, "timeOfDay": "10:00"}',
        '{"id": "a-1", "source": "desk", "text": "hei", "daysAgo": 1, "timeOfDay": "25:00"}',
        '{"id": "a-1", "source": "desk", "text": "hei", "timestamp": "eilen"}',
        "not json",
    ]
    for line in bad_lines:
        path.write_text(
            '{"id": "ok", "source": "desk", "text": "hei", "daysAgo": 0, "timeOfDay": "09:00"}\n' + line + "\n",
            encoding="utf-8",
        )
        with pytest.raises(CorpusError, match=r":2: "):
            load_corpus(path, now=SUMMER_NOW)
    path.write_text(
        '{"id": "d", "source": "desk", "text": "a", "daysAgo": 0, "timeOfDay": "09:00"}\n' * 2, encoding="utf-8"
    )
    with pytest.raises(CorpusError, match="duplicate"):
        load_corpus(path, now=SUMMER_NOW)


def test_anchor_is_yesterday_in_finland() -> None:
    # 22:30 UTC on 30 June is already 1 July in Finland (+03:00) -> anchor 30 June.
    assert corpus_anchor(datetime(2026, 6, 30, 22, 30, tzinfo=UTC)) == date(2026, 6, 30)
    assert corpus_anchor(datetime(2026, 6, 30, 20, 30, tzinfo=UTC)) == date(2026, 6, 29)
    assert corpus_anchor(datetime(2026, 6, 30, 20, 30)) == date(2026, 6, 29)  # naive = UTC

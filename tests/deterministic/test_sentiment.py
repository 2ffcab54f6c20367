"""Sentiment from the text (deterministic/sentiment.py): cues, negation, intensifiers, emoji, the kept rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.deterministic.sentiment import (
    effective_sentiment,
    read_text,
    rule_sentiment,
    text_sentiment,
)
from feedback_intelligence.domain.loader import DomainError, load_domain, resolve_domain_dir
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.evaluation.offline import read_items
from feedback_intelligence.evaluation.sentiment import sentiment_figures
from feedback_intelligence.records import Structure


def complaint(text_language: str = "fi", sentiment: str | None = "negative", type_: str = "complaint") -> Structure:
    return Structure("vapaa_aika", "osasto", "low", type_, text_language, sentiment)


@pytest.mark.parametrize(
    "text",
    ["Retkeilyosasto huippu, löytyi kaikki", "hyvä valikoima luonnonkosmetiikkaa 👍", "Oluthylly todella hyvä"],
)
def test_praise_the_prior_would_file_as_a_complaint_is_praise(text: str, retail: Domain) -> None:
    # the prior's type follows an unmixed tone (no complaint cue: "complaint" was only its default); a
    # structure that is a complaint keeps a sentiment that agrees with it
    proposal = propose_structure(text, retail)
    assert (proposal.type, proposal.sentiment) == ("praise", "positive")
    assert effective_sentiment(complaint(), text, retail) == "negative"


def test_a_negation_flips_the_cue_after_it_within_the_clause(retail: Domain) -> None:
    assert rule_sentiment("asiakas ei ollut tyytyväinen juustoon", "complaint", "fi", retail) == "negative"
    assert rule_sentiment("ei ollut huono, mutta kallis", "complaint", "fi", retail) == "negative"
    assert rule_sentiment("the staff were not helpful", "complaint", "en", retail) == "negative"
    assert propose_structure("asiakas ei ollut tyytyväinen juustoon", retail).type == "complaint"


def test_an_intensifier_doubles_the_cue_right_after_it(retail: Domain) -> None:
    plain = read_text("hyvä leipä mutta kallis", retail.sentiment_lexicon, "fi")
    strong = read_text("todella hyvä leipä mutta kallis", retail.sentiment_lexicon, "fi")
    assert (plain.positive, strong.positive) == (1.0, 2.0)
    # praise and a complaint in one text: mixed, which this domain names neutral
    assert rule_sentiment("todella hyvä leipä mutta kallis", "complaint", "fi", retail) == "neutral"


@pytest.mark.voikko  # the suite's one prerequisite check (tests/prerequisites.py), not a skip of its own
def test_finnish_cues_match_by_base_form_through_voikko(retail: Domain) -> None:
    assert read_text("upeita kukkia", retail.sentiment_lexicon, "fi").positive == 1.0


def test_emoji_count_on_their_own(retail: Domain) -> None:
    assert rule_sentiment("kassajono 😡", "question", "fi", retail) == "negative"
    assert rule_sentiment("kassa 🙂", "question", "fi", retail) == "positive"


def test_a_wish_with_one_word_of_tone_stays_neutral(retail: Domain) -> None:
    assert rule_sentiment("ehdotus: pienempiä pusseja, nyt liian isoja", "complaint", "fi", retail) == "neutral"
    assert rule_sentiment("kynttilöitä ois kiva saada enemmän", "complaint", "fi", retail) == "neutral"


def test_best_before_is_a_date_not_praise(retail: Domain) -> None:
    assert rule_sentiment("maito hapanta vaikka parasta ennen viikon päähän", "complaint", "fi", retail) == "negative"
    assert propose_structure("maito hapanta vaikka parasta ennen viikon päähän", retail).type == "complaint"


def test_no_cue_keeps_the_types_sentiment(retail: Domain) -> None:
    assert rule_sentiment("hyllyssä kolme pakettia", "complaint", "fi", retail) == "negative"


def test_a_language_kept_on_the_type_rule_reads_the_type(retail: Domain) -> None:
    assert retail.sentiment_lexicon.rule_for("sv") == "type"
    assert rule_sentiment("Tack för bra service!", "complaint", "sv", retail) == "negative"


def test_a_sentiment_beyond_the_type_is_kept_and_demoted_items_have_none(retail: Domain) -> None:
    assert effective_sentiment(complaint(sentiment="negative", type_="suggestion"), "kiitos!", retail) == "negative"
    assert effective_sentiment(Structure("asiaton", "x", "low", "complaint", "fi", "negative"), "hyvä", retail) is None
    assert effective_sentiment(None, "hyvä", retail) is None


def test_the_text_reading_beats_the_type_rule_where_the_domain_keeps_it(retail: Domain, game: Domain) -> None:
    # the measured choice (docs/benchmarks.md, "Sentiment from the text"), held on both parts of both sets
    for domain in (retail, game):
        items = load_set(domain)
        for split in ("dev", "holdout"):
            part = [i for i in items if i.split == split]
            figures = sentiment_figures(part, read_items(part, domain).proposals, domain)
            for language, f in figures.items():
                if f["kept"] == "text":
                    assert f["textReading"] > f["typeRule"], (domain.name, split, language, f)
                    assert f["textReading"] > f["majority"], (domain.name, split, language, f)


def _copy_retail(tmp_path: Path) -> Path:
    folder = tmp_path / "retail"
    shutil.copytree(resolve_domain_dir("retail"), folder)
    return folder


def test_the_loader_refuses_an_unknown_rule(tmp_path: Path) -> None:
    folder = _copy_retail(tmp_path)
    path = folder / "sentiment-lexicon.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"]["fi"] = "vibes"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DomainError, match=r"rules\.fi"):
        load_domain("retail", tmp_path)


def test_a_domain_without_the_file_reads_the_type(tmp_path: Path) -> None:
    folder = _copy_retail(tmp_path)
    (folder / "sentiment-lexicon.json").unlink()
    domain = load_domain("retail", tmp_path)
    assert rule_sentiment("Oluthylly todella hyvä", "complaint", "fi", domain) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "kassa oli tosi ystävällinen ja nopea",
        "the cashier was lovely and quick",
        "asiakas kiitteli kovasti uutta kassajärjestelmää 👍",
    ],
)
def test_a_complaint_is_never_positive_without_a_complaint_in_the_text(text: str, retail: Domain) -> None:
    """Sentiment agrees with type: a complaint whose words only praise reads its type's sentiment."""
    assert text_sentiment(text, "complaint", "en" if text.startswith("the") else "fi", retail) == "negative"


def test_a_complaint_that_praises_something_too_is_mixed(retail: Domain) -> None:
    text = "myyjä oli tosi ystävällinen ja avulias, mutta maito oli hapanta"
    assert text_sentiment(text, "complaint", "fi", retail) == "neutral"  # mixed: the domain has no "mixed"


def test_quoted_words_do_not_decide_the_tone(retail: Domain) -> None:
    # the quotes hold two praise cues, the clerk's own words one complaint cue: the quotes decide nothing
    text = 'kassa kuittasi "kaikki hyvin" ja "hienoa" vaikka maito oli hapanta'
    assert text_sentiment(text, "question", "fi", retail) == "negative"
    assert propose_structure(text, retail).sentiment == "negative"


def test_quoted_words_are_read_when_nothing_else_has_a_tone(retail: Domain) -> None:
    assert text_sentiment('asiakas kirjoitti "upea palvelu"', "praise", "fi", retail) == "positive"


def test_no_prior_proposal_on_either_set_has_a_sentiment_against_its_type(retail: Domain, game: Domain) -> None:
    for domain in (retail, game):
        for item in load_set(domain):
            proposal = propose_structure(item.text, domain)
            expected = domain.sentiment_for(proposal.type)
            polar = {"positive", "negative"}
            assert not (proposal.sentiment in polar and expected in polar and proposal.sentiment != expected), item.id

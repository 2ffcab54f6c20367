"""A text's language decided by its words (ADR 0084) is lingua's, on every text the rows and the desk meet.

Lingua alone is the detection before the decision by words (``bench.legacy_rules.lingua_alone``). Wherever
the words decide, lingua must name the same language, and the confidence a decided guess gives when read
(the language guard's "clear") must be lingua's: over both eval sets, the demo corpus, and texts made by
mixing theirs (a clerk's Finnish note with an English sentence, words spliced in, shuffled).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bench.legacy_rules import lingua_alone
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.structuring.guards.language import language_rejection
from feedback_intelligence.text import language, morphology
from feedback_intelligence.text.language import LanguageGuess, detect_language, detect_languages
from feedback_intelligence.text.language_markers import decided_language

pytestmark = pytest.mark.skipif(not morphology.available(), reason="Voikko decides the Finnish notes")


def eval_and_demo() -> Iterator[tuple[str, Domain, list[str]]]:
    for name in ("retail", "game"):
        domain = load_domain(name)
        yield f"{name}-eval", domain, [item.text for item in load_set(domain)]
    yield "demo", load_domain("retail"), [entry["text"] for entry in load_corpus()]


def mixed(texts: list[str], count: int, seed: int) -> list[str]:
    """Texts made of two of ``texts``: joined, cut and joined, shuffled together, a few words spliced in."""
    rnd = random.Random(seed)
    made = []
    for _ in range(count):
        a, b = rnd.sample(texts, 2)
        wa, wb = a.split(), b.split()
        how = rnd.randrange(5)
        if how == 0:
            made.append(f"{a} {b}")
        elif how == 1:
            made.append(" ".join(wa[: rnd.randint(1, len(wa))] + wb[: rnd.randint(1, len(wb))]))
        elif how == 2:
            words = wa + wb[: rnd.randint(1, max(1, len(wb) // 2))]
            rnd.shuffle(words)
            made.append(" ".join(words))
        elif how == 3:
            made.append(" ".join(wa[: rnd.randint(3, max(3, len(wa)))] + rnd.sample(wb, min(len(wb), 3))))
        else:
            for word in rnd.sample(wb, min(len(wb), rnd.randint(1, 6))):
                wa.insert(rnd.randrange(len(wa) + 1), word)
            made.append(" ".join(wa))
    return made


def lingua(texts: list[str], domain: Domain) -> list[tuple[str, bool] | None]:
    with lingua_alone():
        return [(g.code, g.clear) if g else None for g in detect_languages(texts, domain.detection_languages)]


def answers(texts: list[str], domain: Domain) -> list[tuple[str, bool] | None]:
    return [(g.code, g.clear) if g else None for g in detect_languages(texts, domain.detection_languages)]


def every_text() -> list[str]:
    return [text for _, _, texts in eval_and_demo() for text in texts]


@pytest.mark.parametrize("name", ["retail-eval", "game-eval", "demo"])
def test_every_eval_and_demo_text_is_read_as_lingua_reads_it(name: str) -> None:
    _, domain, texts = next(found for found in eval_and_demo() if found[0] == name)
    assert answers(texts, domain) == lingua(texts, domain)
    alone = [detect_language(text, domain.detection_languages) for text in texts]
    assert [(g.code, g.clear) if g else None for g in alone] == lingua(texts, domain)


def test_most_retail_notes_are_decided_by_their_words() -> None:
    """What the decision is for: lingua is asked of a few retail notes, not of every one."""
    retail = load_domain("retail")
    texts = [item.text for item in load_set(retail)]
    decided = [g for g in detect_languages(texts, retail.detection_languages) if g is not None and g.by_words]
    assert len(decided) > 0.7 * len(texts)
    assert {g.code for g in decided} == {"fi", "sv", "en"}


@pytest.mark.parametrize("domain_name", ["retail", "game"])
def test_mixed_texts_are_read_as_lingua_reads_them(domain_name: str) -> None:
    domain = load_domain(domain_name)
    texts = mixed(every_text(), 1500, seed=84)
    assert answers(texts, domain) == lingua(texts, domain)


def test_a_decided_guess_gives_lingua_s_confidence_when_read() -> None:
    retail = load_domain("retail")
    text = "Asiakas sanoi että maito oli vanhentunut jo eilen"
    guess = detect_language(text, retail.detection_languages)
    with lingua_alone():
        asked = detect_language(text, retail.detection_languages)
    assert guess is not None and guess.by_words and asked is not None and not asked.by_words
    assert guess.code == asked.code == "fi"
    # lingua's own confidences for one text differ in the last digit from one call to the next
    assert guess.confidence == pytest.approx(asked.confidence, abs=1e-12)
    assert guess.clear == asked.clear


def test_the_guard_asks_lingua_only_when_the_model_names_another_language(monkeypatch: pytest.MonkeyPatch) -> None:
    retail = load_domain("retail")
    text = "Kassajono oli taas tosi pitkä ja vain yksi kassa auki"
    asked: list[str] = []
    detector_for = language.detector_for

    def counting(codes: tuple[str, ...], *, low_accuracy: bool = False):  # type: ignore[no-untyped-def]
        asked.append(",".join(codes))
        return detector_for(codes, low_accuracy=low_accuracy)

    monkeypatch.setattr(language, "detector_for", counting)
    assert language_rejection("fi", f"{text} (1)", retail) is None
    before = len(asked)
    assert language_rejection("en", f"{text} (2)", retail) == ("contradicts_text", "fi")
    assert len(asked) > before  # "clear" was read: lingua gave it


@pytest.mark.parametrize(
    "text",
    [
        "Maito oli hapanta ja the staff did not care at all about it",  # two languages' function words
        "Die Verkäuferin war sehr freundlich und hat mir sehr geholfen.",  # a language the domain does not expect
        "The café was closed and the staff were not there at all",  # a letter English does not write
    ],
)
def test_texts_that_leave_a_doubt_go_to_lingua(text: str) -> None:
    assert decided_language(text, load_domain("retail").detection_languages) is None


def test_without_voikko_no_note_is_decided_finnish_by_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    candidates = load_domain("retail").detection_languages
    text = "maito hapanta, asiakas toi takaisin kaksi litraa"
    assert decided_language(text, candidates) == "fi"
    monkeypatch.setattr(morphology, "available", lambda language="fi": False)
    assert decided_language(text, candidates) is None


def test_a_domain_with_a_language_not_listed_asks_lingua_of_every_text() -> None:
    assert decided_language("the staff was nice and the shop was clean", ("en", "nl")) is None


def test_a_guess_from_lingua_is_not_decided_by_words() -> None:
    assert not LanguageGuess("fi", 0.99).by_words

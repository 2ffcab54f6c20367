"""English noun phrases without a lexicon (text/english.py): real texts of the game set's dev part."""

from __future__ import annotations

import pytest

from feedback_intelligence.text.english import Tag, is_adjective, noun_phrases, nouns, opening_subject, tagged

GENERIC = frozenset({"customer", "game"})


@pytest.mark.parametrize(
    ("text", "first"),
    [
        # a verb followed by its object ("one-shots everyone", "nerf it") ends the phrase
        ("the new sniper rifle one-shots everyone from across the map, please nerf it", ("sniper", "rifle")),
        # a verb before a determiner is no noun ("give the"); adverbs and adjectives are no phrase
        ("maybe give the stamina bar a bit faster regen in ranked? fights drag on forever", ("stamina", "bar")),
        ("the crafting bench sometimes eats materials without giving the item", ("crafting", "bench")),
        ("obvious aimbot cheaters in every ranked match, do something", ("aimbot", "cheaters")),
        ("voice chat has a horrible echo since the update", ("voice", "chat")),
    ],
)
def test_the_first_noun_phrase(text: str, first: tuple[str, ...]) -> None:
    assert noun_phrases(text, GENERIC)[0] == first


def test_an_adjective_or_adverb_is_never_a_phrase_by_itself() -> None:
    phrases = noun_phrases("voice chat has a horrible echo since the update")
    assert ("echo",) in phrases
    assert not any(w in ("horrible", "sometimes") for p in phrases for w in p)
    assert is_adjective("horrible") and is_adjective("Obvious") and not is_adjective("table")


@pytest.mark.parametrize(
    ("text", "word", "tag"),
    [
        ("my account was hacked and the email was changed", "hacked", Tag.VERB),  # a participle
        ("my character keeps falling through the floor", "falling", Tag.VERB),  # a gerund after a verb
        ("Stuck on loading at 99% every time", "loading", Tag.NOUN),  # a gerund after a preposition
        ("new matchmaking is great, games feel way more even now", "matchmaking", Tag.NOUN),
        ("quest 'The Lost Lantern' doesn't complete even after handing in the item", "complete", Tag.VERB),
        ("Customer threatened to sue over the ladder that broke under him", "ladder", Tag.NOUN),
        ("Customer asked whether the granola contains any allergens", "contains", Tag.VERB),
    ],
)
def test_word_classes_from_form_and_position(text: str, word: str, tag: Tag) -> None:
    found = [w.tag for clause in tagged(text, GENERIC) for w in clause if w.low == word]
    assert found == [tag]


def test_a_possessive_is_the_owner_not_the_topic() -> None:
    assert noun_phrases("Stuck on loading at 99% every time I try to join my friend's lobby")[-1] == ("lobby",)


def test_a_plurals_possessive_is_the_owner_too() -> None:
    # "devs'" neither ends the clause (a closing quote would) nor names the topic
    assert noun_phrases("the devs' roadmap promised ranked seasons by march")[0] == ("roadmap",)
    assert noun_phrases("my teammates' mics are way too loud")[0] == ("mics",)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        # a unit of time, money or count measures; the thing comes after it
        ("the game logs me out every 10 minutes on PS5", ("ps5",)),
        ("blew 50 bucks on crates and got nothing but duplicates", ("crates",)),  # an irregular past tense
    ],
)
def test_measures_and_irregular_past_tenses_are_no_nouns(text: str, first: tuple[str, ...]) -> None:
    assert noun_phrases(text, GENERIC)[0] == first


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Dragon Slayer greatsword is way too strong after the buff", ("dragon", "slayer", "greatsword")),
        ("subtitles don't match the voice lines in the french version", ("subtitles",)),  # a negated auxiliary
        ("my clan's stash got emptied overnight", ("stash",)),  # after a possessive
        # a question's auxiliary comes before its subject
        ("is the damage falloff on shotguns intended or a bug?", ("damage", "falloff")),
        ("why does my controller stop working every time I alt-tab out?", ("controller", "stop")),
    ],
)
def test_the_subject_the_text_opens_with(text: str, subject: tuple[str, ...]) -> None:
    assert opening_subject(text, GENERIC) == subject


@pytest.mark.parametrize(
    "text",
    [
        "achievements for the DLC chapters don't unlock",  # a preposition follows: not known to be the subject
        "maybe give the stamina bar a bit faster regen",  # opens with a verb
        "Is there a way to turn off the screen shake?",  # "there" is no noun
        "Customer said the self-checkout charged her card twice",  # a generic noun opens it
        "",
    ],
)
def test_no_opening_subject(text: str) -> None:
    assert opening_subject(text, GENERIC) is None


def test_the_domains_function_words_are_no_nouns() -> None:
    assert "customer" not in nouns("Customer said the self-checkout charged her card twice", GENERIC)
    assert "self-checkout" in nouns("Customer said the self-checkout charged her card twice", GENERIC)


def test_no_words_no_phrases() -> None:
    assert noun_phrases("") == []
    assert noun_phrases("!!! ... ???") == []

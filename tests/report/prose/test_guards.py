import pytest

from feedback_intelligence.report.prose.guards import is_grounded, looks_action_bearing, strip_id_echo


@pytest.mark.parametrize(
    "text",
    [
        "Suosittelemme maitohyllyn tarkistamista.",
        "Ehdotan lisää kassoja.",
        "Sulkekaa osasto heti",
        "Irtisanokaa myyjä.",
        "We recommend a refund.",
        "we should close the aisle",
        "We need to act.",
        "I SUGGEST calling them",
    ],
)
def test_directive_prose_is_recognised(text):
    assert looks_action_bearing(text)


@pytest.mark.parametrize(
    "text",
    [
        "Asiakkaat kertovat vanhentuneesta maidosta.",
        "Customers describe long queues at the checkout.",
        "",
        None,
    ],
)
def test_descriptive_prose_passes(text):
    assert not looks_action_bearing(text)


@pytest.mark.parametrize(
    ("text", "ids", "expected"),
    [
        ("kuten [a-12] valitti", ["a-1", "a-12"], "kuten valitti"),
        ("maito on vanhaa [on]", ["on"], "maito on vanhaa"),
        ("10 asiakasta, kohde a-1 rikki", ["a-1"], "10 asiakasta, kohde rikki"),
        ("valittivat [late-0, early-1] tuoreudesta", ["late-0", "early-1"], "valittivat tuoreudesta"),
        ("[desk-ab12]", ["desk-ab12"], ""),
    ],
)
def test_id_echo_strip(text, ids, expected):
    assert strip_id_echo(text, ids) == expected


def test_id_echo_strip_leaves_text_without_ids_alone_and_tidies_punctuation():
    assert strip_id_echo("Maito oli vanhaa (x-9) .", ["x-9"]) == "Maito oli vanhaa."
    assert strip_id_echo("Ei tunnisteita.", ["x-9"]) == "Ei tunnisteita."


def test_grounding():
    allowed = {"a", "b"}
    assert is_grounded(["a", "b"], allowed)
    assert not is_grounded([], allowed)
    assert not is_grounded(["a", "zz"], allowed)
    assert not is_grounded("a", allowed)
    assert not is_grounded([1], allowed)
    assert not is_grounded(None, allowed)

"""A theme that replaces a rejected one must itself pass the theme guard (found by `feedctl eval`)."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.deterministic.reading import reading_of
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.guards import guard_structure
from feedback_intelligence.structuring.guards.theme import shown_theme, theme_rejection

CASES = [
    ("game", "matchmaking puts me as a level 5 against level 200 players every game"),
]


@pytest.mark.parametrize(("name", "text"), CASES)
def test_a_prompt_echo_is_replaced_by_a_theme_the_guard_accepts(name: str, text: str) -> None:
    domain = load_domain(name)
    prior = propose_structure(text, domain)
    assert theme_rejection(prior.theme, text, domain) == "prompt_echo"  # the prior's own pick echoes the prompt
    model = Structure(
        prior.category, "2-4 word lowercase noun phrase", prior.severity, prior.type, prior.language, prior.sentiment
    )
    guarded = guard_structure(model, reading_of(text, domain), domain)
    assert theme_rejection(guarded.structure.theme, text, domain) is None
    assert guarded.structure.theme in text.casefold()


def test_a_prior_theme_that_passes_is_kept() -> None:
    retail = load_domain("retail")
    text = "Maito oli hapanta vaikka päiväys oli ok."
    assert shown_theme("maito", text, retail) == "maito"


def test_the_prior_passes_over_a_generic_noun_that_would_echo_the_prompt() -> None:
    retail = load_domain("retail")
    text = "Do you sell gluten free bread? Customer could not find any."
    prior = propose_structure(text, retail)
    assert prior.theme != "customer"  # a generic noun (genericNouns), and a word of the prompt
    assert theme_rejection(prior.theme, text, retail) is None

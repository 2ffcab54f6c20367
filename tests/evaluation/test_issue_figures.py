"""The issue rule on both domains' evaluation sets: every item labelled, accuracy held above a measured floor.

The floors are the figures measured when the rules were written (docs/benchmarks.md, "Issue rule"), a
few points lower so that an honest lexicon edit passes and a broken rule does not. A regression guard,
not a tuning target: read misses on the dev part only (ADR 0010).
"""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.evaluation.offline import deterministic_result

# domain -> (prior alone, with the gold type and category, the most the prior may leave in "other")
FLOORS = {
    "retail": (0.87, 0.93, 0.10),
    "game": (0.72, 0.93, 0.10),
}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_every_item_of_the_set_has_a_declared_issue(name: str) -> None:
    domain = load_domain(name)
    items = load_set(domain)  # an undeclared issue fails the load
    assert all(item.issue in domain.issues for item in items)


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_the_issue_rule_holds_its_measured_accuracy(name: str) -> None:
    domain = load_domain(name)
    figures = deterministic_result(load_set(domain), domain, "all")["splits"]["all"]["issue"]
    prior_floor, gold_floor, other_ceiling = FLOORS[name]
    assert figures["n"] == len(load_set(domain))
    assert figures["prior"] >= prior_floor
    assert figures["goldLabels"] >= gold_floor
    assert figures["otherShare"] < other_ceiling
    assert figures["prior"] > figures["majority"]

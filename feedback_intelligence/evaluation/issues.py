"""How well the issue rule (deterministic/issue.py) reads the evaluation set's gold issues.

Two readings, side by side: ``prior`` feeds the rule the deterministic prior's type and category (no
model at all: what an imported row gets), ``goldLabels`` feeds it the set's own type and category (what
a correct model or a clerk's choice gives it). ``otherShare`` is the share the prior reading leaves in
the catch-all issue — a manager's "Muu" group — beside the gold share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from feedback_intelligence.deterministic.issue import issue_of
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.evaluation.scoring import accuracy, majority


def issue_readings(
    items: Sequence[EvalItem],
    proposals: Mapping[str, Mapping[str, Any]],
    alerts: Mapping[str, frozenset[str]],
    domain: Domain,
) -> dict[str, tuple[str | None, str | None]]:
    """Per item id: (the issue read with the prior's type and category, read with the gold ones)."""
    readings: dict[str, tuple[str | None, str | None]] = {}
    for item in items:
        proposal = proposals[item.id]
        hits = sorted(alerts[item.id])
        readings[item.id] = (
            issue_of(
                item.text, domain, type_=proposal.get("type"), category=proposal.get("category"), alert_categories=hits
            ),
            issue_of(item.text, domain, type_=item.gold["type"], category=item.gold["category"], alert_categories=hits),
        )
    return readings


def issue_figures(
    items: Sequence[EvalItem], readings: Mapping[str, tuple[str | None, str | None]], domain: Domain
) -> dict[str, Any]:
    """Accuracy of both readings, the majority baseline and the catch-all shares, over the labelled items."""
    labelled = [item for item in items if item.issue is not None]
    gold = [str(item.issue) for item in labelled]
    prior = [readings[item.id][0] for item in labelled]
    catch_all = domain.catch_all_issue
    label, majority_accuracy = majority(gold)
    share = (lambda values: sum(v == catch_all for v in values) / len(values)) if labelled else (lambda _: None)
    return {
        "n": len(labelled),
        "prior": accuracy(gold, prior),
        "goldLabels": accuracy(gold, [readings[item.id][1] for item in labelled]),
        "majority": majority_accuracy,
        "majorityLabel": label,
        "otherShare": share(prior),
        "goldOtherShare": share(gold),
    }

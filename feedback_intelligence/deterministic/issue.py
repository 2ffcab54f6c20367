"""The issue rule (docs/rules.md, "Issue"): which problem of the domain's list an item reports.

A department says where; an issue says what went wrong there (a price, an empty shelf, spoiled food),
so a problem spread over many departments is one group. The rule is deterministic — it reads the
domain's ``issue-keywords.json`` and the item's own type, category and alert hits — so every backend
and every imported row gets the same answer, with or without a model. In order:

1. a demoted category (an abusive message): the catch-all issue — it reports no problem;
2. an alert category the file maps (``byAlert``: a hazard is a safety issue whatever else is said);
3. a type the file maps (``byType``: a praise or a suggestion is what the customer did, not a problem);
4. the issue keyword rules, matched as the category keywords are (deterministic/category_keywords.py:
   folded text, strong terms before weak ones, the first rule in file order wins);
5. the department's usual issue (``byCategory``);
6. the catch-all issue.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.category_keywords import match_category_keywords
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.matching import FoldedText
from feedback_intelligence.text.scan import Scan


def issue_of(
    text: str | FoldedText | None,
    domain: Domain,
    *,
    type_: str | None,
    category: str | None,
    alert_categories: Iterable[str] = (),
    scan: Scan | None = None,
) -> str | None:
    """The item's issue key; None when the domain declares no issues. ``scan``: the text read by the domain's
    lexicons at once (text/scan.py), when the caller has it."""
    if not domain.issues:
        return None
    rules = domain.issue_rules
    if domain.is_demoted(category):
        return domain.catch_all_issue
    for alert in alert_categories:
        if alert in rules.by_alert and not domain.is_demoted(alert):
            return rules.by_alert[alert]
    if type_ is not None and type_ in rules.by_type:
        return rules.by_type[type_]
    found = match_category_keywords(text, rules.keywords, domain.incident_places, scan)
    if found is not None:
        return found
    if category is not None and category in rules.by_category:
        return rules.by_category[category]
    return domain.catch_all_issue

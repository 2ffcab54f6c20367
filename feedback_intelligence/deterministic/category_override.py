"""The one category override used by ingest, /interpret and restructure (docs/rules.md, "Category override").

Precedence, first that applies wins:

1. the first alert hit whose alert category is also a declared category (retail ``rasismi``) —
   outranks the model and the desk;
2. a missing structure, or one already in a demoted category, keeps what it has;
3. dense, varied swearing -> the vulgarity lexicon's ``demoteToCategory``;
4. the category keyword rules (first firing rule in file order);
5. nothing.

A null structure stays null: a failed structuring never gets a category.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.category_keywords import match_category_keywords
from feedback_intelligence.deterministic.vulgarity import assess_vulgarity
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure


def forced_category(
    text: str | None, structure: Structure | None, alerts: Iterable[AlertHit], domain: Domain
) -> str | None:
    """The category the deterministic layer imposes, or None to keep the structure's own."""
    for hit in alerts:
        if hit.category in domain.categories:
            return hit.category
    if structure is None or domain.is_demoted(structure.category):
        return None
    text = text or ""
    target = domain.vulgarity.demote_to_category
    if target and assess_vulgarity(text, domain.vulgarity).demote:
        return target
    return match_category_keywords(text, domain.category_keywords)


def apply_override(structure: Structure | None, forced: str | None) -> Structure | None:
    """The structure with the forced category; unchanged when nothing is forced or it already agrees."""
    if structure is None or forced is None or structure.category == forced:
        return structure
    return structure.with_category(forced)


def override_structure(
    text: str | None, structure: Structure | None, alerts: Iterable[AlertHit], domain: Domain
) -> Structure | None:
    """Convenience: :func:`forced_category` then :func:`apply_override`."""
    return apply_override(structure, forced_category(text, structure, list(alerts), domain))

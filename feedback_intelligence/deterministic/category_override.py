"""The one category override used by ingest, /interpret and restructure (docs/rules.md, "Category override").

Precedence, first that applies wins:

1. the first alert hit whose alert category is also a declared category (retail ``rasismi``) —
   outranks the model and the desk;
2. a missing structure, or one already in a demoted category, keeps what it has;
3. dense, varied swearing -> the vulgarity lexicon's ``demoteToCategory``;
4. the category keyword rules, when the keywords point to another category and the current one is
   the catch-all, has no keyword evidence, or only weak evidence against strong evidence elsewhere
   (a department the text names outranks one it does not; see ``category_keywords``);
5. nothing.

A null structure stays null: a failed structuring never gets a category.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.category_keywords import KeywordEvidence, keyword_evidence, strongest
from feedback_intelligence.deterministic.vulgarity import assess_vulgarity
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure

# Why a category was forced (the guards report it as the rejection reason).
ALERT_REASON = "alert_category"
VULGARITY_REASON = "vulgarity"
KEYWORD_REASON = "keyword_evidence"


def keyword_replacement(
    text: str | None, current: str | None, domain: Domain, *, keywords: list[KeywordEvidence] | None = None
) -> str | None:
    """The category the keywords impose on ``current`` (rule 4 above), or None to keep it.

    ``keywords`` is the text's :func:`keyword_evidence` when the caller has it already.
    """
    evidence = (
        keyword_evidence(text, domain.category_keywords, domain.incident_places) if keywords is None else keywords
    )
    best = strongest(evidence)
    if best is None or best.category == current:
        return None
    if current is None or current == domain.catch_all_category:
        return best.category
    own = next((e for e in evidence if e.category == current), None)
    if own is None or own.strength < best.strength:
        return best.category
    return None


def forced_category_reason(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
) -> tuple[str, str] | None:
    """(category, reason) the deterministic layer imposes, or None to keep the structure's own."""
    for hit in alerts:
        if hit.category in domain.categories:
            return hit.category, ALERT_REASON
    if structure is None or domain.is_demoted(structure.category):
        return None
    text = text or ""
    target = domain.vulgarity.demote_to_category
    if target and assess_vulgarity(text, domain.vulgarity).demote:
        return target, VULGARITY_REASON
    keyword = keyword_replacement(text, structure.category, domain, keywords=keywords)
    return (keyword, KEYWORD_REASON) if keyword else None


def forced_category(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
) -> str | None:
    """The category the deterministic layer imposes, or None to keep the structure's own."""
    decision = forced_category_reason(text, structure, alerts, domain, keywords=keywords)
    return decision[0] if decision else None


def apply_override(structure: Structure | None, forced: str | None) -> Structure | None:
    """The structure with the forced category; unchanged when nothing is forced or it already agrees."""
    if structure is None or forced is None or structure.category == forced:
        return structure
    return structure.with_category(forced)


def finish_structure(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
) -> Structure | None:
    """The structure as it is shown or stored: the deterministic override applied to what the model
    (or the clerk, or the prior) proposed. The one call every path makes: ingest, /interpret,
    restructure and the structure-later worker. ``keywords``: the text's keyword evidence, when the
    caller has read it already (the prior has)."""
    return apply_override(structure, forced_category(text, structure, list(alerts), domain, keywords=keywords))

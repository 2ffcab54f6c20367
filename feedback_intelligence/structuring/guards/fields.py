"""Guards for the enum fields: category, type, severity, sentiment. Each returns (reason, replacement) or None.

They only ever move a value toward deterministic evidence, never on a hunch:

* category — the deterministic category rules (a declared-category alert, dense swearing, keyword
  evidence for another category where the model picked the catch-all or a category the text gives no
  or only weaker evidence for);
* type — the text's cues point only to another type and none to the model's (praise called a complaint);
* severity — below what an alert in the text demands (``below_alert``), or high for a positive type
  without any alert (``contradicts_type``);
* sentiment — missing, or the opposite of the type's ``typeSentiment`` (``missing``, ``contradicts_type``).
"""

from __future__ import annotations

from feedback_intelligence.deterministic.category_override import forced_category_reason
from feedback_intelligence.deterministic.prior import TextEvidence, TypeEvidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure

CONTRADICTS_CUES = "contradicts_cues"
BELOW_ALERT = "below_alert"
CONTRADICTS_TYPE = "contradicts_type"
MISSING = "missing"
NEUTRAL = "neutral"
POSITIVE = "positive"

Verdict = tuple[str, str] | None  # (reason, replacement)


def category_verdict(structure: Structure, text: str, evidence: TextEvidence, domain: Domain) -> Verdict:
    decision = forced_category_reason(text, structure, evidence.alerts, domain, keywords=evidence.keywords)
    if decision is None or decision[0] == structure.category:
        return None
    category, reason = decision
    return reason, category


def type_verdict(model_type: str, cues: TypeEvidence) -> Verdict:
    if cues.type == model_type or cues.score(cues.type) == 0 or cues.score(model_type) > 0:
        return None
    return CONTRADICTS_CUES, cues.type


def severity_verdict(
    model_severity: str, type_: str, alerts: list[AlertHit], prior_severity: str, domain: Domain
) -> Verdict:
    by_alert = domain.prior.severity_by_alert
    demanded = [by_alert[a.category] for a in alerts if a.category in by_alert]
    if demanded:
        floor = max(demanded, key=domain.severity_rank)
        if domain.severity_rank(model_severity) < domain.severity_rank(floor):
            return BELOW_ALERT, floor
        return None
    positive = domain.type_sentiment.get(type_) == POSITIVE
    top_half = domain.severity_rank(model_severity) > len(domain.severities) // 2
    usual = domain.prior.severity_by_type.get(type_, prior_severity)  # this type's severity, not the prior's type's
    if positive and top_half and usual != model_severity:
        return CONTRADICTS_TYPE, usual
    return None


def sentiment_verdict(model_sentiment: str | None, type_: str, domain: Domain) -> Verdict:
    expected = domain.type_sentiment.get(type_)
    if expected is None:
        return None
    if model_sentiment is None:
        return MISSING, expected
    if model_sentiment == expected:
        return None
    neutral = NEUTRAL if NEUTRAL in domain.sentiments else None
    if neutral is not None and expected == neutral:
        return None  # a suggestion or a question may carry a tone; only a polar type has an opposite
    return CONTRADICTS_TYPE, expected

"""The one category rule used by ingest, /interpret and restructure (docs/rules.md, "Category override").

It decides the category of what the model or the rules proposed; of a person's structure (the desk's
accepted fields, a correction) it only advises: :func:`category_advice` says which rule would choose
what, by which words, and the row keeps it for a manager to see (ADR 0045).

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
from dataclasses import dataclass

from feedback_intelligence.deterministic.alerts import matched_words
from feedback_intelligence.deterministic.category_keywords import KeywordEvidence, keyword_evidence, strongest
from feedback_intelligence.deterministic.vulgarity import assess_vulgarity
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, RuleAdvice, Structure
from feedback_intelligence.text.scan import Scan

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
    return _replacement(current, strongest(evidence), _by_category(evidence).get(current or ""), domain)


def _replacement(
    current: str | None, best: KeywordEvidence | None, own: KeywordEvidence | None, domain: Domain
) -> str | None:
    """Rule 4 over the text's strongest keyword evidence ``best`` and ``current``'s own ``own`` (None: none)."""
    if best is None or best.category == current:
        return None
    if current is None or current == domain.catch_all_category:
        return best.category
    if own is None or own.strength < best.strength:
        return best.category
    return None


def _by_category(evidence: list[KeywordEvidence]) -> dict[str, KeywordEvidence]:
    """Each category's first evidence (``evidence`` in file order)."""
    found: dict[str, KeywordEvidence] = {}
    for item in evidence:
        found.setdefault(item.category, item)
    return found


@dataclass(frozen=True, slots=True)
class ForcedCategory:
    """What the rules choose, which rule, and the words of the text that made it choose."""

    category: str
    reason: str  # ALERT_REASON, VULGARITY_REASON or KEYWORD_REASON
    words: tuple[str, ...]


def forced_category_decision(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
) -> ForcedCategory | None:
    """The category the deterministic layer imposes on ``structure``, with its rule and words; None to keep it."""
    current = structure.category if structure is not None else None
    return _decision(current, domain, TextRules(text or "", list(alerts), domain, keywords, scan))


def decision_over(rules: TextRules, current: str | None) -> ForcedCategory | None:
    """:func:`forced_category_decision` of a structure of category ``current`` (None: no structure), over
    ``rules`` read already."""
    return _decision(current, rules.domain, rules)


class TextRules:
    """What the rules above read from one text whatever the structure (rules 1 and 3, the keyword evidence),
    each read at most once and only when asked: the desk's advice asks for every category in turn, and a
    reading of the text (deterministic/prior.py ``TextEvidence``) keeps one for the prior's category, the
    override and the advice."""

    def __init__(
        self,
        text: str,
        alerts: list[AlertHit],
        domain: Domain,
        keywords: list[KeywordEvidence] | None,
        scan: Scan | None = None,
    ) -> None:
        self.text, self.alerts, self.domain, self.scan = text, alerts, domain, scan
        self._keywords = keywords
        self._read: dict[str, ForcedCategory | None] = {}  # rules 1 and 3 ("alert", "vulgarity")
        self._by_keywords: dict[str, ForcedCategory] = {}  # rule 4, by the category it chooses
        self._strongest: tuple[KeywordEvidence | None, dict[str, KeywordEvidence]] | None = None

    def by_alert(self) -> ForcedCategory | None:
        if "alert" not in self._read:
            self._read["alert"] = next(
                (
                    ForcedCategory(hit.category, ALERT_REASON, tuple(matched_words(self.text, hit.pattern)))
                    for hit in self.alerts
                    if hit.category in self.domain.categories
                ),
                None,
            )
        return self._read["alert"]

    def by_vulgarity(self) -> ForcedCategory | None:
        if "vulgarity" not in self._read:
            self._read["vulgarity"] = self._vulgarity()
        return self._read["vulgarity"]

    def _vulgarity(self) -> ForcedCategory | None:
        target = self.domain.vulgarity.demote_to_category
        if not target:
            return None
        vulgarity = assess_vulgarity(self.text, self.domain.vulgarity, self.scan)
        if not vulgarity.demote:
            return None
        words = dict.fromkeys(w for stem in vulgarity.matched_stems for w in matched_words(self.text, stem))
        return ForcedCategory(target, VULGARITY_REASON, tuple(words))

    def by_keywords(self, category: str) -> ForcedCategory:
        """Rule 4 choosing ``category``, with the words of its term."""
        if category not in self._by_keywords:
            term = next(e.term for e in self.keywords() if e.category == category)
            words = tuple(matched_words(self.text, term)) or (term,)
            self._by_keywords[category] = ForcedCategory(category, KEYWORD_REASON, words)
        return self._by_keywords[category]

    def keywords(self) -> list[KeywordEvidence]:
        if self._keywords is None:
            self._keywords = keyword_evidence(
                self.text, self.domain.category_keywords, self.domain.incident_places, self.scan
            )
        return self._keywords

    def keyword_replacement(self, current: str) -> str | None:
        """:func:`keyword_replacement` of ``current``, the strongest evidence and each category's found once."""
        best, own = self._keyword_reading()
        return _replacement(current, best, own.get(current), self.domain)

    def singled_out(self) -> set[str]:
        """The categories :func:`_decision` may decide otherwise than every other: a demoted one, the catch-all,
        one the keyword evidence names (the strongest among them). Any other category it decides alike."""
        named = self._keyword_reading()[1]
        return {*self.domain.demoted_categories, *named, *filter(None, (self.domain.catch_all_category,))}

    def _keyword_reading(self) -> tuple[KeywordEvidence | None, dict[str, KeywordEvidence]]:
        if self._strongest is None:
            evidence = self.keywords()
            self._strongest = (strongest(evidence), _by_category(evidence))
        return self._strongest


def _decision(current: str | None, domain: Domain, rules: TextRules) -> ForcedCategory | None:
    """The precedence of the module doc for a structure of category ``current`` (None: no structure), over
    what ``rules`` read from the text."""
    by_alert = rules.by_alert()
    if by_alert is not None:
        return by_alert
    if current is None or domain.is_demoted(current):
        return None
    by_vulgarity = rules.by_vulgarity()
    if by_vulgarity is not None:
        return by_vulgarity
    keyword = rules.keyword_replacement(current)
    return None if keyword is None else rules.by_keywords(keyword)


def forced_category_reason(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
) -> tuple[str, str] | None:
    """(category, reason) the deterministic layer imposes, or None to keep the structure's own."""
    decision = forced_category_decision(text, structure, alerts, domain, keywords=keywords, scan=scan)
    return (decision.category, decision.reason) if decision else None


def category_advice(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
) -> RuleAdvice | None:
    """A person's structure is kept as they gave it: what the rules would have chosen instead, or None
    when they agree (docs/rules.md, "A person decides")."""
    decision = forced_category_decision(text, structure, list(alerts), domain, keywords=keywords, scan=scan)
    if decision is None or structure is None or decision.category == structure.category:
        return None
    return RuleAdvice("category", decision.category, decision.reason, decision.words)


def advice_by_category(
    text: str,
    base: Structure,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
) -> dict[str, RuleAdvice]:
    """For the desk, before the save: each category a person might choose for ``text`` against which a rule
    would choose another, with that advice (``base`` gives the other fields; its category is tried in turn,
    and only the category decides). :func:`category_advice` of each, the text read once for all of them;
    ``keywords``: the text's keyword evidence, when the caller has read it already."""
    return _advice_over(TextRules(text, list(alerts), domain, keywords, scan), domain)


def _advice_over(rules: TextRules, domain: Domain) -> dict[str, RuleAdvice]:
    found: dict[str, RuleAdvice] = {}
    made: dict[int, RuleAdvice] = {}  # one advice per decision (by identity: ``rules`` keeps each it made)
    singled_out = rules.singled_out()
    alike: list[ForcedCategory | None] = []  # the one decision of every category not singled out, once made
    for category in domain.categories:  # ``base`` with this category: only its category decides
        if category in singled_out:
            decision = _decision(category, domain, rules)
        else:
            if not alike:
                alike.append(_decision(category, domain, rules))
            decision = alike[0]
        if decision is not None and decision.category != category:
            if (advice := made.get(id(decision))) is None:
                advice = made[id(decision)] = RuleAdvice("category", decision.category, decision.reason, decision.words)
            found[category] = advice
    return found


def forced_category(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
) -> str | None:
    """The category the deterministic layer imposes, or None to keep the structure's own."""
    decision = forced_category_reason(text, structure, alerts, domain, keywords=keywords, scan=scan)
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
    scan: Scan | None = None,
) -> Structure | None:
    """The structure as it is shown or stored: the deterministic override applied to what the model
    (or the clerk, or the prior) proposed. The one call every path makes: ingest, /interpret,
    restructure and the structure-later worker. ``keywords``: the text's keyword evidence, when the
    caller has read it already (the prior has); ``scan``: the text read by the domain's lexicons (text/scan.py)."""
    forced = forced_category(text, structure, list(alerts), domain, keywords=keywords, scan=scan)
    return apply_override(structure, forced)


def finished_with_advice(
    text: str,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
    scan: Scan | None = None,
    rules: TextRules | None = None,
) -> tuple[Structure | None, dict[str, RuleAdvice]]:
    """:func:`finish_structure` and the :func:`advice_by_category` of what it finished (none without a
    structure): the desk's preview, the text's rules read once for both (``rules``: the text's reading's,
    when the caller has it)."""
    rules = TextRules(text, list(alerts), domain, keywords, scan) if rules is None else rules
    decision = _decision(structure.category if structure is not None else None, domain, rules)
    finished = apply_override(structure, decision.category if decision is not None else None)
    return finished, (_advice_over(rules, domain) if finished is not None else {})

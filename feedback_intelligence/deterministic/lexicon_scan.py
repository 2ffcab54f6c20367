"""A text read once by every lexicon of its domain (text/scan.py): the alert stems, the category and issue
keyword rules, the swear words, the prior's type cues, in one pass of one automaton built once per domain.

A row's rules (the alerts, the prior's keyword evidence, the override's swearing) and its derivation (the
issue's keyword rules) read the same text: :func:`scan_of` remembers the last texts' scans per domain, as
many as a batch has rows, so the derivation of a row takes the scan its rules made. A scan is a function
of the text and the domain alone, so one remembered is the one that would be made.
"""

from __future__ import annotations

from feedback_intelligence.deterministic.alerts import alert_needles
from feedback_intelligence.deterministic.category_keywords import keyword_needles, without_incident_places
from feedback_intelligence.deterministic.per_object import RecentTexts, kept_for
from feedback_intelligence.deterministic.type_cues import type_cue_needles
from feedback_intelligence.deterministic.vulgarity import vulgarity_needles
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.matching import FoldedText
from feedback_intelligence.text.needles import Needles, Scanner
from feedback_intelligence.text.scan import Scan

#: Scans remembered: a batch's rows (1,000 by default) are all read before the first is derived.
SCANS_KEPT = 2048

_scanners: dict[int, tuple[object, Scanner]] = {}


def domain_scanner(domain: Domain) -> Scanner:
    """One automaton over the pieces of every literal lexicon of ``domain`` (built once per domain object)."""
    return kept_for(_scanners, domain, lambda: _scanner_of(domain))


def _scanner_of(domain: Domain) -> Scanner:
    lexicons: list[Needles | None] = [
        alert_needles(domain),
        keyword_needles(domain.category_keywords),
        keyword_needles(domain.issue_rules.keywords),
        None if domain.vulgarity.empty else vulgarity_needles(domain.vulgarity),
        type_cue_needles(domain),
    ]
    return Scanner(n for n in lexicons if n is not None)


_scans: RecentTexts[Scan] = RecentTexts(SCANS_KEPT)  # the row's derivation reads it again


def scan_of(text: str, domain: Domain) -> Scan:
    """``text`` read by ``domain``'s lexicons (remembered for the derivation of the same row)."""
    scan = _scans.get(text, domain)
    if scan is None:
        folded = FoldedText.of(text)
        scan = Scan.of(
            folded,
            without_incident_places(folded, domain.incident_places),
            domain.incident_places,
            domain_scanner(domain),
        )
        _scans.put(text, domain, scan)
    return scan

"""``derive(record, domain)``: the derived columns of one item (docs/data-model.md, the starred ones)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from feedback_intelligence.derivation.themes import matched_words, shown_theme
from feedback_intelligence.deterministic.alerts import item_severity_rank, operational_categories
from feedback_intelligence.deterministic.issue import issue_of
from feedback_intelligence.deterministic.lexicon_scan import scan_of
from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.deterministic.prior import evidence_read_lately
from feedback_intelligence.deterministic.sentiment import effective_sentiment as text_sentiment
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Derived, DerivedAlert, StoredFeedback
from feedback_intelligence.text.bounds import THEME_MAX_CHARS
from feedback_intelligence.text.scan import Scan

#: Bump when what ``derive`` computes changes: every row then reads stale and is re-derived.
# d2: the sentiment read from the text where the language measured it better (ADR 0028); d3: the issue (ADR 0055);
# d4: sentiment that agrees with type, Swedish and English themes in base form (ADR 0064); d5: an item without a
# structure ranks as severe as its operational alerts imply, as the cases and notifications rank it (ADR 0073)
DERIVATION_VERSION = "d5"
CORRECTED_FIELDS_MAX_CHARS = 200

_revs: dict[int, tuple[object, str]] = {}


def effective_sentiment(record: StoredFeedback, domain: Domain) -> str | None:
    """What a manager is shown and counted (deterministic/sentiment.py: the model's own reading where it
    differs from its type's, else the language's measured rule, text or type); none for unstructured or
    demoted items. The one place the derivation calls the rule."""
    return text_sentiment(record.structure, record.text, domain)


def _folder_digest(folder: Path | None) -> str:
    digest = hashlib.sha256()
    if folder is not None and folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(path.relative_to(folder).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def derivation_rev(domain: Domain) -> str:
    """The code's version and a digest of the domain's folder (≤ 32 characters): a lexicon, guard or rule
    change makes every row stale. Read once per domain object."""
    return kept_for(
        _revs, domain, lambda: f"{DERIVATION_VERSION}-{domain.name[:8]}-{_folder_digest(domain.directory)[:16]}"
    )


def _corrected_fields(record: StoredFeedback) -> str | None:
    if not record.corrections:
        return None
    names = list(dict.fromkeys(c.field for c in record.corrections))
    value = "," + ",".join(names) + ","
    return value if len(value) <= CORRECTED_FIELDS_MAX_CHARS else value[: CORRECTED_FIELDS_MAX_CHARS - 1] + ","


@dataclass(frozen=True, slots=True)
class RowReading:
    """What the rules read of a row's text that the derivation reads too: the text as the domain's lexicons
    read it (the issue's keyword rules, the folded text), and its language as the rules detected it (the
    theme guard's; None: not detected, then the guard detects it)."""

    scan: Scan
    language: str | None = None


def row_reading(record: StoredFeedback, domain: Domain) -> RowReading:
    """The rules' reading of the row's text: the one its rules made in this process lately (a batch reads
    every row before the first is derived), else read now."""
    evidence = evidence_read_lately(record.text, domain)
    if evidence is None or evidence.scan is None:
        return RowReading(scan_of(record.text, domain))
    return RowReading(evidence.scan, evidence.language.code if evidence.language else domain.language)


def derive(record: StoredFeedback, domain: Domain, reading: RowReading | None = None) -> Derived:
    """``reading``: what the rules read of the row's text, when the caller has it (:func:`row_reading`
    otherwise); it changes no answer, only what is read again."""
    reading = row_reading(record, domain) if reading is None or reading.scan.text != record.text else reading
    structure = record.structure
    demoted = structure is not None and domain.is_demoted(structure.category)
    theme = shown_theme(record, domain, reading.language)
    return Derived(
        category=structure.category if structure else None,
        severity=structure.severity if structure else None,
        type=structure.type if structure else None,
        language=structure.language if structure else None,
        sentiment=effective_sentiment(record, domain),
        severity_rank=item_severity_rank(structure, record.alerts, domain),
        rated=structure is not None and not demoted,
        alert=bool(operational_categories(record.alerts, domain)),
        theme_base=theme[:THEME_MAX_CHARS] if theme else None,
        text_folded=reading.scan.folded.folded,
        corrected_fields=_corrected_fields(record),
        alerts=tuple(
            DerivedAlert(hit.category, hit.pattern, tuple(matched_words(record.text, hit.pattern)))
            for hit in record.alerts
        ),
        rev=derivation_rev(domain),
        issue=issue_of(
            record.text,
            domain,
            type_=structure.type if structure else None,
            category=structure.category if structure else None,
            alert_categories=[hit.category for hit in record.alerts],
            scan=reading.scan,
        ),
    )


class DomainDeriver:
    """``derive`` bound to one domain: what a store is handed, so the store never imports the domain."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.rev = derivation_rev(domain)

    def __call__(self, record: StoredFeedback) -> Derived:
        return derive(record, self.domain)

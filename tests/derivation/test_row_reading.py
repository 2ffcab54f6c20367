"""A batch row's derivation takes what its rules read of the text (ADR 0075): the same scan, the language the
batch detected; and a derivation handed a reading answers as one that reads the text itself."""

from __future__ import annotations

import pytest

from feedback_intelligence.derivation import derive
from feedback_intelligence.derivation.derive import RowReading, row_reading
from feedback_intelligence.deterministic.lexicon_scan import scan_of
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.records import Structure
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.structuring.guards import theme


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


def commands(domain: Domain, tag: str, **fields: object) -> list[IngestCommand]:
    texts = [item.text for item in load_set(domain)[:40]]
    return [IngestCommand("email", f"{text} ({tag}{n})", None, **fields) for n, text in enumerate(texts)]  # type: ignore[arg-type]


def test_a_batch_row_is_derived_without_detecting_its_language_again(
    retail: Domain, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = IngestService(retail, None).record_many(commands(retail, "once", structure_later=True))  # type: ignore[arg-type]
    asked: list[str] = []
    monkeypatch.setattr(theme, "detect_language", lambda text, candidates: asked.append(text))
    theme._detected.cache_clear()
    for record in records:
        reading = row_reading(record, retail)
        assert reading.language is not None and reading.scan is scan_of(record.text, retail)
        derive(record, retail)
    assert [text for text in asked if text] == []  # the theme alone is judged against no text ("")


def test_a_reading_handed_in_changes_no_answer(retail: Domain) -> None:
    structure = Structure("kassa_palvelu", "kassajono", "medium", "complaint", "fi")
    service = IngestService(retail, None)  # type: ignore[arg-type]
    for record in service.record_many(commands(retail, "given", accepted_structure=structure)):
        handed = derive(record, retail, RowReading(scan_of(record.text, retail), "fi"))
        assert handed == derive(record, retail)
        other = RowReading(scan_of("another text", retail))  # not this row's: read again, not trusted
        assert derive(record, retail, other) == handed

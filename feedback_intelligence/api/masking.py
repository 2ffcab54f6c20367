"""What every desk reads shows a customer's personal data masked (docs/rules.md, "Personal data").

A text kept as typed (the clerk did not press "remove") is stored whole for its author and for a
manager's item view; the live list every desk reads and the live report show it with placeholders.
"""

from __future__ import annotations

from feedback_intelligence.deterministic.personal_data import masked_text
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.report.model import AlertRow, Report, SourceEntry, Theme


def masked_report(report: Report, domain: Domain) -> Report:
    """``report`` with the personal data of every text, excerpt and matched word replaced."""

    def alert(row: AlertRow) -> AlertRow:
        hits = [
            hit.model_copy(update={"words": [masked_text(w, domain) for w in hit.words]})
            for hit in row.deterministic_hits
        ]
        return row.model_copy(
            update={
                "text": masked_text(row.text, domain),
                "text_excerpt": masked_text(row.text_excerpt, domain),
                "deterministic_hits": hits,
            }
        )

    def source(entry: SourceEntry) -> SourceEntry:
        return entry.model_copy(update={"text": masked_text(entry.text, domain)})

    def theme(group: Theme) -> Theme:
        # the summary quotes texts as examples, model prose may too
        return group.model_copy(
            update={
                "sources": [source(s) for s in group.sources],
                "title": masked_text(group.title, domain),
                "narrative": masked_text(group.narrative, domain),
            }
        )

    return report.model_copy(
        update={
            "alerts": [alert(a) for a in report.alerts],
            "themes": [theme(t) for t in report.themes],
            "overall": theme(report.overall) if report.overall is not None else None,
        }
    )

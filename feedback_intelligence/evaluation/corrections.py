"""The chain's own corrected entries as an evaluation set (``feedctl eval --from-corrections``, ADR 0065).

An entry a person saved from a model's proposal and corrected is labelled data: its saved structure is the
gold. Read from the channel databases of this machine's settings at the moment of the run, so an erased
entry (its row deleted, ADR 0039) never appears; only when the chain opted in (``FI_EVAL_FROM_CORRECTIONS``),
because the texts go to whichever backend is measured. The alert figures compare with the alert hits stored
with the entry (the rules' reading of its text), not with a person's judgement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import CORRECTIONS_SPLIT, EvalItem, label_problems
from feedback_intelligence.records import StoredFeedback


@dataclass(frozen=True, slots=True)
class CorrectedSet:
    items: list[EvalItem]
    skipped: int  # entries whose saved values the domain no longer declares (a category since removed …)


def corrected_item(record: StoredFeedback, channel: str, domain: Domain) -> EvalItem | None:
    """The entry as an evaluation item (its saved structure the gold), or None when the domain no longer
    declares one of its values."""
    structure = record.structure
    if structure is None:
        return None
    item = EvalItem(
        id=f"{channel}:{record.id}",
        split=CORRECTIONS_SPLIT,
        text=record.text,
        gold={
            "category": structure.category,
            "severity": structure.severity,
            "type": structure.type,
            "sentiment": domain.sentiment_for(structure.type, structure.sentiment) or "",
            "language": structure.language,
        },
        alerts=frozenset(hit.category for hit in record.alerts if hit.category in domain.alert_keywords),
    )
    return None if label_problems(replace(item, split="dev"), domain) else item  # the labels' rules, any split


async def corrected_set(
    urls: Mapping[str, str],
    domain: Domain,
    *,
    store: str | None = None,
    since: str | None = None,
    limit: int | None = None,
) -> CorrectedSet:
    """The corrected entries of each channel database in ``urls`` (name → URL), oldest first, from ``since``
    (a normalised instant) on, of ``store`` only, at most ``limit`` of them in all."""
    from feedback_intelligence.store.feedback_store import FeedbackStore

    items: list[EvalItem] = []
    skipped = 0
    for channel, url in urls.items():
        feedback_store = FeedbackStore(url, name=channel)
        try:
            await feedback_store.migrate()
            records = await feedback_store.corrected(since=since, store=store, limit=limit)
        finally:
            await feedback_store.aclose()
        for record in records:
            item = corrected_item(record, channel, domain)
            if item is None:
                skipped += 1
            else:
                items.append(item)
    return CorrectedSet(items[:limit] if limit is not None else items, skipped)

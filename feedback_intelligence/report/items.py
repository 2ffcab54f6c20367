"""The drill-in list of the one inbox: a filter's items from every channel database, newest first, in
pages by an opaque keyset cursor (``GET /report/items``, ADR 0034).

Each database gives its first ``limit + 1`` rows below the cursor; the merge in the order key
``(timestamp, channel, id)`` descending, cut at ``limit``, is exact, and the extra row says whether a next
page exists. The cursor is the last shown item's key: an item saved meanwhile lands above it (seen on a
new first page) or below it (seen on a later page), so across pages no item comes twice and none that
was there is missed. The cursor also carries the first page's counts, so only the first page counts.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from pydantic import Field

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.report.display import shown_theme
from feedback_intelligence.report.model import WireModel
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.item_list import ItemKey, ListedItem, count_of, page_of

PAGE_DEFAULT = 50
PAGE_MAX = 200  # documented on the route; a CSV reads in pages of this size too


class CursorInvalid(ValueError):
    """A cursor this service did not write (or one cut short): the 400's message."""


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page starts, and the counts the first page found: later pages carry them instead of
    counting the filter again (a ``count(*)`` over the window costs more than a page, bench/drill_in)."""

    after: ItemKey
    counts: dict[str, int]


def encode_cursor(cursor: Cursor) -> str:
    key = cursor.after
    raw = json.dumps([key.timestamp, key.channel, key.id, cursor.counts], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> Cursor:
    try:
        parts = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise CursorInvalid("cursor is not one this service wrote; start again without it.") from exc
    if not (
        isinstance(parts, list)
        and len(parts) == 4
        and all(isinstance(p, str) for p in parts[:3])
        and isinstance(parts[3], dict)
        and all(isinstance(k, str) and isinstance(n, int) for k, n in parts[3].items())
    ):
        raise CursorInvalid("cursor is not one this service wrote; start again without it.")
    return Cursor(ItemKey(*parts[:3]), dict(parts[3]))


@dataclass(frozen=True, slots=True)
class Page:
    items: list[ListedItem]
    next: ItemKey | None  # the last item's key when more follow


async def page(stores: Sequence[FeedbackStore], flt: ItemFilter, after: ItemKey | None, limit: int) -> Page:
    """The next ``limit`` items of ``flt`` over ``stores`` below ``after``, newest first."""
    answers = await asyncio.gather(*(page_of(store, flt, after, limit + 1) for store in stores))
    merged = sorted((item for answer in answers for item in answer), key=ListedItem.key, reverse=True)
    shown = merged[:limit]
    return Page(shown, shown[-1].key() if len(merged) > limit else None)


async def every_page(
    stores: Sequence[FeedbackStore], flt: ItemFilter, size: int = PAGE_MAX
) -> AsyncIterator[list[ListedItem]]:
    """Every item of ``flt`` over ``stores``, newest first, ``size`` at a time by the same keyset as the
    drill-in: memory stays at one page however many items match (the CSV streams these)."""
    after: ItemKey | None = None
    while True:
        found = await page(stores, flt, after, size)
        if found.items:
            yield found.items
        if found.next is None:
            return
        after = found.next


async def counts(stores: Sequence[FeedbackStore], flt: ItemFilter) -> dict[str, int]:
    """Matching items per channel."""
    found = await asyncio.gather(*(count_of(store, flt) for store in stores))
    return {store.name: n for store, n in zip(stores, found, strict=True)}


# -- the wire --------------------------------------------------------------------------------------


class InboxAdvice(WireModel):
    """A rule that disagrees with the value a person gave, which is the stored one (ADR 0045)."""

    field: str = Field(description="The structure field, e.g. `category`.")
    value: str = Field(description="What the rule would choose.")
    value_label: str = Field(description="That choice as a person reads it (a category's label).")
    rule: str = Field(description="Which rule: `alert_category`, `vulgarity` or `keyword_evidence`.")
    words: list[str] = Field(description="The words of the text that made it choose.")


class InboxItem(WireModel):
    id: str = Field(description="The item's id, unique within its channel.")
    channel: str = Field(description="`corpus` (imported feedback) or `live` (a desk entry).")
    ref: str = Field(description="`{channel}:{id}`: the item across channels (a case's id).")
    source: str = Field(description="Where the feedback came from.")
    timestamp: str = Field(description="When the feedback was given (normalised UTC).")
    text: str = Field(description="The whole text.")
    store: str | None = Field(description="The store id; null = none.")
    category: str | None = Field(description="The category key; null without a structure.")
    category_label: str | None = Field(description="The category as a person reads it.")
    issue: str | None = Field(
        default=None, description="The problem it reports (a key of `/schema` `issues`); null before it is derived."
    )
    issue_label: str | None = Field(default=None, description="The issue as a person reads it.")
    theme: str | None = Field(description="The shown theme; null when the category label stands.")
    severity: str | None = Field(description="The severity key; null without a structure.")
    type: str | None = Field(description="The feedback type key; null without a structure.")
    sentiment: str | None = Field(description="The effective sentiment; null in a moderation category.")
    needs_review: bool = Field(description="A person should check the item.")
    structure_failed: bool = Field(description="Stored without a structure.")
    alert_categories: list[str] = Field(description="The alert categories of its lexicon hits, in order.")
    rule_advice: list[InboxAdvice] = Field(
        default_factory=list,
        description="Where a rule disagrees with the person's value (`category` above is the person's): the "
        "manager reviews these with `?advice=true`.",
    )


class InboxPage(WireModel):
    items: list[InboxItem] = Field(description="Matching items, newest first (timestamp, channel, id).")
    next_cursor: str | None = Field(description="`?cursor=` of the next page; null on the last one.")
    total: int = Field(
        description="Items matching the filters over the channels asked, as counted for the first page (later "
        "pages carry that count in their cursor)."
    )
    channel_counts: dict[str, int] = Field(
        description="Matching items per channel (`corpus`, `live`), counted as `total` is."
    )
    filters: dict[str, str] = Field(description="The filters applied, by query name.")


def inbox_item(item: ListedItem, domain: Domain) -> InboxItem:
    record, structure = item.record, item.record.structure
    return InboxItem(
        id=record.id,
        channel=item.channel,
        ref=f"{item.channel}:{record.id}",
        source=record.source,
        timestamp=record.timestamp,
        text=record.text,
        store=record.store,
        category=structure.category if structure else None,
        category_label=domain.category_label(structure.category) if structure else None,
        issue=item.issue,
        issue_label=domain.issue_label(item.issue) if item.issue else None,
        theme=shown_theme(record, domain),
        severity=structure.severity if structure else None,
        type=structure.type if structure else None,
        sentiment=item.sentiment,
        needs_review=record.needs_review,
        structure_failed=record.structure_failed,
        alert_categories=list(dict.fromkeys(hit.category for hit in record.alerts)),
        rule_advice=[
            InboxAdvice(
                field=a.field,
                value=a.value,
                value_label=domain.category_label(a.value) if a.field == "category" else a.value,
                rule=a.rule,
                words=list(a.words),
            )
            for a in record.rule_advice
        ],
    )

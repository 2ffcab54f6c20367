"""The report's issue groups (ADR 0055): one problem across departments, by store, with its own trend."""

from __future__ import annotations

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.report.issues import issue_groups
from feedback_intelligence.report.sources import aggregates_of

DOMAIN = load_domain("retail")
MIDPOINT = "2026-11-08T00:00:00.0000000+00:00"
SPOILED = [
    ("hevi", "Mansikat oli homeessa"),
    ("maito_kylma", "Maito oli hapanta"),
    ("liha_kala", "Jauheliha oli pilaantunut"),
]


def item(n: int, store: str, second_half: bool, category: str, text: str) -> StoredFeedback:
    day = 10 if second_half else 3
    stamp = f"2026-11-{day:02d}T{n % 24:02d}:00:00.0000000+00:00"
    structure = Structure(category, "", "medium", "complaint", "fi")
    return StoredFeedback(id=f"i{n:03d}", source="desk", text=text, timestamp=stamp, created_at=stamp,
                          structure=structure, store=store)  # fmt: skip


def week(store: str, first: int, second: int, start: int) -> list[StoredFeedback]:
    """``first`` then ``second`` spoiled-food complaints in ``store``, over the three fresh departments."""
    halves = [False] * first + [True] * second
    return [item(start + k, store, half, *SPOILED[k % 3]) for k, half in enumerate(halves)]


def test_a_freshness_spike_in_one_store_is_one_group_that_names_the_store() -> None:
    items = [
        *week("s1", 10, 21, 0),  # the spike, spread over produce, dairy and meat
        *week("s2", 10, 11, 100),
        item(200, "s2", True, "kassa_palvelu", "Kassajono oli pitkä"),
    ]
    groups = issue_groups(aggregates_of(items, DOMAIN, midpoint=MIDPOINT, limit=10), DOMAIN, ReportSettings())
    assert [(g.issue, g.title, g.count) for g in groups] == [
        ("freshness_quality", "Tuoreus ja laatu", 52),
        ("queue_waiting", "Jonot ja odotus", 1),
    ]
    fresh = groups[0]
    assert {f.key for f in fresh.categories} == {"hevi", "maito_kylma", "liha_kala"}  # departments as facets
    stores = {s.store: (s.first_half, s.second_half, s.direction) for s in fresh.stores}
    assert stores == {"s1": (10, 21, "growing"), "s2": (10, 11, "stable")}
    assert sum(g.count for g in groups) == len(items)

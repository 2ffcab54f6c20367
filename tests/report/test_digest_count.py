"""The week's items the morning digest tells, counted by the store: every one of them, not the alert list's
first FI_REPORT_MAX_ITEMS, on SQLite and PostgreSQL; the count in SQL and the rule in Python read the same
category sets and agree item by item, and the in-memory source counts the same."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

import pytest
from sqlalchemy import update

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.deterministic.alerts import digest_only, digest_rule, operational_categories
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.report.brief import brief, brief_week
from feedback_intelligence.report.chain_view import chain_view
from feedback_intelligence.report.model import AlertRow
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import FetchSource, StoreSource
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
DIGEST, PAGING, DEMOTED = "payment", "injury_safety", "rasismi"
STORE = "s1"
MAX_ITEMS = 3  # the alert list's cap: the store has more digest items than this


def ts(day: int, hour: int = 8) -> str:
    return f"2026-11-{day:02d}T{hour:02d}:00:00.0000000+00:00"


def item(ident: str, day: int, *categories: str, store: str = STORE, hour: int = 8) -> StoredFeedback:
    return StoredFeedback(
        id=ident,
        source="desk",
        text=f"Palaute {ident}",
        timestamp=ts(day, hour),
        created_at=ts(day, hour),
        structure=Structure("kassa_palvelu", "kortti", "high", "complaint", "fi"),
        store=store,
        alerts=tuple(AlertHit(category, category[:4]) for category in categories),
    )


# every subset of a digest, a paging and a demoted category, each alone in its store: what the rule says of it
SUBSETS = [tuple(chosen) for k in range(4) for chosen in combinations((DIGEST, PAGING, DEMOTED), k)]
EVERY_SUBSET = [item(f"c{k}", 27, *chosen, store=f"c{k}") for k, chosen in enumerate(SUBSETS)]

DIGEST_ITEMS = [item(f"d{n}", 24 + n % 5, DIGEST, hour=6 + n) for n in range(5)]  # the digest's
ITEMS = [
    *DIGEST_ITEMS,
    item("demoted-too", 25, DIGEST, DEMOTED),  # a moderation hit beside a payment alert: still the digest's
    # newer than any digest item, so the alert list's three are these and "paging": none is the digest's
    item("mixed-1", 29, DIGEST, PAGING),
    item("mixed-2", 29, PAGING, DIGEST, hour=9),
    item("paging", 29, PAGING, hour=10),
    item("moderation", 28, DEMOTED),  # no operational alert at all
    item("screened", 28),  # no keyword hit; the model's screen said yes (below): an alert, but no digest's
    item("elsewhere", 26, DIGEST, store="s2"),
    item("last-week", 20, DIGEST),
    *EVERY_SUBSET,
]
WEEK_DIGEST_ITEMS = len(DIGEST_ITEMS) + 1  # and "demoted-too"


def row_hits(row: AlertRow) -> list[AlertHit]:
    return [AlertHit(hit.category, hit.pattern) for hit in row.deterministic_hits]


def old_rule(categories: tuple[str, ...]) -> bool:
    """The rule as the brief said it of an alert row: operational categories, all of them not paging."""
    found = operational_categories([AlertHit(category, "") for category in categories], DOMAIN)
    return bool(found) and not any(DOMAIN.pages_for(category) for category in found)


def test_the_rule_is_the_digest_categories_of_an_items_operational_alerts() -> None:
    rule = digest_rule(DOMAIN)
    assert rule.waiting == {DIGEST} and {DIGEST, DEMOTED} <= rule.allowed and PAGING not in rule.allowed
    for chosen in SUBSETS:
        assert rule.holds(chosen) == old_rule(chosen), chosen
        assert digest_only([AlertHit(category, "") for category in chosen], DOMAIN) == old_rule(chosen)
    assert not rule.holds(())  # the model's screen's alert: no keyword hit


@pytest.fixture(params=DATABASE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FeedbackStore]:
    async def filled(url: str) -> FeedbackStore:
        s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
        await s.migrate()
        for one in ITEMS:
            await s.insert(one)
        async with s.engine.begin() as conn:
            await conn.execute(update(feedback).where(feedback.c.id == "screened").values(screen_verdict="yes"))
        return s

    if request.param == "sqlite":
        s = await filled(migrated_url(tmp_path))
        yield s
        await s.aclose()
    else:
        async with postgres_database("fi_digest") as url:
            s = await filled(url)
            yield s
            await s.aclose()


async def test_the_store_counts_what_the_rule_says_of_each_item(store: FeedbackStore) -> None:
    source, rule = StoreSource([store]), digest_rule(DOMAIN)
    for one, chosen in zip(EVERY_SUBSET, SUBSETS, strict=True):
        assert await source.digest_items(ItemFilter(store=one.store), DOMAIN) == int(rule.holds(chosen)), chosen
    week = ItemFilter(from_=ts(23), to=ts(29, 23), store=STORE)
    assert await source.digest_items(week, DOMAIN) == WEEK_DIGEST_ITEMS


async def test_the_in_memory_source_counts_what_the_store_counts(store: FeedbackStore) -> None:
    async def fetch(from_: str, to: str, limit: int) -> list[StoredFeedback]:
        found = [one for one in ITEMS if from_ <= one.timestamp <= to]
        return sorted(found, key=lambda one: one.timestamp, reverse=True)[:limit]

    for window in (ItemFilter(), ItemFilter(from_=ts(23), to=ts(29, 23)), ItemFilter(from_=ts(28), to=ts(30))):
        counted = await StoreSource([store]).digest_items(window, DOMAIN)
        assert await FetchSource(fetch, DOMAIN).digest_items(window, DOMAIN) == counted, window


async def test_the_brief_counts_every_digest_item_of_the_week_past_the_alert_lists_cap(store: FeedbackStore) -> None:
    options = ReportSettings(cache_seconds=0, max_items=MAX_ITEMS)
    service = ReportService(DOMAIN, options, None, StoreSource([store]), clock=ManualClock(NOW))
    week = brief_week(None, NOW, options)
    answer = await brief(service, week, [STORE], lambda store: store, chain=False)
    row = answer.stores[0]
    listed = await service.deterministic(week.narrowed(store=STORE))
    assert len(listed.alerts) == MAX_ITEMS and row.digest_alert_items == WEEK_DIGEST_ITEMS > MAX_ITEMS
    assert row.alert_items == WEEK_DIGEST_ITEMS + 3  # the two mixed items and the paging one page a person
    assert answer.totals.digest_alert_items == WEEK_DIGEST_ITEMS


async def test_the_chain_view_counts_every_alert_item_of_a_store_past_the_alert_lists_cap(
    store: FeedbackStore,
) -> None:
    """A store's alert items in the chain view are the window's, as its report's series counts them: the list
    the report shows stops at FI_REPORT_MAX_ITEMS."""
    options = ReportSettings(cache_seconds=0, max_items=MAX_ITEMS)
    service = ReportService(DOMAIN, options, None, StoreSource([store]), clock=ManualClock(NOW))
    week = brief_week(None, NOW, options)
    view = await chain_view(service, week, [STORE, "s2"], lambda store: store)
    rows = {row.store: row for row in view.stores}
    listed = await service.deterministic(week.narrowed(store=STORE))
    assert len(listed.alerts) == MAX_ITEMS
    assert rows[STORE].alert_items == WEEK_DIGEST_ITEMS + 3 and rows["s2"].alert_items == 1
    assert rows[STORE].alert_rate == round(rows[STORE].alert_items / rows[STORE].items, 4)


async def test_past_the_alert_lists_cap_the_report_leaves_the_digest_to_the_stores_count(store: FeedbackStore) -> None:
    """A report whose alert list stopped at its cap does not say how many of its window's alert items wait for
    the morning digest (counting them reads every alert item of the window: a chain's year took a second);
    the store counts every one for whoever asks (the brief's weeks), and the rest of the alert line page a
    person. The in-memory source says the same."""
    options = ReportSettings(cache_seconds=0, max_items=MAX_ITEMS)
    week = brief_week(None, NOW, options).narrowed(store=STORE)

    async def fetch(from_: str, to: str, limit: int) -> list[StoredFeedback]:
        """The store's own items: a fetch filters all but the window itself."""
        found = [one for one in ITEMS if from_ <= one.timestamp <= to and one.store == STORE]
        return sorted(found, key=lambda one: one.timestamp, reverse=True)[:limit]

    for source in (StoreSource([store]), FetchSource(fetch, DOMAIN)):
        service = ReportService(DOMAIN, options, None, source, clock=ManualClock(NOW))
        report = await service.deterministic(week)
        assert len(report.alerts) == MAX_ITEMS and not any(digest_only(row_hits(row), DOMAIN) for row in report.alerts)
        assert report.digest_alert_items is None, source  # past the cap the list cannot tell; the store can
        counted = await service.digest_items(week)
        assert counted == WEEK_DIGEST_ITEMS, source
        assert report.series is not None
        alert_line = next(line for line in report.series.lines if line.key == "alert")
        assert alert_line.current_total - counted == 3  # the two mixed items and "paging"

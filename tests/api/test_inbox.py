"""One inbox (ADR 0034) over HTTP — GET /report, the drill-in GET /report/items and its CSV cover the
corpus and the desk together, every filter narrows all three alike, unknown values are a 422, and the
drill-in's keyset pages see every item once while new items arrive; on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI

from feedback_intelligence.api.app import create_app
from tests.api.test_hardening import client, counting_backend, running
from tests.edge.test_real_app import LOOPBACK, real_settings

NOW = datetime.now(UTC).replace(microsecond=0)
WINDOW = {"from": (NOW - timedelta(days=7)).isoformat(), "to": (NOW + timedelta(hours=1)).isoformat()}

# (channel, id, text, category, severity, type, source, store, hours ago, sentiment or None)
ITEMS = [
    ("corpus", "c1", "Maito oli hapanta.", "maito_kylma", "high", "complaint", "email", "s1", 1.0, None),
    (
        "corpus",
        "c2",
        "Liukastuin märällä lattialla, polvessa haava.",
        "tilat_siisteys",
        "critical",
        "complaint",
        "web_form",
        "s2",
        2.0,
        None,
    ),
    (
        "corpus",
        "c3",
        "Leipä oli tuoretta ja hyvää, kiitos!",
        "leipa",
        "low",
        "praise",
        "google_review",
        "s1",
        3.0,
        None,
    ),
    ("corpus", "c4", "Kassajono oli pitkä.", "kassa_palvelu", "medium", "complaint", "email", None, 4.0, "neutral"),
    ("live", "d1", "Jogurtti vanhentunut hyllyssä.", "maito_kylma", "medium", "complaint", "desk", "s1", 1.5, None),
    (
        "live",
        "d2",
        "Lattialla lasinsiruja hyllyn edessä.",
        "tilat_siisteys",
        "high",
        "complaint",
        "desk",
        "s2",
        2.5,
        None,
    ),
    ("live", "d3", "Hyvä palvelu kassalla.", "kassa_palvelu", "low", "praise", "desk", "s2", 3.5, None),
]
PATHS = {"corpus": "/feedback", "live": "/live/feedback"}


def body(
    feedback_id: str,
    text: str,
    category: str,
    severity: str,
    kind: str,
    source: str,
    store: str | None,
    at: datetime,
    sentiment: str | None = None,
) -> dict[str, Any]:
    structure = {"category": category, "theme": "aihe", "severity": severity, "type": kind, "language": "fi"}
    if sentiment is not None:
        structure["sentiment"] = sentiment
    entry: dict[str, Any] = {
        "id": feedback_id,
        "source": source,
        "text": text,
        "timestamp": at.isoformat(),
        "acceptedStructure": structure,
    }
    if store is not None:
        entry["store"] = store
    return entry


async def save(http: httpx.AsyncClient, channel: str, entry: dict[str, Any]) -> None:
    answer = await http.post(PATHS[channel], json=entry)
    assert answer.status_code == 201, answer.text


async def serving_items(folder: Path, databases: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An app on ``databases`` (settings under ``folder``) holding ITEMS, and a client of it."""
    app: FastAPI = create_app(
        real_settings(folder, structure_worker=False, report_llm_budget=0, **databases), backend=counting_backend()
    )
    async for running_app in running(app):
        async with client(running_app, LOOPBACK) as http:
            for channel, fid, text, category, severity, kind, source, store, hours, sentiment in ITEMS:
                at = NOW - timedelta(hours=hours)
                await save(http, channel, body(fid, text, category, severity, kind, source, store, at, sentiment))
            yield http


@pytest.fixture
async def inbox(tmp_path: Path, databases: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An app of the test's own, for a test that saves."""
    async for http in serving_items(tmp_path, databases):
        yield http


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def read_inbox(
    tmp_path_factory: pytest.TempPathFactory, module_databases: dict[str, str]
) -> AsyncIterator[httpx.AsyncClient]:
    """One app for the module's tests that only read (each would otherwise start its own and save ITEMS)."""
    async for http in serving_items(tmp_path_factory.mktemp("inbox"), module_databases):
        yield http


READS = pytest.mark.asyncio(loop_scope="module")  # a test on ``read_inbox`` runs in that fixture's loop


async def listed(http: httpx.AsyncClient, **params: str) -> list[dict[str, Any]]:
    answer = await http.get("/report/items", params={**WINDOW, **params, "limit": "200"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["nextCursor"] is None
    return answer.json()["items"]


def refs(rows: list[dict[str, Any]]) -> list[str]:
    return [row["ref"] for row in rows]


@READS
async def test_the_report_counts_the_desk_and_the_corpus_together_and_names_each_rows_channel(
    read_inbox: httpx.AsyncClient,
) -> None:
    report = (await read_inbox.get("/report", params=WINDOW)).json()
    assert report["totalItems"] == len(ITEMS)
    assert report["channelCounts"] == {"corpus": 4, "live": 3}
    sources = [s for theme in report["themes"] for s in theme["sources"]]
    assert {(s["channel"], s["feedbackId"]) for s in sources} == {(c, i) for c, i, *_ in ITEMS}
    alert = next(a for a in report["alerts"] if a["feedbackId"] == "c2")
    assert alert["channel"] == "corpus"
    rows = await listed(read_inbox)
    assert refs(rows) == ["corpus:c1", "live:d1", "corpus:c2", "live:d2", "corpus:c3", "live:d3", "corpus:c4"]
    assert {row["channel"] for row in rows} == {"corpus", "live"}


async def test_a_desk_save_reaches_the_inbox_report_at_once(inbox: httpx.AsyncClient) -> None:
    before = (await inbox.get("/report", params=WINDOW)).json()
    await save(
        inbox,
        "live",
        body(
            "d9", "Kahvi loppui automaatista.", "juomat", "low", "complaint", "desk", None, NOW - timedelta(minutes=5)
        ),
    )
    after = (await inbox.get("/report", params=WINDOW)).json()  # the same 10-minute cache bucket
    assert after["totalItems"] == before["totalItems"] + 1
    assert after["channelCounts"]["live"] == before["channelCounts"]["live"] + 1
    assert "d9" in {s["feedbackId"] for theme in after["themes"] for s in theme["sources"] if s["channel"] == "live"}


FILTERS = [
    ({"category": "maito_kylma"}, {"corpus:c1", "live:d1"}),
    ({"severity": "high"}, {"corpus:c1", "live:d2"}),
    ({"type": "praise"}, {"corpus:c3", "live:d3"}),
    ({"source": "email"}, {"corpus:c1", "corpus:c4"}),
    ({"store": "s1"}, {"corpus:c1", "corpus:c3", "live:d1"}),
    ({"channel": "live"}, {"live:d1", "live:d2", "live:d3"}),
    ({"channel": "corpus"}, {"corpus:c1", "corpus:c2", "corpus:c3", "corpus:c4"}),
    ({"q": "MAITO hapan"}, {"corpus:c1"}),  # every word, case folded
    ({"q": "lattialla"}, {"corpus:c2", "live:d2"}),
    ({"category": "tilat_siisteys", "channel": "live"}, {"live:d2"}),  # fields AND
    ({"alert": "injury_safety"}, {"corpus:c2", "live:d2"}),  # glass shards: a hazard
    ({"alert": "any"}, {"corpus:c2", "live:d2"}),
    ({"sentiment": "neutral"}, {"corpus:c4"}),
    # the problem across departments: sour milk and an expired yogurt, whichever shelf (deterministic/issue.py)
    ({"issue": "freshness_quality"}, {"corpus:c1", "live:d1"}),
    ({"issue": "safety"}, {"corpus:c2", "live:d2"}),
    ({"issue": "queue_waiting", "channel": "corpus"}, {"corpus:c4"}),
]


@pytest.mark.parametrize(
    ("params", "expected"),
    FILTERS,
    ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()) if isinstance(p, dict) else "",
)
@READS
async def test_each_filter_narrows_the_list_the_report_and_the_csv_alike(
    read_inbox: httpx.AsyncClient, params: dict[str, str], expected: set[str]
) -> None:
    rows = await listed(read_inbox, **params)
    assert set(refs(rows)) == expected
    page = (await read_inbox.get("/report/items", params={**WINDOW, **params})).json()
    assert page["total"] == len(expected)
    assert page["filters"] == params
    report = (await read_inbox.get("/report", params={**WINDOW, **params})).json()
    assert report["totalItems"] == len(expected)
    assert report["filters"] == params
    assert sum(report["channelCounts"].values()) == len(expected)
    assert sum(sum(line["current"]) for line in report["series"]["lines"] if line["key"] == "all") == len(expected)
    cited = {f"{s['channel']}:{s['feedbackId']}" for theme in report["themes"] for s in theme["sources"]}
    assert cited <= expected
    assert {f"{a['channel']}:{a['feedbackId']}" for a in report["alerts"]} <= expected
    exported = await read_inbox.get("/report/items.csv", params={**WINDOW, **params})
    assert exported.status_code == 200
    table = list(csv.DictReader(io.StringIO(exported.content.decode("utf-8-sig"))))
    channel_word = {"tuotu": "corpus", "palautepiste": "live"}
    assert {f"{channel_word[r['kanava']]}:{r['tunniste']}" for r in table} == expected
    assert exported.headers["x-items-total"] == str(len(expected))


@pytest.mark.parametrize("field", ["category", "issue", "severity", "type", "sentiment", "source", "alert", "channel"])
@READS
async def test_an_unknown_filter_value_is_a_422_naming_the_field(read_inbox: httpx.AsyncClient, field: str) -> None:
    for path in ("/report", "/report/items", "/report/items.csv"):
        answer = await read_inbox.get(path, params={**WINDOW, field: "ei-tällaista"})
        assert answer.status_code == 422, (path, answer.text)
        problem = answer.json()["codes"][0]
        assert problem["code"] == "filter_unknown"
        assert field in answer.json()["errors"][0]


@READS
async def test_each_row_and_csv_line_carries_its_issue(read_inbox: httpx.AsyncClient) -> None:
    rows = {row["ref"]: row for row in await listed(read_inbox)}
    assert (rows["corpus:c1"]["issue"], rows["corpus:c1"]["issueLabel"]) == ("freshness_quality", "Tuoreus ja laatu")
    assert (rows["live:d3"]["issue"], rows["corpus:c4"]["issue"]) == ("praise", "queue_waiting")
    exported = await read_inbox.get("/report/items.csv", params=WINDOW)
    table = {r["tunniste"]: r for r in csv.DictReader(io.StringIO(exported.content.decode("utf-8-sig")))}
    assert (table["c2"]["ongelma"], table["c4"]["ongelma"]) == ("Turvallisuus", "Jonot ja odotus")


@READS
async def test_a_bad_cursor_or_page_size_is_a_400(read_inbox: httpx.AsyncClient) -> None:
    assert (await read_inbox.get("/report/items", params={**WINDOW, "cursor": "bm90IGEgY3Vyc29y"})).status_code == 400
    assert (await read_inbox.get("/report/items", params={**WINDOW, "cursor": "%%%"})).status_code == 400
    assert (await read_inbox.get("/report/items", params={**WINDOW, "limit": "201"})).status_code == 400
    assert (await read_inbox.get("/report/items", params={**WINDOW, "limit": "0"})).status_code == 400


async def test_pages_see_every_item_once_while_new_items_arrive(inbox: httpx.AsyncClient) -> None:
    # ties on purpose: the same instant and the same id in both channels
    tied = NOW - timedelta(hours=5)
    for n in range(12):
        for channel in ("corpus", "live"):
            at = tied if n % 3 == 0 else tied - timedelta(minutes=n)
            await save(
                inbox,
                channel,
                body(
                    f"t{n}",
                    f"Tuote {n} puuttui.",
                    "muu",
                    "low",
                    "complaint",
                    "desk" if channel == "live" else "email",
                    None,
                    at,
                ),
            )
    everything = refs(await listed(inbox))
    assert len(everything) == len(ITEMS) + 24 == len(set(everything))
    seen: list[str] = []
    cursor: str | None = None
    arrived = 0
    totals: set[int] = set()
    while True:
        params = {**WINDOW, "limit": "5", **({"cursor": cursor} if cursor else {})}
        page = (await inbox.get("/report/items", params=params)).json()
        seen += refs(page["items"])
        totals.add(page["total"])  # counted for the first page, carried by the cursor
        # between pages: one newer item and one older than everything, each in turn of the channels
        channel = ("corpus", "live")[arrived % 2]
        source = "desk" if channel == "live" else "email"
        await save(
            inbox,
            channel,
            body(f"new{arrived}", "Uusi palaute.", "muu", "low", "complaint", source, None, NOW - timedelta(minutes=1)),
        )
        await save(
            inbox,
            channel,
            body(
                f"old{arrived}",
                "Vanha palaute.",
                "muu",
                "low",
                "complaint",
                source,
                None,
                NOW - timedelta(days=6, hours=arrived),
            ),
        )
        arrived += 1
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert totals == {len(everything)}
    assert len(seen) == len(set(seen)), "an item came twice"
    assert set(everything) <= set(seen), "an item that was there was missed"
    assert [r for r in seen if r.split(":")[1].startswith("new")] == []  # newer than the first page: not in later ones
    older = [r for r in seen if r.split(":")[1].startswith("old")]
    assert older  # saved below the cursor: reached by a later page


@READS
async def test_a_filter_given_twice_is_a_422_not_a_silent_choice(read_inbox: httpx.AsyncClient) -> None:
    twice = [*WINDOW.items(), ("category", "leipa"), ("category", "hevi")]
    answer = await read_inbox.get("/report/items", params=twice)
    assert answer.status_code == 422
    assert [c["code"] for c in answer.json()["codes"]] == ["filter_repeated"]


@READS
async def test_an_unknown_store_stays_the_400_every_store_route_answers(read_inbox: httpx.AsyncClient) -> None:
    for path in ("/report", "/report/items", "/report/items.csv", "/report/stores"):
        answer = await read_inbox.get(path, params={**WINDOW, "store": "ei kauppa"})
        assert answer.status_code == 400, (path, answer.text)
        assert [c["code"] for c in answer.json()["codes"]] == ["store_unknown"]

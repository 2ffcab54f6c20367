"""The manager's CSV export over HTTP: every item of the window, past the old 1,000-row cap, each row naming
its store by id and name and its language; the same count as the report; on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.instants.timestamps import normalize_timestamp
from feedback_intelligence.records import StoredFeedback, Structure
from tests.api.test_hardening import client
from tests.api.test_stores import app_with
from tests.edge.test_real_app import LOOPBACK

NOW = datetime.now(UTC).replace(microsecond=0)
WINDOW = {"from": (NOW - timedelta(days=90)).isoformat(), "to": (NOW + timedelta(hours=1)).isoformat()}
# five named stores, one with a comma and a Finnish letter in its name (a quoted cell that must read back)
STORES = [
    {"id": "hki-1", "name": "Helsinki, Keskusta"},
    {"id": "tre-1", "name": "Tampere Hervanta"},
    {"id": "tku-1", "name": "Turku Skanssi"},
    {"id": "oulu-1", "name": "Oulu Limingantulli"},
    {"id": "jkl-1", "name": "Jyväskylä Seppä"},
]
CORPUS_ROWS, LIVE_ROWS = 1_150, 60  # more than the old cap (FI_QUERY_MAX_LIMIT, default 1,000)


def records(prefix: str, n: int, source: str) -> list[StoredFeedback]:
    """``n`` items spread over the 90 days, round the five stores, Finnish and a few Swedish."""
    made = []
    for i in range(n):
        at = normalize_timestamp((NOW - timedelta(hours=1 + i * 1.7)).isoformat())
        language = "sv" if i % 7 == 0 else "fi"
        made.append(
            StoredFeedback(
                id=f"{prefix}{i}",
                source=source,
                text=f"Maito oli hapanta ({i})" if language == "fi" else f"Mjölken var sur ({i})",
                timestamp=at,
                created_at=at,
                structure=Structure("maito_kylma", "maito", "medium", "complaint", language),
                store=STORES[i % len(STORES)]["id"],
            )
        )
    return made


def table(answer: httpx.Response) -> list[dict[str, str]]:
    assert answer.status_code == 200, answer.text
    assert answer.content.startswith("\ufeff".encode())  # Excel reads the Finnish letters right
    return list(csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig"))))


async def test_the_csv_holds_every_item_of_the_window_with_its_store_and_language(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        channels = app.state.runtime.channels
        assert await channels["corpus"].insert_batch(records("c", CORPUS_ROWS, "email"))
        assert await channels["live"].insert_batch([replace(r, source="desk") for r in records("d", LIVE_ROWS, "x")])
        async with client(app, LOOPBACK) as http:
            report = (await http.get("/report", params=WINDOW)).json()
            listed = (await http.get("/report/items", params=WINDOW)).json()
            exported = await http.get("/report/items.csv", params=WINDOW)
            rows = table(exported)
            one_store = table(await http.get("/report/items.csv", params={**WINDOW, "store": "jkl-1"}))

    total = CORPUS_ROWS + LIVE_ROWS
    assert report["totalItems"] == listed["total"] == total
    assert len(rows) == total == int(exported.headers["x-items-total"])  # all of them, not the first 1,000
    assert len({(r["kanava"], r["tunniste"]) for r in rows}) == total  # none twice
    times = [r["aika"] for r in rows]
    assert times == sorted(times, reverse=True)  # newest first, across the pages and both channels
    names = {s["id"]: s["name"] for s in STORES}
    assert all(names[r["myymälä"]] == r["myymälän nimi"] for r in rows)
    assert Counter(r["myymälän nimi"] for r in rows)["Helsinki, Keskusta"] == 230 + 12
    assert Counter(r["kieli"] for r in rows) == {"fi": total - 165 - 9, "sv": 165 + 9}
    first = next(r for r in rows if r["tunniste"] == "c0")
    assert (first["osasto"], first["vakavuus"], first["tyyppi"], first["lähde"]) == (
        "Maito & kylmä",
        "Keskitaso",
        "Valitus",
        "Sähköposti",
    )
    assert {r["myymälän nimi"] for r in one_store} == {"Jyväskylä Seppä"}
    assert len(one_store) == total // len(STORES)


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)
async def test_a_formula_in_the_text_stays_text_and_an_empty_window_is_just_the_header(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        item = replace(records("f", 1, "email")[0], text='=HYPERLINK("x") maito')
        await app.state.runtime.channels["corpus"].insert_batch([item])
        async with client(app, LOOPBACK) as http:
            rows = table(await http.get("/report/items.csv", params=WINDOW))
            empty = await http.get("/report/items.csv", params={**WINDOW, "q": "ei-tällaista-sanaa"})
    assert [r["teksti"] for r in rows] == ['\'=HYPERLINK("x") maito']
    assert table(empty) == [] and empty.headers["x-items-total"] == "0"
    assert "myymälän nimi" in empty.content.decode("utf-8-sig").splitlines()[0]

"""Stores (ADR 0027): the store dimension over HTTP — validated on every way in, filtered on every way out,
and the desk bound to its store — on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from feedback_intelligence.api.app import create_app
from tests.api.test_hardening import STRUCTURE, client, counting_backend, running
from tests.edge.test_real_app import LOOPBACK, real_settings

STORES = [{"id": "hki-keskusta", "name": "Helsinki Keskusta"}, {"id": "tre-1", "name": "Tampere Hervanta"}]


async def app_with(tmp_path: Path, databases: dict[str, str], **settings: Any) -> AsyncIterator[FastAPI]:
    app = create_app(
        real_settings(tmp_path, structure_worker=False, report_llm_budget=0, **databases, **settings),
        backend=counting_backend(),
    )
    async for running_app in running(app):
        yield running_app


def entry(text: str, store: str | None, **extra: Any) -> dict[str, Any]:
    body = {"source": "desk", "text": text, "acceptedStructure": dict(STRUCTURE), **extra}
    if store is not None:
        body["store"] = store
    return body


def codes(answer: httpx.Response) -> list[str]:
    return [c["code"] for c in answer.json()["codes"]]


async def test_a_listed_store_is_kept_and_any_other_is_refused_on_both_ingest_routes(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        async with client(app, LOOPBACK) as operator:
            for path in ("/feedback", "/live/feedback"):
                saved = await operator.post(path, json=entry("Maito oli hapanta.", "tre-1", id=f"a{len(path)}"))
                assert saved.status_code == 201, saved.text
                assert saved.json()["store"] == "tre-1"
                stored = (await operator.get(f"{path}/a{len(path)}")).json()
                assert stored["store"] == "tre-1"
                refused = await operator.post(path, json=entry("Maito oli hapanta.", "oulu-9"))
                assert refused.status_code == 400
                assert codes(refused) == ["store_unknown"]
                assert "one of the stores of FI_STORES (hki-keskusta, tre-1)" in refused.json()["errors"][0]
                # no store at all is still a save (a shop without a chain)
                plain = await operator.post(path, json=entry("Leipä oli kuivaa.", None))
                assert plain.status_code == 201 and plain.json()["store"] is None


async def test_without_a_list_any_id_of_the_pattern_is_a_store(tmp_path: Path, databases: dict[str, str]) -> None:
    async for app in app_with(tmp_path, databases, store_pattern=r"S[0-9]{3}"):
        async with client(app, LOOPBACK) as operator:
            assert (await operator.post("/feedback", json=entry("Maito oli hapanta.", "S042"))).status_code == 201
            for bad in ("S42", "s042", "S 042", "x" * 40):
                answer = await operator.post("/feedback", json=entry("Maito oli hapanta.", bad))
                assert answer.status_code == 400, bad
            answer = await operator.get("/feedback", params={"store": "S4"})
            assert answer.status_code == 400 and codes(answer) == ["store_unknown"]


async def seed(operator: httpx.AsyncClient, path: str) -> None:
    texts = {"hki-keskusta": ["Maito oli hapanta.", "Kassajono oli pitkä."], "tre-1": ["Leipä oli homeessa."]}
    for store, items in texts.items():
        for n, text in enumerate(items):
            body = entry(text, store, id=f"{store}-{n}", timestamp="2026-11-30T10:00:00Z")
            assert (await operator.post(path, json=body)).status_code == 201
    body = entry("Ei myymälää.", None, id="none-0", timestamp="2026-11-30T10:00:00Z")
    assert (await operator.post(path, json=body)).status_code == 201


WINDOW = {"from": "2026-11-29T00:00:00Z", "to": "2026-12-01T00:00:00Z"}


async def test_lists_reports_and_telemetry_filter_by_store(tmp_path: Path, databases: dict[str, str]) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        async with client(app, LOOPBACK) as operator:
            for path in ("/feedback", "/live/feedback"):
                await seed(operator, path)
                listed = (await operator.get(path, params={"store": "hki-keskusta"})).json()
                assert sorted(i["id"] for i in listed) == ["hki-keskusta-0", "hki-keskusta-1"]
                assert len((await operator.get(path)).json()) == 4
                refused = await operator.get(path, params={"store": "nope"})
                assert refused.status_code == 400 and codes(refused) == ["store_unknown"]
            for path, channels in (("/report", 2), ("/live/report", 1)):  # the inbox counts both channels
                whole = (await operator.get(path, params=WINDOW)).json()
                assert (whole["totalItems"], whole["store"]) == (4 * channels, None)
                # one store's report, then another's: the cache keeps them apart
                one = (await operator.get(path, params={**WINDOW, "store": "hki-keskusta"})).json()
                assert (one["totalItems"], one["store"]) == (2 * channels, "hki-keskusta")
                other = (await operator.get(path, params={**WINDOW, "store": "tre-1"})).json()
                assert (other["totalItems"], other["store"]) == (1 * channels, "tre-1")
                refused = await operator.get(path, params={**WINDOW, "store": "nope"})
                assert refused.status_code == 400 and codes(refused) == ["store_unknown"]
            telemetry = await operator.get("/telemetry/corrections", params={**WINDOW, "store": "tre-1"})
            assert telemetry.status_code == 200
            assert telemetry.json()["store"] == "tre-1"
            assert telemetry.json()["deskEntries"] == 2  # one in each channel
            everyone = (await operator.get("/telemetry/corrections", params=WINDOW)).json()
            assert everyone["deskEntries"] == 8


async def test_a_desk_is_bound_by_its_page_and_named(tmp_path: Path, databases: dict[str, str]) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        async with client(app) as visitor:  # a public route: the desk page asks it
            bound = await visitor.get("/live/desk-store", params={"store": "tre-1"})
            assert bound.json() == {"id": "tre-1", "name": "Tampere Hervanta", "boundBy": "page"}
            assert (await visitor.get("/live/desk-store")).json() == {"id": None, "name": None, "boundBy": "none"}
            refused = await visitor.get("/live/desk-store", params={"store": "oulu-9"})
            assert refused.status_code == 400 and codes(refused) == ["store_unknown"]


async def test_a_desk_bound_by_the_setting_saves_for_its_store_and_refuses_another(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES), desk_store="hki-keskusta"):
        async with client(app) as visitor:
            bound = await visitor.get("/live/desk-store")
            assert bound.json() == {"id": "hki-keskusta", "name": "Helsinki Keskusta", "boundBy": "setting"}
            assert (await visitor.get("/live/desk-store", params={"store": "hki-keskusta"})).status_code == 200
            other = await visitor.get("/live/desk-store", params={"store": "tre-1"})
            assert other.status_code == 400 and codes(other) == ["store_bound"]
            saved = await visitor.post("/live/feedback", json=entry("Maito oli hapanta.", None))
            assert saved.status_code == 201 and saved.json()["store"] == "hki-keskusta"


def test_a_desk_store_outside_the_list_stops_the_boot(tmp_path: Path) -> None:
    from feedback_intelligence.config import ConfigurationError

    with pytest.raises(ConfigurationError, match="FI_DESK_STORE: 'oulu-9' is not one of the stores of FI_STORES"):
        real_settings(tmp_path, stores=json.dumps(STORES), desk_store="oulu-9")


def test_the_stores_may_come_from_a_file(tmp_path: Path) -> None:
    listing = tmp_path / "stores.json"
    listing.write_text(json.dumps(STORES), encoding="utf-8")
    settings = real_settings(tmp_path, stores=str(listing))
    assert settings.chain.stores.name("tre-1") == "Tampere Hervanta"
    assert not settings.chain.stores.accepts("oulu-9")


async def test_the_chain_view_counts_each_store_as_its_own_report_does(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases):  # no FI_STORES: the stores found in the window
        async with client(app) as visitor:
            async with client(app, LOOPBACK) as operator:
                await seed(operator, "/feedback")
                alert = entry("Liukastuin märällä lattialla ja löin pääni.", "tre-1", timestamp="2026-11-30T11:00:00Z")
                assert (await operator.post("/feedback", json=alert)).status_code == 201
            view = (await visitor.get("/report/stores", params=WINDOW)).json()
            assert [row["store"] for row in view["stores"]] == ["hki-keskusta", "tre-1"]
            for row in view["stores"]:
                own = (await visitor.get("/report", params={**WINDOW, "store": row["store"]})).json()
                assert row["items"] == own["totalItems"]
                assert row["severityCounts"] == own["severityCounts"]
                assert row["name"] == row["store"]  # no list of names: the id names the store
            tre = view["stores"][1]
            assert (tre["items"], tre["alertItems"], tre["alertRate"]) == (2, 1, 0.5)
            refused = await visitor.get("/report/stores", params={"from": "yesterday"})
            assert refused.status_code == 400

"""The management page's import over the real app (ADR 0063): a form tool's export previewed and run as
``feedctl load`` reads it (the same rules, one module), a backfill that pages nobody and keeps the rules'
structures, the model only when asked, and every refusal a 4xx with its reason, nothing stored."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from feedback_intelligence.api.app import create_app
from tests.support.form_export import (
    ALERTING,
    CHANNELS,
    FIRST_LOCAL,
    FIRST_UTC,
    HELSINKI,
    STORES,
    TEXTS,
    VALUE_MAP,
    ExportRow,
    export_rows,
    write_export,
)
from tests.support.people import LOOPBACK, add_user, client, csrf, people_settings, running_app, sign_in

assert create_app  # the app under test is the real one (tests/support/people.py builds it)

MAPPING = {"id": "Vastaus-ID", "timestamp": "Lähetetty", "source": "Kanava", "store": "Myymälä", "text": "Palaute"}
ROUTE = {"name": "vuoro", "kind": "webhook", "url": "http://127.0.0.1:9/hook", "unsigned": True}


def settings(tmp_path: Path) -> Any:
    return people_settings(tmp_path, stores=json.dumps(STORES), notify_channels=json.dumps([ROUTE]))


def count(tmp_path: Path, table: str) -> int:
    with sqlite3.connect(tmp_path / "feedback.db") as db:
        return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def query(**extra: Any) -> dict[str, str]:
    return {"map": json.dumps(MAPPING), "values": json.dumps(VALUE_MAP), "name": "vienti.csv", **extra}


def progress(answer: httpx.Response) -> list[dict[str, Any]]:
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in answer.text.splitlines()]


async def chain_manager(app: Any, http: httpx.AsyncClient) -> dict[str, str]:
    await add_user(app, "aluepaallikko", ("manager", "*"))
    assert (await sign_in(http, "aluepaallikko")).status_code == 200
    return csrf(http)


async def test_the_form_export_previews_with_a_suggested_mapping_and_the_shop_s_times(tmp_path: Path) -> None:
    export = write_export(tmp_path / "vienti.csv", export_rows(30, start=FIRST_LOCAL)).read_bytes()
    async with running_app(settings(tmp_path)) as app, client(app) as http:
        headers = await chain_manager(app, http)
        bare = await http.post("/imports/preview", content=export, headers=headers)
        assert bare.status_code == 200, bare.text
        seen = bare.json()
        assert seen["columns"] == ["Vastaus-ID", "Lähetetty", "Kanava", "Myymälä", "Palaute"]
        assert (seen["mapping"], seen["suggested"]) == (MAPPING, True)
        assert seen["unknownSources"] == ["Google-arvostelu", "Sähköposti", "Verkkolomake"]
        assert seen["linesWithProblems"] == 30 and "source 'Verkkolomake' is not one of" in seen["problems"][0]
        mapped = (await http.post("/imports/preview", params=query(), content=export, headers=headers)).json()
        assert (mapped["rows"], mapped["wouldStore"], mapped["linesWithProblems"]) == (30, 30, 0)
        assert mapped["problems"] == []
        first = mapped["sample"][0]
        assert (first["line"], first["id"], first["source"], first["store"]) == (2, "R1000", "web_form", "hki-1")
        assert first["timestamp"] == FIRST_UTC + "Z" and mapped["timezone"] == "Europe/Helsinki"
        assert count(tmp_path, "feedback") == 0  # a preview stores nothing


def ninety_days(now: datetime) -> list[ExportRow]:
    """Two rows a day for 90 days back from ``now``, every tenth alerting (the first within the case window)."""
    return [
        ExportRow(now - timedelta(hours=12 * n), True, list(CHANNELS)[n % 3], STORES[n % 2]["name"], text)
        for n in range(180)
        for text in [ALERTING if n % 10 == 0 else f"{TEXTS[n % len(TEXTS)]} ({n})"]
    ]


async def test_a_90_day_backfill_stores_every_row_with_the_rules_structure_and_pages_nobody(tmp_path: Path) -> None:
    now = datetime.now(HELSINKI).replace(tzinfo=None, microsecond=0) - timedelta(minutes=5)
    rows = ninety_days(now)
    export = write_export(tmp_path / "vienti.csv", rows).read_bytes()
    async with running_app(settings(tmp_path)) as app, client(app) as http:
        headers = await chain_manager(app, http)
        lines = progress(await http.post("/imports/run", params=query(), content=export, headers=headers))
        last = lines[-1]
        assert last["finished"] and last["failed"] is None
        counts = (last["total"], last["done"], last["created"], last["accepted"], last["invalid"])
        assert counts == (180, 180, 180, 0, 0)
        assert (count(tmp_path, "cases"), count(tmp_path, "outbox")) == (0, 0)
        with sqlite3.connect(tmp_path / "feedback.db") as db:
            waiting, alerting = db.execute(
                "SELECT sum(structure_due), sum(CASE WHEN alerts_json != '[]' THEN 1 ELSE 0 END) FROM feedback"
            ).fetchone()
        assert (waiting, alerting) == (0, 18)  # the rules' structures are the rows' last; alerts kept
        again = progress(await http.post("/imports/run", params=query(), content=export, headers=headers))[-1]
        assert (again["created"], again["duplicate"]) == (0, 180)  # a rerun stores nothing twice
        asked = write_export(tmp_path / "malli.csv", rows[:5], id_prefix="M").read_bytes()
        modelled = await http.post("/imports/run", params=query(byModel="true"), content=asked, headers=headers)
        assert progress(modelled)[-1]["accepted"] == 5  # the model asked: saved for it, in the background
        assert (count(tmp_path, "cases"), count(tmp_path, "outbox")) == (0, 0)
        # the same recent alerting row, not as history, opens its case: what the backfill held back
        today = write_export(tmp_path / "tanaan.csv", rows[:1], id_prefix="N").read_bytes()
        ordinary = await http.post("/imports/run", params=query(history="false"), content=today, headers=headers)
        assert progress(ordinary)[-1]["accepted"] == 1 and count(tmp_path, "cases") == 1
        backlog = (await http.get("/health")).json()["backlog"]["corpus"]  # the time left, where the backlog is
        assert (backlog["items"], backlog["rowsPerMinute"], backlog["minutesLeft"]) == (6, 0, None)
        refined = await http.get("/report/refined", params={"since": "2026-01-01T00:00:00Z"})
        assert refined.json() == {"refined": 0, "since": "2026-01-01T00:00:00.0000000+00:00"}  # no model here
        assert (await http.get("/report/refined", params={"since": "eilen"})).status_code == 400


async def test_bad_input_is_a_4xx_with_its_reason_and_nothing_is_stored(tmp_path: Path) -> None:
    rows = export_rows(6, start=FIRST_LOCAL)
    export = write_export(tmp_path / "vienti.csv", rows).read_bytes()
    broken = export.replace(b"hki", b"hki").replace(b"Helsinki Keskusta", b"Turku Kauppatori", 1)
    async with running_app(settings(tmp_path)) as app, client(app) as http:
        headers = await chain_manager(app, http)
        binary = await http.post("/imports/preview", content=b"\x00\x9d\xff" * 50, headers=headers)
        assert binary.status_code == 400 and binary.json()["codes"][0]["code"] == "import_unreadable"
        assert "neither UTF-8 nor Windows-1252" in binary.json()["errors"][0]
        no_text = await http.post("/imports/preview", content=b"a;b\n1;2\n", headers=headers)
        assert no_text.status_code == 400 and "which column is the text?" in no_text.json()["errors"][0]
        bad_map = await http.post("/imports/preview", params={"map": "{"}, content=export, headers=headers)
        assert bad_map.status_code == 400 and bad_map.json()["codes"][0]["code"] == "import_options"
        refused = await http.post("/imports/run", params=query(), content=broken, headers=headers)
        assert refused.status_code == 400 and refused.json()["codes"][0]["code"] == "import_has_problems"
        assert "store 'Turku Kauppatori' is neither an id nor a name of FI_STORES" in refused.json()["errors"][0]
        assert count(tmp_path, "feedback") == 0


async def test_an_import_is_a_chain_manager_s(tmp_path: Path) -> None:
    export = write_export(tmp_path / "vienti.csv", export_rows(3, start=FIRST_LOCAL)).read_bytes()
    async with running_app(settings(tmp_path)) as app, client(app) as http, client(app) as clerk:
        await add_user(app, "myymalapaallikko", ("manager", "hki-1"))
        await sign_in(http, "myymalapaallikko")
        answer = await http.post("/imports/preview", params=query(), content=export, headers=csrf(http))
        assert answer.status_code == 403 and answer.json()["error"] == "store_forbidden"
        await add_user(app, "kassa", ("clerk", "hki-1"))
        await sign_in(clerk, "kassa")
        assert (await clerk.post("/imports/run", content=export, headers=csrf(clerk))).status_code == 403
        async with client(app, LOOPBACK) as operator:  # the operator, as always
            assert (await operator.post("/imports/preview", params=query(), content=export)).status_code == 200

"""``feedctl load`` of a form tool's real export against a real server process: channel labels mapped to
sources, store names to ids, Finnish dates on the Helsinki clock to UTC instants; a dry run that changes
nothing; a history import that opens no case and pages nobody (ADR 0059)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.cli.test_feedctl import feedctl
from tests.support.form_export import (
    CHANNELS,
    FIRST_LOCAL,
    FIRST_UTC,
    HELSINKI,
    STORES,
    VALUE_MAP,
    export_rows,
    write_export,
)
from tests.support.kinds import DATABASE_KINDS

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

COLUMNS = "id=Vastaus-ID,timestamp=Lähetetty,source=Kanava,store=Myymälä,text=Palaute"
DATABASES = ("feedback.db", "desk-live.db")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fi-data")


ROUTE = {"name": "vuoro", "kind": "webhook", "url": "http://127.0.0.1:9/hook", "unsigned": True}
ENV = {
    "FI_LLM_BACKEND": "ollama",
    "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # nothing there: a batch never calls the model
    "FI_LLM_MODEL": "none",
    "FI_STRUCTURE_WORKER": "false",
    "FI_STORES": json.dumps(STORES),
    "FI_NOTIFY_CHANNELS": json.dumps([ROUTE]),
    # FI_TIMEZONE is left at its default, Europe/Helsinki: the shop's clock the export's times are on
}


@pytest.fixture(scope="module")
def app(data_dir: Path) -> Iterator[ServerProcess]:
    """On SQLite, whose files the tests read beside the service (cases, outbox, every row)."""
    with app_server(ENV, data_dir) as server:
        yield server


@pytest.fixture(scope="module", params=DATABASE_KINDS)
def any_app(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """On SQLite and on PostgreSQL, read over HTTP only."""
    if request.param == "sqlite":
        with app_server(ENV) as server:
            yield server
        return
    with (
        postgres_pair("fi_form_export") as (corpus, live),
        app_server({**ENV, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}) as server,
    ):
        yield server


@pytest.fixture(scope="module")
def value_map(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("map") / "kanavat.json"
    path.write_text(json.dumps(VALUE_MAP, ensure_ascii=False), encoding="utf-8")
    return path


def select(data_dir: Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql``'s rows over both channels' SQLite files, read beside the running service."""
    rows: list[tuple[Any, ...]] = []
    for name in DATABASES:
        with sqlite3.connect(data_dir / name) as db:
            rows += db.execute(sql).fetchall()
    return rows


def count(data_dir: Path, table: str) -> int:
    """Rows of ``table`` over both channels' databases."""
    return sum(int(n) for (n,) in select(data_dir, f"SELECT count(*) FROM {table}"))


def dump(data_dir: Path) -> list[list[str]]:
    """Every row of both databases, as SQL: equal dumps, unchanged databases."""
    dumps = []
    for name in DATABASES:
        with sqlite3.connect(data_dir / name) as db:
            dumps.append(list(db.iterdump()))
    return dumps


def case_reports(data_dir: Path) -> list[int]:
    """How many reports each case holds, over both channels' databases."""
    return [int(n) for (n,) in select(data_dir, "SELECT reports FROM cases")]


def stored(app: ServerProcess) -> dict[str, dict[str, object]]:
    rows = httpx.get(app.url + "/feedback", params={"limit": 1000}, timeout=30).json()
    return {str(row["id"]): row for row in rows}


def test_the_form_tool_s_export_imports_whole_with_its_labels_names_and_helsinki_times(
    any_app: ServerProcess, value_map: Path, tmp_path: Path
) -> None:
    app = any_app
    rows = export_rows(200, start=FIRST_LOCAL)
    export = write_export(tmp_path / "lomake-vienti.csv", rows)
    unmapped = feedctl(app, "load", "--later", "--map", COLUMNS, str(export))  # the labels as the form wrote them
    assert unmapped.returncode == 2, unmapped.stdout + unmapped.stderr
    assert "sources the domain does not know: Google-arvostelu, Sähköposti, Verkkolomake" in unmapped.stderr
    assert "R1000" not in stored(app)
    result = feedctl(app, "load", "--later", "--json", "--map", COLUMNS, "--values", str(value_map), str(export))
    assert result.returncode == 0, result.stdout + result.stderr
    body = json.loads(result.stdout)
    assert (body["savedForLater"], body["failed"]) == (200, 0)
    found = stored(app)
    names = {store["name"]: store["id"] for store in STORES}
    for n, row in enumerate(rows):
        item = found[f"R{1000 + n}"]
        assert item["source"] == CHANNELS[row.channel]
        assert item["store"] == names[row.store_name]
        assert str(item["timestamp"]).startswith(row.utc_prefix()), (n, item["timestamp"], row.local)
    assert str(found["R1000"]["timestamp"]).startswith(FIRST_UTC)  # 6.9.2026 08.30.19 in Helsinki is 05:30:19Z


def test_naive_utc_reads_the_same_times_as_utc(app: ServerProcess, value_map: Path, tmp_path: Path) -> None:
    export = write_export(tmp_path / "utc-vienti.csv", export_rows(3, start=FIRST_LOCAL), id_prefix="U")
    args = ["load", "--later", "--json", "--naive-utc", "--map", COLUMNS, "--values", str(value_map), str(export)]
    result = feedctl(app, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert str(stored(app)["U1000"]["timestamp"]).startswith("2026-09-06T08:30:19")


def test_a_dry_run_maps_the_whole_file_names_its_problems_and_changes_nothing(
    app: ServerProcess, data_dir: Path, value_map: Path, tmp_path: Path
) -> None:
    export = write_export(tmp_path / "koe.csv", export_rows(200, start=FIRST_LOCAL), id_prefix="D")
    lines = export.read_bytes().decode("utf-8-sig").split("\r\n")
    lines[5] = lines[5].replace("Verkkolomake", "Puhelin").replace("Google-arvostelu", "Puhelin")
    lines[5] = lines[5].replace("Sähköposti", "Puhelin")  # a label the map does not name: line 6
    lines[9] = lines[9].replace("Tampere Hervanta", "Oulu").replace("Helsinki Keskusta", "Oulu")  # line 10
    lines[12] = lines[12] + ";ylimääräinen"  # a row of the wrong width: line 13
    export.write_text("\r\n".join(lines), encoding="utf-8")
    before = dump(data_dir)
    args = ["load", "--dry-run", "--json", "--map", COLUMNS, "--values", str(value_map), str(export)]
    result = feedctl(app, *args)
    assert result.returncode == 2, result.stdout + result.stderr  # lines need fixing, as the load would say
    body = json.loads(result.stdout)
    assert (body["wouldStore"], body["linesWithProblems"]) == (197, 3)
    problems = body["problems"]
    assert problems[0].startswith(f"{export}:6: source 'Puhelin' is not one of")
    assert problems[1] == f"{export}:10: store 'Oulu' is neither an id nor a name of FI_STORES"
    assert problems[2].startswith(f"{export}:13: 6 fields, the header has 5")
    [first, *_] = body["sample"]
    assert len(body["sample"]) == 3
    assert (first["id"], first["source"], first["store"]) == ("D1000", "web_form", "hki-1")
    assert first["timestamp"] == FIRST_UTC + "Z"
    assert dump(data_dir) == before
    assert not any(key.startswith("D") for key in stored(app))
    fine = write_export(tmp_path / "kunnossa.csv", export_rows(20, start=FIRST_LOCAL), id_prefix="F")
    plain = feedctl(app, "load", "--dry-run", "--map", COLUMNS, "--values", str(value_map), str(fine))
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert f"dry run of {fine}: 20 rows would be stored, 0 lines need fixing" in plain.stdout
    assert '"id": "F1000", "source": "web_form"' in plain.stdout and "nothing was sent" in plain.stdout
    assert dump(data_dir) == before


def test_a_history_import_opens_no_case_and_pages_nobody_where_an_ordinary_import_does(
    app: ServerProcess, data_dir: Path, value_map: Path, tmp_path: Path
) -> None:
    now = datetime.now(HELSINKI).replace(tzinfo=None) - timedelta(minutes=5)  # items under the case window
    rows = export_rows(40, start=now, alerting_every=10)
    history = write_export(tmp_path / "historia.csv", rows, id_prefix="H")
    cases, outbox = count(data_dir, "cases"), count(data_dir, "outbox")
    args = ["load", "--json", "--map", COLUMNS, "--values", str(value_map)]
    result = feedctl(app, *args, "--history", str(history))
    assert result.returncode == 0, result.stdout + result.stderr
    answer = json.loads(result.stdout)
    # the rules' structures at once, and their last: the model was not asked for (ADR 0063)
    assert (answer["created"], answer["savedForLater"], answer["history"], answer["byModel"]) == (40, 0, True, False)
    held = stored(app)
    assert all(held[f"H{1000 + n}"]["structure"]["theme"] and not held[f"H{1000 + n}"]["pending"] for n in range(40))
    alerting = [f"H{1000 + n}" for n, row in enumerate(rows) if "vatsataudin" in row.text]
    assert len(alerting) == 4 and all(held[i]["alerts"] for i in alerting)  # alerts kept, nothing started
    assert (count(data_dir, "cases"), count(data_dir, "outbox")) == (cases, outbox)
    # asked for, the model structures a backfill later: its rows wait for the background worker
    modelled = write_export(tmp_path / "mallilla.csv", rows[:5], id_prefix="M")
    result = feedctl(app, *args, "--history", "--by-model", str(modelled))
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["savedForLater"] == 5 and stored(app)["M1000"]["pending"]
    assert (count(data_dir, "cases"), count(data_dir, "outbox")) == (cases, outbox)
    # the same rows as an ordinary import (--later) open their case and page: what --history holds back.
    # The four reports are one store's one incident, so they make one case of four reports (ADR 0060)
    ordinary = write_export(tmp_path / "tanaan.csv", rows, id_prefix="N")
    reports_before = case_reports(data_dir)
    result = feedctl(app, *args, "--later", str(ordinary))
    assert result.returncode == 0, result.stdout + result.stderr
    assert count(data_dir, "cases") == cases + 1
    assert sorted(case_reports(data_dir)) == sorted([*reports_before, 4])
    assert count(data_dir, "outbox") > outbox

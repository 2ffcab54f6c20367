"""``feedctl load`` over the batch endpoint, against a real server process on SQLite and on PostgreSQL:
chunks, CSV with a column mapping, a bad line named by its number, a rerun that stores nothing twice (nor
an item erased since)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.cli.test_feedctl import feedctl
from tests.support.kinds import DATABASE_KINDS

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

STORES = json.dumps([{"id": "hki-1", "name": "Helsinki"}, {"id": "tre-1", "name": "Tampere"}])


@pytest.fixture(scope="module", params=DATABASE_KINDS)
def app(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # nothing there: a batch never calls the model
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_STORES": STORES,
    }
    if request.param == "sqlite":
        with app_server(env) as server:
            yield server
        return
    with (
        postgres_pair("fi_import") as (corpus, live),
        app_server({**env, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}) as server,
    ):
        yield server


def rows(app: ServerProcess, path: str = "/feedback") -> list[dict[str, object]]:
    return httpx.get(app.url + path, params={"limit": 1000}).json()


def test_a_csv_with_a_column_mapping_loads_in_chunks_and_a_rerun_stores_nothing_twice(
    app: ServerProcess, tmp_path: Path
) -> None:
    csv_file = tmp_path / "historia.csv"
    lines = ["Aika;Palaute;Kanava;Myymälä"]
    lines += [f"2026-10-{1 + n % 28:02d}T10:00:00Z;Maito oli hapanta, kerta {n};email;hki-1" for n in range(25)]
    lines += ['2026-10-02T11:00:00Z;"Kassajono; pitkä ja hidas";web_form;tre-1']
    csv_file.write_bytes("\n".join(lines).encode("cp1252"))  # a spreadsheet's Windows code page, ä and ö in it
    args = ["load", "--later", "--json", "--chunk-size", "10", "--channel", "live", str(csv_file)]
    args += ["--map", "text=Palaute,timestamp=Aika,source=Kanava,store=Myymälä"]
    first = feedctl(app, *args)
    assert first.returncode == 0, first.stdout + first.stderr
    result = json.loads(first.stdout)
    assert (result["savedForLater"], result["failed"], result["batched"]) == (26, 0, True)
    stored = rows(app, "/live/feedback")
    assert len(stored) == 26
    assert {r["store"] for r in stored} == {"hki-1", "tre-1"}
    assert any(r["text"] == "Kassajono; pitkä ja hidas" for r in stored)
    again = feedctl(app, *args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["alreadyThere"] == 26
    assert len(rows(app, "/live/feedback")) == 26
    # an item erased since: the next load names it erased, neither already there nor failed
    assert httpx.delete(app.url + f"/live/feedback/{stored[0]['id']}").status_code == 204
    after_erasure = feedctl(app, *args)
    assert after_erasure.returncode == 0, after_erasure.stdout + after_erasure.stderr
    counted = json.loads(after_erasure.stdout)
    assert (counted["erased"], counted["alreadyThere"], counted["failed"]) == (1, 25, 0)


def test_a_bad_csv_line_is_named_by_its_number_and_nothing_is_sent(app: ServerProcess, tmp_path: Path) -> None:
    csv_file = tmp_path / "rikki.csv"
    csv_file.write_text(
        "text,source,timestamp\n"
        "Hyvä palvelu,email,2026-10-01T10:00:00Z\n"
        "Kolme,kenttää,liikaa,tässä\n"  # line 3: four fields
        ",email,2026-10-01T10:00:00Z\n"  # line 4: no text
        "Leipä loppui,lintu,2026-10-01T10:00:00Z\n",  # line 5: a source the service does not have
        encoding="utf-8",
    )
    before = rows(app)
    result = feedctl(app, "load", "--later", str(csv_file))
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert f"{csv_file}:3: 4 fields, the header has 3" in errors[0]
    assert f"{csv_file}:4: no text" in errors[1]
    fixed = tmp_path / "korjattu.csv"
    fixed.write_text(
        "text,source\nHyvä palvelu,email\nLeipä loppui,lintu\n",
        encoding="utf-8",
    )
    checked = feedctl(app, "load", "--later", str(fixed))
    assert checked.returncode == 2
    assert f"{fixed}:3: source 'lintu' is not one of" in checked.stderr
    assert rows(app) == before  # not even the good line


def test_an_item_the_service_refuses_is_named_by_its_line_and_the_rest_of_its_chunk_is_stored(
    app: ServerProcess, tmp_path: Path
) -> None:
    jsonl = tmp_path / "kaupat.jsonl"
    items = [
        {"id": "st-1", "source": "email", "text": "Maito oli hapanta.", "store": "hki-1"},
        {"id": "st-2", "source": "email", "text": "Leipä oli kuivaa.", "store": "oulu-9"},  # not a store here
        {"id": "st-3", "source": "email", "text": "Kassa oli kiinni.", "store": "tre-1"},
    ]
    jsonl.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    result = feedctl(app, "load", "--later", "--json", str(jsonl))
    assert result.returncode == 1, result.stdout + result.stderr  # some failed
    body = json.loads(result.stdout)
    assert (body["savedForLater"], body["failed"]) == (2, 1)
    [failure] = body["failures"]
    assert failure["line"] == 2 and "store must be one of the stores of FI_STORES" in failure["error"]
    stored = {r["id"] for r in rows(app)}
    assert {"st-1", "st-3"} <= stored and "st-2" not in stored


def test_several_writers_count_every_line_in_the_file_s_order(app: ServerProcess, tmp_path: Path) -> None:
    jsonl = tmp_path / "rinnakkain.jsonl"
    items = [
        {"id": f"wr-{n}", "source": "email", "text": f"Leipä loppui, kerta {n}.", "store": "hki-1"} for n in range(23)
    ]
    items[17]["store"] = "oulu-9"  # line 18, in the fifth of six chunks
    jsonl.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    args = ["load", "--later", "--json", "--chunk-size", "4", "--writers", "3", str(jsonl)]
    result = feedctl(app, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    body = json.loads(result.stdout)
    assert (body["savedForLater"], body["failed"], body["alreadyThere"]) == (22, 1, 0)
    assert [f["line"] for f in body["failures"]] == [18]
    stored = {r["id"] for r in rows(app) if r["id"].startswith("wr-")}
    assert stored == {f"wr-{n}" for n in range(23)} - {"wr-17"}
    again = json.loads(feedctl(app, *args).stdout)
    assert (again["alreadyThere"], again["failed"]) == (22, 1)


def test_report_filters_by_store(app: ServerProcess) -> None:
    result = feedctl(app, "report", "--json", "--days", "92", "--store", "tre-1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["store"] == "tre-1"
    refused = feedctl(app, "report", "--store", "oulu-9")
    assert refused.returncode == 2 and "store_unknown" not in refused.stdout
    assert "one of the stores of FI_STORES" in refused.stderr

"""Each feedctl command against a real server process (sim-ollama as the backend)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, sim_ollama

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=20) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_REPORT_ALERT_VERIFY_BUDGET": "5",
            }
        ) as app,
    ):
        yield sim, app


@pytest.fixture(scope="module")
def reported(stack: tuple[ServerProcess, ServerProcess]) -> tuple[ServerProcess, ServerProcess]:
    """The stack holding demo feedback for the report tests, whatever ran before them (the order of a
    module's tests must not matter: `pytest --random-order`). Ids apart from the load tests' items."""
    _, app = stack
    with httpx.Client(base_url=app.url, timeout=60) as http:
        for item in load_corpus()[12:60]:
            assert http.post("/feedback", json=item).status_code in (201, 409)
    return stack


def feedctl(app: ServerProcess, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_status_shows_the_board(stack) -> None:
    _, app = stack
    result = feedctl(app, "status")
    assert result.returncode == 0, result.stderr
    for label in ("Backend", "Model", "Gate", "Sheds (1 min)", "/health", "Rows: corpus", "Rows: live"):
        assert label in result.stdout
    assert "0/2 slots in use" in result.stdout


def test_status_json_is_the_board_for_scripts(stack) -> None:
    _, app = stack
    result = feedctl(app, "status", "--json")
    assert result.returncode == 0, result.stderr
    board = json.loads(result.stdout)
    assert board["health"]["httpStatus"] == 200
    assert board["status"]["gate"]["slots"] == 2
    assert set(board["status"]["channels"]) == {"corpus", "live"}


def test_status_watch_without_a_terminal_prints_one_line_per_refresh(stack) -> None:
    _, app = stack
    result = feedctl(app, "status", "--watch", "--interval", "0.2", "--count", "3")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 3, result.stdout
    assert all("api=up" in line and "health=200:ok" in line and "gate=0/2" in line for line in lines)


def test_warm_loads_the_model_and_waits_for_health(stack) -> None:
    sim, app = stack
    result = feedctl(app, "warm", "--wait-s", "30")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ready" in result.stdout
    assert httpx.get(sim.url + "/sim/stats").json()["loaded"] is True


def test_interpret_prints_the_timed_structure(stack) -> None:
    _, app = stack
    result = feedctl(app, "interpret", "Maito oli hapanta.")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "200 in" in result.stdout
    for field in ("category", "theme", "severity", "type", "language"):
        assert field in result.stdout
    as_json = feedctl(app, "interpret", "--json", "Maito oli hapanta.")
    assert json.loads(as_json.stdout)["body"]["structure"]["category"]


def test_load_posts_the_demo_corpus_and_counts_duplicates(stack, tmp_path: Path) -> None:
    _, app = stack
    items = load_corpus()[:12]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    first = feedctl(app, "load", str(corpus))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "created" in first.stdout and "12" in first.stdout and "{" not in first.stdout  # a table, no dict
    again = feedctl(app, "load", "--json", str(corpus))
    assert again.returncode == 0, again.stdout + again.stderr
    counts = json.loads(again.stdout)
    assert (counts["alreadyThere"], counts["created"], counts["failed"]) == (12, 0, 0)


def test_load_checks_every_line_against_the_schema_and_sends_nothing(stack, tmp_path: Path) -> None:
    _, app = stack
    before = httpx.get(app.url + "/feedback", params={"limit": 1000}).json()
    corpus = tmp_path / "mixed.jsonl"
    lines = [
        {"id": "chk-1", "source": "email", "text": "Kassalla jonoa."},
        {"id": "chk-2", "source": "puhelin", "text": "Lintu toi viestin."},
        {"id": "chk-3", "source": "email", "text": "   "},
        {"id": "chk-4", "source": "email", "text": "x" * 100_000},
        {
            "id": "chk-5",
            "source": "email",
            "text": "Maito oli hapanta.",
            "acceptedStructure": {
                "category": "lentokone",
                "theme": "t",
                "severity": "huge",
                "type": "complaint",
                "language": "fi",
            },
        },
        {"id": "chk-6", "source": "email", "text": "Hyvä palvelu.", "timestamp": "eilen"},
    ]
    corpus.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in lines) + "\n", encoding="utf-8")
    result = feedctl(app, "load", str(corpus))
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert f"{corpus}:2: source 'puhelin' is not one of" in errors[0]
    assert f"{corpus}:3: text is empty" in errors[1]
    assert f"{corpus}:4: text has 100000 characters, more than the service stores" in errors[2]
    assert (
        f"{corpus}:5: acceptedStructure.category 'lentokone'" in errors[3] and "acceptedStructure.severity" in errors[3]
    )
    assert f"{corpus}:6: timestamp 'eilen' is not an ISO-8601 instant" in errors[4]
    assert errors[5] == "error: nothing was sent: 5 of 6 lines need fixing"
    assert errors[6].startswith("error: sources the domain does not know: puhelin; map them with --values FILE")
    assert len(errors) == 7 and "Traceback" not in result.stderr
    assert httpx.get(app.url + "/feedback", params={"limit": 1000}).json() == before  # not even line 1


def test_load_without_a_terminal_prints_progress_lines(stack, tmp_path: Path) -> None:
    sim, app = stack
    httpx.post(sim.url + "/sim/config", json={"serviceMs": 400})
    try:
        items = [{"id": f"prog-{n}", "source": "email", "text": f"Kassa {n} oli kiinni."} for n in range(6)]
        corpus = tmp_path / "slow.jsonl"
        corpus.write_text("\n".join(json.dumps(i) for i in items), encoding="utf-8")
        result = feedctl(app, "load", "--progress-every", "0.5", "--json", str(corpus))
    finally:
        httpx.post(sim.url + "/sim/config", json={"serviceMs": 20})
    assert result.returncode == 0, result.stdout + result.stderr
    progress = [line for line in result.stderr.splitlines() if line.startswith("load: ")]
    assert len(progress) >= 3, result.stderr  # ~2.4 s of calls: a line every 0.5 s, and the last one
    assert progress[-1].startswith("load: 6/6 items (100 %) · 6 created")
    assert json.loads(result.stdout)["created"] == 6  # stdout stays the JSON result alone


def test_a_wrong_base_url_is_called_a_missing_service(stack) -> None:
    _, app = stack
    wrong = ServerProcess(app.proc, app.url + "/desk", app.log_path)
    for args in (("status",), ("load",), ("report",), ("restructure",)):
        result = feedctl(wrong, *args)
        assert result.returncode == 2, (args, result.stdout + result.stderr)
        line = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(line) == 1 and line[0].startswith(f"error: no Feedback Intelligence service at {app.url}/desk"), (
            args,
            result.stderr,
        )
        assert "not let this caller" not in result.stderr


def test_report_with_snapshot_then_verify(reported, tmp_path: Path) -> None:
    _, app = reported
    result = feedctl(app, "report", "--days", "30", "--snapshot", "--lang", "en")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Alerts" in result.stdout and "Top themes" in result.stdout
    assert httpx.get(app.url + "/report/snapshot").status_code == 200
    verdict = feedctl(app, "verify")
    # The sim's structures are not the stories' categories: verify runs and judges (0 pass / 1 fail), no data error.
    assert verdict.returncode in (0, 1), verdict.stdout + verdict.stderr
    assert "dairy-freshness-worsening" in verdict.stdout


def test_report_prints_at_once_and_wait_follows_the_summaries_until_written(reported) -> None:
    _, app = reported
    at_once = feedctl(app, "report", "--days", "5", "--lang", "en")
    assert at_once.returncode == 0, at_once.stdout + at_once.stderr
    assert "Top themes" in at_once.stdout and "writing…" in at_once.stdout  # a window never asked before
    waited = feedctl(app, "report", "--days", "5", "--wait", "--lang", "en")
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert "Top themes" in waited.stdout and "writing…" not in waited.stdout
    assert "automatic" in waited.stdout or "model" in waited.stdout


def test_report_speaks_the_domains_language_throughout_or_english_with_lang(reported) -> None:
    _, app = reported
    finnish = feedctl(app, "report", "--days", "30", "--wait")
    assert finnish.returncode == 0, finnish.stdout + finnish.stderr
    for heading in ("Aikaväli", "Palautteita", "Sävy", "Kielimalli", "Hälytykset", "Suurimmat teemat"):
        assert heading in finnish.stdout
    for english in ("Window", "Top themes", "Alerts", "automatic", "trend", " by "):
        assert english not in finnish.stdout, english
    english = feedctl(app, "report", "--days", "30", "--lang", "en")
    assert english.returncode == 0
    for heading in ("Window", "Items", "Sentiment", "Alerts", "Top themes"):
        assert heading in english.stdout
    for finnish_word in ("paheneva", "kasvava", "vakaa", "automaattinen", "Aikaväli"):
        assert finnish_word not in english.stdout, finnish_word


def test_restructure_prints_its_counters(stack) -> None:
    _, app = stack
    result = feedctl(app, "restructure")
    assert result.returncode == 0, result.stdout + result.stderr
    for label in ("re-structured", "still failed", "skipped", "alerts updated", "looked at"):
        assert label in result.stdout
    counters = json.loads(feedctl(app, "restructure", "--json").stdout)
    assert counters["stoppedEarly"] is False and counters["failed"] == 0


def test_crowd_writes_its_figures(stack, tmp_path: Path) -> None:
    _, app = stack
    out = tmp_path / "crowd.json"
    result = feedctl(
        app,
        "crowd",
        "--clerks",
        "4",
        "--duration",
        "3",
        "--think-min",
        "0.1",
        "--think-max",
        "0.5",
        "--seed",
        "7",
        "--output",
        str(out),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["presses"] >= 4
    assert summary["results"] + summary["busyMessages"] == summary["presses"]
    assert summary["otherErrors"] == {}
    assert summary["busySlotFraction"] is not None
    assert "presses" in result.stdout and "shed rate" in result.stdout  # the table for a person


def test_crowd_takes_its_service_from_url(stack, tmp_path: Path) -> None:
    _, app = stack
    nowhere = ServerProcess(app.proc, "http://127.0.0.1:9", app.log_path)  # FEEDCTL_URL points at nothing
    out = tmp_path / "crowd-url.json"
    result = feedctl(
        nowhere,
        "crowd",
        "--url",
        app.url,
        "--clerks",
        "2",
        "--duration",
        "1",
        "--think-min",
        "0.1",
        "--think-max",
        "0.3",
        "--output",
        str(out),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(out.read_text())["summary"]["presses"] >= 2
    wrong = feedctl(nowhere, "crowd", "--url", app.url + "/desk", "--clerks", "1", "--duration", "1")
    assert wrong.returncode == 2
    assert f"no Feedback Intelligence service at {app.url}/desk" in wrong.stderr

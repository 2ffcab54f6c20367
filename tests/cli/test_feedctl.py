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


def test_load_counts_a_refused_row_by_its_line_and_exits_1(stack, tmp_path: Path) -> None:
    _, app = stack
    corpus = tmp_path / "mixed.jsonl"
    corpus.write_text(
        '{"source": "email", "text": "Kassalla jonoa."}\n{"source": "pigeon", "text": "Lintu toi viestin."}\n',
        encoding="utf-8",
    )
    result = feedctl(app, "load", str(corpus))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "line 2: 400 source must be one of" in result.stderr
    assert "None" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_report_with_snapshot_then_verify(stack, tmp_path: Path) -> None:
    _, app = stack
    result = feedctl(app, "report", "--days", "30", "--snapshot")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Alerts" in result.stdout and "Top themes" in result.stdout
    assert httpx.get(app.url + "/report/snapshot").status_code == 200
    verdict = feedctl(app, "verify")
    # The sim's structures are not the stories' categories: verify runs and judges (0 pass / 1 fail), no data error.
    assert verdict.returncode in (0, 1), verdict.stdout + verdict.stderr
    assert "dairy-freshness-worsening" in verdict.stdout


def test_report_prints_at_once_and_wait_follows_the_summaries_until_written(stack) -> None:
    _, app = stack
    at_once = feedctl(app, "report", "--days", "5")
    assert at_once.returncode == 0, at_once.stdout + at_once.stderr
    assert "Top themes" in at_once.stdout and "writing…" in at_once.stdout  # a window never asked before
    waited = feedctl(app, "report", "--days", "5", "--wait")
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert "Top themes" in waited.stdout and "writing…" not in waited.stdout
    assert "automatic" in waited.stdout or "model" in waited.stdout


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

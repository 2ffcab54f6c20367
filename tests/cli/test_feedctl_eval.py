"""``feedctl eval`` against a real app process backed by ``feedctl sim-ollama`` (a small subset: fast)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, sim_ollama
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


@pytest.fixture(scope="module")
def sim() -> Iterator[ServerProcess]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=20) as server:
        yield server


@pytest.fixture(scope="module")
def app(sim: ServerProcess) -> Iterator[ServerProcess]:
    with app_server({"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": sim.url, "FI_LLM_MODEL": "sim-model"}) as server:
        yield server


def feedctl(*args: str, url: str | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "160"}
    if url:
        env["FEEDCTL_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "eval", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_eval_runs_a_subset_through_interpret_and_reports_each_split(app: ServerProcess, tmp_path: Path) -> None:
    out, table = tmp_path / "result.json", tmp_path / "table.md"
    result = feedctl("--limit", "6", "--json", str(out), "--markdown", str(table), url=app.url)
    assert result.returncode == 0, result.stdout + result.stderr
    body = json.loads(out.read_text())
    assert body["service"]["backend"] == "ollama" and body["service"]["domain"] == "retail"
    assert body["concurrency"] == 2  # the gate's slots
    assert set(body["splits"]) == {"dev", "holdout", "all"}
    everything = body["splits"]["all"]
    assert everything["n"] == 6 == body["splits"]["dev"]["n"] + body["splits"]["holdout"]["n"]
    assert everything["errors"] == 0 and everything["latencyMs"]["n"] == 6
    assert len(body["observations"]) == 6 and all(o["structure"] for o in body["observations"])
    # the figures are the observations scored against the set's first six gold labels
    gold = [item.gold["category"] for item in load_set(load_domain("retail"))[:6]]
    said = [o["structure"]["category"] for o in body["observations"]]
    field = everything["fields"]["category"]
    assert field["final"] == pytest.approx(sum(s == g for s, g in zip(said, gold, strict=True)) / 6)
    assert field["majorityLabel"] == max(set(gold), key=gold.count)
    assert "| all (6) | category |" in table.read_text()
    assert "category" in result.stdout and "model alone" in result.stdout


def test_eval_refuses_a_split_it_does_not_know(app: ServerProcess) -> None:
    result = feedctl("--split", "test", url=app.url, timeout=60)
    assert result.returncode == 2 and "dev, holdout or all" in result.stdout + result.stderr


def test_eval_against_a_service_for_another_domain_stops_before_running(app: ServerProcess) -> None:
    result = feedctl("--domain", "game", "--limit", "2", url=app.url, timeout=60)
    assert result.returncode == 2 and "runs domain 'retail'" in result.stderr


def test_eval_with_backend_options_starts_and_stops_its_own_service(sim: ServerProcess, tmp_path: Path) -> None:
    out = tmp_path / "own.json"
    result = feedctl(
        "--domain",
        "game",
        "--split",
        "holdout",
        "--limit",
        "3",
        "--backend",
        "ollama",
        "--model",
        "sim-model",
        "--backend-url",
        sim.url,
        "--json",
        str(out),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    body = json.loads(out.read_text())
    assert body["service"]["domain"] == "game" and body["target"] != "http://127.0.0.1:8080"
    assert list(body["splits"]) == ["holdout"] and body["splits"]["holdout"]["n"] == 3


def test_eval_against_nothing_says_the_service_is_unreachable() -> None:
    from feedback_intelligence.devtools.processes import free_port

    result = feedctl("--limit", "1", url=f"http://127.0.0.1:{free_port()}", timeout=60)
    assert result.returncode == 2 and "cannot reach" in result.stderr


def test_eval_prints_the_prior_fields_line_its_own_figures_recommend(app: ServerProcess, tmp_path: Path) -> None:
    from feedback_intelligence.evaluation.dataset import SCORED_FIELDS

    out = tmp_path / "advice.json"
    result = feedctl("--limit", "12", "--json", str(out), url=app.url)
    assert result.returncode == 0, result.stdout + result.stderr
    dev = json.loads(out.read_text())["splits"]["dev"]["fields"]
    expected = [f for f in SCORED_FIELDS if dev[f]["prior"] >= dev[f]["modelAlone"]]
    [line] = [line for line in result.stdout.splitlines() if line.startswith("FI_PRIOR_FIELDS=")]
    assert line == f"FI_PRIOR_FIELDS={','.join(expected) if expected else 'none'}"
    assert "from the dev split" in result.stdout

"""``feedctl load --later`` and the status board's structure-later line, against a real server process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.cli.test_feedctl import feedctl
from tests.support.waiting import wait_for_sync

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
                "FI_LLM_BACKGROUND_RESERVE": "0",
                "FI_STRUCTURE_POLL_S": "0.2",
            }
        ) as app,
    ):
        yield sim, app


def test_load_later_saves_every_item_at_once_and_the_worker_structures_them(stack, tmp_path: Path) -> None:
    _, app = stack
    items = [{k: v for k, v in i.items() if k != "acceptedStructure"} for i in load_corpus()[:8]]
    corpus = tmp_path / "history.jsonl"
    corpus.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    result = feedctl(app, "load", "--later", "--json", str(corpus))
    assert result.returncode == 0, result.stdout + result.stderr
    counts = json.loads(result.stdout)
    assert (counts["savedForLater"], counts["created"], counts["failed"]) == (8, 0, 0)

    wait_for_sync(
        lambda: (
            not any(r["pending"] for r in httpx.get(app.url + "/feedback", params={"limit": 100}, timeout=10).json())
        ),
        timeout_s=60,
        what="the worker to drain the import",
    )
    rows = httpx.get(app.url + "/feedback", params={"limit": 100}, timeout=10).json()
    assert len(rows) == 8 and all(r["structure"] and not r["structureFailed"] for r in rows)


def test_status_shows_the_structure_later_backlog(stack) -> None:
    _, app = stack
    board = feedctl(app, "status")
    assert board.returncode == 0, board.stderr
    assert "Structure later" in board.stdout and "live 0 waiting" in board.stdout
    as_json = json.loads(feedctl(app, "status", "--json").stdout)
    assert as_json["status"]["structureLater"]["backlog"]["corpus"]["items"] == 0
    line = feedctl(app, "status", "--watch", "--interval", "0.2", "--count", "1").stdout
    later = line.split("later[", 1)[1].split("]", 1)[0]
    assert sorted(later.split()) == ["corpus=0/0s", "live=0/0s"]

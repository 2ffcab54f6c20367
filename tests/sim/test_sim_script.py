"""Scripted replies: the simulated model says exactly what a test scripted, matched or in order.

In-process through httpx's ASGITransport for the rules, then ``feedctl sim-ollama --replies FILE`` as a
real process answering the product's own Ollama client.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from feedback_intelligence.cli.main import app as feedctl
from feedback_intelligence.devtools.processes import REPO, ServerProcess, free_port, wait_http
from feedback_intelligence.llm.backend import ChatMessage, CompletionRequest
from feedback_intelligence.llm.ollama import OllamaBackend
from feedback_intelligence.sim import OllamaSim, SimConfig, create_sim_app
from feedback_intelligence.sim.script import ScriptedReply, ScriptError, read_script

MODEL = "sim-model"
ECHO = '{"category": "kassa_palvelu", "theme": "PALAUTE_LOPPU", "severity": "low", "type": "complaint"}'


def chat_body(text: str, stream: bool = False, **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": [{"role": "user", "content": text}], "stream": stream, **extra}


def generate_body(text: str, stream: bool = False, **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "prompt": text, "stream": stream, **extra}


def reply_text(response: httpx.Response) -> str:
    """The whole reply, whether it came as one JSON object or as an NDJSON stream."""
    if response.headers["content-type"] == "application/x-ndjson":
        lines = [json.loads(line) for line in response.text.splitlines()]
        assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
        return "".join(line.get("message", {}).get("content", "") + line.get("response", "") for line in lines)
    body = response.json()
    assert body["done"] is True
    return body["message"]["content"] if "message" in body else body["response"]


@pytest.fixture
async def sim() -> AsyncIterator[Callable[..., Awaitable[tuple[OllamaSim, httpx.AsyncClient]]]]:
    made: list[tuple[OllamaSim, httpx.AsyncClient]] = []

    async def make(replies: list[ScriptedReply] | None = None) -> tuple[OllamaSim, httpx.AsyncClient]:
        app = create_sim_app(SimConfig(service_ms=5, tokens_per_reply=6), replies)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sim", timeout=10)
        made.append((app, client))
        return app, client

    yield make
    for app, client in made:
        await client.aclose()
        await app.aclose()


async def test_a_matched_reply_answers_chat_and_generate_streamed_or_not(sim):
    _, client = await sim([ScriptedReply(ECHO, match="Kassajono")])
    prompt = "PALAUTE_ALKU\nKassajono oli pitkä\nPALAUTE_LOPPU"
    for path, body in (("/api/chat", chat_body), ("/api/generate", generate_body)):
        for stream in (False, True):
            response = await client.post(path, json=body(prompt, stream=stream, format="json"))
            assert response.status_code == 200
            assert reply_text(response) == ECHO, (path, stream)
    # A matched entry is not used up: a client's retry sees the same words.
    assert reply_text(await client.post("/api/chat", json=chat_body(prompt))) == ECHO
    # A prompt it does not match gets the usual synthetic reply.
    other = reply_text(await client.post("/api/chat", json=chat_body("Leipä oli homeessa")))
    assert other != ECHO and len(other.split()) == 6


async def test_the_system_prompt_counts_for_a_match_on_generate(sim):
    _, client = await sim([ScriptedReply("from the system side", match="ROLE: clerk")])
    body = generate_body("hello", system="ROLE: clerk")
    assert reply_text(await client.post("/api/generate", json=body)) == "from the system side"


async def test_in_order_replies_are_served_once_each_then_the_synthetic_reply(sim):
    _, client = await sim([ScriptedReply("first"), ScriptedReply("second")])
    texts = [reply_text(await client.post("/api/chat", json=chat_body("anything"))) for _ in range(3)]
    assert texts[:2] == ["first", "second"]
    assert texts[2] not in ("first", "second") and len(texts[2].split()) == 6


async def test_a_match_wins_over_the_next_in_order_reply_and_does_not_use_it_up(sim):
    _, client = await sim([ScriptedReply("queued"), ScriptedReply("matched", match="kieli")])
    assert reply_text(await client.post("/api/chat", json=chat_body("mikä kieli"))) == "matched"
    assert reply_text(await client.post("/api/chat", json=chat_body("muuta"))) == "queued"


async def test_a_scripted_reply_is_served_whole_whatever_num_predict_or_format_say(sim):
    _, client = await sim([ScriptedReply("not json at all, and longer than two tokens")])
    response = await client.post(
        "/api/chat", json=chat_body("x", format={"type": "object"}, options={"num_predict": 2})
    )
    body = response.json()
    assert body["message"]["content"] == "not json at all, and longer than two tokens"
    assert body["done_reason"] == "stop"


async def test_a_health_probe_is_never_scripted_and_leaves_the_script_alone(sim):
    _, client = await sim([ScriptedReply("for real work"), ScriptedReply("probe text", match="ping")])
    probe = reply_text(await client.post("/api/chat", json=chat_body("ping", options={"num_predict": 1})))
    assert probe not in ("for real work", "probe text")
    assert reply_text(await client.post("/api/chat", json=chat_body("work"))) == "for real work"


async def test_the_control_api_shows_and_replaces_the_script(sim):
    _, client = await sim([ScriptedReply("old")])
    assert (await client.get("/sim/replies")).json() == {"matched": [], "inOrder": [{"reply": "old"}], "served": 0}

    entries = [{"match": "Sentiment", "reply": '{"theme": "Sentiment"}'}, {"reply": "one"}, {"reply": "two"}]
    replaced = await client.post("/sim/replies", json=entries)
    assert replaced.status_code == 200
    assert replaced.json() == {"matched": entries[:1], "inOrder": entries[1:], "served": 0}
    assert reply_text(await client.post("/api/chat", json=chat_body("x"))) == "one"
    assert (await client.get("/sim/replies")).json()["inOrder"] == [{"reply": "two"}]
    assert (await client.get("/sim/replies")).json()["served"] == 1

    assert (await client.post("/sim/replies", json=[])).json() == {"matched": [], "inOrder": [], "served": 0}
    assert len(reply_text(await client.post("/api/chat", json=chat_body("x"))).split()) == 6


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"{not json", "invalid JSON"),
        (b'{"reply": "x"}', "JSON array"),
        (b'[{"match": "a"}]', "'reply' must be a string"),
        (b'[{"reply": "x", "match": ""}]', "'match' must be a non-empty string"),
        (b'[{"reply": "x", "regex": "a.*"}]', "unknown key"),
        (b'["just text"]', "entry 0"),
    ],
)
async def test_a_bad_script_is_a_400_naming_the_problem_and_keeps_the_old_one(sim, body, says):
    _, client = await sim([ScriptedReply("kept")])
    response = await client.post("/sim/replies", content=body)
    assert response.status_code == 400
    assert says in response.json()["error"]
    assert (await client.get("/sim/replies")).json()["inOrder"] == [{"reply": "kept"}]


def test_a_replies_file_is_jsonl_and_its_errors_name_the_line(tmp_path: Path):
    good = tmp_path / "replies.jsonl"
    good.write_text('{"match": "PALAUTE", "reply": "2-4"}\n\n{"reply": "low"}\n', encoding="utf-8")
    assert read_script(good) == [ScriptedReply("2-4", match="PALAUTE"), ScriptedReply("low")]

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"reply": "fine"}\n{"reply": 3}\n', encoding="utf-8")
    with pytest.raises(ScriptError, match=r"bad\.jsonl:2"):
        read_script(bad)
    with pytest.raises(ScriptError, match="cannot read"):
        read_script(tmp_path / "missing.jsonl")


def test_feedctl_refuses_a_broken_replies_file_before_serving(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    result = CliRunner().invoke(feedctl, ["sim-ollama", "--port", str(free_port()), "--replies", str(bad)])
    assert result.exit_code == 2
    assert "bad.jsonl:1" in result.output


@pytest.fixture
def feedctl_sim(tmp_path: Path) -> Iterator[str]:
    """``feedctl sim-ollama --replies FILE`` as a real process; yields its base URL."""
    script = tmp_path / "replies.jsonl"
    lines = [{"match": "Kassajono", "reply": ECHO}, {"reply": "in order, once"}]
    script.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    port = free_port()
    with (tmp_path / "sim.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "feedback_intelligence",
                "sim-ollama",
                "--port",
                str(port),
                "--service-ms",
                "10",
                "--replies",
                str(script),
            ],
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        server = ServerProcess(proc, f"http://127.0.0.1:{port}", tmp_path / "sim.log")
        try:
            wait_http(server.url + "/api/version", proc=proc)
            yield server.url
        finally:
            server.stop()


@pytest.mark.process
async def test_feedctl_sim_ollama_replies_file_answers_the_products_ollama_client(feedctl_sim: str):
    backend = OllamaBackend(feedctl_sim, MODEL, keep_alive="30m", slots=1)
    try:
        asked = await backend.complete(
            CompletionRequest(
                [ChatMessage("user", "Kassajono oli pitkä")], max_tokens=50, json_schema={"type": "object"}
            )
        )
        assert asked.text == ECHO
        plain = CompletionRequest([ChatMessage("user", "muuta")], max_tokens=50)
        assert (await backend.complete(plain)).text == "in order, once"
        # The script can be changed while the server runs.
        async with httpx.AsyncClient(base_url=feedctl_sim, timeout=10) as http:
            assert (await http.post("/sim/replies", json=[{"match": "muuta", "reply": "changed"}])).status_code == 200
        assert (await backend.complete(plain)).text == "changed"
    finally:
        await backend.aclose()

"""The simulated Ollama: its API shapes, and scheduling as Ollama schedules (``sim/scheduler.py`` says from where).

Most tests run the ASGI app in-process through httpx's ASGITransport. Client disconnects are driven either
by calling the ASGI app with a ``receive`` that reports ``http.disconnect`` on cue, or against a real
uvicorn process (``python -m feedback_intelligence.sim``), since ASGITransport cannot hang up.
Tests synchronise on ``/sim/stats`` with a bounded deadline, never on fixed sleeps.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from feedback_intelligence.llm.backend import ChatMessage, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmBusy
from feedback_intelligence.llm.ollama import OllamaBackend
from feedback_intelligence.sim import OllamaSim, SimConfig, create_sim_app
from feedback_intelligence.sim.durations import FOREVER, DurationError, parse_keep_alive
from feedback_intelligence.sim.protocol import FORMAT_ERROR
from feedback_intelligence.sim.replies import instance_for_schema
from feedback_intelligence.sim.scheduler import ERR_MAX_QUEUE
from tests.prerequisites import require
from tests.support.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
BUSY_BODY = {"error": "server busy, please try again.  maximum pending requests exceeded"}
MODEL = "llama3.2:1b"


def chat(stream: bool | None = False, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": MODEL, "messages": [{"role": "user", "content": "How busy is the shop?"}]}
    if stream is not None:
        body["stream"] = stream
    return {**body, **extra}


def generate(stream: bool | None = False, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": MODEL, "prompt": "Summarise the day."}
    if stream is not None:
        body["stream"] = stream
    return {**body, **extra}


async def stats(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/sim/stats")
    assert response.status_code == 200
    return response.json()


async def until(
    client: httpx.AsyncClient, predicate: Callable[[dict[str, Any]], bool], what: str, timeout_s: float = 5.0
) -> dict[str, Any]:
    """Poll ``/sim/stats`` until ``predicate`` holds; returns those stats, or fails with the last ones."""
    current: dict[str, Any] = {}

    async def holds() -> bool:
        current.update(await stats(client))
        return predicate(current)

    try:
        await wait_for(holds, timeout_s, what, poll_s=0.005)
    except AssertionError as timeout:
        raise AssertionError(f"{timeout}; stats: {current}") from None  # the last stats say what was seen
    return current


async def records(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    return (await client.get("/sim/requests")).json()["requests"]


def parse_go_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


@pytest.fixture
async def sim() -> AsyncIterator[Callable[..., Awaitable[tuple[OllamaSim, httpx.AsyncClient]]]]:
    """Build an in-process simulated Ollama and a client on it; both are closed after the test."""
    made: list[tuple[OllamaSim, httpx.AsyncClient]] = []

    async def make(**settings: Any) -> tuple[OllamaSim, httpx.AsyncClient]:
        app = create_sim_app(SimConfig(**settings))
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sim", timeout=10)
        made.append((app, client))
        return app, client

    yield make
    for app, client in made:
        await client.aclose()
        await app.aclose()


async def warm(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/generate", json={"model": MODEL})
    assert response.json()["done_reason"] == "load"


# -- API shapes -------------------------------------------------------------------------------------


async def test_informational_routes_answer_like_ollama_and_count_nothing(sim):
    _, client = await sim()
    root = await client.get("/")
    assert (root.status_code, root.text) == (200, "Ollama is running")
    assert isinstance((await client.get("/api/version")).json()["version"], str)

    tags = (await client.get("/api/tags")).json()["models"]
    assert tags[0]["name"] == tags[0]["model"] == "sim-model:latest"
    assert {"size", "digest", "modified_at", "details"} <= tags[0].keys()
    assert {"format", "family", "parameter_size", "quantization_level"} <= tags[0]["details"].keys()

    assert (await client.get("/api/ps")).json() == {"models": []}
    missing = await client.get("/api/nope")
    assert (missing.status_code, missing.text) == (404, "404 page not found")
    assert (await stats(client))["requestsSeen"] == 0


async def test_empty_prompt_loads_the_model_and_keep_alive_zero_unloads_it(sim):
    _, client = await sim(load_ms=50)
    loaded = await client.post("/api/generate", json={"model": MODEL})
    assert loaded.status_code == 200
    assert loaded.json() | {"created_at": None} == {
        "model": MODEL,
        "created_at": None,
        "response": "",
        "done": True,
        "done_reason": "load",
    }
    state = await stats(client)
    assert (state["loaded"], state["loads"], state["loadRequests"], state["requestsSeen"]) == (True, 1, 1, 0)
    assert state["inFlight"] == 0  # a load takes no parallel slot

    (entry,) = (await client.get("/api/ps")).json()["models"]
    assert entry["name"] == entry["model"] == MODEL
    remaining = (parse_go_time(entry["expires_at"]) - datetime.now(UTC)).total_seconds()
    assert 250 < remaining <= 300  # the default keep-alive, 5 minutes

    chat_load = (await client.post("/api/chat", json={"model": MODEL, "messages": []})).json()
    assert chat_load["message"] == {"role": "assistant", "content": ""}
    assert chat_load["done_reason"] == "load"
    assert (await stats(client))["loads"] == 1  # already loaded: no second load

    unloaded = (await client.post("/api/generate", json={"model": MODEL, "keep_alive": 0})).json()
    assert unloaded["done_reason"] == "unload"
    assert (await stats(client))["loaded"] is False
    assert (await client.get("/api/ps")).json() == {"models": []}


async def test_non_streaming_replies_carry_ollamas_fields(sim):
    _, client = await sim(service_ms=20, tokens_per_reply=7)
    for path, body, text_of in (
        ("/api/chat", chat(), lambda b: b["message"]["content"]),
        ("/api/generate", generate(), lambda b: b["response"]),
    ):
        response = await client.post(path, json=body)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        reply = response.json()
        assert reply["model"] == MODEL
        assert reply["done"] is True
        assert reply["done_reason"] == "stop"
        assert len(text_of(reply).split()) == 7
        assert reply["eval_count"] == 7
        assert reply["prompt_eval_count"] >= 1
        for field in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
            assert isinstance(reply[field], int) and reply[field] >= 0
        assert reply["total_duration"] >= 20_000_000 * 0.9  # nanoseconds
        parse_go_time(reply["created_at"])
    assert (await client.post("/api/chat", json=chat())).json()["message"]["role"] == "assistant"


async def test_streaming_is_the_default_and_says_what_the_non_streamed_reply_says(sim):
    _, client = await sim(service_ms=30, tokens_per_reply=5)
    for path, body, key in (("/api/chat", chat, "message"), ("/api/generate", generate, "response")):
        streamed = await client.post(path, json=body(stream=None))  # no "stream": Ollama streams
        assert streamed.headers["content-type"] == "application/x-ndjson"
        lines = [json.loads(line) for line in streamed.text.splitlines()]
        *chunks, final = lines
        assert len(chunks) == 5 and all(c["done"] is False for c in chunks)
        assert final["done"] is True and final["done_reason"] == "stop" and final["eval_count"] == 5
        whole = (await client.post(path, json=body(stream=False))).json()
        if key == "message":
            assert "".join(c["message"]["content"] for c in chunks) == whole["message"]["content"]
            assert final["message"] == {"role": "assistant", "content": ""}
        else:
            assert "".join(c["response"] for c in chunks) == whole["response"]
            assert final["response"] == ""


async def test_num_predict_truncates_and_a_one_token_probe_may_be_cheaper(sim):
    _, client = await sim(service_ms=5000, probe_ms=0, tokens_per_reply=10)
    started = time.monotonic()
    probe = (await client.post("/api/chat", json=chat(options={"num_predict": 1}))).json()
    assert probe["eval_count"] == 1 and probe["done_reason"] == "length"
    assert time.monotonic() - started < 2.0  # probe_ms, not the 5 s service time

    await client.post("/sim/config", json={"serviceMs": 10})
    reply = (await client.post("/api/chat", json=chat(options={"num_predict": 3}))).json()
    assert reply["eval_count"] == 3 and reply["done_reason"] == "length"
    streamed = await client.post("/api/generate", json=generate(stream=True, options={"num_predict": 3}))
    assert len(streamed.text.splitlines()) == 4  # three tokens and the final summary


async def test_format_schema_and_json_replies_parse(sim):
    _, client = await sim(service_ms=10)
    schema = {
        "type": "object",
        "$defs": {"alert": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}},
        "properties": {
            "category": {"type": "string", "enum": ["staff", "stock", "price"]},
            "severity": {"type": "integer", "minimum": 1, "maximum": 5},
            "score": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 5}, "minItems": 2},
            "alert": {"$ref": "#/$defs/alert"},
            "note": {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 2}]},
            "urgent": {"type": "boolean"},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["category", "severity", "score", "tags", "alert", "urgent"],
        "additionalProperties": False,
    }
    reply = (await client.post("/api/chat", json=chat(format=schema))).json()
    value = json.loads(reply["message"]["content"])
    assert value["category"] == "staff"
    assert 1 <= value["severity"] <= 5 and isinstance(value["severity"], int)
    assert 0 < value["score"] <= 1
    assert len(value["tags"]) == 2 and all(len(t) >= 5 for t in value["tags"])
    assert value["alert"] == {"code": "sim"}
    assert isinstance(value["urgent"], bool) and len(value["note"]) <= 2
    require("jsonschema_rs")
    import jsonschema_rs

    assert jsonschema_rs.validator_for(schema).is_valid(value)

    streamed = await client.post("/api/generate", json=generate(stream=True, format=schema))
    *chunks, _final = [json.loads(line) for line in streamed.text.splitlines()]
    assert json.loads("".join(c["response"] for c in chunks)) == value

    plain = (await client.post("/api/generate", json=generate(format="json"))).json()
    assert isinstance(json.loads(plain["response"]), dict)


def test_schema_instances_cover_the_simple_keywords():
    assert instance_for_schema({"type": "string", "enum": ["a", "b"]}) == "a"
    assert instance_for_schema({"const": 3}) == 3
    assert instance_for_schema({"type": ["null", "integer"], "minimum": 2}) == 2
    assert instance_for_schema({"type": "integer", "exclusiveMinimum": 4}) == 5
    assert instance_for_schema({"type": "array", "maxItems": 0}) == []
    assert instance_for_schema({"allOf": [{"properties": {"a": {"type": "boolean"}}}, {"required": ["b"]}]}) == {
        "a": True,
        "b": "sim",
    }


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"", "missing request body"),
        (b"{not json", None),
        (b"[1, 2]", "json: cannot unmarshal array into Go value of type api.ChatRequest"),
        (json.dumps({"messages": []}).encode(), "model is required"),
        (json.dumps({"model": MODEL, "messages": "hi"}).encode(), None),
        (json.dumps({"model": MODEL, "keep_alive": "5 minutes"}).encode(), None),
        (json.dumps({"model": MODEL, "keep_alive": "300"}).encode(), 'time: missing unit in duration "300"'),
        (json.dumps({"model": MODEL, "format": "yaml"}).encode(), FORMAT_ERROR),
        (json.dumps({"model": MODEL, "options": {"num_predict": "many"}}).encode(), None),
        (json.dumps({"model": MODEL, "stream": "yes"}).encode(), None),
    ],
)
async def test_malformed_bodies_get_400_with_an_error(sim, raw, error):
    _, client = await sim()
    response = await client.post("/api/chat", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    if error is not None:
        assert body["error"] == error
    assert (await stats(client))["requestsSeen"] == 0


async def test_unknown_model_is_404_when_model_names_are_strict(sim):
    _, client = await sim(accept_any_model=False, service_ms=10)
    missing = await client.post("/api/chat", json=chat())
    assert (missing.status_code, missing.json()) == (404, {"error": f"model '{MODEL}' not found"})
    for name in ("sim-model", "sim-model:latest"):
        assert (await client.post("/api/chat", json=chat(model=name))).status_code == 200


def test_keep_alive_values_parse_as_ollama_parses_them():
    assert parse_keep_alive(None) is None
    assert parse_keep_alive("30m") == 1800
    assert parse_keep_alive("1h30m") == 5400
    assert parse_keep_alive("250ms") == 0.25
    assert parse_keep_alive("0") == 0
    assert parse_keep_alive(600) == 600
    assert parse_keep_alive(0.9) == 0  # Ollama truncates numbers to whole seconds
    assert parse_keep_alive(-1) == parse_keep_alive("-1m") == FOREVER
    for bad in ("300", "5 minutes", "", True, [1]):
        with pytest.raises(DurationError):
            parse_keep_alive(bad)


# -- scheduling -------------------------------------------------------------------------------------


async def test_parallel_limit_is_respected_and_the_extra_requests_wait(sim):
    _, client = await sim(parallel=2, service_ms=150)
    await warm(client)
    responses = await asyncio.gather(*(client.post("/api/chat", json=chat()) for _ in range(4)))
    assert [r.status_code for r in responses] == [200] * 4
    state = await stats(client)
    assert (state["maxConcurrency"], state["completed"], state["rejectedBusy"]) == (2, 4, 0)
    waits = sorted(r["waitMs"] for r in await records(client))
    assert waits[1] < waits[2]  # two started at once, two waited for a slot...
    assert waits[2] >= 150 * 0.5  # ...about one service time


async def test_a_warm_model_queues_without_bound_in_fifo_order(sim):
    _, client = await sim(parallel=1, max_queue=1, service_ms=15)
    await warm(client)
    responses = await asyncio.gather(*(client.post("/api/chat", json=chat()) for _ in range(12)))
    assert [r.status_code for r in responses] == [200] * 12  # OLLAMA_MAX_QUEUE=1 bounds nothing here
    state = await stats(client)
    assert (state["rejectedBusy"], state["maxConcurrency"], state["completed"]) == (0, 1, 12)
    rows = await records(client)
    assert [r["id"] for r in sorted(rows, key=lambda r: r["startMs"])] == [
        r["id"] for r in sorted(rows, key=lambda r: r["arrivalMs"])
    ]
    assert state["requestsSeen"] == 12


async def test_a_cold_model_turns_away_what_its_pending_queue_cannot_hold(sim):
    _, client = await sim(parallel=1, max_queue=2, load_ms=400, service_ms=10)
    calls = [asyncio.ensure_future(client.post("/api/chat", json=chat())) for _ in range(6)]
    during = await until(client, lambda s: s["loading"], "the load to start")
    # While loading, Ollama admits the request that started the load, the one its scheduler holds,
    # and max_queue more; the rest get ErrMaxQueue at once.
    assert (await client.get("/api/ps")).json()["models"][0]["name"] == MODEL  # listed while loading
    responses = await asyncio.gather(*calls)
    busy = [r for r in responses if r.status_code == 503]
    assert len(busy) == 2 and all(r.json() == BUSY_BODY for r in busy)
    assert BUSY_BODY["error"] == ERR_MAX_QUEUE
    assert sum(r.status_code == 200 for r in responses) == 4
    state = await stats(client)
    assert (state["rejectedBusy"], state["completed"], state["loads"], state["maxConcurrency"]) == (2, 4, 1, 1)
    assert during["pendingQueue"] <= 2
    assert state["maxWaitMs"] >= 400 * 0.5  # they waited through the load

    # Once loaded, the same burst is queued without bound, no 503.
    again = await asyncio.gather(*(client.post("/api/chat", json=chat()) for _ in range(6)))
    assert [r.status_code for r in again] == [200] * 6


async def test_keep_alive_expiry_makes_the_model_cold_again(sim):
    _, client = await sim(service_ms=10, keep_alive_s=0.2)
    assert (await client.post("/api/chat", json=chat())).status_code == 200
    await until(client, lambda s: not s["loaded"], "the default keep-alive to expire", timeout_s=3)
    assert (await client.get("/api/ps")).json() == {"models": []}

    # the request's keep_alive overrides the server's
    assert (await client.post("/api/chat", json=chat(keep_alive="30m"))).status_code == 200
    ps = (await client.get("/api/ps")).json()["models"][0]
    assert (parse_go_time(ps["expires_at"]) - datetime.now(UTC)).total_seconds() > 25 * 60
    assert (await client.post("/api/chat", json=chat(keep_alive="150ms"))).status_code == 200
    await until(client, lambda s: not s["loaded"], "a 150ms keep-alive to expire", timeout_s=3)
    assert (await stats(client))["loads"] == 2

    assert (await client.post("/api/chat", json=chat(keep_alive=0))).status_code == 200
    await until(client, lambda s: not s["loaded"], "keep_alive 0 to unload after the request")

    assert (await client.post("/api/chat", json=chat(keep_alive=-1))).status_code == 200
    ps = (await client.get("/api/ps")).json()["models"][0]
    assert parse_go_time(ps["expires_at"]).year > 2200  # negative: loaded forever
    assert (await stats(client))["loads"] == 4


async def test_a_negative_server_keep_alive_keeps_the_model_forever(sim):
    _, client = await sim(service_ms=5, keep_alive_s=-1)
    assert (await client.post("/api/chat", json=chat())).status_code == 200
    ps = (await client.get("/api/ps")).json()["models"][0]
    assert parse_go_time(ps["expires_at"]).year > 2200
    assert (await stats(client))["loaded"] is True


async def test_sim_controls_unload_reset_and_reconfigure(sim):
    _, client = await sim(service_ms=300, parallel=1)
    await warm(client)
    in_flight = asyncio.ensure_future(client.post("/api/chat", json=chat()))
    await until(client, lambda s: s["inFlight"] == 1, "the request to start")
    assert (await client.post("/sim/unload")).json()["loaded"] is True  # busy: unloads when idle
    assert (await in_flight).status_code == 200
    await until(client, lambda s: not s["loaded"], "the forced unload")

    changed = await client.post("/sim/config", json={"serviceMs": 5, "parallel": 3, "load_ms": 20})
    assert changed.json() | {"model": None} == {
        "parallel": 3,
        "maxQueue": 512,
        "serviceMs": 5,
        "probeMs": None,
        "loadMs": 20,
        "keepAliveS": 300.0,
        "tokensPerReply": 24,
        "model": None,
    }
    for bad in ({"parallel": 0}, {"gpu": 2}, {"serviceMs": "fast"}):
        assert (await client.post("/sim/config", json=bad)).status_code == 400
    responses = await asyncio.gather(*(client.post("/api/chat", json=chat()) for _ in range(3)))
    assert [r.status_code for r in responses] == [200] * 3
    state = await stats(client)
    assert (state["loads"], state["maxConcurrency"], state["completed"]) == (2, 3, 4)
    assert state["busyMs"] >= 300 * 0.9

    reset = (await client.post("/sim/reset")).json()
    assert (reset["requestsSeen"], reset["completed"], reset["loads"], reset["maxConcurrency"]) == (0, 0, 0, 0)
    assert reset["loaded"] is True and await records(client) == []


# -- client disconnects -----------------------------------------------------------------------------


class AsgiCall:
    """One request straight into the ASGI app, whose client hangs up when :meth:`hang_up` is called."""

    def __init__(self, app: OllamaSim, path: str, payload: dict[str, Any]) -> None:
        self.messages: list[dict[str, Any]] = []
        self._gone = asyncio.Event()
        self._body_sent = False
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [(b"content-type", b"application/json")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 11434),
        }
        self._raw = json.dumps(payload).encode()
        self.task = asyncio.ensure_future(app(scope, self._receive, self._send))

    async def _receive(self) -> dict[str, Any]:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": self._raw, "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def hang_up(self) -> None:
        self._gone.set()
        await asyncio.wait_for(self.task, 5)


async def test_a_hang_up_frees_the_queue_place_and_the_slot_at_once(sim):
    app, client = await sim(parallel=1, service_ms=5000)
    await warm(client)
    first = AsgiCall(app, "/api/chat", chat())
    await until(client, lambda s: s["inFlight"] == 1, "the first request to take the slot")
    second = AsgiCall(app, "/api/chat", chat())
    await until(client, lambda s: s["waitingForSlot"] == 1, "the second request to queue")

    await second.hang_up()
    state = await stats(client)
    assert (state["cancelled"], state["waitingForSlot"], state["queued"], state["inFlight"]) == (1, 0, 0, 1)
    await first.hang_up()
    state = await stats(client)
    assert (state["cancelled"], state["inFlight"], state["completed"]) == (2, 0, 0)
    assert first.messages == [] and second.messages == []  # nothing is sent to a client that left

    await client.post("/sim/config", json={"serviceMs": 20})
    started = time.monotonic()
    assert (await client.post("/api/chat", json=chat())).status_code == 200
    assert time.monotonic() - started < 2.0  # the slot was free: no 5 s wait behind the cancelled one
    assert (await records(client))[-1]["waitMs"] < 1000


async def test_a_hang_up_mid_stream_stops_generation(sim):
    app, client = await sim(parallel=1, service_ms=3000, tokens_per_reply=30)
    call = AsgiCall(app, "/api/chat", chat(stream=True))
    await until(client, lambda s: s["inFlight"] == 1, "the stream to start")
    while not any(m["type"] == "http.response.body" for m in call.messages):
        await asyncio.sleep(0.005)  # bounded by the task's own 3 s service time
        assert not call.task.done()
    await call.hang_up()
    state = await stats(client)
    assert (state["cancelled"], state["completed"], state["inFlight"]) == (1, 0, 0)
    bodies = [json.loads(m["body"]) for m in call.messages if m["type"] == "http.response.body"]
    assert bodies and not any(b["done"] for b in bodies)


async def test_a_hang_up_in_the_cold_pending_queue_keeps_its_place_until_drained(sim):
    """As in Ollama: the scheduler skips a cancelled pending request only when it reaches it."""
    app, client = await sim(parallel=1, max_queue=1, load_ms=300, service_ms=10)
    starter = asyncio.ensure_future(client.post("/api/chat", json=chat()))
    held = asyncio.ensure_future(client.post("/api/chat", json=chat()))
    queued = AsgiCall(app, "/api/chat", chat())
    await until(client, lambda s: s["pendingQueue"] == 1, "the pending queue to fill")
    await queued.hang_up()
    assert (await stats(client))["cancelled"] == 1
    turned_away = await client.post("/api/chat", json=chat())
    assert (turned_away.status_code, turned_away.json()) == (503, BUSY_BODY)
    assert [(await starter).status_code, (await held).status_code] == [200, 200]
    state = await stats(client)
    assert (state["pendingQueue"], state["completed"], state["cancelled"], state["rejectedBusy"]) == (0, 2, 1, 1)
    assert state["requestsSeen"] == 4


# -- a real server process --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sim_process() -> Iterator[str]:
    """``python -m feedback_intelligence.sim`` on a free port; yields its base URL."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    args = ["--port", str(port), "--parallel", "1", "--max-queue", "4", "--service-ms", "3000", "--load-ms", "0"]
    url = f"http://127.0.0.1:{port}"
    # A file, not a pipe: a pipe nobody reads could fill up and stall the server.
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "feedback_intelligence.sim", *args], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"sim exited early: {log.read().decode(errors='replace')}")
                try:
                    if httpx.get(url + "/api/version", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError("the simulated Ollama did not start")
                time.sleep(0.05)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


@pytest.fixture
async def real(sim_process: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=sim_process, timeout=10) as client:
        await until(client, lambda s: s["inFlight"] == 0 and s["queued"] == 0, "a quiet server")
        await client.post("/sim/config", json={"serviceMs": 3000, "parallel": 1})
        await client.post("/sim/reset")
        yield client


@pytest.mark.process
async def test_real_server_hang_up_cancels_and_frees_the_slot(real):
    request = asyncio.ensure_future(real.post("/api/chat", json=chat()))
    await until(real, lambda s: s["inFlight"] == 1, "the request to take the slot")
    request.cancel()  # httpx closes the connection of a cancelled request
    state = await until(real, lambda s: s["cancelled"] == 1 and s["inFlight"] == 0, "the hang-up to cancel it")
    assert state["completed"] == 0

    await real.post("/sim/config", json={"serviceMs": 50})
    started = time.monotonic()
    assert (await real.post("/api/chat", json=chat())).status_code == 200
    assert time.monotonic() - started < 2.0  # well under the 3 s the cancelled request would have held
    assert (await records(real))[-1]["waitMs"] < 1000


@pytest.mark.process
async def test_real_server_hang_up_while_queued_or_streaming(real):
    first = asyncio.ensure_future(real.post("/api/chat", json=chat()))
    await until(real, lambda s: s["inFlight"] == 1, "the first request to take the slot")
    second = asyncio.ensure_future(real.post("/api/chat", json=chat()))
    await until(real, lambda s: s["waitingForSlot"] == 1, "the second to wait for the slot")
    second.cancel()
    await until(real, lambda s: s["cancelled"] == 1 and s["queued"] == 0, "the queued hang-up")
    first.cancel()
    await until(real, lambda s: s["cancelled"] == 2 and s["inFlight"] == 0, "the in-service hang-up")

    async with real.stream("POST", "/api/chat", json=chat(stream=None)) as response:
        assert response.headers["content-type"] == "application/x-ndjson"
        async for line in response.aiter_lines():
            assert json.loads(line)["done"] is False
            break  # leaving the block unread closes the connection mid-stream
    state = await until(real, lambda s: s["cancelled"] == 3 and s["inFlight"] == 0, "the stream hang-up")
    assert state["completed"] == 0


@pytest.mark.process
async def test_the_products_ollama_client_works_against_the_real_server(real, sim_process):
    await real.post("/sim/config", json={"serviceMs": 20})
    await real.post("/sim/unload")
    await until(real, lambda s: not s["loaded"], "a cold model")
    backend = OllamaBackend(sim_process, MODEL, keep_alive="30m", slots=1)
    try:
        assert await backend.readiness() == Readiness.WARMING
        await backend.warm()
        assert await backend.readiness() == Readiness.READY
        done = await backend.complete(CompletionRequest([ChatMessage("user", "hello")], max_tokens=5))
        assert done.text and done.completion_tokens == 5
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        shaped = await backend.complete(
            CompletionRequest([ChatMessage("user", "hello")], max_tokens=50, json_schema=schema)
        )
        assert json.loads(shaped.text) == {"ok": True}

        # a cold model with a full pending queue is a shed (LlmBusy), as the gate expects
        await real.post("/sim/config", json={"loadMs": 400, "maxQueue": 0})
        await real.post("/sim/unload")
        await until(real, lambda s: not s["loaded"], "a cold model")
        probe = CompletionRequest([ChatMessage("user", "ping")], max_tokens=1)
        calls = [asyncio.ensure_future(backend.complete(probe)) for _ in range(3)]
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert sum(isinstance(o, LlmBusy) for o in outcomes) == 1
    finally:
        await real.post("/sim/config", json={"loadMs": 0, "maxQueue": 4})
        await backend.aclose()

"""The simulated server speaks the OpenAI chat-completions API as vLLM and ``llama-server`` do: its shapes
and errors in-process (httpx's ASGITransport), and the app's own ``openai`` backend client against the sim
with its batching GPU as a process over real HTTP. Tests wait on ``/sim/stats``, never on fixed sleeps."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from feedback_intelligence.devtools.processes import sim_ollama
from feedback_intelligence.llm.backend import ChatMessage, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure
from feedback_intelligence.llm.openai_compat import OpenAICompatibleBackend
from feedback_intelligence.sim import SimConfig, create_sim_app
from feedback_intelligence.sim.batching import BatchingConfig
from tests.support.waiting import wait_for

FAST = BatchingConfig(step_ms=1, per_seq_ms=0, past_knee_ms=0, prefill_ms_per_1k=0)
SCHEMA = {
    "type": "object",
    "properties": {"category": {"type": "string", "enum": ["dairy", "bread"]}, "count": {"type": "integer"}},
    "required": ["category", "count"],
}


def chat(**extra: Any) -> dict[str, Any]:
    return {"model": "sim-model", "messages": [{"role": "user", "content": "one two three four"}], **extra}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    sim = create_sim_app(SimConfig(batching=FAST, tokens_per_reply=30, accept_any_model=False))
    try:
        transport = httpx.ASGITransport(app=sim)
        async with httpx.AsyncClient(transport=transport, base_url="http://sim", timeout=30) as client:
            yield client
    finally:
        await sim.aclose()


async def test_a_chat_completion_answers_in_openai_shape_with_its_tokens_in_usage(http: httpx.AsyncClient) -> None:
    answer = await http.post("/v1/chat/completions", json=chat())
    assert answer.status_code == 200
    body = answer.json()
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    assert body["model"] == "sim-model" and isinstance(body["created"], int)
    choice = body["choices"][0]
    assert choice["message"]["role"] == "assistant" and choice["finish_reason"] == "stop"
    assert len(choice["message"]["content"].split()) == 30
    assert body["usage"] == {"prompt_tokens": 4, "completion_tokens": 30, "total_tokens": 34}


async def test_max_tokens_cuts_the_reply_and_says_length(http: httpx.AsyncClient) -> None:
    for field in ("max_tokens", "max_completion_tokens"):
        body = (await http.post("/v1/chat/completions", json=chat(**{field: 7}))).json()
        assert body["choices"][0]["finish_reason"] == "length"
        assert body["usage"]["completion_tokens"] == 7 == len(body["choices"][0]["message"]["content"].split())


@pytest.mark.parametrize(
    "response_format",
    [
        {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA, "strict": False}},
        {"type": "json_object", "schema": SCHEMA},  # llama-cpp-python's older form
    ],
)
async def test_structured_output_follows_the_schema(http: httpx.AsyncClient, response_format: dict[str, Any]) -> None:
    body = (await http.post("/v1/chat/completions", json=chat(response_format=response_format))).json()
    reply = json.loads(body["choices"][0]["message"]["content"])
    assert reply["category"] in ("dairy", "bread") and isinstance(reply["count"], int)
    assert body["usage"]["completion_tokens"] > 0


async def test_a_stream_is_server_sent_chunks_ending_in_done(http: httpx.AsyncClient) -> None:
    answer = await http.post("/v1/chat/completions", json=chat(stream=True, max_tokens=5))
    assert answer.headers["content-type"].startswith("text/event-stream")
    events = [line.removeprefix("data: ") for line in answer.text.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert len("".join(c["choices"][0]["delta"].get("content", "") for c in chunks).split()) == 5
    assert chunks[-1]["choices"][0]["finish_reason"] == "length" and chunks[-1]["usage"]["completion_tokens"] == 5


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        (b"{not json", 400, None),
        (b"[]", 400, None),
        (json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode(), 400, "model"),
        (json.dumps({"model": "sim-model"}).encode(), 400, "messages"),
        (json.dumps(chat(max_tokens=0)).encode(), 400, "max_tokens"),
        (json.dumps(chat(response_format={"type": "yaml"})).encode(), 400, "response_format"),
        (json.dumps({**chat(), "model": "gpt-9"}).encode(), 404, "model"),
    ],
)
async def test_errors_are_openai_errors(http: httpx.AsyncClient, body: bytes, status: int, param: str | None) -> None:
    answer = await http.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["message"] and error["type"] == "invalid_request_error" and error["param"] == param
    if status == 404:
        assert error["code"] == "model_not_found"


async def test_models_lists_the_served_model(http: httpx.AsyncClient) -> None:
    body = (await http.get("/v1/models")).json()
    assert body["object"] == "list" and [m["id"] for m in body["data"]] == ["sim-model"]


# -- the app's openai backend client against the sim as a process, over real HTTP --------------------------


async def sim_stats(url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        return (await client.get("/sim/stats")).json()


@pytest.mark.process
async def test_the_apps_openai_backend_runs_on_the_batching_sim_and_reads_busy_as_a_shed() -> None:
    """What ``FI_LLM_BACKEND=openai`` would meet on vLLM: answers with their tokens in ``usage`` (what the
    gate feeds its adaptive limit), schema-valid JSON, readiness, and the server's 503 with
    ``Retry-After`` as a shed (``LlmBusy``), not a failure. One sequence at a time, none waiting: a second
    call while one runs is turned away."""
    extra = ["--batching", "--step-ms", "20", "--per-seq-ms", "0", "--tokens-per-reply", "100", "--strict-models"]
    with sim_ollama(parallel=1, max_queue=0, extra=extra) as sim:
        backend = OpenAICompatibleBackend(sim.url + "/v1", "sim-model", slots=2)
        try:
            assert await backend.readiness() is Readiness.READY
            completion = await backend.complete(CompletionRequest([ChatMessage("user", "the milk was sour")], 12))
            assert completion.completion_tokens == 12 and completion.prompt_tokens == 4
            assert len(completion.text.split()) == 12
            structured = await backend.complete(
                CompletionRequest([ChatMessage("user", "classify")], 200, json_schema=SCHEMA)
            )
            assert json.loads(structured.text)["category"] in ("dairy", "bread")

            long = asyncio.ensure_future(backend.complete(CompletionRequest([ChatMessage("user", "long")], 100)))

            async def running() -> bool:
                seen = await sim_stats(sim.url)  # the third call handed to the GPU, the first two done
                return seen["requestsSeen"] == 3 and seen["queued"] == 0 and seen["completed"] == 2

            await wait_for(running, 10, "the long call on the GPU")
            with pytest.raises(LlmBusy) as busy:
                await backend.complete(CompletionRequest([ChatMessage("user", "one more")], 5))
            assert busy.value.retry_after_s == 1 and busy.value.reason == "backend_busy"
            assert (await long).completion_tokens == 100, "the call running was not disturbed"
            assert (await sim_stats(sim.url))["rejectedBusy"] == 1

            wrong = OpenAICompatibleBackend(sim.url, "not-served")
            with pytest.raises(LlmFailure, match="404"):
                await wrong.complete(CompletionRequest([ChatMessage("user", "x")], 5))
            await wrong.aclose()
        finally:
            await backend.aclose()

"""The OpenAI-compatible backend against a real OpenAI-compatible server: llama-cpp-python's own,
running the packaged SmolLM2 GGUF."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import free_port, llama_cpp_server
from feedback_intelligence.llm.backend import ChatMessage, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmUnavailable
from feedback_intelligence.llm.openai_compat import OpenAICompatibleBackend

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

SCHEMA = {
    "type": "object",
    "properties": {"category": {"type": "string", "enum": ["dairy", "bread"]}, "theme": {"type": "string"}},
    "required": ["category", "theme"],
}


@pytest.fixture(scope="module")
def openai_server() -> Iterator[str]:
    with llama_cpp_server(2048, ready_s=60) as url:
        yield url


@pytest.fixture
async def backend(openai_server: str) -> AsyncIterator[OpenAICompatibleBackend]:
    made = OpenAICompatibleBackend(openai_server + "/v1", "smollm2", slots=1)
    yield made
    await made.aclose()


@pytest.mark.embedded
async def test_a_real_openai_compatible_server_answers_schema_valid_json(backend: OpenAICompatibleBackend) -> None:
    completion = await backend.complete(
        CompletionRequest(
            [ChatMessage("user", "The milk was sour. Classify it as JSON.")],
            max_tokens=48,
            json_schema=SCHEMA,
        )
    )
    reply = json.loads(completion.text)
    assert reply["category"] in ("dairy", "bread") and isinstance(reply["theme"], str)
    assert completion.completion_tokens > 0
    assert await backend.readiness() is Readiness.READY


async def test_an_unreachable_server_is_unavailable_and_down() -> None:
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{free_port()}", "m")
    with pytest.raises(LlmUnavailable):
        await backend.complete(CompletionRequest([ChatMessage("user", "ping")], max_tokens=1))
    assert await backend.readiness() is Readiness.DOWN
    await backend.aclose()


@pytest.mark.parametrize(("status", "error"), [(503, LlmBusy), (429, LlmBusy), (500, LlmFailure), (404, LlmFailure)])
async def test_server_statuses_map_to_shed_or_failure(status: int, error: type[Exception]) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": {"message": "nope"}}, headers={"Retry-After": "7"})

    backend = OpenAICompatibleBackend("http://llm.invalid", "m")
    backend._client = httpx.AsyncClient(base_url="http://llm.invalid", transport=httpx.MockTransport(answer))
    with pytest.raises(error) as raised:
        await backend.complete(CompletionRequest([ChatMessage("user", "ping")], max_tokens=1))
    if isinstance(raised.value, LlmBusy):
        assert raised.value.retry_after_s == 7 and raised.value.reason == "backend_busy"
    await backend.aclose()

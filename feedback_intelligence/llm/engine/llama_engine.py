"""llama.cpp through llama-cpp-python: one model instance that generates one reply at a time.

Runs inside an engine child process (``worker``); a benchmark may run it in-process to measure what
the process boundary costs. Nothing here knows about the gate or the service.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# llama.cpp's OpenMP threads spin while waiting by default; with one engine per slot on a small
# machine that spinning steals the cores the other engine needs (measured: prompt evaluation about
# twice as fast with passive waiting under load). Must be set before llama_cpp loads its library.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# KV states of recent prompts: the structuring prompt's long fixed prefix is evaluated once, and a
# health probe in between does not throw it away.
PROMPT_CACHE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Generation:
    text: str
    completion_tokens: int
    cancelled: bool  # stopped at a token because the caller no longer wanted it


class LlamaEngine:
    def __init__(self, model_path: Path, *, context_tokens: int, threads: int) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_cache import LlamaRAMCache

        self._llama = Llama(model_path=str(model_path), n_ctx=context_tokens, n_threads=threads, verbose=False)
        self._llama.set_cache(LlamaRAMCache(capacity_bytes=PROMPT_CACHE_BYTES))
        self._grammars: dict[str, Any] = {}

    def generate(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None,
        cancelled: Callable[[], bool],
        on_token: Callable[[int], None] | None = None,
    ) -> Generation:
        """Stream token by token, so that a caller that gives up stops the engine at its next token."""
        kwargs: dict[str, Any] = {}
        if json_schema is not None:
            kwargs["grammar"] = self._grammar(json_schema)
        pieces: list[str] = []
        generated = 0
        stopped = False
        for chunk in self._llama.create_chat_completion(
            messages=messages,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=temperature,
            stream=True,
            **kwargs,
        ):
            if cancelled():
                stopped = True
                break
            choice: Any = chunk["choices"][0]  # type: ignore[index]
            delta = choice.get("delta") or {}
            if delta.get("content"):
                pieces.append(delta["content"])
                generated += 1
                if on_token is not None:
                    on_token(generated)
        return Generation("".join(pieces), generated, stopped)

    def _grammar(self, schema: dict[str, Any]) -> Any:
        """JSON-schema constrained decoding; grammars are built once per schema."""
        from llama_cpp.llama_grammar import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            # Built from the schema as written: the grammar follows its property order, which the prompt uses.
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            self._grammars[key] = grammar
        return grammar


def system_info() -> str:
    """What the installed llama.cpp build uses (CPU features), as llama.cpp itself prints it."""
    import llama_cpp

    raw = llama_cpp.llama_print_system_info()
    return (raw.decode() if isinstance(raw, bytes) else str(raw)).strip()

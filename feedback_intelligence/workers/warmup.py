"""Warm the model at start-up, so the clerk's first "Tulkitse" is not the cold one.

Loading a model is not enough: the first completion after a load also pays for reading the long
structuring prompt (llama.cpp and Ollama keep its prefix cached afterwards). So the start-up warm-up
loads every backend's model and then structures one short sample text per backend through the gate,
at background priority: a clerk who presses during the warm-up is served first (ADR 0017), and a
backend that is down is logged, never waited for.
"""

from __future__ import annotations

import asyncio
import logging

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.llm.backend import LlmBackend, Readiness
from feedback_intelligence.llm.errors import LlmError
from feedback_intelligence.structuring.service import StructuringService

log = logging.getLogger(__name__)

ROUTE = "warmup"
# Short and ordinary: it only has to make the model read the structuring prompt once.
SAMPLE_TEXT = "Kassalla oli pitkä jono, mutta myyjä oli ystävällinen."


async def load_model(backend: LlmBackend) -> tuple[Readiness, str]:
    """Load one backend's model (its own way: Ollama's empty generate, the embedded engine's load).

    Returns its readiness afterwards and why it could not be loaded ("" when it could)."""
    warm_up = getattr(backend, "warm", None) or getattr(backend, "wait_loaded", None)
    detail = ""
    if warm_up is not None:
        try:
            await warm_up()
        except LlmError as exc:
            detail = str(exc)
    return await backend.readiness(), detail


async def warm_at_start(backends: dict[str, LlmBackend], structuring: StructuringService) -> None:
    """Load every backend, then one real completion per backend that loaded. Never raises."""
    try:
        loaded = await asyncio.gather(*(load_model(b) for b in backends.values()))
        ready = [name for name, (readiness, _) in zip(backends, loaded, strict=True) if readiness is Readiness.READY]
        for name, (readiness, detail) in zip(backends, loaded, strict=True):
            if readiness is not Readiness.READY:
                log.warning("start-up warm-up: backend %s is %s %s", name, readiness.value, detail)
        if not ready:
            return
        # One call per ready backend, side by side: the pool gives each to the least loaded backend.
        results = await asyncio.gather(
            *(structuring.structure(SAMPLE_TEXT, CallContext.background(ROUTE, preemptible=True)) for _ in ready),
            return_exceptions=True,
        )
        failed = [r for r in results if isinstance(r, BaseException)]
        for error in failed:
            log.warning("start-up warm-up completion did not finish: %s", error)
        log.info("start-up warm-up: %d of %d completion(s) done", len(results) - len(failed), len(results))
    except Exception:  # a warm-up is a courtesy: it must never take the service down
        log.exception("start-up warm-up failed")

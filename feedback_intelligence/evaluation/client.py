"""Run a set through a service's real path: ``POST /interpret`` over HTTP, as the desk does.

Concurrency never exceeds the gate's slots (read from ``/admin/status``), so the run does not shed
itself; a 503 (the gate shed us because someone else holds the slots) or a 429 is retried after its
``Retry-After``. The edge exempts a direct loopback caller from the rate limits; any other caller needs
the operator token (``FI_OPERATOR_TOKEN``), which is sent as a bearer token when set.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from feedback_intelligence.evaluation.dataset import EvalItem

RETRY_STATUSES = (429, 503)
MAX_RETRY_WAIT_S = 10.0


@dataclass(frozen=True, slots=True)
class Observation:
    """What the service answered for one item."""

    item_id: str
    structure: dict[str, Any] | None  # the final structure a person would see (None: failed or error)
    guards: tuple[dict[str, Any], ...] = ()  # {"field","reason","modelValue","replacement"}
    alerts: frozenset[str] = frozenset()
    failed: bool = False  # the service answered, but without a structure (model unusable twice)
    salvaged: bool = False
    latency_ms: float | None = None  # the answered attempt only (waits before retries excluded)
    retries: int = 0
    error: str | None = None  # no usable answer at all (HTTP error, 4xx/5xx after retries)


@dataclass(slots=True)
class RunOptions:
    concurrency: int | None = None  # default: the gate's slots
    request_timeout_s: float = 300.0
    max_retries: int = 60
    token: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def observation_from(item_id: str, body: dict[str, Any], latency_ms: float | None, retries: int = 0) -> Observation:
    """An ``/interpret`` 200 body as an observation (tolerates the fields older services lack)."""
    structure = body.get("structure")
    return Observation(
        item_id=item_id,
        structure=structure if isinstance(structure, dict) else None,
        guards=tuple(g for g in body.get("guards", []) if isinstance(g, dict)),
        alerts=frozenset(body.get("alertCategories", [])),
        failed=bool(body.get("failed")) or not isinstance(structure, dict),
        salvaged=bool(body.get("salvaged")),
        latency_ms=latency_ms,
        retries=retries,
    )


async def gate_slots(http: httpx.AsyncClient) -> int | None:
    """The gate's slot count from the operator status board, or None when it cannot be read."""
    try:
        response = await http.get("/admin/status")
        return int(response.json()["gate"]["slots"]) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


async def interpret_one(http: httpx.AsyncClient, item: EvalItem, options: RunOptions) -> Observation:
    retries = 0
    while True:
        started = time.perf_counter()
        try:
            response = await http.post("/interpret", json={"text": item.text})
        except httpx.HTTPError as exc:
            return Observation(item.id, None, error=f"{type(exc).__name__}: {exc}", retries=retries)
        latency_ms = (time.perf_counter() - started) * 1000
        if response.status_code in RETRY_STATUSES and retries < options.max_retries:
            retries += 1
            await asyncio.sleep(_retry_after(response))
            continue
        if response.status_code != 200:
            return Observation(
                item.id, None, error=f"HTTP {response.status_code}: {response.text[:200]}", retries=retries
            )
        try:
            body = response.json()
        except ValueError:
            return Observation(item.id, None, error="HTTP 200 without a JSON body", retries=retries)
        return observation_from(item.id, body, latency_ms, retries)


def _retry_after(response: httpx.Response) -> float:
    try:
        return min(MAX_RETRY_WAIT_S, max(0.1, float(response.headers.get("retry-after", "1"))))
    except ValueError:
        return 1.0


async def run_set(
    base_url: str,
    items: list[EvalItem],
    options: RunOptions | None = None,
    on_done: Callable[[Observation], None] | None = None,
) -> tuple[list[Observation], int]:
    """Observations in item order, and the concurrency used."""
    options = options or RunOptions()
    headers = dict(options.headers)
    if options.token:
        headers["Authorization"] = f"Bearer {options.token}"
    timeout = httpx.Timeout(options.request_timeout_s, connect=10.0)
    async with httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout, headers=headers) as http:
        slots = await gate_slots(http)
        wanted = options.concurrency or slots or 1
        concurrency = max(1, min(wanted, slots) if slots else wanted)
        limiter = asyncio.Semaphore(concurrency)

        async def one(item: EvalItem) -> Observation:
            async with limiter:
                observation = await interpret_one(http, item, options)
            if on_done is not None:
                on_done(observation)
            return observation

        observations = await asyncio.gather(*(one(item) for item in items))
    return list(observations), concurrency

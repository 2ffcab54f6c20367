"""A roomful of clerks against a running server: each presses "Tulkitse" after a random think time
and follows the desk's 503 policy (two jittered retries, then "busy").

Measures what people feel: admitted and shed latencies, shed rate, throughput, errors other
than 503, and how busy the gate kept the backend while the crowd lasted (from ``/metrics``).

At the deadline no clerk starts a new press; presses under way finish (retries included), for at
most ``drain_timeout_s`` when one is given, after which the rest are cancelled and counted as
unfinished (the result says it was capped).
"""

from __future__ import annotations

import asyncio
import functools
import random
import ssl
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

SAMPLE_TEXTS = [
    "Maito oli happanutta vaikka päiväys oli vasta huomenna.",
    "Kassajono oli tosi pitkä ja vain yksi kassa auki.",
    "Leipähylly tyhjä taas illalla, ei ruisleipää ollenkaan.",
    "Kiitos mukavasta palvelusta lihatiskillä!",
    "Voisitteko tuoda gluteenittomia vaihtoehtoja enemmän?",
    "Pakastealtaan kansi rikki ja jäätelöt sulaneet.",
]


def retry_delay_s(attempt: int, retry_after: str | None, rng: random.Random, cap_s: float = 4.0) -> float:
    """The desk's policy: 300 + attempt·400 + random·500 ms, or the server's Retry-After when longer."""
    jitter = (300 + attempt * 400 + rng.random() * 500) / 1000
    server = float(retry_after) if retry_after and retry_after.isdigit() else 0.0
    return min(cap_s, max(jitter, server))


@dataclass
class CrowdResult:
    clerks: int
    duration_s: float
    presses: int = 0
    results: int = 0  # presses that ended with an interpretation
    busy: int = 0  # presses that ended with the busy message
    attempts: int = 0
    admitted_latencies_ms: list[float] = field(default_factory=list)
    shed_latencies_ms: list[float] = field(default_factory=list)
    press_latencies_ms: list[float] = field(default_factory=list)
    other_errors: dict[str, int] = field(default_factory=dict)
    busy_slot_fraction: float | None = None  # gate's busy slot-seconds over the active window
    slots: int | None = None
    active_s: float | None = None  # start to deadline: the window in which presses were made
    drain_s: float = 0.0  # deadline to the last press's end
    unfinished: int = 0  # presses cancelled by the drain cap
    capped: bool = False
    # "save later" policy: every press ends saved — the clerk's accepted interpretation, or at the
    # first shed the text saved for later (structureLater, 202)
    saved_direct: int = 0
    saved_later: int = 0
    unsaved: int = 0  # presses whose text was not stored (the later save failed too)
    saved_ms: list[float] = field(default_factory=list)  # first press → saved, every saved press
    later_saved_ms: list[float] = field(default_factory=list)  # first press → saved, the later path only
    saved_ids: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        shed = len(self.shed_latencies_ms)
        return {
            "clerks": self.clerks,
            "durationS": round(self.duration_s, 1),
            "presses": self.presses,
            "results": self.results,
            "busyMessages": self.busy,
            "attempts": self.attempts,
            "shedRate": round(shed / self.attempts, 3) if self.attempts else 0.0,
            "throughputPerS": round(len(self.admitted_latencies_ms) / self.duration_s, 3) if self.duration_s else 0,
            "admittedMs": percentiles(self.admitted_latencies_ms),
            "shedMs": percentiles(self.shed_latencies_ms),
            "pressMs": percentiles(self.press_latencies_ms),
            "otherErrors": self.other_errors,
            "busySlotFraction": None if self.busy_slot_fraction is None else round(self.busy_slot_fraction, 3),
            "activeS": None if self.active_s is None else round(self.active_s, 1),
            "drainS": round(self.drain_s, 1),
            "unfinished": self.unfinished,
            "capped": self.capped,
            "savedDirect": self.saved_direct,
            "savedLater": self.saved_later,
            "unsaved": self.unsaved,
            "savedMs": percentiles(self.saved_ms),
            "laterSavedMs": percentiles(self.later_saved_ms),
        }


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p90": None, "p99": None, "max": None, "n": 0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99), "max": round(ordered[-1], 1), "n": len(ordered)}


def _metric_value(text: str, name: str) -> float | None:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    return None


async def _gate_busy_seconds(http: httpx.AsyncClient) -> tuple[float | None, float | None]:
    try:
        response = await http.get("/metrics")
    except httpx.HTTPError:
        return None, None
    if response.status_code != 200:
        return None, None
    return (
        _metric_value(response.text, "fi_gate_busy_slot_seconds_total"),
        _metric_value(response.text, "fi_gate_slots"),
    )


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every clerk: httpx builds a new one per client otherwise (~20 ms of CPU
    each), and a large crowd's clients are all built at its start, stalling the event loop for seconds."""
    return httpx.create_ssl_context()


async def _sleep_until_at_most(seconds: float, deadline: float) -> None:
    """Think, but not past the deadline: a clerk whose think time runs over it makes no more presses."""
    await asyncio.sleep(max(0.0, min(seconds, deadline - time.monotonic())))


async def _save(
    http: httpx.AsyncClient, result: CrowdResult, pressed: float, text: str, structure: dict[str, Any] | None
) -> None:
    """The desk's save after a press: the accepted interpretation (201), or the text for later (202)."""
    body: dict[str, Any] = {"id": f"crowd-{uuid.uuid4().hex}", "source": "desk", "text": text}
    if structure is not None:
        body["acceptedStructure"] = {k: v for k, v in structure.items() if k != "sentiment"}
    else:
        body["structureLater"] = True
    try:
        response = await http.post("/live/feedback", json=body)
    except httpx.HTTPError:
        response = None
    if response is None or response.status_code not in (201, 202):
        result.unsaved += 1
        key = f"save {response.status_code if response is not None else 'network'}"
        result.other_errors[key] = result.other_errors.get(key, 0) + 1
        return
    saved_ms = (time.perf_counter() - pressed) * 1000
    result.saved_ms.append(saved_ms)
    result.saved_ids.append(body["id"])
    if structure is None:
        result.saved_later += 1
        result.later_saved_ms.append(saved_ms)
    else:
        result.saved_direct += 1


async def _clerk(
    url: str,
    deadline: float,
    think_s: tuple[float, float],
    result: CrowdResult,
    rng: random.Random,
    max_retries: int,
    http_timeout_s: float,
    later: bool = False,
) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=http_timeout_s, verify=_tls()) as http:
        await _sleep_until_at_most(rng.uniform(0, think_s[1]), deadline)  # clerks don't all arrive at second zero
        while time.monotonic() < deadline:
            pressed = time.perf_counter()
            result.presses += 1
            outcome = "busy"
            text = rng.choice(SAMPLE_TEXTS)
            structure: dict[str, Any] | None = None
            for attempt in range(max_retries + 1):
                started = time.perf_counter()
                result.attempts += 1
                try:
                    response = await http.post("/interpret", json={"text": text})
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
                    result.other_errors[key] = result.other_errors.get(key, 0) + 1
                    outcome = "error"
                    break
                elapsed_ms = (time.perf_counter() - started) * 1000
                if response.status_code == 200:
                    result.admitted_latencies_ms.append(elapsed_ms)
                    outcome = "result"
                    structure = response.json().get("structure")
                    break
                if response.status_code != 503:
                    key = str(response.status_code)
                    result.other_errors[key] = result.other_errors.get(key, 0) + 1
                    outcome = "error"
                    break
                result.shed_latencies_ms.append(elapsed_ms)
                if later:
                    break  # "Tallenna, tulkitaan myöhemmin" at the first shed: no retries
                if attempt < max_retries:
                    await asyncio.sleep(retry_delay_s(attempt, response.headers.get("retry-after"), rng))
            result.press_latencies_ms.append((time.perf_counter() - pressed) * 1000)
            if later and outcome != "error":
                await _save(http, result, pressed, text, structure)
            if outcome == "result":
                result.results += 1
            elif outcome == "busy":
                result.busy += 1
            await _sleep_until_at_most(rng.uniform(*think_s), deadline)


async def run_crowd(
    url: str,
    clerks: int,
    duration_s: float,
    think_s: tuple[float, float] = (1.0, 6.0),
    seed: int | None = None,
    max_retries: int = 2,
    *,
    http_timeout_s: float = 600.0,
    drain_timeout_s: float | None = None,
    later: bool = False,
    at_deadline: Callable[[], Awaitable[None]] | None = None,
) -> CrowdResult:
    """Run the crowd; ``at_deadline`` (if given) is awaited when the active window closes, for a caller that
    samples its own counters over exactly that window. With ``later`` each clerk follows the "save later"
    desk policy: an admitted interpretation is saved as accepted, a shed one is saved for later at once."""
    rng = random.Random(seed)
    result = CrowdResult(clerks=clerks, duration_s=duration_s)
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        busy_before, slots = await _gate_busy_seconds(http)
        started = time.monotonic()
        deadline = started + duration_s
        tasks = [
            asyncio.create_task(
                _clerk(url, deadline, think_s, result, random.Random(rng.random()), max_retries, http_timeout_s, later)
            )
            for _ in range(clerks)
        ]
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        busy_at_deadline, _ = await _gate_busy_seconds(http)
        result.active_s = time.monotonic() - started
        if at_deadline is not None:
            await at_deadline()
        done, pending = await asyncio.wait(tasks, timeout=drain_timeout_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()  # a clerk that crashed is a bug in the crowd: let it show
        result.unfinished = len(pending)
        result.capped = bool(pending)
        result.duration_s = time.monotonic() - started
        result.drain_s = max(0.0, time.monotonic() - deadline)
    if busy_before is not None and busy_at_deadline is not None and slots:
        result.slots = int(slots)
        result.busy_slot_fraction = (busy_at_deadline - busy_before) / (result.active_s * slots)
    return result

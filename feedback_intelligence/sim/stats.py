"""Counters and per-request timings of the simulated server, for tests and the crowd benchmark.

Only completions (``/api/chat`` and ``/api/generate`` with something to answer) are counted as requests;
model loads and unloads (empty prompts) are counted apart, and the other routes not at all. With no reset
in between, ``requestsSeen == completed + cancelled + rejectedBusy + inFlight + queued`` at every moment.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any

RECORDS_KEPT = 1000


@dataclass(eq=False)
class Trace:
    """One completion's life: arrival, start of service (slot acquired), end, and how it ended."""

    id: int
    endpoint: str
    stream: bool
    arrival: float
    start: float | None = None
    end: float | None = None
    outcome: str | None = None  # "completed" | "cancelled" | "rejected_busy"


class SimStats:
    def __init__(self) -> None:
        self._next_id = 0
        self.queued = 0  # gauge: admitted, waiting for the model or a slot (never reset)
        self._serving: dict[int, float] = {}  # trace id -> service start, for busyMs of running calls
        self.reset(in_flight=0)

    def reset(self, in_flight: int) -> None:
        """Zero the counters; gauges (queued, in flight) describe the present and stay."""
        self.epoch = time.monotonic()
        self.requests_seen = 0
        self.completed = 0
        self.cancelled = 0
        self.rejected_busy = 0
        self.load_requests = 0
        self.loads = 0
        self.max_concurrency = in_flight
        self.max_wait_ms = 0.0
        self._busy_closed_s = 0.0
        self.records: deque[Trace] = deque(maxlen=RECORDS_KEPT)

    # -- lifecycle of one completion -------------------------------------------------------------

    def arrive(self, endpoint: str, stream: bool) -> Trace:
        self._next_id += 1
        self.requests_seen += 1
        self.queued += 1
        return Trace(self._next_id, endpoint, stream, time.monotonic())

    def started(self, trace: Trace, in_flight: int) -> None:
        trace.start = time.monotonic()
        self.queued -= 1
        self._serving[trace.id] = trace.start
        self.max_concurrency = max(self.max_concurrency, in_flight)
        self.max_wait_ms = max(self.max_wait_ms, (trace.start - trace.arrival) * 1000)

    def finished(self, trace: Trace, outcome: str) -> None:
        """Close a trace once (later calls are ignored, so every exit path may call it)."""
        if trace.outcome is not None:
            return
        trace.outcome = outcome
        trace.end = time.monotonic()
        if trace.start is None:
            self.queued -= 1
        else:
            begun = self._serving.pop(trace.id, trace.start)
            self._busy_closed_s += max(0.0, trace.end - max(begun, self.epoch))
        if outcome == "completed":
            self.completed += 1
        elif outcome == "cancelled":
            self.cancelled += 1
        elif outcome == "rejected_busy":
            self.rejected_busy += 1
        self.records.append(trace)

    # -- views ------------------------------------------------------------------------------------

    def busy_ms(self) -> float:
        """Slot-milliseconds spent serving since the last reset, running calls included."""
        now = time.monotonic()
        running = sum(now - max(start, self.epoch) for start in self._serving.values())
        return (self._busy_closed_s + running) * 1000

    def _ms(self, t: float | None) -> float | None:
        return None if t is None else round((t - self.epoch) * 1000, 3)

    def counters(self) -> dict[str, Any]:
        return {
            "requestsSeen": self.requests_seen,
            "completed": self.completed,
            "cancelled": self.cancelled,
            "rejectedBusy": self.rejected_busy,
            "queued": self.queued,
            "maxConcurrency": self.max_concurrency,
            "maxWaitMs": round(self.max_wait_ms, 3),
            "busyMs": round(self.busy_ms(), 3),
            "elapsedMs": round((time.monotonic() - self.epoch) * 1000, 3),
            "loads": self.loads,
            "loadRequests": self.load_requests,
        }

    def request_records(self) -> dict[str, Any]:
        """The last :data:`RECORDS_KEPT` finished completions; times are ms since the last reset."""
        rows = []
        for t in self.records:
            rows.append(
                {
                    "id": t.id,
                    "endpoint": t.endpoint,
                    "stream": t.stream,
                    "outcome": t.outcome,
                    "arrivalMs": self._ms(t.arrival),
                    "startMs": self._ms(t.start),
                    "endMs": self._ms(t.end),
                    "waitMs": None if t.start is None else round((t.start - t.arrival) * 1000, 3),
                    "serviceMs": None if t.start is None or t.end is None else round((t.end - t.start) * 1000, 3),
                }
            )
        return {"nowMs": self._ms(time.monotonic()), "requests": rows}

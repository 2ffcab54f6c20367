"""The gate: how long a request waits for a slot, how long a call may run, who goes first, what background
work leaves free, and where replicas share it (Redis)."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import ValidationInfo, ValidatorFunctionWrapHandler, field_validator

from feedback_intelligence.config.fields import Group, composition, variable


class GateSettings(Group):
    # Slots background work (report prose, "save, interpret later", restructure) must leave free. Unset: 1,
    # but 0 where the gate has one slot, or that work would wait for the bounded wait; a clerk still
    # preempts it (ADR 0017, ADR 0046).
    background_reserve: int = variable("FI_LLM_BACKGROUND_RESERVE", None, ge=0, le=64, validate_default=True)
    acquire_timeout_ms: int = variable("FI_LLM_ACQUIRE_TIMEOUT_MS", 500, ge=1, le=60_000)
    call_timeout_s: float = variable("FI_LLM_CALL_TIMEOUT_S", 120, gt=0, le=3600)
    # How often one background work item may be preempted by a waiting visitor before its calls run
    # unpreempted (aging, docs/adr/0017); 0 turns preemption off.
    preempt_max: int = variable("FI_LLM_PREEMPT_MAX", 2, ge=0, le=100)
    # Who goes first among waiters: least attained service per visitor ("fair"), or first come ("fifo",
    # kept to measure against). Attained service decays with this half-life (docs/adr/0018-fair-shares.md).
    order: Literal["fair", "fifo"] = variable("FI_GATE_ORDER", "fair")
    fair_half_life_s: float = variable("FI_FAIR_HALF_LIFE_S", 60, gt=0, le=86_400)
    # shared state across replicas (gate leases, rate-limit windows, report prose): unset = in-process
    redis_url: str | None = variable("FI_REDIS_URL", None)
    name: str = variable("FI_GATE_NAME", "llm", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    lease_s: float = variable("FI_REDIS_LEASE_S", 10, ge=1, le=300)
    # An adaptive limit for backends that batch (ADR 0067): their slots move between the floor and their
    # declared slots from the latency per output token (Gradient2). Off: every backend's slots are fixed.
    adaptive_limit: bool = variable("FI_LLM_ADAPTIVE_LIMIT", False)
    adaptive_floor: int = variable("FI_LLM_ADAPTIVE_FLOOR", 2, ge=1, le=64)
    # How much slower than its no-load latency (what a token takes with almost none of ours in flight) a
    # token may get before the limit falls...
    adaptive_tolerance: float = variable("FI_LLM_ADAPTIVE_TOLERANCE", 1.6, ge=1, le=10)
    # ...and, when set, the latency per output token above which it falls whatever the no-load one (0: none).
    adaptive_target_ms_per_token: float = variable("FI_LLM_ADAPTIVE_TARGET_MS_PER_TOKEN", 0, ge=0, le=10_000)
    # With another application's load seen on the GPU, how much slower than without us its tokens may get:
    # the limit yields to it, aiming a little below it for room (ADR 0077, ADR 0080). 0: it never does.
    adaptive_neighbour_tolerance: float = variable("FI_LLM_ADAPTIVE_NEIGHBOUR_TOLERANCE", 1.2, ge=0, le=10)

    @field_validator("background_reserve", mode="wrap")
    @classmethod
    def _reserve(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> int:
        if value is None:  # the one slot is not kept idle (ADR 0046)
            return 0 if composition(info).total_slots == 1 else 1
        result: int = handler(value)
        return result

    @field_validator("adaptive_neighbour_tolerance")
    @classmethod
    def _neighbour_tolerance(cls, value: float) -> float:
        if value != 0 and value <= 1:
            raise ValueError("must be 0 (never yield) or more than 1")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None  # FI_REDIS_URL= (empty) means unset: the in-process gate
        parsed = urlparse(value)
        if parsed.scheme not in ("redis", "rediss") or not parsed.hostname:
            raise ValueError("must be a redis:// or rediss:// URL with a host")
        return value

    @property
    def acquire_timeout_s(self) -> float:
        return self.acquire_timeout_ms / 1000

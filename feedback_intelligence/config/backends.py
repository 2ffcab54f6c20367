"""The LLM backends behind the gate: one by the shorthand (``FI_LLM_BACKEND``, ``FI_LLM_BASE_URL``,
``FI_LLM_MODEL``, ``FI_LLM_SLOTS``) or a pool (``FI_LLM_BACKENDS``), how each is asked, its breaker and
its health probe."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    field_validator,
    model_validator,
)

from feedback_intelligence.config.fields import Group, absolute_url, split_list_or_none, variable
from feedback_intelligence.config.json_lists import json_list_text, named_entries, unique

BackendKind = Literal["embedded", "ollama", "openai"]
STRUCTURE_FIELDS = ("category", "theme", "severity", "type", "sentiment", "language")
EXAMPLE = '[{"name": "gpu1", "kind": "ollama", "url": "http://gpu1:11434", "slots": 2}]'


class BackendSpec(BaseModel):
    """One LLM backend of the pool: its public ``name`` (bodies, metrics, the status board; never its
    address), its kind, where it answers, its model, and how many calls it runs at once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: BackendKind
    url: str | None = None
    model: str | None = None
    slots: StrictInt = Field(2, ge=1, le=64)
    # Whether the server batches sequences (vLLM, SGLang, llama-server): then, with FI_LLM_ADAPTIVE_LIMIT,
    # its slots are an adaptive limit up to ``slots`` (ADR 0067). Unset: the openai kind does.
    batching: bool | None = None

    @property
    def batches(self) -> bool:
        return self.batching if self.batching is not None else self.kind == "openai"

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", value):
            raise ValueError("must be 1-32 letters, digits, '_', '.' or '-'")
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else absolute_url(value)

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must be a non-empty string when given")
        return value

    @model_validator(mode="after")
    def _url_by_kind(self) -> Self:
        if self.kind == "embedded" and self.url is not None:
            raise ValueError("an embedded backend has no url")
        if self.kind != "embedded" and self.url is None:
            raise ValueError(f"url is required for kind {self.kind}")
        return self


def _pool_text(value: Any) -> Any:
    parsed = json_list_text(value, example=EXAMPLE)
    if parsed is not None and (not isinstance(parsed, list | tuple) or not parsed):
        raise ValueError("must be a non-empty JSON list of backends")
    return parsed


def _one_embedded(pool: tuple[BackendSpec, ...] | None) -> tuple[BackendSpec, ...] | None:
    if sum(spec.kind == "embedded" for spec in pool or ()) > 1:
        raise ValueError("at most one embedded backend per process (it runs on this machine's CPU)")
    return pool


BackendPool = Annotated[
    tuple[BackendSpec, ...] | None,
    named_entries("backend", "name", BackendSpec),
    BeforeValidator(_pool_text),
    AfterValidator(unique("backend", "name")),
    AfterValidator(_one_embedded),
]
PriorFields = Annotated[list[str] | None, BeforeValidator(split_list_or_none)]


class BackendSettings(Group):
    # the one-backend shorthand; FI_LLM_BACKENDS replaces these four
    kind: BackendKind = variable("FI_LLM_BACKEND", "embedded")
    base_url: str | None = variable("FI_LLM_BASE_URL", None)
    model: str | None = variable("FI_LLM_MODEL", None)
    slots: int = variable("FI_LLM_SLOTS", 2, ge=1, le=64)
    # Several backends behind one gate (docs/adr/0016)
    pool: BackendPool = variable("FI_LLM_BACKENDS", None)
    api_key: str | None = variable("FI_LLM_API_KEY", None)
    keep_alive: str = variable("FI_LLM_KEEP_ALIVE", "30m")  # Ollama's
    context_tokens: int = variable("FI_LLM_CONTEXT_TOKENS", 4096, ge=256, le=131_072)
    threads: int | None = variable("FI_LLM_THREADS", None, ge=1, le=256)
    max_output_tokens: int = variable("FI_LLM_MAX_OUTPUT_TOKENS", 512, ge=1, le=8192)
    # Fields the deterministic prior decides instead of the model. Unset: the domain's measured
    # ``priorFields`` on the packaged default model, none on any other model (measure it first:
    # ``feedctl eval``). ``none`` or ``[]`` gives every field back to the model.
    prior_fields: PriorFields = variable("FI_PRIOR_FIELDS", None)
    # The breaker of each backend (docs/adr/0020-the-gate-as-one-policy.md): this many failed calls in a
    # row (error answers, unreadable replies, deadlines, broken connections) take a backend out for the
    # cool-down, after which its readiness check probes it back in...
    breaker_failures: int = variable("FI_BREAKER_FAILURES", 3, ge=1, le=1000)
    # ...or this share of its calls failed, once it had at least 10 within the last minute.
    breaker_failure_rate: float = variable("FI_BREAKER_FAILURE_RATE", 0.5, gt=0, le=1)
    breaker_cooldown_s: float = variable("FI_BREAKER_COOLDOWN_S", 5, gt=0, le=3600)
    health_timeout_s: float = variable("FI_HEALTH_TIMEOUT_S", 10, gt=0, le=600)  # also the stall floor
    health_cache_s: float = variable("FI_HEALTH_CACHE_S", 2, ge=0, le=60)  # one probe's report serves /health
    # start-up warm-up: load the model and run one completion, so the first press is not cold (workers/warmup.py)
    warm_at_start: bool = variable("FI_WARM_AT_START", True)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return None if value is None else absolute_url(value)

    @field_validator("prior_fields")
    @classmethod
    def _structure_fields(cls, value: list[str] | None) -> list[str] | None:
        for name in value or ():
            if name not in STRUCTURE_FIELDS:
                raise ValueError(f"'{name}' is not a structure field ({', '.join(STRUCTURE_FIELDS)})")
        return value

    @model_validator(mode="after")
    def _model_file(self) -> Self:
        if self.kind == "embedded" and self.model is not None:
            # Found at boot, not minutes later as a model that never loads.
            model = Path(self.model).expanduser()
            if not model.is_file():
                raise ValueError(
                    f"FI_LLM_MODEL: no GGUF model file at {model} (the embedded backend loads a file; "
                    "unset it for the packaged SmolLM2 model)"
                )
        return self

    @property
    def specs(self) -> tuple[BackendSpec, ...]:
        """The backend pool: FI_LLM_BACKENDS, or the one-backend shorthand as a pool of one."""
        if self.pool:
            return self.pool
        url = None if self.kind == "embedded" else self.shorthand_url()
        return (BackendSpec(name=self.kind, kind=self.kind, url=url, model=self.model, slots=self.slots),)

    @property
    def total_slots(self) -> int:
        return sum(spec.slots for spec in self.specs)

    @property
    def packaged_model(self) -> bool:
        """Every backend is the embedded one on the GGUF the project ships (the model the domains were
        measured on)."""
        return all(spec.kind == "embedded" and spec.model is None for spec in self.specs)

    def shorthand_url(self) -> str:
        if self.base_url:
            return self.base_url
        return "http://127.0.0.1:11434" if self.kind == "ollama" else "http://127.0.0.1:8000"

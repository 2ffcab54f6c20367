"""Configuration: every knob is an ``FI_*`` environment variable, validated at start-up.

A bad value stops the boot with one line per fault, ``invalid configuration: FI_X: …``, and exit
status 2 (``feedctl serve``) (docs/invariants.md, invariant 10). List settings take what people write:
``a,b``, a single ``a``, or a JSON list ``["a", "b"]``.

The variables stay flat (``FI_REPORT_LLM_BUDGET``, ``settings.report_llm_budget``); code reads them
grouped by concern (ADR 0021): ``settings.gate``, ``settings.edge``, ``settings.report`` and
``settings.worker``. A group that code builds on its own too (:class:`ReportSettings`, which tests and
benchmarks construct) holds its bounds itself and the flat fields take them from it, so each bound is
written once.
"""

from __future__ import annotations

import ipaddress
import json
import re
from copy import copy
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlparse

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from feedback_intelligence.notify_routes import NotifyRoute, parse_routes
from feedback_intelligence.stores import DEFAULT_STORE_PATTERN, StoreDirectory, StoreEntry, parse_store_list

ENV_PREFIX = "FI_"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")  # as a Host header names them (IPv6 in brackets)
_POSTGRESQL_SCHEMES = frozenset(
    {
        "postgres",
        "postgresql",
        "postgresql+asyncpg",
        "postgresql+psycopg",
        "postgresql+psycopg2",
        "postgresql+psycopg2cffi",
        "postgresql+pg8000",
    }
)


def _sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names, resolved (relative paths against the working directory), or None."""
    if not url.startswith("sqlite+aiosqlite://"):
        return None
    path = url.removeprefix("sqlite+aiosqlite://").split("?", 1)[0]
    if path in ("", "/", "/:memory:") or ":memory:" in path or path.startswith("/file:"):
        return None
    # sqlite:///relative.db has path "/relative.db"; sqlite:////abs.db has "//abs.db"
    path = path[1:] if path.startswith("/") else path
    return Path(path).expanduser().resolve()


def _split_list(value: Any) -> Any:
    """``a,b`` or ``a`` or ``["a", "b"]`` → a list of non-blank, stripped strings."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise ValueError('starts with \'[\' but is not a JSON list; write a,b or ["a", "b"]') from exc
        if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
            raise ValueError("must be a JSON list of strings")
        return [item.strip() for item in parsed if item.strip()]
    return [item.strip() for item in text.split(",") if item.strip()]


def _split_list_or_none(value: Any) -> Any:
    """Like :func:`_split_list`; ``none`` (any case) is the empty list, so 'no field' can be said."""
    if isinstance(value, str) and value.strip().lower() == "none":
        return []
    return _split_list(value)


# NoDecode: pydantic-settings would otherwise insist on JSON for a list and fail with a traceback.
StringList = Annotated[list[str], NoDecode, BeforeValidator(_split_list)]

BackendKind = Literal["embedded", "ollama", "openai"]
_BACKEND_FIELDS = frozenset({"name", "kind", "url", "model", "slots"})


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One LLM backend of the pool: its public ``name`` (bodies, metrics, the status board; never its
    address), its kind, where it answers, its model, and how many calls it runs at once."""

    name: str
    kind: BackendKind
    url: str | None
    model: str | None
    slots: int


def _absolute_url(value: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError("must be an absolute http(s) URL")
    return value.rstrip("/")


def _backend_entry(index: int, item: Any) -> BackendSpec:
    where = f"backend {index + 1}"
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be an object with name, kind, url, model, slots")
    unknown = sorted(set(item) - _BACKEND_FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field '{unknown[0]}' (known: kind, model, name, slots, url)")
    name = item.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", name):
        raise ValueError(f"{where}: name must be 1-32 letters, digits, '_', '.' or '-'")
    where = f"backend '{name}'"
    kind = item.get("kind")
    if kind not in ("embedded", "ollama", "openai"):
        raise ValueError(f"{where}: kind must be one of ollama, openai, embedded")
    url = item.get("url")
    if kind == "embedded":
        if url is not None:
            raise ValueError(f"{where}: an embedded backend has no url")
    elif not isinstance(url, str):
        raise ValueError(f"{where}: url is required for kind {kind}")
    else:
        try:
            url = _absolute_url(url)
        except ValueError as exc:
            raise ValueError(f"{where}: url {exc}") from None
    model = item.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError(f"{where}: model must be a non-empty string when given")
    slots = item.get("slots", 2)
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= 64:
        raise ValueError(f"{where}: slots must be a whole number from 1 to 64")
    return BackendSpec(name, kind, url, model, slots)


def _backend_list(value: Any) -> Any:
    """``FI_LLM_BACKENDS``: a JSON list of backend objects → validated :class:`BackendSpec` s."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(
                'must be a JSON list such as [{"name": "gpu1", "kind": "ollama", '
                '"url": "http://gpu1:11434", "slots": 2}]'
            ) from None
    if not isinstance(value, list) or not value:
        raise ValueError("must be a non-empty JSON list of backends")
    specs = [item if isinstance(item, BackendSpec) else _backend_entry(i, item) for i, item in enumerate(value)]
    names = [spec.name for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"backend name '{name}' is used twice; names must be unique")
    if sum(spec.kind == "embedded" for spec in specs) > 1:
        raise ValueError("at most one embedded backend per process (it runs on this machine's CPU)")
    return specs


BackendList = Annotated[list[BackendSpec] | None, NoDecode, BeforeValidator(_backend_list)]
NotifyRouteList = Annotated[list[NotifyRoute], NoDecode, BeforeValidator(parse_routes)]
StoreList = Annotated[tuple[StoreEntry, ...] | None, NoDecode, BeforeValidator(parse_store_list)]


def iana_zone(value: str) -> str:
    """``value`` if it names an IANA time zone this machine knows (tzdata), else a ValueError."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"'{value}' is not an IANA time zone (such as Europe/Helsinki)") from None
    return value


class ReportSettings(BaseModel):
    """The report's knobs (``FI_REPORT_*``, ``FI_SYNTHESIS_*``) and their bounds, the one place of both."""

    model_config = ConfigDict(frozen=True)

    llm_budget: int = Field(4, ge=0, le=200)  # synthesis + nomination calls per report; 0 = deterministic only
    alert_verify_budget: int = Field(80, ge=0)  # per-item yes/no screen calls per report; 0 = no screen
    # every report's model calls together, a minute, in this process (report/call_rate.py)
    model_calls_per_minute: int = Field(30, ge=1, le=10_000)
    alert_nomination: bool = True
    # examples a report lists per group (its sources and item ids) and alert rows; every item still counts
    max_items: int = Field(50, ge=1)
    excerpt_chars: int = Field(120, ge=20)
    max_items_per_llm_call: int = Field(60, ge=1)
    min_items_for_trend: int = Field(6, ge=3)
    trend_z: float = Field(1.6, ge=0)
    synthesis_max_tokens: int = Field(700, ge=1)
    synthesis_temperature: float = Field(0.3, ge=0, le=2)
    cache_seconds: int = Field(900, ge=0)  # 0 = no cache
    default_window_days: int = Field(7, ge=1)
    max_window_days: int = Field(366, ge=1)  # a year and its leap day: this year beside the last
    # who writes the theme summaries: the model, the automatic summary alone, or auto = automatic on the
    # packaged SmolLM2 (measured: none of its prose passes the guards, ADR 0028), the model on any other
    prose: Literal["auto", "model", "automatic"] = "auto"
    # the IANA zone the report's days, weeks, print layout and CSV are in (the series fold UTC hours)
    timezone: str = "Europe/Helsinki"

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return iana_zone(value)

    @model_validator(mode="after")
    def _window(self) -> Self:
        if self.default_window_days > self.max_window_days:
            raise ValueError(f"default_window_days: must not exceed max_window_days ({self.max_window_days})")
        return self


# ReportSettings field -> its flat setting (FI_ + upper case).
REPORT_FIELDS: dict[str, str] = {
    name: {
        "synthesis_max_tokens": "synthesis_max_output_tokens",
        "synthesis_temperature": "synthesis_temperature",
        "timezone": "timezone",
    }.get(name, f"report_{name}")
    for name in ReportSettings.model_fields
}


def _report_field(name: str) -> Any:
    """The flat field of ReportSettings' ``name``: its default and bounds, written there once."""
    info: FieldInfo = copy(ReportSettings.model_fields[name])
    return info


@dataclass(frozen=True, slots=True)
class GateSettings:
    """The gate's settings, read together (``settings.gate``)."""

    slots: int
    background_reserve: int
    acquire_timeout_s: float
    call_timeout_s: float
    preempt_max: int
    order: str
    fair_half_life_s: float
    redis_url: str | None
    name: str
    lease_s: float


@dataclass(frozen=True, slots=True)
class EdgeSettings:
    """Who may call what, how often, how big (``settings.edge``)."""

    trusted_proxies: tuple[str, ...]
    operator_token: str | None
    cors_origins: tuple[str, ...]
    allowed_hosts: tuple[str, ...]
    rate_limit: str
    audience_rate_limit: str
    rate_limit_exempt_loopback: bool
    max_inflight_llm_per_client: int
    max_inflight_llm_per_address: int
    ipv6_prefix: int
    ipv4_prefix: int
    visitor_issue_limit: str
    max_body_bytes: int
    max_header_bytes: int
    max_connections: int
    request_read_timeout_s: float
    keep_alive_timeout_s: float


@dataclass(frozen=True, slots=True)
class AuthSettings:
    """Who is signed in and how (``settings.auth``; ADR 0030)."""

    mode: str  # none | local | oidc | proxy
    session_secret: str | None
    session_max_age_s: int
    login_rate_limit: str
    login_name_rate_limit: str
    login_address_rate_limit: str
    password_check_slots: int
    correction_window_s: int
    oidc_issuer: str | None
    oidc_client_id: str | None
    oidc_client_secret: str | None
    oidc_scopes: str
    oidc_roles_claim: str
    oidc_stores_claim: str
    oidc_role_map: dict[str, str]
    oidc_name_claim: str
    oidc_chain_value: str | None
    oidc_redirect_url: str | None
    proxy_user_header: str
    proxy_name_header: str
    proxy_roles_header: str
    proxy_stores_header: str
    stores: StoreDirectory  # the stores a grant may name (FI_STORES, else FI_STORE_PATTERN)

    @property
    def enabled(self) -> bool:
        return self.mode != "none"


@dataclass(frozen=True, slots=True)
class ChainSettings:
    """The chain's stores and bulk import (``settings.chain``; docs/adr/0027)."""

    stores: StoreDirectory
    desk_store: str | None
    batch_max_items: int
    batch_max_body_bytes: int
    batch_slots: int


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """The structure-later worker (``settings.worker``)."""

    enabled: bool
    tasks: int
    lease_s: float
    max_attempts: int
    poll_s: float
    retry_base_s: float
    max_wait_s: float | None  # a pending row older than this asks as a visitor would (None: never)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=".env", extra="ignore")

    # listen address
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)

    # LLM backend and gate
    llm_backend: Literal["embedded", "ollama", "openai"] = "embedded"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_slots: int = Field(2, ge=1, le=64)
    # Several backends behind one gate; when set it replaces the four one-backend settings above.
    llm_backends: BackendList = None
    # Slots background work (report prose, "save, interpret later", restructure) must leave free. Unset: 1,
    # but 0 where the gate has one slot, or that work would wait for the bounded wait; a clerk still
    # preempts it (ADR 0017, ADR 0046).
    llm_background_reserve: int = Field(1, ge=0, le=64)
    llm_acquire_timeout_ms: int = Field(500, ge=1, le=60_000)
    # How often one background work item may be preempted by a waiting visitor before its calls run
    # unpreempted (aging, docs/adr/0017); 0 turns preemption off.
    llm_preempt_max: int = Field(2, ge=0, le=100)
    llm_call_timeout_s: float = Field(120, gt=0, le=3600)
    # Who goes first among waiters: least attained service per visitor ("fair"), or first come ("fifo",
    # kept to measure against). Attained service decays with this half-life (docs/adr/0018-fair-shares.md).
    gate_order: Literal["fair", "fifo"] = "fair"
    fair_half_life_s: float = Field(60, gt=0, le=86_400)
    # The breaker of each backend (docs/adr/0020-the-gate-as-one-policy.md): this many failed calls in a
    # row (error answers, unreadable replies, deadlines, broken connections) take a backend out for the
    # cool-down, after which its readiness check probes it back in.
    breaker_failures: int = Field(3, ge=1, le=1000)
    # ...or this share of its calls failed, once it had at least 10 within the last minute.
    breaker_failure_rate: float = Field(0.5, gt=0, le=1)
    breaker_cooldown_s: float = Field(5, gt=0, le=3600)
    llm_max_output_tokens: int = Field(512, ge=1, le=8192)
    # Fields the deterministic prior decides instead of the model. Unset: the domain's measured
    # ``priorFields`` on the packaged default model, none on any other model (measure it first:
    # ``feedctl eval``). ``none`` or ``[]`` gives every field back to the model.
    prior_fields: Annotated[list[str] | None, NoDecode, BeforeValidator(_split_list_or_none)] = None
    llm_keep_alive: str = "30m"
    llm_context_tokens: int = Field(4096, ge=256, le=131_072)
    llm_threads: int | None = Field(None, ge=1, le=256)
    health_timeout_s: float = Field(10, gt=0, le=600)
    health_cache_s: float = Field(2, ge=0, le=60)  # one probe's report serves every /health meanwhile

    # storage
    database_url: str = "sqlite+aiosqlite:///data/feedback.db"
    live_database_url: str = "sqlite+aiosqlite:///data/desk-live.db"
    snapshot_dir: Path = Path("data/snapshots")
    # where the service keeps the secrets it makes itself (kept_secrets.py); unset: the live SQLite
    # database's folder, else ./data
    data_dir: Path | None = None

    # shared state across replicas (gate leases, rate-limit windows): unset = in-process
    redis_url: str | None = None
    gate_name: str = Field("llm", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    redis_lease_s: float = Field(10, ge=1, le=300)

    # edge
    trusted_proxies: StringList = Field(default_factory=list)
    operator_token: str | None = None
    cors_origins: StringList = Field(default_factory=list)
    rate_limit: str = "30/60seconds"
    audience_rate_limit: str = "240/60seconds"
    rate_limit_exempt_loopback: bool = True
    max_inflight_llm_per_client: int = Field(1, ge=1, le=64)
    # LLM requests in flight from one address (IPv4) or prefix (IPv6), whatever keys it holds;
    # unset = half the gate's slots, at least one (no address holds the whole GPU; ADR 0032)
    max_inflight_llm_per_address: int | None = Field(None, ge=1, le=1024)
    # how addresses aggregate for fair shares, limits and visitor keys: IPv6 by prefix (a host gets a
    # /64), IPv4 by address
    ipv6_prefix: int = Field(64, ge=16, le=128)
    ipv4_prefix: int = Field(32, ge=8, le=32)
    visitor_secret: str | None = None
    # new visitor keys one address (or IPv6 prefix) may be issued per window (limits' syntax)
    visitor_issue_limit: str = "20/hour"
    max_body_bytes: int = Field(16_384, ge=1024, le=1_048_576)
    # Host names this service answers to (exact, or "*.example.org"); empty = the listen host and
    # the loopback names. A page on another name (DNS rebinding) gets 400 before any route.
    allowed_hosts: StringList = Field(default_factory=list)

    # the HTTP server itself (feedctl serve): bounds a client cannot stretch
    max_header_bytes: int = Field(16_384, ge=4096, le=1_048_576)
    max_connections: int = Field(256, ge=8, le=100_000)
    request_read_timeout_s: float = Field(10, gt=0, le=600)
    keep_alive_timeout_s: float = Field(5, gt=0, le=600)
    request_header_timeout_s: float = Field(5, gt=0, le=600)
    # one peer's share of max_connections (IPv6 by /64); the host's own tools and trusted proxies are exempt
    max_connections_per_address: int = Field(64, ge=1, le=100_000)
    connection_share_exempt: StringList = Field(default_factory=lambda: ["127.0.0.1", "::1"])

    # people and permissions (ADR 0030): none = today's open desk, stated at boot and in /health
    auth: Literal["none", "local", "oidc", "proxy"] = "none"
    session_secret: str | None = None  # signs the CSRF token; unset = generated at start (one replica)
    session_max_age_s: int = Field(12 * 3600, ge=300, le=30 * 86_400)
    login_rate_limit: str = "5/300seconds"  # failed sign-ins at one name from one address (IPv6: its /64)
    # failed sign-ins at one name from anywhere; past it only addresses the account signed in from may try
    login_name_rate_limit: str = "100/3600seconds"
    login_address_rate_limit: str = "30/300seconds"  # sign-in attempts per client address
    password_check_slots: int = Field(1, ge=1, le=64)  # Argon2 checks at once, off the event loop
    correction_window_s: int = Field(15 * 60, ge=0, le=30 * 86_400)  # a clerk corrects their own entry
    oidc_issuer: str | None = None  # https://login.microsoftonline.com/<tenant>/v2.0, …
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = None
    oidc_scopes: str = "openid profile email"
    oidc_roles_claim: str = "roles"  # a list (or space-separated string) of roles
    oidc_stores_claim: str = "stores"  # a list of store ids, or "*"
    # the provider's role names → ours, e.g. {"FI.Manager": "manager"}; once set, an allow-list: an unmapped
    # claim value grants nothing (unset: our own names map to themselves)
    oidc_role_map: Annotated[dict[str, str], NoDecode] = Field(default_factory=dict)
    oidc_name_claim: str = Field("name", min_length=1, max_length=100)  # the shown name; else preferred_username
    # the stores-claim value that grants the whole chain (e.g. "*"); unset = no claim value does
    oidc_chain_value: str | None = Field(None, max_length=100)
    oidc_redirect_url: str | None = None  # unset = this service's /auth/oidc/callback as called
    proxy_user_header: str = "x-forwarded-user"
    proxy_name_header: str = "x-forwarded-preferred-username"
    proxy_roles_header: str = "x-forwarded-groups"
    proxy_stores_header: str = "x-forwarded-stores"

    # domain and input rules
    domain: str = "retail"
    domains_root: Path | None = None
    input_max_chars: int = Field(800, ge=1, le=100_000)
    # A stored text may be longer than the model reads: by hand or "later", the model reads its first part (ADR 0025)
    text_store_max_chars: int = Field(4000, ge=1, le=100_000)
    id_max_length: int = Field(100, ge=1, le=1000)
    query_default_limit: int = Field(200, ge=1)
    query_max_limit: int = Field(1000, ge=1)

    # report: defaults and bounds are ReportSettings' (read them as ``settings.report``)
    report_default_window_days: int = _report_field("default_window_days")
    report_max_window_days: int = _report_field("max_window_days")
    report_max_items: int = _report_field("max_items")
    report_llm_budget: int = _report_field("llm_budget")
    report_alert_verify_budget: int = _report_field("alert_verify_budget")
    report_model_calls_per_minute: int = _report_field("model_calls_per_minute")
    report_alert_nomination: bool = _report_field("alert_nomination")
    report_cache_seconds: int = _report_field("cache_seconds")
    report_max_items_per_llm_call: int = _report_field("max_items_per_llm_call")
    report_excerpt_chars: int = _report_field("excerpt_chars")
    report_min_items_for_trend: int = _report_field("min_items_for_trend")
    report_trend_z: float = _report_field("trend_z")
    synthesis_max_output_tokens: int = _report_field("synthesis_max_tokens")
    synthesis_temperature: float = _report_field("synthesis_temperature")
    report_prose: Literal["auto", "model", "automatic"] = _report_field("prose")
    timezone: str = _report_field("timezone")

    restructure_limit: int = Field(500, ge=1)

    # the chain: stores (feedback_intelligence/stores.py) and bulk import (POST /feedback/batch)
    stores: StoreList = None  # a JSON list of {"id", "name"}, or a path to a file holding one; unset = any id
    store_pattern: str = Field(DEFAULT_STORE_PATTERN, min_length=1, max_length=200)  # ids accepted without a list
    desk_store: str | None = None  # the store every desk of this service saves for (else /desk?store=…)
    batch_max_items: int = Field(1000, ge=1, le=10_000)
    # the batch routes' own body cap (FI_MAX_BODY_BYTES stays the cap of every other route)
    batch_max_body_bytes: int = Field(8_388_608, ge=1024, le=268_435_456)
    # batches one process stores at once; one that finds none free within 0.5 s is shed 503 (docs/adr/0043)
    batch_slots: int = Field(1, ge=1, le=16)

    # structure later: the worker that drains rows saved without the model (services/structuring_worker.py)
    structure_worker: bool = True
    structure_worker_tasks: int | None = Field(None, ge=1, le=65)  # unset = FI_LLM_SLOTS + 1
    structure_lease_s: float = Field(30, ge=1, le=3600)
    structure_max_attempts: int = Field(5, ge=1, le=100)
    structure_poll_s: float = Field(2, gt=0, le=600)
    structure_retry_s: float = Field(5, ge=0, le=3600)
    # the bounded wait: a row pending longer asks for a slot as a visitor would, one at a time per
    # replica (docs/adr/0031); 0 turns the bound off
    structure_max_wait_s: float = Field(120, ge=0, le=86400)

    # alerts that reach a person (docs/adr/0029-alerts-outbox-cases.md): notify routes, the
    # outbox worker (services/notify_worker.py), cases and their escalation
    notify_channels: NotifyRouteList = Field(default_factory=list)
    notify_public_url: str | None = None  # the service's address as people open it: the case link
    notify_worker: bool = True
    notify_worker_tasks: int = Field(2, ge=1, le=32)
    notify_lease_s: float = Field(30, ge=1, le=3600)
    notify_max_attempts: int = Field(12, ge=1, le=100)  # ~30 min of backoff at the defaults
    notify_retry_s: float = Field(2, ge=0, le=3600)
    notify_retry_max_s: float = Field(300, ge=1, le=86_400)
    notify_poll_s: float = Field(1, gt=0, le=600)
    notify_timeout_s: float = Field(10, gt=0, le=300)
    case_max_age_days: float = Field(7, ge=0, le=3650)  # older items (a history import) open no case, page nobody
    case_escalate_after_s: float = Field(1800, ge=1, le=2_592_000)

    # start-up warm-up: load the model and run one completion, so the first press is not cold (services/warmup.py)
    warm_at_start: bool = True

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        return iana_zone(value)

    @field_validator("llm_base_url")
    @classmethod
    def _absolute_http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError("must be an absolute http(s) URL")
        return value.rstrip("/")

    @field_validator("notify_public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        return None if value is None or not value.strip() else _absolute_url(value.strip())

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None  # FI_REDIS_URL= (empty) means unset: the in-process gate
        parsed = urlparse(value)
        if parsed.scheme not in ("redis", "rediss") or not parsed.hostname:
            raise ValueError("must be a redis:// or rediss:// URL with a host")
        return value

    @field_validator("trusted_proxies", "connection_share_exempt")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError as exc:
                raise ValueError(f"'{entry}' is not an IP address or CIDR") from exc
        return value

    @field_validator("oidc_role_map", mode="before")
    @classmethod
    def _role_map(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else {}
            except json.JSONDecodeError as exc:
                raise ValueError('must be a JSON object, e.g. {"FI.Manager": "manager"}') from exc
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and v in ("clerk", "manager", "operator") for k, v in value.items()
        ):
            raise ValueError("must map the provider's role names to clerk, manager or operator")
        return value

    @field_validator("proxy_user_header", "proxy_name_header", "proxy_roles_header", "proxy_stores_header")
    @classmethod
    def _header_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]{1,64}", value):
            raise ValueError("must be an HTTP header name")
        return value.lower()

    @field_validator("store_pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"is not a regular expression ({exc})") from None
        return value

    @field_validator("desk_store", "oidc_chain_value")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator("prior_fields")
    @classmethod
    def _structure_fields(cls, value: list[str] | None) -> list[str] | None:
        known = ("category", "theme", "severity", "type", "sentiment", "language")
        for name in value or ():
            if name not in known:
                raise ValueError(f"'{name}' is not a structure field ({', '.join(known)})")
        return value

    @property
    def packaged_default_model(self) -> bool:
        """The embedded backend on the GGUF the project ships (the model the domains were measured on)."""
        # every backend of the pool (FI_LLM_BACKENDS, or the shorthand's one)
        return all(spec.kind == "embedded" and spec.model is None for spec in self.backend_specs)

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            parsed = urlparse(origin)
            if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path not in ("",):
                raise ValueError(f"'{origin}' must be an origin like https://shop.example (no path)")
        return value

    @field_validator(
        "rate_limit",
        "audience_rate_limit",
        "visitor_issue_limit",
        "login_rate_limit",
        "login_name_rate_limit",
        "login_address_rate_limit",
    )
    @classmethod
    def _rate(cls, value: str) -> str:
        from limits import parse

        try:
            parse(value)
        except ValueError as exc:
            raise ValueError(f"'{value}' is not a rate such as 30/60seconds") from exc
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        for host in value:
            if (
                not host
                or "/" in host
                or (host != "*" and "*" in host[1:])
                or (host.startswith("*") and host != "*" and not host.startswith("*."))
            ):
                raise ValueError(f"'{host}' must be a host name, an address, '*.domain' or '*'")
        return [host.lower() for host in value]

    @field_validator("database_url", "live_database_url")
    @classmethod
    def _db_url(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        scheme, sep, rest = value.partition("://")
        if not sep:
            raise ValueError("must be a sqlite:// or postgresql:// URL")
        # Accept the spellings operators copy from psql or other SQLAlchemy apps (any driver
        # suffix) and use the driver this project ships: asyncpg, aiosqlite.
        if scheme.lower() in _POSTGRESQL_SCHEMES:
            return f"postgresql+asyncpg://{rest}"
        if scheme.lower() in ("sqlite", "sqlite+aiosqlite", "sqlite+pysqlite"):
            return f"sqlite+aiosqlite://{rest}"
        raise ValueError("must be a sqlite:// or postgresql:// URL")

    @model_validator(mode="after")
    def _cross_field(self) -> Settings:
        if "llm_background_reserve" not in self.model_fields_set and self.total_slots == 1:
            self.llm_background_reserve = 0  # the one slot is not kept idle (ADR 0046)
        # Each message starts with the variable to change, as the per-field messages do.
        if self.query_default_limit > self.query_max_limit:
            raise ValueError(f"FI_QUERY_DEFAULT_LIMIT: must not exceed FI_QUERY_MAX_LIMIT ({self.query_max_limit})")
        try:
            self.report  # noqa: B018 - the group's own rules across its fields, named by their variables
        except ValidationError as exc:
            raise ValueError(_flat_names(_message(exc.errors()[0]))) from None
        if self.database_url == self.live_database_url or (
            _sqlite_file(self.database_url) is not None
            and _sqlite_file(self.database_url) == _sqlite_file(self.live_database_url)
        ):
            raise ValueError(
                "FI_LIVE_DATABASE_URL: must name a different database than FI_DATABASE_URL "
                f"(both are {_sqlite_file(self.database_url) or self.database_url})"
            )
        if self.max_body_bytes < self.input_max_chars:
            raise ValueError(f"FI_MAX_BODY_BYTES: must be at least FI_INPUT_MAX_CHARS ({self.input_max_chars})")
        if self.text_store_max_chars < self.input_max_chars:
            raise ValueError(
                f"FI_TEXT_STORE_MAX_CHARS: must be at least FI_INPUT_MAX_CHARS ({self.input_max_chars}): "
                "a text the model may read can always be stored"
            )
        if self.max_body_bytes < self.text_store_max_chars:
            raise ValueError(
                f"FI_MAX_BODY_BYTES: must be at least FI_TEXT_STORE_MAX_CHARS ({self.text_store_max_chars})"
            )
        if self.auth == "oidc" and not (self.oidc_issuer and self.oidc_client_id and self.oidc_client_secret):
            raise ValueError("FI_AUTH: oidc needs FI_OIDC_ISSUER, FI_OIDC_CLIENT_ID and FI_OIDC_CLIENT_SECRET")
        if self.auth == "proxy" and not self.trusted_proxies:
            raise ValueError("FI_AUTH: proxy needs FI_TRUSTED_PROXIES (the identity header is believed from them only)")
        if self.desk_store is not None and not self.chain.stores.accepts(self.desk_store):
            raise ValueError(f"FI_DESK_STORE: '{self.desk_store}' is not {self.chain.stores.rule()}")
        if self.batch_max_body_bytes < self.max_body_bytes:
            raise ValueError(f"FI_BATCH_MAX_BODY_BYTES: must be at least FI_MAX_BODY_BYTES ({self.max_body_bytes})")
        if self.llm_backend == "embedded" and self.llm_model is not None:
            # Found at boot, not minutes later as a model that never loads.
            model = Path(self.llm_model).expanduser()
            if not model.is_file():
                raise ValueError(
                    f"FI_LLM_MODEL: no GGUF model file at {model} (the embedded backend loads a file; "
                    "unset it for the packaged SmolLM2 model)"
                )
        return self

    @property
    def effective_allowed_hosts(self) -> list[str]:
        """FI_ALLOWED_HOSTS, or by default the listen host (unless a wildcard address) and the loopback names."""
        if self.allowed_hosts:
            return self.allowed_hosts
        hosts = list(LOOPBACK_NAMES)
        if self.host not in ("0.0.0.0", "::", ""):
            listen = f"[{self.host.lower()}]" if ":" in self.host else self.host.lower()
            if listen not in hosts:
                hosts.append(listen)
        return hosts

    @property
    def secrets_dir(self) -> Path:
        """Where a secret the service makes is kept: FI_DATA_DIR, else beside the live SQLite database
        (the desk's data, whose authors the visitor secret names), else ./data."""
        if self.data_dir is not None:
            return self.data_dir
        live = _sqlite_file(self.live_database_url)
        return live.parent if live is not None else Path("data")

    @property
    def acquire_timeout_s(self) -> float:
        return self.llm_acquire_timeout_ms / 1000

    @property
    def report(self) -> ReportSettings:
        """The report's settings, ``prose`` resolved: ``auto`` is automatic on the packaged model only."""
        values = {name: getattr(self, flat) for name, flat in REPORT_FIELDS.items()}
        if values["prose"] == "auto":
            values["prose"] = "automatic" if self.packaged_default_model else "model"
        return ReportSettings(**values)

    @property
    def gate(self) -> GateSettings:
        return GateSettings(
            slots=self.total_slots,
            background_reserve=self.llm_background_reserve,
            acquire_timeout_s=self.acquire_timeout_s,
            call_timeout_s=self.llm_call_timeout_s,
            preempt_max=self.llm_preempt_max,
            order=self.gate_order,
            fair_half_life_s=self.fair_half_life_s,
            redis_url=self.redis_url,
            name=self.gate_name,
            lease_s=self.redis_lease_s,
        )

    @property
    def edge(self) -> EdgeSettings:
        return EdgeSettings(
            trusted_proxies=tuple(self.trusted_proxies),
            operator_token=self.operator_token,
            cors_origins=tuple(self.cors_origins),
            allowed_hosts=tuple(self.effective_allowed_hosts),
            rate_limit=self.rate_limit,
            audience_rate_limit=self.audience_rate_limit,
            rate_limit_exempt_loopback=self.rate_limit_exempt_loopback,
            max_inflight_llm_per_client=self.max_inflight_llm_per_client,
            max_inflight_llm_per_address=self.max_inflight_llm_per_address or max(1, self.total_slots // 2),
            ipv6_prefix=self.ipv6_prefix,
            ipv4_prefix=self.ipv4_prefix,
            visitor_issue_limit=self.visitor_issue_limit,
            max_body_bytes=self.max_body_bytes,
            max_header_bytes=self.max_header_bytes,
            max_connections=self.max_connections,
            request_read_timeout_s=self.request_read_timeout_s,
            keep_alive_timeout_s=self.keep_alive_timeout_s,
        )

    @cached_property
    def chain(self) -> ChainSettings:
        return ChainSettings(
            stores=StoreDirectory(self.stores, self.store_pattern),
            desk_store=self.desk_store,
            batch_max_items=self.batch_max_items,
            batch_max_body_bytes=self.batch_max_body_bytes,
            batch_slots=self.batch_slots,
        )

    @property
    def auth_settings(self) -> AuthSettings:
        return AuthSettings(
            mode=self.auth,
            session_secret=self.session_secret,
            session_max_age_s=self.session_max_age_s,
            login_rate_limit=self.login_rate_limit,
            login_name_rate_limit=self.login_name_rate_limit,
            login_address_rate_limit=self.login_address_rate_limit,
            password_check_slots=self.password_check_slots,
            correction_window_s=self.correction_window_s,
            oidc_issuer=self.oidc_issuer,
            oidc_client_id=self.oidc_client_id,
            oidc_client_secret=self.oidc_client_secret,
            oidc_scopes=self.oidc_scopes,
            oidc_roles_claim=self.oidc_roles_claim,
            oidc_stores_claim=self.oidc_stores_claim,
            oidc_role_map=dict(self.oidc_role_map),
            oidc_name_claim=self.oidc_name_claim,
            oidc_chain_value=self.oidc_chain_value,
            oidc_redirect_url=self.oidc_redirect_url,
            proxy_user_header=self.proxy_user_header,
            proxy_name_header=self.proxy_name_header,
            proxy_roles_header=self.proxy_roles_header,
            proxy_stores_header=self.proxy_stores_header,
            stores=self.chain.stores,
        )

    @property
    def worker(self) -> WorkerSettings:
        return WorkerSettings(
            enabled=self.structure_worker,
            tasks=self.structure_worker_tasks or self.total_slots + 1,
            lease_s=self.structure_lease_s,
            max_attempts=self.structure_max_attempts,
            poll_s=self.structure_poll_s,
            retry_base_s=self.structure_retry_s,
            max_wait_s=self.structure_max_wait_s or None,
        )

    @property
    def backend_specs(self) -> list[BackendSpec]:
        """The backend pool: FI_LLM_BACKENDS, or the one-backend shorthand as a pool of one."""
        if self.llm_backends:
            return list(self.llm_backends)
        url = None if self.llm_backend == "embedded" else self.backend_base_url()
        return [BackendSpec(self.llm_backend, self.llm_backend, url, self.llm_model, self.llm_slots)]

    @property
    def total_slots(self) -> int:
        return sum(spec.slots for spec in self.backend_specs)

    def backend_base_url(self) -> str:
        if self.llm_base_url:
            return self.llm_base_url
        return "http://127.0.0.1:11434" if self.llm_backend == "ollama" else "http://127.0.0.1:8000"


class ConfigurationError(Exception):
    """Raised at boot when a setting is invalid; the message names each bad setting."""


PREFIX = "invalid configuration: "
# Settings whose value is never repeated in the error: FI_NOTIFY_CHANNELS holds webhook secrets, chat
# webhook URLs (a Slack or Teams URL is its secret) and SMTP passwords, and the boot log is no place for them.
_NOT_ECHOED = frozenset({"notify_channels"})


def _message(item: Any) -> str:
    message = str(item["msg"])
    for noise in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(noise)
    return message


def _flat_names(message: str) -> str:
    """A group's message with its field names as the variables people set (``FI_REPORT_MAX_ITEMS``)."""
    for name, flat in sorted(REPORT_FIELDS.items(), key=lambda item: -len(item[0])):
        message = re.sub(rf"\b{name}\b", f"{ENV_PREFIX}{flat.upper()}", message)
    return message


def describe_validation_error(error: ValidationError) -> str:
    """One line per fault, each naming its variable: ``invalid configuration: FI_PORT: … (got 'x')``."""
    lines = []
    for item in error.errors():
        location = "_".join(str(part) for part in item["loc"] if not isinstance(part, int)).upper()
        if location.lower() in _NOT_ECHOED:
            lines.append(f"{PREFIX}{ENV_PREFIX}{location}: {_message(item)}")
        elif location:
            lines.append(f"{PREFIX}{ENV_PREFIX}{location}: {_message(item)} (got {item.get('input')!r})")
        else:  # a rule across settings: its message starts with the variable's name
            lines.append(f"{PREFIX}{_message(item)}")
    return "\n".join(lines)


def load_settings(**overrides: Any) -> Settings:
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigurationError(describe_validation_error(exc)) from exc
    except SettingsError as exc:  # a value pydantic-settings could not even decode (e.g. a .env it cannot read)
        raise ConfigurationError(f"{PREFIX}{exc}") from exc

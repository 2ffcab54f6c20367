"""Prometheus collectors, one registry per app instance (tests build many apps in one process)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector


class Rejected(Protocol):
    """What a guard's rejection tells the metrics (``guards.rejection.Rejection`` has it); metrics imports no
    layer above it, so the dependency points down only."""

    @property
    def field(self) -> str: ...

    @property
    def reason(self) -> str: ...


def _seconds_buckets(ceiling_s: float) -> tuple[float, ...]:
    """Buckets that reach the call deadline; the library's default stops at 10 s."""
    base = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 90, 120, 180, 300, 600, 1800]
    buckets = [b for b in base if b < ceiling_s] + [ceiling_s]
    return tuple(sorted(set(buckets)))


class StoredTotals(Collector):
    """Quality from the field (ADR 0065) as counters whose values are the database's totals, set before each
    scrape: every replica reports the same figures, a restart loses none, and Prometheus rates them per week.
    Labels are store × backend × model (× field); the week is left to ``increase(…[1w])``. A total that
    falls (an erasure, a model restructure of a saved entry) reads to Prometheus as a counter reset."""

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str, str], int] = {}
        self.corrected: dict[tuple[str, str, str, str], int] = {}

    def update(
        self, saved: Mapping[tuple[str, str, str], int], corrected: Mapping[tuple[str, str, str, str], int]
    ) -> None:
        self.saved, self.corrected = dict(saved), dict(corrected)

    def collect(self) -> Iterator[CounterMetricFamily]:
        saved = CounterMetricFamily(
            "fi_field_proposals_saved",
            "Entries saved from a model's proposal (stored total), by store, backend and model",
            labels=["store", "backend", "model"],
        )
        for key, n in sorted(self.saved.items()):
            saved.add_metric(list(key), n)
        corrected = CounterMetricFamily(
            "fi_field_corrections",
            "Saved proposals in which a person corrected the field (stored total), by store, backend, model and field",
            labels=["store", "backend", "model", "field"],
        )
        for ckey, n in sorted(self.corrected.items()):
            corrected.add_metric(list(ckey), n)
        yield saved
        yield corrected


class Metrics:
    def __init__(self, call_deadline_s: float = 120.0, acquire_timeout_s: float = 0.5) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.gate_slots = Gauge("fi_gate_slots", "LLM gate slots (= backend parallelism)", registry=r)
        self.gate_in_use = Gauge("fi_gate_in_use", "LLM gate slots held right now", registry=r)
        self.gate_store_up = Gauge(
            "fi_gate_store_up",
            "1 while the gate's slot store answers (always 1 in-process; Redis when shared)",
            registry=r,
        )
        self.gate_store_up.set(1)
        self.gate_waiting = Gauge("fi_gate_waiting", "Calls waiting for a slot", ["priority"], registry=r)
        self.gate_admitted = Counter(
            "fi_gate_admitted_total", "Calls admitted into a slot", ["route", "priority"], registry=r
        )
        self.gate_sheds = Counter(
            "fi_gate_sheds_total", "Calls shed instead of queued", ["route", "priority", "reason"], registry=r
        )
        self.gate_retries = Counter(
            "fi_gate_retries_total",
            "Interactive calls that failed on one backend and were tried once more on another",
            ["route"],
            registry=r,
        )
        self.gate_preemptions = Counter(
            "fi_gate_preemptions_total",
            "Background calls cancelled to give their slot to a waiting visitor (by the preempted call's route)",
            ["route"],
            registry=r,
        )
        self.gate_acquire_wait = Histogram(
            "fi_gate_acquire_wait_seconds",
            "Time spent waiting for a slot (admitted or shed)",
            ["priority"],
            buckets=_seconds_buckets(max(acquire_timeout_s * 2, 1.0)),
            registry=r,
        )
        self.llm_call_duration = Histogram(
            "fi_llm_call_duration_seconds",
            "Slot hold time of one LLM call, by outcome",
            ["route", "outcome"],
            buckets=_seconds_buckets(call_deadline_s),
            registry=r,
        )
        self.llm_tokens = Counter("fi_llm_tokens_total", "Tokens reported by the backend", ["kind"], registry=r)
        self.gate_busy_seconds = Counter(
            "fi_gate_busy_slot_seconds_total", "Slot-seconds held (busy fraction = rate / slots)", registry=r
        )
        self.gate_stalled = Gauge(
            "fi_gate_stalled",
            "1 while every slot is held and none has been freed for longer than the stall threshold",
            registry=r,
        )
        # One series per backend of the pool, labelled by its public name (never its address).
        self.backend_slots = Gauge("fi_backend_slots", "Slots of each LLM backend", ["backend"], registry=r)
        self.backend_yielding = Gauge(
            "fi_backend_limit_yielding",
            "1 while a backend's adaptive limit holds back for another load it sees on the GPU",
            ["backend"],
            registry=r,
        )
        self.backend_in_use = Gauge(
            "fi_backend_in_use", "Slots of each backend held by this process", ["backend"], registry=r
        )
        self.backend_admitted = Counter(
            "fi_backend_admitted_total", "Calls sent to each backend", ["backend"], registry=r
        )
        self.backend_failures = Counter(
            "fi_backend_failures_total",
            "Calls a backend failed to answer, by outcome",
            ["backend", "outcome"],
            registry=r,
        )
        self.backend_up = Gauge(
            "fi_backend_up", "1 while a backend serves, 0 while its breaker holds it out", ["backend"], registry=r
        )
        # The embedded backend's engine processes (docs/adr/0019-engine-out-of-process.md).
        self.engine_restarts = Counter(
            "fi_engine_restarts_total",
            "Engine child processes that ended and were restarted, by how they ended (SIGSEGV, SIGKILL, exit, …)",
            ["backend", "engine", "cause"],
            registry=r,
        )
        self.engine_up = Gauge(
            "fi_engine_up", "1 while an engine child process is loaded and serving", ["backend", "engine"], registry=r
        )
        self.engine_crash_loop = Gauge(
            "fi_engine_crash_loop",
            "1 while an engine keeps exiting without answering in between (retried at the longest backoff)",
            ["backend", "engine"],
            registry=r,
        )
        self.engine_rss = Gauge(
            "fi_engine_rss_bytes", "Resident memory of each engine child process", ["backend", "engine"], registry=r
        )
        self.backend_stalled = Gauge(
            "fi_backend_stalled",
            "1 while every slot of a backend is held and none has been freed for longer than the stall threshold",
            ["backend"],
            registry=r,
        )
        self.health_probes = Counter("fi_health_probes_total", "Health probe outcomes", ["outcome"], registry=r)
        self.health_status = Gauge(
            "fi_health_status",
            "The last /health verdict (1 for the current status, 0 for the others)",
            ["status"],
            registry=r,
        )
        # Every HTTP request, the edge's own refusals included (edge/http_metrics.py): by the route table's
        # template (never the raw path, so ids and scanners' paths add no series), method and status.
        self.http_requests = Counter(
            "fi_http_requests_total",
            "HTTP requests answered, by route template, method and status",
            ["route", "method", "status"],
            registry=r,
        )
        self.http_request_duration = Histogram(
            "fi_http_request_duration_seconds",
            "From the request's arrival to its response's last byte, by route template, method and status",
            ["route", "method", "status"],
            buckets=_seconds_buckets(call_deadline_s),
            registry=r,
        )
        self.http_rate_limited = Counter("fi_http_rate_limited_total", "Requests answered 429", ["reason"], registry=r)
        self.feedback_ingested = Counter(
            "fi_feedback_ingested_total", "Feedback rows stored", ["channel", "path"], registry=r
        )
        self.batches_in_use = Gauge(
            "fi_batch_slots_in_use", "Bulk-import batches being stored right now (FI_BATCH_SLOTS)", registry=r
        )
        self.batch_sheds = Counter(
            "fi_batch_sheds_total", "Bulk-import batches answered 503: every batch slot stayed taken", registry=r
        )
        self.report_llm_fallbacks = Counter(
            "fi_report_llm_fallbacks_total", "Report LLM parts that fell back to deterministic text", registry=r
        )
        self.structure_later = Counter(
            "fi_structure_later_total",
            "Rows the structure-later worker settled or gave back, by outcome",
            ["outcome"],
            registry=r,
        )
        self.structure_backlog = Gauge(
            "fi_structure_backlog", "Rows saved for later and not structured yet", ["channel"], registry=r
        )
        self.structure_backlog_oldest = Gauge(
            "fi_structure_backlog_oldest_seconds",
            "Age of the oldest row still waiting for the model",
            ["channel"],
            registry=r,
        )
        # Notifications through the outbox (workers/notify_worker.py, docs/adr/0029-alerts-outbox-cases.md).
        self.notify_outbox = Gauge(
            "fi_notify_outbox", "Outbox rows by channel database and state", ["channel", "state"], registry=r
        )
        self.notify_outbox_oldest = Gauge(
            "fi_notify_outbox_oldest_pending_seconds",
            "Age of the oldest notification not delivered yet",
            ["channel"],
            registry=r,
        )
        self.notify_deliveries = Counter(
            "fi_notify_deliveries_total",
            "Delivery attempts by route and outcome (delivered, retry, failed, cancelled, lost)",
            ["route", "outcome"],
            registry=r,
        )
        self.notify_latency = Histogram(
            "fi_notify_latency_seconds",
            "From the item's save to its notification's delivery",
            ["route"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600),
            registry=r,
        )
        self.report_prose_rejected = Counter(
            "fi_report_prose_rejected_total",
            "Model prose a guard kept from the report, by reason",
            ["reason"],
            registry=r,
        )
        self.report_prose_generations = Counter(
            "fi_report_prose_generations_total",
            "Background report prose generations, by outcome",
            ["outcome"],
            registry=r,
        )
        self.report_model_calls = Counter(
            "fi_report_model_calls_total",
            "Report model calls (prose, nominations, alert screens): started, or kept off by the per-minute bound",
            ["outcome"],
            registry=r,
        )
        self.guard_rejections = Counter(
            "fi_guard_rejections_total", "Model values a guard rejected and replaced", ["field", "reason"], registry=r
        )
        self.field_quality = StoredTotals()
        r.register(self.field_quality)

    def count_rejections(self, rejections: Iterable[Rejected]) -> None:
        for rejection in rejections:
            self.guard_rejections.labels(field=rejection.field, reason=rejection.reason).inc()

"""The objects one running service is made of, built once at start-up and closed at shutdown."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.deterministic.language import warm as warm_language_detection
from feedback_intelligence.domain.loader import DomainError, load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.factory import build_gate
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.llm.backend import LlmBackend
from feedback_intelligence.llm.factory import build_backends
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.notify_routes import check_against
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.report.call_rate import CallRate
from feedback_intelligence.report.prose_store import MemoryProseStore, ProseStore, RedisProseStore
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.services import tombstones
from feedback_intelligence.services.alert_intake import AlertIntake
from feedback_intelligence.services.cases import CaseService
from feedback_intelligence.services.channels import CORPUS, INBOX, LIVE, Channel, ChannelEpochs, InboxEpochs
from feedback_intelligence.services.health import HealthService
from feedback_intelligence.services.ingest import IngestService
from feedback_intelligence.services.interpret import InterpretService
from feedback_intelligence.services.notify_worker import NotifyOptions, NotifyWorker
from feedback_intelligence.services.rederive import RederivePass
from feedback_intelligence.services.restructure import RestructureService
from feedback_intelligence.services.structuring_worker import StructuringWorker, WorkerOptions
from feedback_intelligence.settings import ConfigurationError, ReportSettings, Settings
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.structuring.service import StructuringService
from feedback_intelligence.text import morphology

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    metrics: Metrics
    backend: LlmBackend  # the first of the pool (the only one under the one-backend shorthand)
    gate: LlmGate
    runner: PromptRunner
    health: HealthService
    domain: Domain
    channels: dict[str, Channel]
    interpret: InterpretService
    ingest: IngestService
    restructure: RestructureService
    report_options: ReportSettings
    reports: dict[str, ReportService]
    worker: StructuringWorker
    report_prose: ProseStore
    notify: NotifyWorker
    intake: AlertIntake
    cases: CaseService
    rederive: RederivePass

    async def aclose(self) -> None:
        await self.rederive.stop()
        await self.notify.stop()
        await self.worker.stop()
        for report in self.reports.values():
            await report.aclose()
        await self.report_prose.aclose()
        for channel in self.channels.values():
            await channel.store.aclose()
        for backend in self.runner.backends.values() or [self.backend]:
            await backend.aclose()
        await self.gate.aclose()


def load_configured_domain(settings: Settings) -> Domain:
    try:
        return load_domain(settings.domain, settings.domains_root)
    except DomainError as exc:
        raise ConfigurationError(f"invalid configuration: FI_DOMAIN: {exc}") from exc


def with_prior_fields(domain: Domain, settings: Settings) -> Domain:
    """The fields the prior decides on this deployment (``FI_PRIOR_FIELDS``; see settings).

    A domain's ``priorFields`` were measured on the packaged default model: a model the operator
    chose is not silently overruled by them, it is measured (``feedctl eval``) and configured.
    """
    if settings.prior_fields is not None:
        fields = tuple(settings.prior_fields)
    else:
        fields = domain.prior_fields if settings.packaged_default_model else ()
    return domain if fields == domain.prior_fields else replace(domain, prior_fields=fields)


def warn_if_prior_unmeasured(settings: Settings) -> None:
    """Say at boot that a model nobody measured decides every field, and how to measure it."""
    if settings.prior_fields is not None or settings.packaged_default_model:
        return
    models = ", ".join(f"{spec.name}: {spec.kind} {spec.model or 'default model'}" for spec in settings.backend_specs)
    log.warning(
        "no measured priorFields for this model (%s): the model decides every field, also where the domain's "
        "rules are known to do better. Measure it first: `feedctl eval --url <this service>` prints the "
        "FI_PRIOR_FIELDS line its figures recommend; set it (FI_PRIOR_FIELDS=none keeps every field with the "
        "model and silences this warning)",
        models,
    )


async def build_runtime(
    settings: Settings, backend: LlmBackend | None = None, *, domain: Domain | None = None
) -> Runtime:
    domain = with_prior_fields(domain or load_configured_domain(settings), settings)
    warn_if_prior_unmeasured(settings)
    metrics = Metrics(settings.llm_call_timeout_s, settings.acquire_timeout_s)
    # A backend handed in (tests, tools) stands for the whole pool under the first backend's name.
    backends = {settings.backend_specs[0].name: backend} if backend is not None else build_backends(settings, metrics)
    backend = next(iter(backends.values()))
    gate = build_gate(settings, metrics, {name: b.readiness for name, b in backends.items()})
    runner = PromptRunner(gate, backend, metrics, backends)
    derive = DomainDeriver(domain)  # every write of a record writes its derived columns (ADR 0024 section 2)
    channels = {
        CORPUS: Channel(CORPUS, FeedbackStore(settings.database_url, name=CORPUS, derive=derive)),
        LIVE: Channel(LIVE, FeedbackStore(settings.live_database_url, name=LIVE, derive=derive)),
    }
    for channel in channels.values():
        await channel.store.migrate()
    shared = await tombstones.share(list(channels.values()))  # an erased id is refused in every channel
    if shared:
        log.info("tombstones: %d erased id(s) now refused in another channel too", shared)
    intake, notify, case_service = build_alerting(settings, domain, channels, metrics)
    # The language models load once here (seconds, holding the GIL), never inside a request.
    await asyncio.to_thread(warm_language_detection, domain.detection_languages)
    morphology.warm()  # Voikko loads in ~30 ms; the log says once whether Finnish base forms are on
    structuring = StructuringService(
        runner,
        domain,
        max_tokens=settings.llm_max_output_tokens,
        metrics=metrics,
        read_max_chars=settings.input_max_chars,  # a longer stored text: the model reads its first part
    )
    report_options = settings.report
    # Shared between replicas when they share Redis: one prose generation per window between them.
    report_prose: ProseStore = (
        RedisProseStore(settings.redis_url, settings.gate_name) if settings.redis_url else MemoryProseStore()
    )
    call_rate = CallRate(report_options.model_calls_per_minute, metrics)  # every report's calls together
    reports = {
        name: ReportService(
            domain,
            report_options,
            runner,
            StoreSource([channel.store]),
            epochs=ChannelEpochs(channel),
            prose=report_prose,
            metrics=metrics,
            channel=name,
            count_cases=case_service.counts_by_item,
            call_rate=call_rate,
        )
        for name, channel in channels.items()
    }
    # The management view's one inbox: both databases added key by key (ADR 0024 section 1, ADR 0034)
    reports[INBOX] = ReportService(
        domain,
        report_options,
        runner,
        StoreSource([channels[CORPUS].store, channels[LIVE].store]),
        epochs=InboxEpochs([channels[LIVE], channels[CORPUS]]),
        prose=report_prose,
        metrics=metrics,
        channel=INBOX,
        count_cases=case_service.counts_by_item,
        call_rate=call_rate,
    )
    for each in backends.values():
        await each.start()
    await _announce_parallelism(settings, backends)
    worker = StructuringWorker(
        domain,
        structuring,
        [channels[LIVE], channels[CORPUS]],  # the desk's entries before an import's
        WorkerOptions(
            tasks=settings.worker.tasks,
            lease_s=settings.worker.lease_s,
            max_attempts=settings.worker.max_attempts,
            poll_s=settings.worker.poll_s,
            retry_base_s=settings.worker.retry_base_s,
            max_wait_s=settings.worker.max_wait_s,
        ),
        metrics,
    )
    if settings.structure_worker:
        worker.start()
    rederive = RederivePass([channels[LIVE], channels[CORPUS]])
    rederive.start()
    return Runtime(
        settings=settings,
        metrics=metrics,
        backend=backend,
        gate=gate,
        runner=runner,
        health=HealthService(
            gate,
            backend,
            settings.health_timeout_s,
            metrics=metrics,
            cache_s=settings.health_cache_s,
            backends=backends,
        ),
        domain=domain,
        channels=channels,
        interpret=InterpretService(domain, structuring),
        ingest=IngestService(domain, structuring, on_later=worker.wake),
        restructure=RestructureService(domain, structuring, settings.restructure_limit),
        report_options=report_options,
        reports=reports,
        worker=worker,
        report_prose=report_prose,
        notify=notify,
        intake=intake,
        cases=case_service,
        rederive=rederive,
    )


def build_alerting(
    settings: Settings, domain: Domain, channels: dict[str, Channel], metrics: Metrics
) -> tuple[AlertIntake, NotifyWorker, CaseService]:
    """What a saved alert starts (composed into each channel's insert), the worker that delivers it, and
    the cases (whose escalation check runs in the worker's loop)."""
    try:
        check_against(settings.notify_channels, domain.alert_keywords, domain.severities)
    except ValueError as exc:
        raise ConfigurationError(f"invalid configuration: FI_NOTIFY_CHANNELS: {exc}") from exc
    intake = AlertIntake(domain, tuple(settings.notify_channels), settings.case_max_age_days)
    for name, channel in channels.items():
        channel.on_save = intake.hook(name)
    notify = NotifyWorker(
        domain,
        [channels[LIVE], channels[CORPUS]],
        settings.notify_channels,
        NotifyOptions(
            tasks=settings.notify_worker_tasks,
            lease_s=settings.notify_lease_s,
            max_attempts=settings.notify_max_attempts,
            retry_base_s=settings.notify_retry_s,
            retry_max_s=settings.notify_retry_max_s,
            poll_s=settings.notify_poll_s,
            timeout_s=settings.notify_timeout_s,
            public_url=settings.notify_public_url,
        ),
        metrics,
    )
    case_service = CaseService(domain, channels, intake, settings.case_escalate_after_s)

    async def escalate() -> None:
        await case_service.escalate_due()

    notify.ticks.append(escalate)
    if settings.notify_worker:
        notify.start()
        for channel in channels.values():
            channel.after_save = notify.wake  # deliver this replica's saves at once, not at the next poll
    return intake, notify, case_service


async def _announce_parallelism(settings: Settings, backends: dict[str, LlmBackend]) -> None:
    """Say what parallelism the gate expects of each backend, and check it where the backend can tell."""
    total = sum(spec.slots for spec in settings.backend_specs)
    log.info(
        "LLM gate: %d slot(s) over %d backend(s), %d kept free from background work, %d ms acquire timeout, "
        "%g s call deadline",
        total,
        len(backends),
        settings.llm_background_reserve,
        settings.llm_acquire_timeout_ms,
        settings.llm_call_timeout_s,
    )
    if settings.llm_background_reserve >= total:
        log.warning(
            "FI_LLM_BACKGROUND_RESERVE=%d keeps every slot for live visitors: report prose and restructure "
            "will always fall back",
            settings.llm_background_reserve,
        )
    for spec in settings.backend_specs:
        backend = backends.get(spec.name)
        if backend is None:  # a backend handed in stands for the pool under the first name
            continue
        log.info("backend %s (%s) must run exactly %d call(s) in parallel", spec.name, backend.kind, spec.slots)
        try:
            info = await backend.info()
        except Exception as exc:  # informational only; never blocks the boot
            log.info("could not ask backend %s for its parallelism: %s", spec.name, exc)
            continue
        if info.parallelism is not None and info.parallelism != spec.slots:
            log.warning(
                "backend %s reports %d parallel slot(s) but the gate admits %d: set them equal",
                spec.name,
                info.parallelism,
                spec.slots,
            )

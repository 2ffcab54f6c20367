"""The objects one running service is made of, built once at start-up and closed at shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from feedback_intelligence.config import BackendSettings, ConfigurationError, NotifySettings, ReportSettings, Settings
from feedback_intelligence.config.notify_routes import check_against
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.loader import DomainError, load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.factory import build_gate
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.backend import LlmBackend
from feedback_intelligence.llm.factory import build_backends
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.report.prose.call_rate import CallRate
from feedback_intelligence.report.prose.store import MemoryProseStore, ProseStore, RedisProseStore
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.services import tombstones
from feedback_intelligence.services.alert_intake import AlertIntake
from feedback_intelligence.services.batch_pool import BatchPool
from feedback_intelligence.services.batch_slots import BatchSlots
from feedback_intelligence.services.case_due import DueTerms
from feedback_intelligence.services.cases import CaseService
from feedback_intelligence.services.channels import CORPUS, INBOX, LIVE, Channel, ChannelEpochs, InboxEpochs
from feedback_intelligence.services.health import HealthService
from feedback_intelligence.services.ingest import IngestService
from feedback_intelligence.services.interpret import InterpretService
from feedback_intelligence.services.restructure import RestructureService
from feedback_intelligence.store.accounts import AccountStore
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.structuring.service import StructuringService
from feedback_intelligence.text import morphology
from feedback_intelligence.text.language import warm as warm_language_detection
from feedback_intelligence.workers.alert_digest import AlertDigest
from feedback_intelligence.workers.brief_mail import BriefMailer
from feedback_intelligence.workers.notify_worker import NotifyWorker
from feedback_intelligence.workers.rederive import RederivePass
from feedback_intelligence.workers.structuring_worker import StructuringWorker

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    metrics: Metrics
    clock: Clock  # the one clock of this process (docs/adr/0051-one-clock.md)
    backend: LlmBackend  # the first of the pool (the only one under the one-backend shorthand)
    gate: LlmGate
    runner: PromptRunner
    health: HealthService
    domain: Domain
    channels: dict[str, Channel]
    interpret: InterpretService
    ingest: IngestService
    batch_slots: BatchSlots  # bulk import: batches stored at once in this process (docs/adr/0043)
    batch_pool: BatchPool  # bulk import: the worker processes that make a batch's rows (docs/adr/0074)
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
        await self.batch_pool.aclose()
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
        return load_domain(settings.domain.name, settings.domain.root)
    except DomainError as exc:
        raise ConfigurationError(f"invalid configuration: FI_DOMAIN: {exc}") from exc


def with_prior_fields(domain: Domain, backends: BackendSettings) -> Domain:
    """The fields the prior decides on this deployment (``FI_PRIOR_FIELDS``; config/backends.py).

    A domain's ``priorFields`` were measured on the packaged default model: a model the operator
    chose is not silently overruled by them, it is measured (``feedctl eval``) and configured.
    """
    if backends.prior_fields is not None:
        fields = tuple(backends.prior_fields)
    else:
        fields = domain.prior_fields if backends.packaged_model else ()
    return domain if fields == domain.prior_fields else replace(domain, prior_fields=fields)


def warn_if_prior_unmeasured(backends: BackendSettings) -> None:
    """Say at boot that a model nobody measured decides every field, and how to measure it."""
    if backends.prior_fields is not None or backends.packaged_model:
        return
    models = ", ".join(f"{spec.name}: {spec.kind} {spec.model or 'default model'}" for spec in backends.specs)
    log.warning(
        "no measured priorFields for this model (%s): the model decides every field, also where the domain's "
        "rules are known to do better. Measure it first: `feedctl eval --url <this service>` prints the "
        "FI_PRIOR_FIELDS line its figures recommend; set it (FI_PRIOR_FIELDS=none keeps every field with the "
        "model and silences this warning)",
        models,
    )


async def build_runtime(
    settings: Settings,
    backend: LlmBackend | None = None,
    *,
    domain: Domain | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> Runtime:
    """Everything one process serves with, built once. ``clock`` is the one clock every part whose
    behaviour time decides reads (docs/adr/0051-one-clock.md): the system's, or a test's manual one."""
    domain = with_prior_fields(domain or load_configured_domain(settings), settings.backends)
    warn_if_prior_unmeasured(settings.backends)
    metrics = Metrics(settings.gate.call_timeout_s, settings.gate.acquire_timeout_s)
    # A backend handed in (tests, tools) stands for the whole pool under the first backend's name.
    backends = (
        {settings.backends.specs[0].name: backend}
        if backend is not None
        else build_backends(settings.backends, metrics)
    )
    backend = next(iter(backends.values()))
    gate = build_gate(settings, metrics, {name: b.readiness for name, b in backends.items()}, clock=clock)
    runner = PromptRunner(gate, backend, metrics, backends)
    derive = DomainDeriver(domain)  # every write of a record writes its derived columns (ADR 0024 section 2)
    channels = {
        name: Channel(name, FeedbackStore(url, name=name, derive=derive, clock=clock))
        for name, url in ((CORPUS, settings.storage.database_url), (LIVE, settings.storage.live_database_url))
    }
    for channel in channels.values():
        await channel.store.migrate()
    shared = await tombstones.share(list(channels.values()))  # an erased id is refused in every channel
    if shared:
        log.info("tombstones: %d erased id(s) now refused in another channel too", shared)
    intake, notify, case_service = build_alerting(
        settings.notify,
        domain,
        channels,
        metrics,
        clock,
        zone=ZoneInfo(settings.report.timezone),
        store_name=settings.chain.stores.name,
    )
    # The language models load once here (seconds, holding the GIL), never inside a request.
    await asyncio.to_thread(warm_language_detection, domain.detection_languages)
    morphology.warm()  # Voikko loads in ~30 ms; the log says once whether Finnish base forms are on
    structuring = StructuringService(
        runner,
        domain,
        max_tokens=settings.backends.max_output_tokens,
        metrics=metrics,
        read_max_chars=settings.domain.input_max_chars,  # a longer stored text: the model reads its first part
    )
    report_options = settings.report
    # Shared between replicas when they share Redis: one prose generation per window between them.
    gate_settings = settings.gate
    report_prose: ProseStore = (
        RedisProseStore(gate_settings.redis_url, gate_settings.name)
        if gate_settings.redis_url
        else MemoryProseStore(clock=clock)
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
            clock=clock,
            store_name=settings.chain.stores.name,
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
        clock=clock,
        store_name=settings.chain.stores.name,
    )
    if settings.notify.brief_route is not None:
        briefs = BriefMailer(
            domain,
            AccountStore(channels[LIVE].store, clock),
            reports[INBOX],
            case_service,
            channels,
            report_options,
            settings.notify.brief_route,
            ZoneInfo(report_options.timezone),
            settings.notify.brief_hour,
            configured_stores=settings.chain.stores.ids(),
            store_name=settings.chain.stores.name,
            public_url=settings.notify.public_url,
            clock=clock,
        )
        notify.briefs = briefs

        async def enqueue_briefs() -> None:
            await briefs.enqueue_due()

        notify.ticks.append(enqueue_briefs)
    for each in backends.values():
        await each.start()
    await _announce_parallelism(settings, backends)
    worker = StructuringWorker(
        domain,
        structuring,
        [channels[LIVE], channels[CORPUS]],  # the desk's entries before an import's
        settings.worker,
        metrics,
        clock=clock,
    )
    if settings.worker.enabled:
        worker.start()
    rederive = RederivePass([channels[LIVE], channels[CORPUS]], clock=clock)
    rederive.start()
    batch_pool = BatchPool(domain, settings.chain.batch_workers)  # its workers start with the first batch
    return Runtime(
        settings=settings,
        metrics=metrics,
        clock=clock,
        backend=backend,
        gate=gate,
        runner=runner,
        health=HealthService(
            gate,
            backend,
            settings.backends.health_timeout_s,
            metrics=metrics,
            cache_s=settings.backends.health_cache_s,
            backends=backends,
            clock=clock,
        ),
        domain=domain,
        channels=channels,
        interpret=InterpretService(domain, structuring),
        ingest=IngestService(domain, structuring, on_later=worker.wake, clock=clock, pool=batch_pool),
        batch_slots=BatchSlots(settings.chain.batch_slots, metrics),
        batch_pool=batch_pool,
        restructure=RestructureService(domain, structuring, settings.domain.restructure_limit),
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
    settings: NotifySettings,
    domain: Domain,
    channels: dict[str, Channel],
    metrics: Metrics,
    clock: Clock = SYSTEM_CLOCK,
    *,
    zone: ZoneInfo = ZoneInfo("UTC"),
    store_name: Callable[[str], str] = str,
) -> tuple[AlertIntake, NotifyWorker, CaseService]:
    """What a saved alert starts (composed into each channel's insert), the worker that delivers it, and
    the cases (whose escalation check runs in the worker's loop, as does the day's digest)."""
    try:
        check_against(settings.channels, domain.alert_keywords, domain.severities)
    except ValueError as exc:
        raise ConfigurationError(f"invalid configuration: FI_NOTIFY_CHANNELS: {exc}") from exc
    intake = AlertIntake(domain, settings.channels, settings.case_max_age_days, clock, settings.case_incident_window_h)
    for name, channel in channels.items():
        channel.on_save = intake.hook(name)
    notify = NotifyWorker(domain, [channels[LIVE], channels[CORPUS]], settings.channels, settings, metrics, clock=clock)
    case_service = CaseService(
        domain,
        channels,
        intake,
        settings.case_escalate_after_s,
        clock=clock,
        due_terms=DueTerms(settings.case_due_safety_h, settings.case_due_other_d),
    )
    # an overdue case's mail goes to its store's managers, read from the live database's accounts
    notify.managers = AccountStore(channels[LIVE].store, clock).manager_addresses

    async def escalate() -> None:
        await case_service.escalate_due()
        await case_service.escalate_overdue()

    notify.ticks.append(escalate)
    digest = AlertDigest(
        domain,
        channels,
        intake,
        zone,
        settings.digest_hour,
        store_name=store_name,
        public_url=settings.public_url,
        clock=clock,
    )
    notify.digest = digest

    async def enqueue_digest() -> None:
        await digest.enqueue_due()

    notify.ticks.append(enqueue_digest)
    if settings.enabled:
        notify.start()
        for channel in channels.values():
            channel.after_save = notify.wake  # deliver this replica's saves at once, not at the next poll
    return intake, notify, case_service


async def _announce_parallelism(settings: Settings, backends: dict[str, LlmBackend]) -> None:
    """Say what parallelism the gate expects of each backend, and check it where the backend can tell."""
    total = settings.backends.total_slots
    log.info(
        "LLM gate: %d slot(s) over %d backend(s), %d kept free from background work, %d ms acquire timeout, "
        "%g s call deadline",
        total,
        len(backends),
        settings.gate.background_reserve,
        settings.gate.acquire_timeout_ms,
        settings.gate.call_timeout_s,
    )
    if settings.gate.background_reserve >= total:
        log.warning(
            "FI_LLM_BACKGROUND_RESERVE=%d keeps every slot for live visitors: report prose and restructure "
            "will always fall back",
            settings.gate.background_reserve,
        )
    for spec in settings.backends.specs:
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

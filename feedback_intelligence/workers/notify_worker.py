"""Deliver the outbox: every replica runs this worker; a row is sent by whoever holds its lease.

Per claimed row (store/outbox.py): the route is looked up in today's ``FI_NOTIFY_CHANNELS`` (gone:
``cancelled``), the item is read (gone, e.g. erased: ``cancelled``), the message is rendered from it
and sent (notify/senders.py). A send that may succeed later goes back with exponential backoff and
jitter (``base × 2^(attempt-1)``, capped, times a random factor in [0.5, 1]) until the bound
(``failed``); one that cannot (a 4xx, a refused login) is ``failed`` at once. The lease is renewed
while a send runs, so a slow receiver keeps its row; a replica that dies stops renewing and another
one resends the row with the same delivery id. The worker never touches the LLM gate: a message
needs no model, and a notification must not wait for one.

The same loop runs the escalation check (services/cases.py), enqueues the day's digest when its hour
comes (workers/alert_digest.py) and the people's briefs when theirs comes (workers/brief_mail.py); none
needs a model. A digest row is rendered from the day's items, a brief row from the person's stores.
An ``overdue`` row (ADR 0061) goes through its mail route's transport to the managers granted the
case's store, read when it is sent, not to the route's own ``to``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Sequence
from email.message import EmailMessage

import httpx

from feedback_intelligence.config import NotifySettings
from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import format_instant, parse_normalized
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.notify.message import Message, render, trial_message
from feedback_intelligence.notify.senders import SendFailed, send, send_mail
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store import outbox as ob
from feedback_intelligence.store.errors import StoreUnavailable
from feedback_intelligence.workers.alert_digest import AlertDigest
from feedback_intelligence.workers.brief_mail import BriefMailer
from feedback_intelligence.workers.poll_loop import PollLoop
from feedback_intelligence.workers.structuring_worker import replica_name

log = logging.getLogger(__name__)

STATS_EVERY_S = 5.0
GONE = {ob.DIGEST: "nothing left to digest", ob.BRIEF: "the person no longer takes the brief"}  # else: the item


def backoff_s(attempt: int, options: NotifySettings, rng: Callable[[], float] = random.random) -> float:
    """Exponential in the attempts made, capped, with "equal jitter": between half and all of it."""
    ceiling = min(options.retry_max_s, options.retry_base_s * 2 ** max(0, attempt - 1))
    return ceiling * (0.5 + 0.5 * rng())


Tick = Callable[[], Awaitable[None]]
Addresses = Callable[[str | None], Awaitable[tuple[str, ...]]]  # a store's managers' e-mail addresses


class NotifyWorker:
    def __init__(
        self,
        domain: Domain,
        channels: Sequence[Channel],
        routes: Sequence[NotifyRoute],
        options: NotifySettings,
        metrics: Metrics | None = None,
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.domain = domain
        self.channels = list(channels)
        self.clock = clock  # its pauses, the leases and retries' due times, the periodic work's beat
        self.outboxes = [(channel, ob.Outbox(channel.store, clock)) for channel in channels]
        self.routes = {route.name: route for route in routes}
        self.options = options
        self.metrics = metrics
        self.replica = replica_name()
        self.ticks: list[Tick] = []  # periodic work of the same loop (the escalation check, the digest's hour)
        self.digest: AlertDigest | None = None  # renders a digest row (workers/alert_digest.py)
        self.managers: Addresses | None = None  # who an overdue case's mail goes to (store/accounts.py)
        self.briefs: BriefMailer | None = None  # renders a brief-by-mail row (workers/brief_mail.py)
        self._poll = PollLoop("notify", self._step, tasks=options.tasks, poll_s=options.poll_s, log=log, clock=clock)
        self._http: httpx.AsyncClient | None = None
        self._last_tick = -STATS_EVERY_S  # the first turn runs the periodic work

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._poll.start()

    async def stop(self) -> None:
        await self._poll.stop()
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def wake(self) -> None:
        self._poll.wake()

    @property
    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(follow_redirects=False, trust_env=False)
        return self._http

    # -- the loop ----------------------------------------------------------------------------------

    async def _step(self, index: int) -> float | None:
        """One turn of task ``index`` (workers/poll_loop.py); the first task also runs the periodic work."""
        if index == 0:
            await self._periodic()
        return await self.drain_once()

    async def _periodic(self) -> None:
        now = self.clock.monotonic()
        if now - self._last_tick < STATS_EVERY_S:
            return
        self._last_tick = now
        for tick in self.ticks:
            await tick()
        await self.stats()

    async def drain_once(self) -> float | None:
        """Deliver one due row, from the first channel that has one; how long to pause (None: go on)."""
        for channel, outbox in self.outboxes:
            row = await outbox.claim(f"{self.replica}-{uuid.uuid4().hex[:12]}", self.options.lease_s)
            if row is not None:
                await self._deliver(channel, outbox, row)
                return None
        return self.options.poll_s

    async def _deliver(self, channel: Channel, outbox: ob.Outbox, row: ob.OutboxRow) -> None:
        route = self.routes.get(row.route)
        if route is None:
            await self._settled(row, "cancelled", outbox.give_up(row, state=ob.CANCELLED, error="route not configured"))
            return
        if row.event == ob.OVERDUE:
            addressed = await self._to_managers(channel, route, row)
            if isinstance(addressed, str):
                await self._settled(row, "cancelled", outbox.give_up(row, state=ob.CANCELLED, error=addressed))
                return
            route = addressed
        message = await self._message(channel, route, row)
        if message is None:
            gone = GONE.get(row.event, "item gone")
            await self._settled(row, "cancelled", outbox.give_up(row, state=ob.CANCELLED, error=gone))
            return
        renewer = asyncio.create_task(self._renew(outbox, row))
        try:
            if isinstance(message, EmailMessage):
                await send_mail(route, message, self.options.timeout_s)
            else:
                await send(route, message, self.http, timeout_s=self.options.timeout_s)
        except SendFailed as failure:
            if not failure.retryable or row.attempts >= self.options.max_attempts:
                log.warning("notify: %s to %s failed for good: %s", row.dedupe_key, route.name, failure.detail)
                await self._settled(row, "failed", outbox.give_up(row, state=ob.FAILED, error=failure.detail))
            else:
                wait = backoff_s(row.attempts, self.options)
                log.info(
                    "notify: %s to %s, attempt %d: %s; again in %.1f s",
                    row.dedupe_key,
                    route.name,
                    row.attempts,
                    failure.detail,
                    wait,
                )
                await self._settled(row, "retry", outbox.retry(row, in_s=wait, error=failure.detail))
            return
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(outbox.release(row))
            raise
        finally:
            renewer.cancel()
        delivered_at = self.clock.now()
        if await self._settled(row, "delivered", outbox.delivered(row, format_instant(delivered_at))):
            latency = (delivered_at - parse_normalized(row.created_at)).total_seconds()
            if self.metrics is not None:
                self.metrics.notify_latency.labels(route.name).observe(max(0.0, latency))

    async def _to_managers(self, channel: Channel, route: NotifyRoute, row: ob.OutboxRow) -> NotifyRoute | str:
        """The mail route addressed to the managers granted the case's store; or why nobody can be mailed."""
        if route.kind != "smtp":
            return "an overdue case is mailed: its route is not smtp"
        item = await channel.store.get(row.feedback_id)
        if item is None:
            return "item gone"
        addresses = await self.managers(item.store) if self.managers is not None else ()
        if not addresses:
            return "no manager of its store has an e-mail address"
        return route.model_copy(update={"mail_to": addresses})

    async def _message(self, channel: Channel, route: NotifyRoute, row: ob.OutboxRow) -> Message | EmailMessage | None:
        """The row's message, rendered now from what is stored; None when its subject is gone."""
        if row.event == ob.BRIEF:
            if self.briefs is None or route.kind != "smtp":
                return None
            return await self.briefs.message(route, row.feedback_id, row.dedupe_key)
        if row.event == ob.DIGEST:
            if self.digest is None:
                return None
            return await self.digest.message(channel, route, row.feedback_id, row.dedupe_key)
        item = await channel.store.get(row.feedback_id)
        if item is None:
            return None
        return render(
            item,
            delivery_id=row.dedupe_key,
            event=row.event,
            channel=channel.name,
            domain=self.domain,
            public_url=self.options.public_url,
        )

    async def _settled(self, row: ob.OutboxRow, outcome: str, write: Awaitable[bool]) -> bool:
        held = await write
        if self.metrics is not None:
            self.metrics.notify_deliveries.labels(row.route, outcome if held else "lost").inc()
        if not held:
            log.warning("notify: lost the lease on %s before recording %s", row.dedupe_key, outcome)
        return held

    async def _renew(self, outbox: ob.Outbox, row: ob.OutboxRow) -> None:
        while True:
            await self.clock.sleep(self.options.lease_s / 3)
            with contextlib.suppress(StoreUnavailable):
                if not await outbox.renew(row, self.options.lease_s):
                    return

    # -- what the operator sees and does -----------------------------------------------------------

    async def stats(self) -> dict[str, dict[str, object]]:
        """Per channel database: rows by state and the oldest undelivered row's age (also the metrics)."""
        out: dict[str, dict[str, object]] = {}
        for channel, outbox in self.outboxes:
            stats = await outbox.stats()
            age = 0.0
            if stats.oldest_pending_created_at is not None:
                age = (self.clock.now() - parse_normalized(stats.oldest_pending_created_at)).total_seconds()
            states = {
                state: stats.by_state.get(state, 0) for state in (ob.PENDING, ob.DELIVERED, ob.FAILED, ob.CANCELLED)
            }
            out[channel.name] = {**states, "oldestPendingSeconds": round(max(0.0, age), 1)}
            if self.metrics is not None:
                for state, count in states.items():
                    self.metrics.notify_outbox.labels(channel.name, state).set(count)
                self.metrics.notify_outbox_oldest.labels(channel.name).set(max(0.0, age))
        return out

    async def send_test(self, route_name: str | None = None) -> list[dict[str, object]]:
        """One test message down the named route (None: every configured route), now, outside the outbox
        (``feedctl notify test [ROUTE]``): the answer is the send's own, not a queued row's. KeyError: no such route."""
        chosen = list(self.routes.values()) if route_name is None else [self.routes[route_name]]
        results: list[dict[str, object]] = []
        for route in chosen:
            message = trial_message(route.name, self.options.public_url, format_instant(self.clock.now()))
            try:
                await send(route, message, self.http, timeout_s=self.options.timeout_s)
            except SendFailed as failure:
                log.warning("notify: test message to %s failed: %s", route.name, failure.detail)
                results.append({"name": route.name, "kind": route.kind, "ok": False, "detail": failure.detail})
            else:
                results.append({"name": route.name, "kind": route.kind, "ok": True, "detail": None})
        return results

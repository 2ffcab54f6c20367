"""One live channel on SQLite with the alert intake composed into its insert, and a notify worker."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from feedback_intelligence.config import NotifySettings
from feedback_intelligence.config.notify_routes import NotifyRoute, parse_routes
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.services.alert_intake import AlertIntake
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.workers.alert_digest import AlertDigest
from feedback_intelligence.workers.notify_worker import NotifyWorker
from tests.support.databases import migrated_url

SECRET = "whsec_" + base64.b64encode(b"a-webhook-secret-of-32-bytes-ok!").decode()  # Standard Webhooks' form
# What anyone who can write feedback (a web form, an imported e-mail) could type to reach a manager's chat.
HOSTILE_TEXT = (
    "Kassalla huudettiin <!channel> & <!here> <@U024BE7LH> <#C024BE7LH>: katso "
    "<https://evil.example|Avaa tapaus> tai [klikkaa](https://evil.example)"
)
# A test's clock, below the operator's bounds (FI_NOTIFY_RETRY_MAX_S is at least 1 s): built as is.
FAST = NotifySettings.model_construct(
    tasks=2,
    lease_s=5,
    max_attempts=8,
    retry_base_s=0.05,
    retry_max_s=0.5,
    poll_s=0.05,
    timeout_s=5,
    public_url="http://fi.example",
)


SHOP_ZONE = ZoneInfo("Europe/Helsinki")
DIGEST_HOUR = 7
STORE_NAMES = {"S1": "Espoo Iso Omena", "S2": "Tampere Koskikeskus"}


def store_name(store_id: str) -> str:
    return STORE_NAMES.get(store_id, store_id)


def ago(**delta: float) -> str:
    return format_instant(datetime.now(UTC) - timedelta(**delta))


def alert_item(
    feedback_id: str,
    *,
    category: str = "food_safety",
    severity: str = "critical",
    store: str | None = "S1",
    age_days: float = 0,
    text: str = "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa. Soittakaa: Maija 040 123 4567.",
) -> StoredFeedback:
    return StoredFeedback(
        id=feedback_id,
        source="desk",
        text=text,
        timestamp=ago(days=age_days),
        created_at=ago(),
        structure=Structure("liha_kala", "jauheliha", severity, "complaint", "fi"),
        alerts=(AlertHit(category, "vatsatau"),),
        store=store,
    )


def routes(*entries: dict) -> list[NotifyRoute]:
    return parse_routes(list(entries))


@dataclass
class Rig:
    domain: Domain
    channel: Channel
    worker: NotifyWorker
    intake: AlertIntake
    digest: AlertDigest


@asynccontextmanager
async def rig(
    tmp_path: Path,
    configured: Sequence[NotifyRoute],
    options: NotifySettings = FAST,
    url: str | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
) -> AsyncIterator[Rig]:
    domain = load_domain("retail")
    # with its derived columns, as the service writes them: the digest finds its items by them
    store = FeedbackStore(url or migrated_url(tmp_path), name="live", derive=DomainDeriver(domain))
    await store.migrate()
    intake = AlertIntake(domain, tuple(configured), 7, clock)
    channel = Channel("live", store, on_save=intake.hook("live"))
    worker = NotifyWorker(domain, [channel], configured, options, clock=clock)
    worker.digest = AlertDigest(
        domain,
        {"live": channel},
        intake,
        SHOP_ZONE,
        DIGEST_HOUR,
        store_name=store_name,
        public_url=options.public_url,
        clock=clock,
    )
    try:
        yield Rig(domain, channel, worker, intake, worker.digest)
    finally:
        await worker.stop()
        await store.aclose()


def with_routes(r: Rig, configured: Sequence[NotifyRoute]) -> NotifyWorker:
    """A worker of a replica whose configuration changed."""
    return NotifyWorker(r.domain, [r.channel], configured, r.worker.options.model_copy())

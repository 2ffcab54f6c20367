"""The operator's restructure pass over a real channel: what it changes, what it keeps, how it counts."""

from __future__ import annotations

import asyncio

import pytest

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.llm.backend import CompletionRequest
from feedback_intelligence.llm.errors import LlmBusy, LlmUnavailable
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.services.restructure import RestructureInterrupted, RestructureService
from feedback_intelligence.structuring.service import StructuringService
from tests.services.conftest import reply, structuring
from tests.structuring.fakes import make_runner
from tests.support.calls import call


def row(
    id_: str, text: str, structure: Structure | None, *, day: int, alerts: tuple[AlertHit, ...] = ()
) -> StoredFeedback:
    stamp = f"2026-06-{day:02d}T08:00:00.0000000+00:00"
    return StoredFeedback(
        id=id_,
        source="email",
        text=text,
        timestamp=stamp,
        created_at=stamp,
        structure=structure,
        structure_failed=structure is None,
        alerts=alerts,
    )


def named(category: str) -> Structure:
    return Structure(category, "jokin teema", "medium", "complaint", "fi", "negative")


def service(domain: Domain, backend: FakeBackend | None = None) -> RestructureService:
    return RestructureService(domain, structuring(domain, backend or FakeBackend()))


async def test_a_rule_that_now_fires_replaces_a_valid_category_without_the_llm(
    retail: Domain, channel: Channel
) -> None:
    text = "Myyjä kutsui minua ryssäksi, kun kysyin nektariineista."
    alerts = (AlertHit("rasismi", "ryssä"),)  # a row saved while the category rule did not exist yet
    await channel.store.insert(row("a", text, named("hevi"), day=1, alerts=alerts))

    outcome = await service(retail).run(channel)  # no backend steps: a valid category needs no LLM

    stored = await channel.store.get("a")
    assert stored is not None and stored.structure == named("rasismi")
    assert (outcome.restructured, outcome.failed, outcome.alerts_updated, outcome.total) == (1, 0, 0, 1)
    assert await channel.version() == 1  # the change counter moved: cached reports are stale


async def test_alerts_are_refreshed_from_the_current_lexicon(retail: Domain, channel: Channel) -> None:
    text = "Sain sähköiskun pakastealtaasta."  # the freezer is the subject: nothing to restructure
    await channel.store.insert(row("b", text, named("pakasteet"), day=1))

    outcome = await service(retail).run(channel)

    stored = await channel.store.get("b")
    assert stored is not None and [a.category for a in stored.alerts] == ["injury_safety"]
    assert outcome.alerts_updated == 1 and outcome.restructured == 0 and outcome.skipped == 1


async def test_a_failed_llm_call_is_counted_as_failed_and_the_pass_goes_on(retail: Domain, channel: Channel) -> None:
    await channel.store.insert(row("old", "Maito oli hapanta.", None, day=1))
    await channel.store.insert(row("new", "Leipä oli homeessa.", None, day=2))
    backend = FakeBackend(LlmUnavailable("connection refused"), reply("maito_kylma"))  # newest first

    outcome = await service(retail, backend).run(channel)

    assert (outcome.restructured, outcome.failed) == (1, 1)
    failed, done = await channel.store.get("new"), await channel.store.get("old")
    assert (
        failed is not None
        and failed.structure_failed
        and failed.salvage_notes == ("llm call failed: the language model backend cannot be reached",)
    )
    assert done is not None and done.structure is not None and done.structure.category == "maito_kylma"


async def test_a_shed_stops_the_pass_and_keeps_what_was_done(retail: Domain, channel: Channel) -> None:
    await channel.store.insert(row("old", "Maito oli hapanta.", None, day=1))
    await channel.store.insert(row("new", "Maito oli vanhaa.", None, day=2))
    backend = FakeBackend(reply("maito_kylma"), LlmBusy("backend_busy", 2))

    with pytest.raises(RestructureInterrupted) as interrupted:
        await service(retail, backend).run(channel)

    assert interrupted.value.outcome.restructured == 1 and interrupted.value.outcome.failed == 0
    done, untouched = await channel.store.get("new"), await channel.store.get("old")
    assert done is not None and done.structure is not None and not done.structure_failed
    assert untouched is not None and untouched.structure is None and untouched.structure_failed
    assert await channel.version() == 1  # the work done before the shed counts as a change


async def test_a_call_a_clerk_preempts_is_asked_again_for_the_same_row(retail: Domain, channel: Channel) -> None:
    await channel.store.insert(row("a", "Maito oli hapanta.", None, day=1))
    started = asyncio.Event()

    async def held_until_cancelled(_request: CompletionRequest) -> str:
        started.set()
        await asyncio.Event().wait()  # only a cancellation ends it
        raise AssertionError("unreachable")

    backend = FakeBackend(held_until_cancelled, reply("maito_kylma"))
    runner = make_runner(backend, slots=1, acquire_timeout_s=2.0)
    restructure = RestructureService(retail, StructuringService(runner, retail, use_schema=False))
    running = asyncio.create_task(restructure.run(channel))
    await started.wait()

    async def clerk(_grant: Grant) -> str:
        return "served"

    assert await runner.gate.run(clerk, call(runner.gate, Priority.INTERACTIVE, "interpret")) == "served"
    outcome = await running
    assert (outcome.restructured, outcome.failed) == (1, 0)  # requeued, not failed
    assert len(backend.requests) == 2
    stored = await channel.store.get("a")
    assert stored is not None and stored.structure is not None and stored.structure.category == "maito_kylma"
    registry = runner.gate.metrics.registry
    assert registry.get_sample_value("fi_gate_preemptions_total", {"route": "restructure"}) == 1

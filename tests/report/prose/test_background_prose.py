"""The report answers at once; prose is written in the background, once per window, data version and domain."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.gate.slots import Grant
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.report.prose.store import MemoryProseStore, RedisProseStore
from feedback_intelligence.report.service import SHED_BACKOFF_S, ReportService
from tests.report.support import (
    ScriptedBackend,
    StoreFake,
    desk_calls_holding_every_slot,
    item,
    make_domain,
    real_runner,
    service,
    window,
)
from tests.report.test_report_service import RATED, corpus, themes_by_category
from tests.support.calls import call
from tests.support.redis import REDIS_URL
from tests.support.waiting import wait_for

REDIS = REDIS_URL
OTHER_FROM, OTHER_TO = "2026-06-04T00:00:00Z", "2026-06-08T00:00:00Z"


async def settled(svc: ReportService) -> None:
    await wait_for(lambda: _idle(svc), what="the background generation to finish")


async def _idle(svc: ReportService) -> bool:
    return not svc._tasks


async def test_the_first_view_is_the_whole_deterministic_report_with_every_theme_pending():
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()
    svc, _ = service(corpus(), backend)

    first = (await svc.view(window())).to_json()
    assert first["totalItems"] == 9 and [a["feedbackId"] for a in first["alerts"]] == ["k1"]
    assert first["llm"]["status"] == "pending" and sorted(first["llm"]["pending"]) == sorted(RATED)
    themes = themes_by_category(first)
    assert all(themes[c]["prose"] == {"status": "pending", "reason": None} for c in RATED)
    assert all(themes[c]["narrative"] and not themes[c]["narrativeFromLlm"] for c in RATED)  # automatic text stands
    assert themes["rasismi"]["prose"]["status"] == "automatic"  # moderation is never narrated: nothing pending

    await backend.arrived.wait()
    assert (await svc.view(window())).llm.status == "pending"  # still writing: asking again changes nothing
    backend.hold.set()
    await settled(svc)

    later = (await svc.view(window())).to_json()
    assert later["llm"]["status"] == "done" and later["llm"]["pending"] == []
    assert themes_by_category(later)["maito_kylma"]["title"] == "Maidon tuoreus"
    assert themes_by_category(later)["maito_kylma"]["prose"] == {"status": "model", "reason": None}
    assert later["totalItems"] == first["totalItems"]


async def test_many_views_of_one_window_start_one_generation():
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()
    svc, _ = service(corpus(), backend)
    await asyncio.gather(*(svc.view(window()) for _ in range(5)))
    backend.hold.set()
    await settled(svc)
    await svc.view(window())
    await settled(svc)
    assert len(backend.prompts_of("SYNTH")) == len(RATED)


async def test_one_windows_prose_is_never_served_for_another_window():
    backend = ScriptedBackend()
    svc, _ = service(corpus(), backend)
    await svc.report(window())  # the whole week, prose written
    other = await svc.view(window(OTHER_FROM, OTHER_TO))
    assert other.llm.status == "pending"
    assert all(t.prose.status != "model" for t in other.themes)
    assert other.total_items < 9  # its own numbers, not the week's


async def test_new_data_makes_the_prose_pending_again():
    backend = ScriptedBackend()
    svc, store = service(corpus(), backend)
    await svc.report(window())
    store.items.append(item("m9", 6.5))
    await svc.invalidate()
    view = await svc.view(window())
    assert view.llm.status == "pending" and view.total_items == 10


async def test_a_mode_or_domain_change_never_shares_prose():
    backend = ScriptedBackend()
    store = MemoryProseStore()
    items = StoreFake(corpus())
    fi = ReportService(make_domain(), svc_options(), real_runner(backend), items.fetch, prose=store)
    await fi.report(window())
    assert (await fi.view(window(), mode="summary")).llm.status == "pending"
    other_domain = dataclasses.replace(make_domain(), name="other")
    other = ReportService(other_domain, svc_options(), real_runner(backend), items.fetch, prose=store)
    assert (await other.view(window())).llm.status == "pending"


def svc_options() -> ReportSettings:
    return ReportSettings()


async def test_two_replicas_sharing_redis_generate_once_and_both_serve_the_prose():
    namespace = f"test-{uuid.uuid4().hex[:8]}"
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()
    stores = [RedisProseStore(REDIS, namespace), RedisProseStore(REDIS, namespace)]
    data = StoreFake(corpus())
    replicas = [
        ReportService(make_domain(), svc_options(), real_runner(backend), data.fetch, prose=store) for store in stores
    ]
    try:
        await replicas[0].view(window())
        await backend.arrived.wait()  # replica 0 holds the lock and is writing
        second = await replicas[1].view(window())
        assert second.llm.status == "pending"
        backend.hold.set()
        await settled(replicas[0])
        await settled(replicas[1])
        served = await replicas[1].view(window())
        assert served.llm.status == "done"
        assert themes_by_category(served.to_json())["maito_kylma"]["title"] == "Maidon tuoreus"
        assert len(backend.prompts_of("SYNTH")) == len(RATED)  # written once between the two
    finally:
        for store in stores:
            await store.aclose()


async def test_a_shed_generation_keeps_the_prose_pending_and_writes_it_once_a_slot_is_free():
    backend = ScriptedBackend()
    runner = real_runner(backend, slots=2, acquire_timeout_s=0.05)
    svc, _ = service(corpus(), runner=runner, shed_retry_s=30)
    async with desk_calls_holding_every_slot(runner):
        assert (await svc.view(window())).llm.status == "pending"
        await wait_for(lambda: _shed_once(runner), what="the background generation to be shed")
        assert (await svc.view(window())).llm.status == "pending"  # shed: still pending, not "busy" for good
        assert backend.requests == []
        assert isinstance(svc.clock, ManualClock)
        await svc.clock.sleepers()  # the generation pauses before its retry, on the service's clock
    svc.clock.advance(SHED_BACKOFF_S[-1])  # the desk left: the retry's pause is over
    await settled(svc)
    done = (await svc.view(window())).to_json()
    assert done["llm"]["status"] == "done" and done["llm"]["stopped"] is None
    assert themes_by_category(done)["maito_kylma"]["prose"]["status"] == "model"


async def test_a_generation_a_clerk_preempts_stays_pending_and_writes_its_prose_later():
    backend = ScriptedBackend()
    backend.hold = asyncio.Event()  # the report's calls wait at the backend until told
    runner = real_runner(backend, slots=2, acquire_timeout_s=2.0)
    svc, _ = service(corpus(), runner=runner, shed_retry_s=30)
    assert (await svc.view(window())).llm.status == "pending"
    await backend.arrived.wait()  # the report's first call holds a background slot
    first_clerk = asyncio.Event()
    let_go = asyncio.Event()

    async def hold(_grant: Grant) -> None:
        first_clerk.set()
        await let_go.wait()

    async def quick(_grant: Grant) -> str:
        return "served"

    holding = asyncio.create_task(runner.gate.run(hold, call(runner.gate, route="interpret")))
    await first_clerk.wait()
    assert await runner.gate.run(quick, call(runner.gate, route="interpret")) == "served"  # took the report's slot
    registry = runner.gate.metrics.registry
    assert registry.get_sample_value("fi_gate_preemptions_total", {"route": "report"}) == 1
    assert (await svc.view(window())).llm.status == "pending"  # preempted: still pending, not given up

    let_go.set()
    await holding
    backend.hold.set()
    assert isinstance(svc.clock, ManualClock)
    await svc.clock.sleepers()  # the preempted generation pauses before its retry, on the service's clock
    svc.clock.advance(SHED_BACKOFF_S[-1])
    await settled(svc)
    done = (await svc.view(window())).to_json()
    assert done["llm"]["status"] == "done" and done["llm"]["stopped"] is None
    assert themes_by_category(done)["maito_kylma"]["prose"]["status"] == "model"


async def _shed_once(runner) -> bool:
    return runner.gate.sheds_in_last() >= 1

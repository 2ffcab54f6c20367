"""The workers' loop (workers/poll_loop.py) with scripted steps: a wake ends a pause, an outage pauses a
poll and logs as the worker once (and its end once), a full disk pauses longer, a bug does not end the
task, stop waits for the step in flight."""

from __future__ import annotations

import asyncio
import logging

import pytest

from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.store.errors import StoreFull, StoreUnavailable
from feedback_intelligence.workers.poll_loop import PollLoop
from tests.support.waiting import wait_for

LOG = logging.getLogger("tests.poll_loop")
LONG_S = 600.0  # a pause no test waits out


class Script:
    """Steps that raise or return what the script says, in order, then pause long; counts the steps."""

    def __init__(self, *outcomes: float | Exception | None) -> None:
        self.outcomes = list(outcomes)
        self.steps = 0

    async def __call__(self, index: int) -> float | None:
        self.steps += 1
        outcome = self.outcomes.pop(0) if self.outcomes else LONG_S
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def loop_of(script: Script, *, full_disk_pause_s: float | None = None) -> PollLoop:
    return PollLoop("worker", script, tasks=1, poll_s=0.001, log=LOG, full_disk_pause_s=full_disk_pause_s)


async def steps_reach(script: Script, n: int) -> None:
    async def reached() -> bool:
        return script.steps >= n

    await wait_for(reached, what=f"{n} steps")


async def test_a_step_that_found_work_is_followed_at_once_and_a_wake_ends_a_long_pause() -> None:
    script = Script(None, LONG_S)
    loop = loop_of(script)
    loop.start()
    try:
        await steps_reach(script, 2)  # None: the next step at once
        loop.wake()
        await steps_reach(script, 3)  # the pause was LONG_S: only the wake can have ended it
    finally:
        await loop.stop()


async def test_a_pause_ends_when_the_loops_clock_has_passed_it() -> None:
    clock = ManualClock()
    script = Script(30.0)
    loop = PollLoop("worker", script, tasks=1, poll_s=0.001, log=LOG, clock=clock)
    loop.start()
    try:
        await clock.sleepers()  # the first step asked for a 30 s pause
        clock.advance(29.9)
        assert clock.parked == 1 and script.steps == 1  # not woken: not yet
        clock.advance(0.1)
        await steps_reach(script, 2)
    finally:
        await loop.stop()
    assert clock.parked == 0  # stopped: no pause left behind on the clock


async def test_an_outage_pauses_a_poll_and_is_logged_once_as_the_workers_warning_and_its_end_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOG.name)
    down = StoreUnavailable("live", "refused")
    script = Script(down, down, down, down, None)
    loop = loop_of(script)
    loop.start()
    try:
        await wait_for(lambda: _recovered(caplog), what="the recovery line")
    finally:
        await loop.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings  # four failed polls, one line for the outage and one for its end
    assert warnings[0] == (
        "worker: store unavailable, retrying every 0.001 s (one more line when it answers): "
        "live store unavailable: refused"
    )
    assert warnings[1].startswith("worker: store answers again after ")
    assert all(r.exc_info is None for r in caplog.records)  # no traceback for an outage


async def test_tasks_that_meet_one_outage_log_it_once_between_them(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOG.name)
    failures = 0

    async def down(index: int) -> float | None:
        nonlocal failures
        failures += 1
        raise StoreUnavailable("live", "refused")

    async def many_failures() -> bool:
        return failures >= 20

    loop = PollLoop("worker", down, tasks=3, poll_s=0.001, log=LOG)
    loop.start()
    try:
        await wait_for(many_failures, what="twenty failed polls")
    finally:
        await loop.stop()
    assert len(caplog.records) == 1 and caplog.records[0].getMessage().startswith("worker: store unavailable")


async def _recovered(caplog: pytest.LogCaptureFixture) -> bool:
    return any("answers again" in r.getMessage() for r in caplog.records)


async def test_a_full_disk_pauses_as_long_as_the_worker_asks_and_is_logged_as_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=LOG.name)
    script = Script(StoreFull("live", "database or disk is full"))
    loop = loop_of(script, full_disk_pause_s=LONG_S)
    loop.start()
    try:
        await steps_reach(script, 1)
        await wait_for(lambda: _logged(caplog), what="the error line")
        assert script.steps == 1  # paused LONG_S, not a poll
        loop.wake()
        await steps_reach(script, 2)
    finally:
        await loop.stop()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        "worker: the database is out of disk space, retrying in 600 s: live store unavailable: database or disk is full"
    ]


async def _logged(caplog: pytest.LogCaptureFixture) -> bool:
    return bool(caplog.records)


async def test_without_a_full_disk_pause_a_full_disk_is_one_more_outage(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOG.name)
    script = Script(StoreFull("live", "database or disk is full"))
    loop = loop_of(script)
    loop.start()
    try:
        await steps_reach(script, 2)  # paused a poll only
    finally:
        await loop.stop()
    assert caplog.records[0].levelno == logging.WARNING
    assert caplog.records[0].getMessage().startswith("worker: store unavailable, retrying every 0.001 s")


async def test_a_bug_in_a_step_is_logged_with_its_traceback_and_the_task_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=LOG.name)
    script = Script(RuntimeError("a bug"))
    loop = loop_of(script)
    loop.start()
    try:
        await steps_reach(script, 2)
    finally:
        await loop.stop()
    (record,) = caplog.records
    assert record.getMessage() == "worker: unexpected error" and record.exc_info is not None


async def test_stop_cancels_every_task_and_waits_for_the_step_in_flight_to_clean_up() -> None:
    started: list[int] = []
    cleaned: list[int] = []

    async def held(index: int) -> float | None:
        started.append(index)
        try:
            await asyncio.Event().wait()  # never set: only a cancel ends it
        finally:
            cleaned.append(index)
        return None

    async def both_started() -> bool:
        return len(started) == 2

    loop = PollLoop("worker", held, tasks=2, poll_s=0.001, log=LOG)
    loop.start()
    await wait_for(both_started, what="both tasks in their step")
    await loop.stop()
    assert sorted(cleaned) == [0, 1]

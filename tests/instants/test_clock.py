"""The one clock: the system's reads the machine, a manual one moves only when the test moves it and
wakes exactly the sleepers whose time has come."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, ManualClock, now_ms, wait_or_pause


async def test_the_system_clock_reads_aware_utc_and_a_monotonic_that_moves_forward() -> None:
    before = datetime.now(UTC)
    now = SYSTEM_CLOCK.now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)
    assert before <= now <= datetime.now(UTC)
    first = SYSTEM_CLOCK.monotonic()
    await SYSTEM_CLOCK.sleep(0)
    assert SYSTEM_CLOCK.monotonic() >= first
    assert abs(now_ms() - int(datetime.now(UTC).timestamp() * 1000)) < 60_000


def test_a_manual_clock_moves_only_when_advanced_and_both_readings_move_together() -> None:
    start = datetime(2027, 3, 1, 12, tzinfo=UTC)
    clock = ManualClock(start)
    assert clock.now() == start and clock.monotonic() == 0.0
    clock.advance(90.5)
    assert clock.now() == start + timedelta(seconds=90.5) and clock.monotonic() == 90.5
    assert clock.time() == start.timestamp() + 90.5
    assert now_ms(clock) == int(start.timestamp() * 1000) + 90_500
    with pytest.raises(ValueError, match="does not go back"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="aware"):
        ManualClock(datetime(2027, 3, 1))


async def test_advance_wakes_exactly_the_sleepers_whose_deadline_has_passed() -> None:
    clock = ManualClock()
    woke: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(name)

    tasks = [asyncio.create_task(sleeper(name, s)) for name, s in (("short", 1.0), ("long", 5.0), ("mid", 3.0))]
    await clock.sleepers(3)
    clock.advance(0.5)
    await asyncio.sleep(0)
    assert woke == [] and clock.parked == 3
    clock.advance(2.5)  # 3 s in all: the short and the mid sleeper, in deadline order
    await asyncio.gather(tasks[0], tasks[2])
    assert woke == ["short", "mid"] and clock.parked == 1
    clock.advance(2.0)
    await tasks[1]
    assert woke == ["short", "mid", "long"] and clock.parked == 0


async def test_a_cancelled_sleeper_leaves_the_clock_and_a_zero_sleep_does_not_park() -> None:
    clock = ManualClock()
    await clock.sleep(0)
    assert clock.parked == 0
    task = asyncio.create_task(clock.sleep(10))
    await clock.sleepers()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert clock.parked == 0


async def test_waiting_for_sleepers_that_never_come_fails_loudly() -> None:
    with pytest.raises(TimeoutError):
        await ManualClock().sleepers(timeout_s=0.01)


async def test_wait_or_pause_ends_at_the_event_or_when_the_clock_passes_the_pause() -> None:
    clock = ManualClock()
    event = asyncio.Event()
    woken = asyncio.create_task(wait_or_pause(clock, event, 60))
    await clock.sleepers()
    event.set()
    assert await woken is True
    assert clock.parked == 0  # its pause left the clock with it

    event.clear()
    paused = asyncio.create_task(wait_or_pause(clock, event, 60))
    await clock.sleepers()
    clock.advance(59)
    await asyncio.sleep(0)
    assert not paused.done()
    clock.advance(1)
    assert await paused is False


async def test_cancelling_a_wait_or_pause_cancels_its_caller_and_leaves_nothing_parked() -> None:
    clock = ManualClock()
    waiting = asyncio.create_task(wait_or_pause(clock, asyncio.Event(), 60))
    await clock.sleepers()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert clock.parked == 0

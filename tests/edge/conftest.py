"""The edge's tests: the limiter's memory storage reads the shared test clock."""

from __future__ import annotations

import types

import limits.aio.storage.memory
import pytest

from feedback_intelligence.instants.clock import ManualClock


@pytest.fixture
def clock(clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """The shared clock, as the ``limits`` memory storage's wall clock."""
    monkeypatch.setattr(limits.aio.storage.memory, "time", types.SimpleNamespace(time=clock.time))
    return clock

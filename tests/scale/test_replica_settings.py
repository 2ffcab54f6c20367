"""The settings replicas must agree on reach the shared gate, and bad values stop the boot."""

from __future__ import annotations

import pytest

from feedback_intelligence.config import ConfigurationError, load_settings
from feedback_intelligence.gate.factory import build_pool
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from tests.support.redis import REDIS_URL

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("FI_"):
            monkeypatch.delenv(name)


def test_defaults_keep_the_in_process_gate() -> None:
    settings = load_settings()
    assert (settings.gate.redis_url, settings.gate.name, settings.gate.lease_s) == (None, "llm", 10)
    # the one-backend shorthand is a pool of one backend, in-process
    assert [type(m) for m in build_pool(settings).members.values()] == [LocalSlotPool]


def test_an_empty_redis_url_means_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_REDIS_URL", "")
    assert load_settings().gate.redis_url is None


async def test_gate_name_and_lease_reach_the_redis_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_REDIS_URL", REDIS_URL)
    monkeypatch.setenv("FI_GATE_NAME", "shop-7")
    monkeypatch.setenv("FI_REDIS_LEASE_S", "2.5")
    monkeypatch.setenv("FI_LLM_SLOTS", "3")
    pooled = build_pool(load_settings())
    (pool,) = pooled.members.values()
    try:
        assert isinstance(pool, RedisSlotPool)
        assert (pool.slots, pool.lease_ms) == (3, 2500)
        assert pool._leases == "fi:gate:shop-7:leases"  # replicas with one name share one set of leases
    finally:
        await pool.aclose()


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("FI_REDIS_URL", "localhost:6379"),
        ("FI_REDIS_URL", "http://127.0.0.1:6379"),
        ("FI_GATE_NAME", "has space"),
        ("FI_GATE_NAME", ""),
        ("FI_REDIS_LEASE_S", "0.2"),
        ("FI_REDIS_LEASE_S", "soon"),
    ],
)
def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError, match=variable):
        load_settings()

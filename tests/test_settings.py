"""Settings are validated at start-up; every message names the FI_ variable at fault."""

from __future__ import annotations

import pytest

from feedback_intelligence.settings import ConfigurationError, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("FI_"):
            monkeypatch.delenv(name)


def test_defaults_are_the_documented_ones() -> None:
    settings = load_settings()
    assert (settings.host, settings.port, settings.llm_backend) == ("127.0.0.1", 8080, "embedded")
    assert (settings.llm_slots, settings.llm_acquire_timeout_ms, settings.llm_call_timeout_s) == (2, 500, 120)
    assert settings.health_timeout_s == 10 and settings.domain == "retail" and settings.redis_url is None
    assert settings.database_url != settings.live_database_url


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("FI_LLM_SLOTS", "0"),
        ("FI_LLM_ACQUIRE_TIMEOUT_MS", "-5"),
        ("FI_LLM_BACKEND", "cloud"),
        ("FI_LLM_BASE_URL", "localhost:11434"),
        ("FI_PORT", "70000"),
        ("FI_TRUSTED_PROXIES", '["not-an-ip"]'),
        ("FI_CORS_ORIGINS", '["https://shop.example/path"]'),
        ("FI_RATE_LIMIT", "lots"),
        ("FI_DATABASE_URL", "mysql://x"),
    ],
)
def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as error:
        load_settings()
    assert variable in str(error.value)


def test_the_two_channels_must_use_different_databases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_DATABASE_URL", "sqlite:///data/same.db")
    monkeypatch.setenv("FI_LIVE_DATABASE_URL", "sqlite:///data/same.db")
    with pytest.raises(ConfigurationError) as error:
        load_settings()
    assert "FI_LIVE_DATABASE_URL" in str(error.value)


def test_plain_database_urls_get_the_async_drivers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_DATABASE_URL", "postgresql://postgres@127.0.0.1/test")
    monkeypatch.setenv("FI_LIVE_DATABASE_URL", "sqlite:///data/live.db")
    settings = load_settings()
    assert settings.database_url.startswith("postgresql+asyncpg://")
    assert settings.live_database_url.startswith("sqlite+aiosqlite://")

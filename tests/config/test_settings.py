"""Settings are validated at start-up; every message names the FI_ variable at fault."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from feedback_intelligence.config import ConfigurationError, Settings, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("FI_"):
            monkeypatch.delenv(name)


def test_defaults_are_the_documented_ones() -> None:
    settings = load_settings()
    assert (settings.server.host, settings.server.port, settings.backends.kind) == ("127.0.0.1", 8080, "embedded")
    assert (settings.backends.slots, settings.gate.acquire_timeout_ms, settings.gate.call_timeout_s) == (2, 500, 120)
    assert settings.backends.health_timeout_s == 10 and settings.domain.name == "retail"
    assert settings.gate.redis_url is None
    assert settings.storage.database_url != settings.storage.live_database_url


LIST_FORMS = [
    ("10.0.0.1,10.0.0.2", ["10.0.0.1", "10.0.0.2"]),
    ("10.0.0.1", ["10.0.0.1"]),
    (" 10.0.0.1 , 10.1.0.0/16 ,", ["10.0.0.1", "10.1.0.0/16"]),
    ('["10.0.0.1", "10.1.0.0/16"]', ["10.0.0.1", "10.1.0.0/16"]),
    ("[]", []),
    ("", []),
]


@pytest.mark.parametrize(("raw", "expected"), LIST_FORMS)
def test_trusted_proxies_take_a_comma_list_a_single_value_or_json(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: list[str]
) -> None:
    monkeypatch.setenv("FI_TRUSTED_PROXIES", raw)
    assert load_settings().edge.trusted_proxies == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://a.example", ["https://a.example"]),
        ("https://a.example,http://b.example:8080", ["https://a.example", "http://b.example:8080"]),
        ('["https://a.example"]', ["https://a.example"]),
    ],
)
def test_cors_origins_take_a_comma_list_a_single_value_or_json(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: list[str]
) -> None:
    monkeypatch.setenv("FI_CORS_ORIGINS", raw)
    assert load_settings().edge.cors_origins == expected


BAD_VALUES = [
    ("FI_LLM_SLOTS", "0"),  # out of range
    ("FI_LLM_SLOTS", "two"),  # not a number
    ("FI_LLM_ACQUIRE_TIMEOUT_MS", "-5"),
    ("FI_LLM_CALL_TIMEOUT_S", "soon"),
    ("FI_LLM_BACKEND", "cloud"),  # not one of the choices
    ("FI_LLM_BASE_URL", "localhost:11434"),  # not an absolute URL
    ("FI_PORT", "70000"),
    ("FI_RATE_LIMIT_EXEMPT_LOOPBACK", "maybe"),  # not a boolean
    ("FI_TRUSTED_PROXIES", '["not-an-ip"]'),  # JSON list, bad entry
    ("FI_TRUSTED_PROXIES", "10.0.0.1,not-an-ip"),  # comma list, bad entry
    ("FI_TRUSTED_PROXIES", "[10.0.0.1"),  # broken JSON
    ("FI_TRUSTED_PROXIES", '{"a": 1}'),  # JSON, but not a list (read as one entry, not an address)
    ("FI_TRUSTED_PROXIES", "[1, 2]"),  # JSON list of numbers
    ("FI_CORS_ORIGINS", '["https://shop.example/path"]'),
    ("FI_CORS_ORIGINS", "shop.example"),
    ("FI_RATE_LIMIT", "lots"),
    ("FI_DATABASE_URL", "mysql://x"),
    ("FI_REDIS_URL", "http://127.0.0.1:6379"),
    ("FI_GATE_NAME", "has space"),
    ("FI_LLM_MODEL", "/no/such.gguf"),  # the embedded backend's model file must exist
    ("FI_QUERY_DEFAULT_LIMIT", "5000"),  # a rule across two settings
    ("FI_INPUT_MAX_CHARS", "20000"),  # above FI_MAX_BODY_BYTES
    ("FI_PRIOR_FIELDS", "category,colour"),  # not a structure field
]


@pytest.mark.parametrize(("variable", "value"), BAD_VALUES)
def test_a_bad_value_is_one_line_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as error:
        load_settings()
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("invalid configuration: ")
    named = message.removeprefix("invalid configuration: ").split(":", 1)[0]
    expected = "FI_MAX_BODY_BYTES" if variable == "FI_INPUT_MAX_CHARS" else variable
    assert named == expected, message


def test_several_bad_values_give_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_PORT", "x")
    monkeypatch.setenv("FI_LLM_SLOTS", "0")
    with pytest.raises(ConfigurationError) as error:
        load_settings()
    lines = str(error.value).splitlines()
    assert sorted(line.split(":")[1].strip() for line in lines) == ["FI_LLM_SLOTS", "FI_PORT"]
    assert all(line.startswith("invalid configuration: ") for line in lines)


def test_a_model_path_is_checked_only_for_the_embedded_backend(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("FI_LLM_BACKEND", "ollama")
    monkeypatch.setenv("FI_LLM_MODEL", "llama3.2:1b")
    assert load_settings().backends.model == "llama3.2:1b"
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("FI_LLM_BACKEND", "embedded")
    monkeypatch.setenv("FI_LLM_MODEL", str(model))
    assert load_settings().backends.model == str(model)


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
    assert settings.storage.database_url.startswith("postgresql+asyncpg://")
    assert settings.storage.live_database_url.startswith("sqlite+aiosqlite://")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("category,severity", ["category", "severity"]), ('["type"]', ["type"]), ("none", []), ("[]", [])],
)
def test_prior_fields_take_a_list_or_none(monkeypatch: pytest.MonkeyPatch, raw: str, expected: list[str]) -> None:
    monkeypatch.setenv("FI_PRIOR_FIELDS", raw)
    assert load_settings().backends.prior_fields == expected


def test_the_domains_prior_fields_apply_to_the_packaged_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """They were measured on the packaged model; an operator's own model is not silently overruled."""
    from feedback_intelligence.api.runtime import with_prior_fields
    from feedback_intelligence.domain.loader import load_domain

    retail = load_domain("retail")
    assert retail.prior_fields, "the shipped retail domain gives fields to the prior (docs/benchmarks.md)"
    assert with_prior_fields(retail, load_settings().backends).prior_fields == retail.prior_fields

    monkeypatch.setenv("FI_LLM_BACKEND", "ollama")
    assert with_prior_fields(retail, load_settings().backends).prior_fields == ()

    monkeypatch.setenv("FI_PRIOR_FIELDS", "severity")
    assert with_prior_fields(retail, load_settings().backends).prior_fields == ("severity",)

    monkeypatch.setenv("FI_LLM_BACKEND", "embedded")
    monkeypatch.setenv("FI_PRIOR_FIELDS", "none")
    assert with_prior_fields(retail, load_settings().backends).prior_fields == ()


def test_the_report_group_is_read_from_its_flat_variables_with_their_one_set_of_bounds() -> None:
    from feedback_intelligence.config import ReportSettings

    settings = load_settings(report_llm_budget=7, synthesis_temperature=0.1)
    # FI_REPORT_PROSE=auto is resolved: automatic on the packaged model (the default backend here)
    assert settings.report == ReportSettings(llm_budget=7, synthesis_temperature=0.1, prose="automatic")
    assert Settings.model_fields["report"].annotation is ReportSettings  # the group code builds is the one read
    for name, variable in ReportSettings.variables().items():  # each bound is written once, on ReportSettings
        assert variable.startswith(("FI_REPORT_", "FI_SYNTHESIS_")) or variable == "FI_TIMEZONE", name
    with pytest.raises(ConfigurationError, match="FI_REPORT_MAX_ITEMS: Input should be greater than or equal to 1"):
        load_settings(report_max_items=0)  # the group's bound, met through its variable
    with pytest.raises(ValidationError):
        ReportSettings(default_window_days=400)  # longer than the longest window (366 days)


def test_settings_read_grouped_by_concern_keep_their_flat_names() -> None:
    settings = load_settings(llm_slots=3, llm_acquire_timeout_ms=250, structure_lease_s=12, rate_limit="5/60seconds")
    assert (settings.backends.total_slots, settings.gate.acquire_timeout_s) == (3, 0.25)
    assert (settings.worker.tasks, settings.worker.lease_s) == (4, 12)  # FI_LLM_SLOTS + 1 by default
    assert settings.edge.rate_limit == "5/60seconds"
    assert settings.gate.background_reserve == 1 and load_settings(llm_slots=1).gate.background_reserve == 0
    assert settings.edge.max_inflight_llm_per_address == 1  # half the gate's slots, at least one


def test_the_batch_pool_leaves_the_service_a_core_from_four_cores_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """FI_BATCH_PROCESSES (docs/adr/0074): unset, a worker per usable core but the service's own from four
    cores up, none below; 0 or 1, no pool."""
    import os

    from feedback_intelligence.config.chain import default_batch_workers

    assert [default_batch_workers(cores) for cores in (1, 2, 3, 4, 8)] == [0, 0, 0, 3, 7]
    monkeypatch.delenv("FI_BATCH_PROCESSES", raising=False)
    assert load_settings().chain.batch_workers == default_batch_workers(len(os.sched_getaffinity(0)))
    monkeypatch.setenv("FI_BATCH_PROCESSES", "0")
    assert load_settings().chain.batch_workers == 0
    monkeypatch.setenv("FI_BATCH_PROCESSES", "3")
    assert load_settings().chain.batch_workers == 3
    monkeypatch.setenv("FI_BATCH_PROCESSES", "-1")
    with pytest.raises(ConfigurationError, match="FI_BATCH_PROCESSES"):
        load_settings()

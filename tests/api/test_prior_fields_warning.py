"""A model nobody measured decides every field: the boot says so, and how to measure it; a measured
setting (FI_PRIOR_FIELDS, also `none`) or the packaged model says nothing."""

from __future__ import annotations

import logging

import pytest

from feedback_intelligence.api.runtime import warn_if_prior_unmeasured
from feedback_intelligence.config import load_settings

WARNING = "no measured priorFields for this model"


def boot_warnings(caplog: pytest.LogCaptureFixture, **settings: object) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="feedback_intelligence.api.runtime"):
        warn_if_prior_unmeasured(load_settings(**settings).backends)
    return [r.getMessage() for r in caplog.records if WARNING in r.getMessage()]


def test_an_unmeasured_model_is_warned_about_with_the_way_to_measure_it(caplog: pytest.LogCaptureFixture) -> None:
    [message] = boot_warnings(caplog, llm_backend="ollama", llm_model="qwen2.5:3b")
    assert "ollama qwen2.5:3b" in message
    assert "feedctl eval" in message and "FI_PRIOR_FIELDS" in message


@pytest.mark.parametrize("prior_fields", [["severity"], []])
def test_a_configured_prior_is_silent(caplog: pytest.LogCaptureFixture, prior_fields: list[str]) -> None:
    assert boot_warnings(caplog, llm_backend="ollama", llm_model="qwen2.5:3b", prior_fields=prior_fields) == []


def test_the_packaged_model_is_silent(caplog: pytest.LogCaptureFixture) -> None:
    assert boot_warnings(caplog, llm_backend="embedded") == []

"""FI_LOG_FORMAT: text lines for people, or one JSON object per line for a log collector."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from feedback_intelligence.cli.log_setup import JsonLines, uvicorn_config
from feedback_intelligence.config import ConfigurationError, load_settings


def record(**extra: object) -> logging.LogRecord:
    made = logging.getLogger("feedback_intelligence.test").makeRecord(
        "feedback_intelligence.test", logging.WARNING, __file__, 1, "%d row(s) for %s", (3, "kassa"), None, extra=extra
    )
    made.created = 1_800_000_000.25  # 2027-01-15T08:00:00.250Z
    return made


def test_a_json_line_holds_time_level_logger_message_and_the_extra_fields() -> None:
    line = JsonLines().format(record(store="s1", attempt=2))
    assert "\n" not in line
    assert json.loads(line) == {
        "time": "2027-01-15T08:00:00.250+00:00",
        "level": "WARNING",
        "logger": "feedback_intelligence.test",
        "message": "3 row(s) for kassa",
        "store": "s1",
        "attempt": 2,
    }


def test_an_exception_stays_inside_its_one_line() -> None:
    try:
        raise ValueError("broken\nacross lines")
    except ValueError:
        failed = record()
        failed.exc_info = sys.exc_info()
    line = JsonLines().format(failed)
    assert "\n" not in line and "ValueError: broken\nacross lines" in json.loads(line)["exception"]


def test_uvicorn_writes_in_the_same_format_and_keeps_dropping_query_values() -> None:
    text, json_lines = uvicorn_config("text"), uvicorn_config("json")
    assert all(
        f.get("()") == "feedback_intelligence.cli.log_setup.JsonLines" for f in json_lines["formatters"].values()
    )
    assert all("JsonLines" not in str(f) for f in text["formatters"].values())
    assert json_lines["loggers"]["uvicorn.access"]["filters"] == ["query_values_dropped"]


def test_the_format_is_text_unless_set_and_only_text_or_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FI_LOG_FORMAT", raising=False)
    assert load_settings().server.log_format == "text"
    monkeypatch.setenv("FI_LOG_FORMAT", "json")
    assert load_settings().server.log_format == "json"
    monkeypatch.setenv("FI_LOG_FORMAT", "xml")
    with pytest.raises(ConfigurationError, match=r"^invalid configuration: FI_LOG_FORMAT: "):
        load_settings()

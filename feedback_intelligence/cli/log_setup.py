"""How ``feedctl serve`` logs (``FI_LOG_FORMAT``): lines for people to read (``text``), or one JSON object
per line for a log collector (``json``): ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and
every extra field the record carries, the exception's traceback as ``exception``.

The service's own loggers and uvicorn's (its error log and its access log, with the query values the log
may not keep dropped: edge/access_log.py) write in the one format.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any, Literal

from feedback_intelligence.edge.access_log import uvicorn_log_config

LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# What every record has; the rest are the fields a caller added (``extra=``). uvicorn's color_message is
# its text line again, with terminal colours.
_NOT_EXTRA = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "color_message"}


class JsonLines(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _NOT_EXTRA and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonLines() if log_format == "json" else logging.Formatter(TEXT_FORMAT)


def configure(level: str, log_format: LogFormat) -> dict[str, Any]:
    """Set up the service's logging in ``log_format``; returns uvicorn's ``log_config`` in the same format."""
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(log_format))
    logging.basicConfig(level=level.upper(), handlers=[handler])
    return uvicorn_config(log_format)


def uvicorn_config(log_format: LogFormat) -> dict[str, Any]:
    """uvicorn's logging configuration (edge/access_log.py), its formatters JSON lines when asked."""
    config = uvicorn_log_config()
    if log_format == "json":
        config["formatters"] = {name: {"()": f"{__name__}.JsonLines"} for name in config["formatters"]}
    return config

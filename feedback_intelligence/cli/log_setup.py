"""How ``feedctl serve`` logs (``FI_LOG_FORMAT``): lines for people to read (``text``), or one JSON object
per line for a log collector (``json``): ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``,
``request_id`` (a line written while a request runs: its ``X-Request-ID``, edge/request_id.py) and every
extra field the record carries, the exception's traceback as ``exception``. A text line shows the request
id in brackets after the level (``[-]`` outside a request).

The service's own loggers and uvicorn's (its error log and its access log, with the query values the log
may not keep dropped: edge/access_log.py) write in the one format.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any, Literal

from feedback_intelligence.edge import request_id
from feedback_intelligence.edge.access_log import uvicorn_log_config

LogFormat = Literal["text", "json"]
_ID = f"[%({request_id.RECORD_FIELD})s]"
TEXT_FORMAT = f"%(asctime)s %(levelname)s {_ID} %(name)s: %(message)s"
# uvicorn's own two formats, with the request id where ours has it
UVICORN_TEXT_FORMATS = {
    "default": f"%(levelprefix)s {_ID} %(message)s",
    "access": f'%(levelprefix)s {_ID} %(client_addr)s - "%(request_line)s" %(status_code)s',
}
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
        request = getattr(record, request_id.RECORD_FIELD, None)
        if request and request != request_id.NO_REQUEST:
            entry["request_id"] = request
        for key, value in vars(record).items():
            if key not in _NOT_EXTRA and key not in entry and key != request_id.RECORD_FIELD:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format: LogFormat) -> logging.Formatter:
    if log_format == "json":
        return JsonLines()
    # the default: a record that met no request-id filter (a handler set up elsewhere) still formats
    return logging.Formatter(TEXT_FORMAT, defaults={request_id.RECORD_FIELD: request_id.NO_REQUEST})


def configure(level: str, log_format: LogFormat) -> dict[str, Any]:
    """Set up the service's logging in ``log_format``; returns uvicorn's ``log_config`` in the same format."""
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(log_format))
    handler.addFilter(request_id.log_filter())
    logging.basicConfig(level=level.upper(), handlers=[handler])
    return uvicorn_config(log_format)


def uvicorn_config(log_format: LogFormat) -> dict[str, Any]:
    """uvicorn's logging configuration (edge/access_log.py), the request id on each of its lines, its
    formatters JSON lines when asked."""
    config = uvicorn_log_config()
    config.setdefault("filters", {})["request_id"] = request_id.log_filter_config()
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("request_id")
    if log_format == "json":
        config["formatters"] = {name: {"()": f"{__name__}.JsonLines"} for name in config["formatters"]}
    else:
        for name, fmt in UVICORN_TEXT_FORMATS.items():
            config["formatters"][name]["fmt"] = fmt
    return config

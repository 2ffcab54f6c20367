"""Request ids, by asgi-correlation-id: ``X-Request-ID`` taken from the caller (nginx's ``$request_id``, a
load balancer's, a program's) or made here, echoed on the response, and on every log line written while the
request runs (the service's, uvicorn's access line; cli/log_setup.py puts the filter on the handlers).

A caller's id is kept when it is a short token of letters, digits and ``. _ : -``; anything else (too long,
spaces, quotes, control characters) is replaced by a fresh id, so a header cannot forge or break a log line.
"""

from __future__ import annotations

import re
from typing import Any

from asgi_correlation_id import CorrelationIdFilter, CorrelationIdMiddleware

HEADER = "X-Request-ID"
#: The log record's attribute asgi-correlation-id's filter sets; JSON lines call it ``request_id``.
RECORD_FIELD = "correlation_id"
NO_REQUEST = "-"  # what a line written outside any request shows
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def acceptable(value: str) -> bool:
    """Whether a caller's id is kept as it is."""
    return _TOKEN.fullmatch(value) is not None


def layer() -> tuple[type, dict[str, Any]]:
    """The middleware and its options, for the edge's stack (edge/stack.py)."""
    return CorrelationIdMiddleware, {"header_name": HEADER, "validator": acceptable}


def log_filter() -> CorrelationIdFilter:
    """The logging filter that puts the id on every record a handler writes (``NO_REQUEST`` outside one)."""
    return CorrelationIdFilter(default_value=NO_REQUEST)


def log_filter_config() -> dict[str, Any]:
    """:func:`log_filter` in logging.config.dictConfig's form (uvicorn's handlers)."""
    return {"()": f"{__name__}.log_filter"}

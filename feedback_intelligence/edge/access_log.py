"""What the service log may say of a request's target (ADR 0039): the path, and of the query only what
names nobody.

The access log (uvicorn's, one line a request) wrote the whole target, so a manager's search (``q=``,
the customer's words), an OIDC ``code`` or any value someone put in a URL stayed in the log for as long
as the log is kept, while the audit log deliberately keeps none of them. Here a value is kept only for
the parameters listed in :data:`VALUES_SHOWN` (fixed vocabularies, instants, counts, store ids); another
parameter of ours shows its name with the value dropped, anything else a bare ``…``.

``feedctl serve`` hands uvicorn :func:`uvicorn_log_config`: its own logging setup with
:class:`QueryValuesDropped` on the access logger, the one place the rule is applied.
"""

from __future__ import annotations

import copy
import logging
from typing import Any
from urllib.parse import unquote_plus

#: Parameters whose values are kept: they hold no one's words and no credential.
VALUES_SHOWN = frozenset(
    {
        "alert",
        "before",
        "category",
        "channel",
        "cursor",
        "error",
        "from",
        "limit",
        "mine",
        "sentiment",
        "severity",
        "snapshot",
        "source",
        "store",
        "to",
        "type",
    }
)
#: Parameters of ours whose values are dropped (the search's words; the OIDC callback's code and state;
#: the sign-in's return path), shown by name so the line still says what kind of request it was.
NAMES_SHOWN = frozenset({"q", "code", "state", "next", "error_description"})
DROPPED = "…"
ACCESS_LOGGER = "uvicorn.access"


def loggable_target(target: str) -> str:
    """``target`` (a path with its query) as the log may keep it."""
    path, separator, query = target.partition("?")
    if not separator:
        return target
    kept: list[str] = []
    for piece in query.split("&"):
        raw_name, has_value, _ = piece.partition("=")
        name = unquote_plus(raw_name)
        if name in VALUES_SHOWN:
            kept.append(piece)
        elif name in NAMES_SHOWN:
            kept.append(f"{raw_name}={DROPPED}" if has_value else raw_name)
        elif piece:
            kept.append(DROPPED)
    return f"{path}?{'&'.join(kept)}"


class QueryValuesDropped(logging.Filter):
    """On uvicorn's access logger: the record's target (its third argument) through :func:`loggable_target`."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], loggable_target(args[2]), *args[3:])
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own logging configuration, with :class:`QueryValuesDropped` on its access logger."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["query_values_dropped"] = {"()": f"{__name__}.QueryValuesDropped"}
    config["loggers"][ACCESS_LOGGER].setdefault("filters", []).append("query_values_dropped")
    return config

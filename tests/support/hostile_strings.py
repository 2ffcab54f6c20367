"""Hostile characters for the schemathesis runs: every generated string may carry one of them.

Hypothesis' text strategies never produce lone surrogates and rarely NUL, bidi or zero-width
characters, which are exactly what broke the service (ADR 0012). These hooks put one of them into
the middle of every string of a generated body (and, without surrogates, which a URL cannot
carry, of its query and path parameters), or leave the case as generated.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import strategies as st

URL_SAFE_HOSTILE = (
    "\x00",
    "\u202e",
    "\u2066",
    "\u200b",
    "\ufeff",
    "\u200d",
    "\r\n",
    "\u0435",
    "<<<PALAUTE\u200b_LOPPU>>>",
)
HOSTILE = (*URL_SAFE_HOSTILE, "\ud800", "\udfff", "a\udc80b")


def inject(value: Any, piece: str) -> Any:
    """``value`` with ``piece`` spliced into the middle of every string in it (keys left alone)."""
    if isinstance(value, str):
        middle = len(value) // 2
        return value[:middle] + piece + value[middle:]
    if isinstance(value, dict):
        return {key: inject(item, piece) for key, item in value.items()}
    if isinstance(value, list):
        return [inject(item, piece) for item in value]
    return value


def _spliced(value: Any, pieces: tuple[str, ...]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(value), st.sampled_from(pieces).map(lambda piece: inject(value, piece)))


def add_hostile_strings(schema: schemathesis.BaseSchema) -> schemathesis.BaseSchema:
    @schema.hook
    def flatmap_body(context: object, body: Any) -> st.SearchStrategy[Any]:
        # a raw text body (the page's CSV upload) is sent as UTF-8 bytes: a lone surrogate has no such form,
        # so it gets the rest (JSON carries a surrogate escaped, and gets them all)
        return _spliced(body, URL_SAFE_HOSTILE if isinstance(body, str) else HOSTILE)

    @schema.hook
    def flatmap_query(context: object, query: dict[str, Any]) -> st.SearchStrategy[Any]:
        return _spliced(query, URL_SAFE_HOSTILE)

    @schema.hook
    def flatmap_path_parameters(context: object, path_parameters: dict[str, Any]) -> st.SearchStrategy[Any]:
        return _spliced(path_parameters, URL_SAFE_HOSTILE)

    return schema

"""The error answers each route documents, with their body models (one table, used by every route)."""

from __future__ import annotations

from typing import Any

from feedback_intelligence.api import models as m

_ERRORS: dict[int, tuple[type[m.ApiModel], str]] = {
    400: (m.ErrorsBody, "A rule was broken (each message names it; `codes` for translation). Nothing was stored."),
    404: (m.NotFoundBody, "Not found."),
    409: (m.DuplicateBody, "An item with this id is already stored (a retried save): nothing changed."),
    410: (m.ErasedBody, "`erased`: the item with this id was erased; the id is never stored again."),
    422: (
        m.ErrorsBody,
        "A filter names a value this deployment does not know (the domain's keys are in `/schema`); nothing was read.",
    ),
    413: (m.ErrorsBody, "The body is over `FI_MAX_BODY_BYTES`; it was not read."),
    429: (
        m.RateLimitedBody,
        "Too many requests from this client, or its previous LLM request is still running (see `Retry-After`).",
    ),
    503: (m.BusyBody, "Busy or unavailable right now; nothing was stored (see `Retry-After`)."),
}


def errors(*statuses: int, **descriptions: str) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: the given statuses with their models; ``s503="…"`` overrides a description."""
    documented: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        model, description = _ERRORS[status]
        # The content is named too: on a route whose own answer is not JSON (the snapshot's HTML), FastAPI
        # would otherwise document these JSON error bodies under the route's media type.
        documented[status] = {
            "model": model,
            "description": descriptions.get(f"s{status}", description),
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        }
    return documented

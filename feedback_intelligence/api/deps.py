"""Request-scoped access to the runtime built at start-up."""

from __future__ import annotations

from starlette.requests import Request

from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.edge.inflight import visitor_of


def runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def visitor(request: Request) -> str:
    """Whose fair share at the gate this request's LLM calls count against (the edge's client key)."""
    return visitor_of(request.scope, request.app.state.edge.policy)

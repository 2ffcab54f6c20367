"""Request-scoped access to the runtime built at start-up."""

from __future__ import annotations

from starlette.requests import Request

from feedback_intelligence.api.runtime import Runtime


def runtime(request: Request) -> Runtime:
    return request.app.state.runtime

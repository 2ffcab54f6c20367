"""Request-scoped access to what start-up built: each a dependency declared once, used by every route.

A route takes ``rt: RuntimeDep`` (or ``p: PeopleDep``) rather than repeating ``Depends(...)``
or reading ``request.app.state`` itself, so where the runtime lives is said here alone.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import Request

from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.auth.people import People
from feedback_intelligence.edge.inflight import visitor_of


def runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def people(request: Request) -> People:
    """The accounts and sessions (the edge owns them: identity is resolved before any route)."""
    return request.app.state.edge.people


def is_operator(request: Request) -> bool:
    """Whether the edge's operator credential came with this request."""
    return request.app.state.edge.auth.is_operator(request.scope)


def visitor(request: Request) -> str:
    """Whose fair share at the gate this request's LLM calls count against (the edge's client key)."""
    return visitor_of(request.scope, request.app.state.edge.policy)


RuntimeDep = Annotated[Runtime, Depends(runtime)]
PeopleDep = Annotated[People, Depends(people)]

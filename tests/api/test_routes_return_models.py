"""Every route answers a model (or a Response it builds), not a plain dict FastAPI re-validates, and takes
what start-up built through the one dependency of each (api/deps.py), never reading ``app.state`` itself."""

from __future__ import annotations

import importlib
import pkgutil
import re
import typing
from pathlib import Path

from fastapi import APIRouter
from fastapi.routing import APIRoute

from feedback_intelligence.api import routes

API = Path(__file__).resolve().parents[2] / "feedback_intelligence" / "api"
# Open-ended on purpose (ADR 0050): the backend's own details and the telemetry's per-field table.
FREE_FORM = {"/admin/status", "/telemetry/corrections"}
# The modules that build the app and declare its dependencies: the only readers of ``app.state``.
STATE_READERS = {"app.py", "deps.py"}


def test_no_route_returns_a_plain_dict() -> None:
    dicts = [
        route.path
        for info in pkgutil.iter_modules(routes.__path__)
        for route in getattr(importlib.import_module(f"{routes.__name__}.{info.name}"), "router", APIRouter()).routes
        if isinstance(route, APIRoute)
        and typing.get_origin(typing.get_type_hints(route.endpoint).get("return")) is dict
        and route.path not in FREE_FORM
    ]
    assert dicts == []


def test_routes_take_the_runtime_and_the_accounts_through_one_dependency_each() -> None:
    repeated = re.compile(r"Depends\((runtime|people|manager_scope|desk_reach|manager_reach|scoped_filter)\)")
    found = []
    for path in API.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name not in STATE_READERS and re.search(r"request\.app\.state\.(runtime|edge)\b", text):
            found.append(f"{path.name}: reads app.state")
        found += [f"{path.name}: {m.group(0)}" for m in repeated.finditer(text) if "= Annotated[" not in _line(text, m)]
    assert found == []


def _line(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    return text[start : text.find("\n", match.end())]

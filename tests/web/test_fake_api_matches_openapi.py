"""The browser tests' scripted API speaks the real app's wire format: each answer it gives is checked
against the response schema the real app publishes for the same route and status (its OpenAPI document).

A page test against the fake proves something about the real app only as long as the fake answers what the
app answers; this keeps the two from drifting apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from feedback_intelligence.api.app import create_app
from feedback_intelligence.llm.testing import FakeBackend
from tests.edge.test_real_app import real_settings
from tests.web import sample_data
from tests.web.fake_api import FakeApi

# (method, path as the fake is called, path template in the real schema, body, scripted setup)
CALLS: list[Any] = [
    ("GET", "/schema", "/schema", None, {}),
    ("GET", "/live/version", "/live/version", None, {}),
    ("GET", "/live/desk-store", "/live/desk-store", None, {}),
    ("GET", "/live/desk-store?store=s1", "/live/desk-store", None, {"store_names": {"s1": "Keskusta"}}),
    ("GET", "/live/desk-store?store=zz", "/live/desk-store", None, {"store_names": {"s1": "Keskusta"}}),
    ("GET", "/live/feedback", "/live/feedback", None, {}),
    ("GET", "/live/feedback/desk-a1", "/live/feedback/{feedback_id}", None, {}),
    ("POST", "/interpret", "/interpret", {"text": "Maito oli hapanta."}, {}),
    ("POST", "/interpret", "/interpret", {"text": "Maito oli hapanta."}, {"interpret_statuses": [503]}),
    ("POST", "/interpret", "/interpret", {"text": ""}, {"interpret_statuses": [400]}),
    (
        "POST",
        "/live/feedback",
        "/live/feedback",
        {
            "id": "desk-new",
            "source": "desk",
            "text": "Leipä oli homeessa.",
            "timestamp": "2026-06-01T10:00:00+03:00",
            "acceptedStructure": {
                "category": "leipa",
                "theme": "home",
                "severity": "medium",
                "type": "complaint",
                "language": "fi",
                "sentiment": "negative",
            },
        },
        {},
    ),
    (
        "POST",
        "/live/feedback",
        "/live/feedback",
        {"id": "desk-a1", "source": "desk", "text": "Toinen kerta.", "timestamp": "2026-06-01T10:00:00+03:00"},
        {},
    ),
    ("GET", "/live/report", "/live/report", None, {}),
    ("GET", "/report", "/report", None, {}),
    (
        "GET",
        "/report",
        "/report",
        None,
        {"report": sample_data.report_from_items(sample_data.live_items(), summary=False, model_prose=False)},
    ),
]


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data: Path = tmp_path_factory.mktemp("openapi")
    return create_app(real_settings(data), backend=FakeBackend(reply="{}")).openapi()


def response_schema(openapi: dict[str, Any], method: str, template: str, status: int) -> dict[str, Any] | None:
    operation = openapi["paths"][template][method.lower()]
    documented = operation["responses"].get(str(status))
    if documented is None:
        return None
    content = documented.get("content", {}).get("application/json")
    return None if content is None else content["schema"]


async def test_every_route_the_fake_serves_exists_in_the_real_app(openapi: dict[str, Any]) -> None:
    for call in CALLS:
        method, _, template, _, _ = call.values if hasattr(call, "values") else call
        assert method.lower() in openapi["paths"].get(template, {}), f"the real app has no {method} {template}"


def _id(call: Any) -> str:
    method, path, _, _, setup = call.values if hasattr(call, "values") else call
    shown = {name: "scripted" if isinstance(value, dict) else value for name, value in setup.items()}
    return f"{method} {path} {sorted(shown.items())}"


@pytest.mark.parametrize(("method", "path", "template", "body", "setup"), CALLS, ids=[_id(c) for c in CALLS])
async def test_the_fakes_answer_matches_the_real_response_schema(
    openapi: dict[str, Any],
    method: str,
    path: str,
    template: str,
    body: dict[str, Any] | None,
    setup: dict[str, Any],
) -> None:
    fake = FakeApi()
    fake.script.live_items = sample_data.live_items()
    for name, value in setup.items():
        setattr(fake.script, name, value)
    transport = httpx.ASGITransport(app=fake.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://fake.test") as http:
        response = await http.request(method, path, json=body)

    schema = response_schema(openapi, method, template, response.status_code)
    if schema is None:
        # A status the real app does not document a JSON body for: at least the one error shape it uses.
        assert response.status_code in (400, 409, 429, 503), response.status_code
        return
    validator = jsonschema_rs.validator_for({**schema, "components": openapi.get("components", {})})
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(response.json())]
    assert errors == [], f"{method} {path} -> {response.status_code} does not match the real schema"

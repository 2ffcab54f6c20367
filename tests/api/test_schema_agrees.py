"""Schema and behaviour agree (ADR 0023): each mismatch schemathesis found between the schema and the behaviour, now in
agreement. For every input, the app's own ``/openapi.json`` (validated with formats) and the app's
answer say the same thing: schema-invalid and refused ``400``, or schema-valid and accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from feedback_intelligence.api.app import create_app
from tests.api.test_hardening import STRUCTURE, client, counting_backend, running
from tests.edge.test_real_app import LOOPBACK, real_settings


def schema_for(document: dict[str, Any], fragment: dict[str, Any]) -> jsonschema_rs.Validator:
    """A validator for ``fragment`` whose ``#/components/...`` references resolve in ``document``."""
    return jsonschema_rs.validator_for({**fragment, "components": document["components"]}, validate_formats=True)


def body_schema(document: dict[str, Any], path: str) -> jsonschema_rs.Validator:
    content = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return schema_for(document, content)


def query_schema(document: dict[str, Any], path: str, name: str) -> jsonschema_rs.Validator:
    (parameter,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == name]
    return schema_for(document, parameter["schema"])


OMIT = object()  # the key is left out of the body
_SERVED: list[dict[str, Any]] = []


async def served_document(operator: httpx.AsyncClient) -> dict[str, Any]:
    """The app's own ``/openapi.json``. Every app of this module has the same settings, hence the same
    document: the first one served stands for the others (FastAPI derives it anew per app, ~0.5 s)."""
    if not _SERVED:
        _SERVED.append((await operator.get("/openapi.json")).json())
    return _SERVED[0]


def save(**extra: Any) -> dict[str, Any]:
    return {"source": "desk", "text": "Maito oli hapanta.", **extra}


async def agree(
    http: httpx.AsyncClient, validator: jsonschema_rs.Validator, value: Any, answer: httpx.Response
) -> None:
    valid = validator.is_valid(value)
    assert (answer.status_code < 400) == valid, f"schema says valid={valid}, app answered {answer.status_code}"


@pytest.mark.parametrize(
    ("value", "accepted"),
    [("", False), ("garbage", False), ("2026-11-30T12:00:00Z", True), ("2026-11-30T12:00:00+02:00", True)],
)
async def test_list_window_bounds_are_date_times_in_the_schema_and_in_the_app(
    tmp_path: Path, value: str, accepted: bool
) -> None:
    app = create_app(real_settings(tmp_path, structure_worker=False), backend=counting_backend())
    async for _ in running(app):
        async with client(app, LOOPBACK) as operator:
            document = await served_document(operator)
            for path in ("/feedback", "/live/feedback"):
                for name in ("from", "to"):
                    answer = await operator.get(path, params={name: value})
                    assert (answer.status_code == 200) == accepted, (path, name, answer.text)
                    await agree(operator, query_schema(document, path, name), value, answer)


@pytest.mark.parametrize(
    ("extra", "accepted"),
    [
        ({"timestamp": ""}, False),  # the schema allowed it, the app refused it
        ({"timestamp": "yesterday"}, False),
        ({"timestamp": "2026-11-30T12:00:00Z"}, True),
        (  # corrections without acceptedStructure
            {
                "corrections": [{"field": "severity", "modelValue": "low", "humanValue": "high"}],
                "acceptedStructure": OMIT,
            },
            False,
        ),
        ({"corrections": [], "acceptedStructure": None}, False),
        ({"corrections": None}, True),
        ({"text": "a\x01" * 2001}, False),  # 4,002 characters as sent, 2,001 once the controls are dropped
        ({"text": "a" * 4000}, True),  # a save stores up to FI_TEXT_STORE_MAX_CHARS (ADR 0025)
        ({"id": "ok.id-1"}, True),
        ({"id": "not an id"}, False),
        ({"acceptedStructure": {**STRUCTURE, "language": ""}}, False),
        ({"acceptedStructure": {**STRUCTURE, "language": "en-GB"}}, True),
        ({"acceptedStructure": {**STRUCTURE, "theme": ""}}, False),
        ({"acceptedStructure": {**STRUCTURE, "theme": " \u200b "}}, False),
    ],
    ids=[
        "empty-timestamp",
        "bad-timestamp",
        "timestamp",
        "corrections",
        "corrections-null-structure",
        "null-corrections",
        "4001-with-controls",
        "4000",
        "id",
        "bad-id",
        "empty-language",
        "language-tag",
        "empty-theme",
        "blank-theme",
    ],
)
async def test_a_save_is_refused_exactly_when_the_schema_refuses_it(
    tmp_path: Path, extra: dict[str, Any], accepted: bool
) -> None:
    app = create_app(real_settings(tmp_path, structure_worker=False), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http, client(app, LOOPBACK) as operator:
            document = await served_document(operator)
            merged = {**save(acceptedStructure=dict(STRUCTURE)), **extra}
            body = {key: value for key, value in merged.items() if value is not OMIT}
            answer = await http.post("/live/feedback", json=body)
            assert (answer.status_code == 201) == accepted, answer.text
            await agree(http, body_schema(document, "/live/feedback"), body, answer)

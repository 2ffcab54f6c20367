"""The API's own description: readable operation ids, a summary and description for every route and
field, the active domain's enums, the text limit, and every error status with its body model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from feedback_intelligence.api.app import create_app
from feedback_intelligence.config import load_settings
from feedback_intelligence.domain.loader import load_domain
from tests.support.databases import migrated

CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)*$")


def document(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    settings = load_settings(
        **{
            "llm_backend": "ollama",
            "llm_base_url": "http://127.0.0.1:9",
            "llm_model": "held",
            "database_url": f"sqlite:///{migrated(tmp_path / 'feedback.db')}",
            "live_database_url": f"sqlite:///{migrated(tmp_path / 'live.db')}",
            "snapshot_dir": tmp_path / "snapshots",
            **overrides,
        }
    )
    return create_app(settings).openapi()


@pytest.fixture
def schema(tmp_path: Path) -> dict[str, Any]:
    return document(tmp_path)


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in schema["paths"].items() for method, op in ops.items()]


def component(schema: dict[str, Any], name: str) -> dict[str, Any]:
    components = schema["components"]["schemas"]
    return components.get(name) or components[f"{name}-Input"]


def test_every_operation_has_a_readable_id_a_summary_and_a_description(schema: dict[str, Any]) -> None:
    ids = []
    for method, path, op in operations(schema):
        assert CAMEL.match(op["operationId"]), (method, path, op["operationId"])
        assert op.get("summary") and op.get("description"), (method, path)
        ids.append(op["operationId"])
    assert len(ids) == len(set(ids))
    by_route = {(m, p): op["operationId"] for m, p, op in operations(schema)}
    assert by_route[("POST", "/interpret")] == "interpretFeedback"
    assert by_route[("POST", "/live/feedback")] == "saveDeskEntry"
    assert by_route[("GET", "/feedback/{feedback_id}")] == "getFeedback"


def test_every_field_is_described_and_titled_in_words(schema: dict[str, Any]) -> None:
    for name, body in schema["components"]["schemas"].items():
        for field, prop in body.get("properties", {}).items():
            assert prop.get("description"), f"{name}.{field} has no description"
            words = prop["title"].split(" ")
            assert all(word == word.lower() for word in words[1:]), f"{name}.{field}: {prop['title']!r}"
    assert component(schema, "InterpretOut")["properties"]["alertCategories"]["title"] == "Alert categories"


@pytest.mark.parametrize("domain_name", ["retail", "game"])
def test_the_active_domains_enums_are_in_the_schema(tmp_path: Path, domain_name: str) -> None:
    schema = document(tmp_path, domain=domain_name)
    domain = load_domain(domain_name)
    structure = component(schema, "StructureBody")["properties"]
    assert structure["category"]["enum"] == list(domain.categories)
    assert structure["severity"]["enum"] == list(domain.severities)
    assert structure["type"]["enum"] == list(domain.types)
    [sentiment] = [alt for alt in structure["sentiment"]["anyOf"] if alt.get("type") == "string"]
    assert sentiment["enum"] == list(domain.sentiments)
    assert component(schema, "FeedbackIn")["properties"]["source"]["enum"] == list(domain.sources)
    assert component(schema, "AlertOut")["properties"]["category"]["enum"] == list(domain.alert_keywords)


def test_the_text_limits_follow_their_settings(tmp_path: Path) -> None:
    schema = document(tmp_path)
    for name, limit, setting in (
        ("InterpretIn", 800, "FI_INPUT_MAX_CHARS"),
        ("FeedbackIn", 4000, "FI_TEXT_STORE_MAX_CHARS"),
    ):
        text = component(schema, name)["properties"]["text"]
        assert (text["minLength"], text["maxLength"]) == (1, limit)
        assert f"{limit} characters ({setting})" in text["description"]
    smaller = document(tmp_path / "small", input_max_chars=300)
    assert component(smaller, "InterpretIn")["properties"]["text"]["maxLength"] == 300


def _ref(op: dict[str, Any], status: str) -> str:
    return op["responses"][status]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]


def test_every_error_status_carries_its_body_model(schema: dict[str, Any]) -> None:
    ops = {(m, p): op for m, p, op in operations(schema)}
    save = ops[("POST", "/live/feedback")]
    assert {status: _ref(save, status) for status in ("400", "409", "413", "429", "503")} == {
        "400": "ErrorsBody",
        "409": "DuplicateBody",
        "413": "ErrorsBody",
        "429": "RateLimitedBody",
        "503": "BusyBody",
    }
    assert _ref(ops[("GET", "/live/feedback/{feedback_id}")], "404") == "NotFoundBody"
    assert _ref(ops[("POST", "/interpret")], "503") == "BusyBody"
    assert _ref(ops[("POST", "/live/restructure")], "503") == "RestructureShedBody"
    # The app answers bad input with 400, never FastAPI's 422: the document promises one only where a route
    # answers it itself, for a filter value the domain does not know (api/filters.py)
    filtered = {
        ("GET", p) for p in ("/report", "/report/items", "/report/items.csv", "/report/stores", "/report/brief")
    }
    assert {(m, p) for m, p, op in operations(schema) if "422" in op["responses"]} == filtered
    assert {_ref(ops[key], "422") for key in filtered} == {"ErrorsBody"}
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    codes = component(schema, "ErrorsBody")["properties"]["codes"]
    assert codes["items"]["$ref"].endswith("/ErrorCode")


def test_every_operation_with_a_body_documents_the_edges_body_cap(schema: dict[str, Any]) -> None:
    # The edge refuses an over-cap body with 413 before any route runs (edge/body_limit.py): an operation
    # that takes a body and does not say so is one schemathesis finds answering an undocumented status.
    with_body = [(m, p, op) for m, p, op in operations(schema) if "requestBody" in op]
    assert ("POST", "/auth/signin") in {(m, p) for m, p, _ in with_body}
    assert [(m, p) for m, p, op in with_body if _ref(op, "413") != "ErrorsBody"] == []

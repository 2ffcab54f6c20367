"""Fuzz the HTTP surface from its own OpenAPI schema: no input may produce a 500."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from feedback_intelligence.devtools.processes import app_server, sim_ollama


@pytest.fixture(scope="module")
def api_schema() -> Iterator[schemathesis.BaseSchema]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=5) as sim, app_server(
        {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": sim.url, "FI_LLM_MODEL": "sim-model",
         "FI_REPORT_ALERT_VERIFY_BUDGET": "3"}
    ) as app:
        loaded = schemathesis.openapi.from_url(app.url + "/openapi.json")
        loaded.config.update(base_url=app.url)
        yield loaded


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])

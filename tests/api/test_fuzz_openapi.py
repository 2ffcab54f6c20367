"""Fuzz the HTTP surface from its own OpenAPI schema: no input may produce a 500, every answer matches its schema.

Every operation of the app's schema gets generated cases (valid and invalid bodies, queries and
paths) sent to the app running as a real process, with sim-ollama behind it, twice:

* **as generated, every check** schemathesis has: besides the four below, a schema-valid request is
  accepted and a schema-invalid one refused with a 4xx (the schema says exactly what the app takes),
  undocumented methods answer 405, and so on;
* **with hostile strings**: NUL, lone surrogates, bidi and zero-width characters spliced into every
  generated string (tests/support/hostile_strings.py). The splice can turn a valid value invalid
  (an enum member with a NUL in it), so this pass checks what must hold for any input at all.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.support.hostile_strings import add_hostile_strings

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

EXAMPLES_PER_OPERATION = 30
# For any input at all: no 500, every status one the operation documents, every answer in the documented
# body shape and content type for its status.
ANY_INPUT_CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, status_code_conformance]
# A report's window binds `from` and `to` together (at most FI_REPORT_MAX_WINDOW_DAYS apart), which JSON
# Schema cannot state: a longer window is the documented 400 `window_invalid` for parameters each valid
# on its own, so only on these paths is a schema-valid request not sure to be accepted. (Said here, not in
# schemathesis.toml: an `[[operations]]` table there turns off schemathesis' `include` filters, which
# tests/edge's fuzz test relies on.)
WINDOW_BOUND_PATHS = (
    "/report",
    "/live/report",
    "/report/items",
    "/report/items.csv",
    "/report/stores",
    "/telemetry/corrections",
)
# A new password is refused when it is the user name or one of the commonest passwords (auth/password_policy.py):
# no JSON Schema compares two fields or lists 30,000 values, so these may answer 400 to schema-valid data
# (the generator does reuse one string for both fields). The schema states the rest (api/openapi.py).
PASSWORD_PATHS = ("/admin/users", "/admin/users/{username}/password", "/auth/password")
# A case note's bound is FI_INPUT_MAX_CHARS, a setting the static schema cannot carry (it states the
# hard ceiling), and a note blank once trimmed is refused: 400 to schema-valid data, about one run in three.
SETTING_BOUND_PATHS = ("/cases/{ref}/notes",)


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=5) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_REPORT_ALERT_VERIFY_BUDGET": "3",
            }
        ) as server,
    ):
        yield server


@pytest.mark.parametrize("hostile", [False, True], ids=["every-check", "hostile-strings"])
def test_no_generated_input_makes_a_server_error(app: ServerProcess, hostile: bool) -> None:
    schema = schemathesis.openapi.from_url(app.url + "/openapi.json")
    if hostile:
        schema = add_hostile_strings(schema)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15, "the schema lost operations"
    calls = 0
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def no_server_error(case: schemathesis.Case) -> None:
            nonlocal calls
            calls += 1
            if hostile:
                case.call_and_validate(base_url=app.url, checks=ANY_INPUT_CHECKS, timeout=30)
            else:
                unsure = case.operation.path in (*WINDOW_BOUND_PATHS, *PASSWORD_PATHS, *SETTING_BOUND_PATHS)
                case.call_and_validate(  # every check schemathesis has
                    base_url=app.url, timeout=30, excluded_checks=[positive_data_acceptance] if unsure else []
                )

        no_server_error()
    assert calls >= 5 * len(operations)

"""Fuzz the whole API with accounts on (FI_AUTH=local, two stores), signed in as a store's manager and as
an operator: no 5xx, no status the operation does not document, no body that contradicts its schema.

The open-desk fuzz (tests/api/test_fuzz_openapi.py) calls as the host's own operator, who is refused
nothing; here the refusals are what is fuzzed: 401, 403 `store_forbidden` and `csrf_required` must be
in each operation's documented statuses and shapes too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_fuzz_openapi import ANY_INPUT_CHECKS

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

EXAMPLES_PER_OPERATION = 15
PASSWORD = "fuzzing-manager-password-1"
PEOPLE = {
    "manager": [{"role": "manager", "store": "s1"}],
    "operator": [{"role": "operator", "store": "*"}],
}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    stores = json.dumps([{"id": "s1", "name": "Kauppa 1"}, {"id": "s2", "name": "Kauppa 2"}])
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=5) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_AUTH": "local",
                "FI_SESSION_SECRET": "fuzz-with-accounts",
                "FI_STORES": stores,
                "FI_RATE_LIMIT": "100000/60seconds",
                "FI_AUDIENCE_RATE_LIMIT": "100000/60seconds",
            }
        ) as server,
    ):
        for username, grants in PEOPLE.items():  # the host's own operator adds them, as feedctl user add does
            added = httpx.post(
                server.url + "/admin/users",
                json={"username": username, "password": PASSWORD, "grants": grants},
                timeout=30,
            )
            assert added.status_code == 201, added.text
        yield server


def _signed_in(app: ServerProcess, username: str) -> requests.Session:
    session = requests.Session()
    answer = session.post(app.url + "/auth/signin", json={"username": username, "password": PASSWORD}, timeout=30)
    assert answer.status_code == 200, answer.text
    session.headers["X-CSRF-Token"] = session.cookies["fi_csrf"]
    return session


@pytest.mark.parametrize("username", list(PEOPLE))
def test_no_generated_input_as_a_signed_in_person_breaks_the_schema(app: ServerProcess, username: str) -> None:
    schema = schemathesis.openapi.from_url(app.url + "/openapi.json")
    session = _signed_in(app, username)
    operations = [result.ok() for result in schema.get_all_operations()]
    skipped = {"/auth/signout"}  # it would end the session the rest of the run calls with
    calls = 0
    for operation in operations:
        if operation.path in skipped:
            continue

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def within_the_schema(case: schemathesis.Case) -> None:
            nonlocal calls
            calls += 1
            case.call_and_validate(base_url=app.url, session=session, checks=ANY_INPUT_CHECKS, timeout=30)

        within_the_schema()
    assert calls >= 5 * len(operations)

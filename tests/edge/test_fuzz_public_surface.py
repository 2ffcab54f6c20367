"""Fuzz the public API through the edge, as a stranger would reach it: no 500 and answers as documented,
hostile characters in every string included (tests/support/hostile_strings.py).

In process (schemathesis' ASGI transport, whose client address is "testclient": not loopback, so the
operator routes are hidden from it) with a backend that answers nonsense at once. The schema itself is
an operator route, fetched with the operator token; the generated calls carry no token.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from feedback_intelligence.api.app import create_app
from feedback_intelligence.edge.surface import classify
from feedback_intelligence.llm.testing import FakeBackend
from tests.edge.support import OPERATOR_TOKEN
from tests.edge.test_real_app import real_settings
from tests.support.examples import examples, reduced
from tests.support.hostile_strings import add_hostile_strings


def _public(ctx: object) -> bool:
    operation = ctx.operation  # type: ignore[attr-defined]
    return classify(operation.method.upper(), operation.path).public


def _public_schema() -> schemathesis.BaseSchema:
    data = Path(tempfile.mkdtemp(prefix="fi-fuzz-edge-"))
    app = create_app(
        real_settings(
            data,
            rate_limit="100000/60seconds",
            audience_rate_limit="100000/60seconds",
            report_llm_budget=0,
            allowed_hosts=["fi.test", "testserver", "localhost"],
        ),
        backend=FakeBackend(reply="{}"),
    )
    # schemathesis' lazy loader (from_fixture) does not work under pytest 9 (it writes request.node._nodeid),
    # so the schema is loaded at import, through the edge, with the operator token (it is an operator route)
    loaded = schemathesis.openapi.from_asgi("/openapi.json", app, headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
    # The fast run sends the generated cases alone (a fifth of them); the full run adds schemathesis'
    # coverage phase, every boundary case the schema defines (most of this module's time).
    loaded.config.phases.coverage.enabled = not reduced()
    # every generated string may carry NUL, a lone surrogate, a bidi or a zero-width character
    return add_hostile_strings(loaded.include(_public))


schema = _public_schema()
# No 500, every status one the operation documents, every answer in the documented body shape and content
# type for its status.
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, status_code_conformance]


@schema.parametrize()
@settings(max_examples=examples(15), deadline=None, suppress_health_check=list(HealthCheck))
def test_no_public_input_makes_a_server_error(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


def test_the_fuzzed_surface_is_the_public_one() -> None:
    operations = {(op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations()}
    assert ("POST", "/interpret") in operations and ("GET", "/schema") in operations
    assert not any(path in ("/feedback", "/metrics", "/live/restructure") for _, path in operations)

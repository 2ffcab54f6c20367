"""A report window each of whose bounds the schema accepts may still be refused 400 `window_invalid`
(JSON Schema cannot bind `from` and `to` together): every operation that can refuse so documents it,
which is also how the edge fuzz knows where a schema-valid request may be refused."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_hardening import client
from tests.api.test_stores import app_with
from tests.edge.test_real_app import LOOPBACK
from tests.support.schema_limits import window_bound_paths

# What the public-surface fuzz sent: valid by the schema (an instant), yet the default days before it
# would start the window before 0001-01-01.
EARLY_IN_YEAR_ONE = "0001-01-01T00:12:01Z"
TOO_LONG = {"from": "2026-01-01T00:00:00Z", "to": "2027-06-01T00:00:00Z"}


async def test_every_operation_refusing_a_schema_valid_window_documents_window_invalid(tmp_path: Path) -> None:
    async for app in app_with(tmp_path, {}):
        schema = app.openapi()
        bound = window_bound_paths(schema)
        takes_to = [
            path
            for path, item in schema["paths"].items()
            if any(p["name"] == "to" and p["in"] == "query" for p in item.get("get", {}).get("parameters", []))
        ]
        refusing = []
        async with client(app, LOOPBACK) as operator:
            for path in takes_to:
                for params in ({"to": EARLY_IN_YEAR_ONE}, TOO_LONG):
                    answer = await operator.get(path, params=params)
                    if answer.status_code == 400:
                        assert [c["code"] for c in answer.json()["codes"]] == ["window_invalid"], (path, answer.text)
                        refusing.append(path)
                    else:
                        assert answer.status_code == 200, (path, params, answer.text)
        assert "/report/brief" in refusing  # the fuzz's find: the brief's week reaches before year 1
        assert set(refusing) == bound, "a window refusal the schema does not document, or one it no longer makes"

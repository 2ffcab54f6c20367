"""A refusal names each broken rule twice, in the same order: an English message for API users and a
code with its parameters for clients that translate (the desk, the management view)."""

from __future__ import annotations

from pathlib import Path

from feedback_intelligence.api.app import create_app
from feedback_intelligence.llm.testing import FakeBackend
from tests.edge.test_real_app import LOOPBACK, client, real_settings, running


async def test_each_broken_rule_comes_with_its_code(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=FakeBackend(reply="{}"))
    async for _ in running(app):
        async with client(app, LOOPBACK) as http:
            long = await http.post("/interpret", json={"text": "x" * 801})
            assert long.status_code == 400
            assert long.json() == {
                "errors": ["text exceeds the 800-character cap (801)."],
                "codes": [{"code": "text_too_long", "limit": 800, "length": 801}],
            }

            save = await http.post(
                "/live/feedback",
                json={
                    "source": "pigeon",
                    "text": " ",
                    "timestamp": "yesterday",
                    "acceptedStructure": {
                        "category": "nope",
                        "theme": "t",
                        "severity": "low",
                        "type": "praise",
                        "language": "fi",
                    },
                },
            )
            body = save.json()
            assert save.status_code == 400 and len(body["errors"]) == len(body["codes"])
            assert [c["code"] for c in body["codes"]] == [
                "text_empty",
                "source_unknown",
                "timestamp_invalid",
                "value_not_in_taxonomy",
            ]
            assert body["codes"][3] == {"code": "value_not_in_taxonomy", "field": "category", "value": "nope"}

            missing = await http.post("/live/feedback", json={"text": "no source"})
            assert missing.json()["codes"] == [{"code": "field_missing", "field": "source"}]
            not_json = await http.post("/interpret", content=b"{", headers={"content-type": "application/json"})
            assert not_json.json()["codes"] == [{"code": "body_not_json"}]
            window = await http.get("/report", params={"from": "soon"})
            assert window.json()["codes"] == [{"code": "window_invalid"}]


async def test_a_fresh_install_has_no_snapshot_and_says_so_without_an_error(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=FakeBackend(reply="{}"))
    async for _ in running(app):
        async with client(app, LOOPBACK) as http:
            snapshot = await http.get("/report/snapshot")
            assert (snapshot.status_code, snapshot.content) == (204, b"")
            assert (await http.get("/report/snapshot.html")).status_code == 404


async def test_the_schema_tells_the_pages_the_text_limit(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path, input_max_chars=300), backend=FakeBackend(reply="{}"))
    async for _ in running(app):
        async with client(app, LOOPBACK) as http:
            assert (await http.get("/schema")).json()["textMaxChars"] == 300

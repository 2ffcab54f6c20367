"""The service log keeps nothing the audit log drops (ADR 0039), read from a real ``feedctl serve``'s
output at log level info: a password typed into a sign-in's name field, a manager's search words, the
values of a statement that failed."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx
import pytest
from sqlalchemy import text

from feedback_intelligence.devtools.processes import app_server
from feedback_intelligence.edge.access_log import loggable_target
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.support.databases import migrated_url

TYPED_PASSWORD = "Kukkaro-Salasana-7731"  # what a person typed into the name field by mistake
SEARCH = "Vörskälä kaatui"  # a customer's surname, searched for
DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}


def _spellings(value: str) -> list[str]:
    """The value as a log line could carry it: as typed, and URL-encoded both ways."""
    return [value, quote(value), quote_plus(value), *value.split()]


@pytest.mark.process
def test_a_failed_sign_in_and_a_search_leave_no_trace_in_the_service_log() -> None:
    env = {**DEAD_LLM, "FI_AUTH": "local", "FI_SESSION_SECRET": "log-test-secret"}
    with app_server(env, log_level="info") as app:
        refused = httpx.post(
            app.url + "/auth/signin", json={"username": TYPED_PASSWORD, "password": "mikä-tahansa-1"}, timeout=10
        )
        assert refused.status_code == 401
        # the loopback program is the operator, who reads what a manager reads
        found = httpx.get(app.url + "/report/items", params={"q": SEARCH, "limit": 5, "channel": "live"}, timeout=30)
        assert found.status_code == 200, found.text
        app.stop()  # the log is whole once the process has exited
        log = app.log()
    for secret in (TYPED_PASSWORD, SEARCH):  # nothing the audit log drops...
        leaked = [spelling for spelling in _spellings(secret) if spelling in log]
        assert leaked == [], log
    assert "sign-in refused from 127.0.0.1" in log  # ...and yet both requests have their lines
    assert '"GET /report/items?q=…&limit=5&channel=live HTTP/1.1" 200' in log


def test_the_access_log_keeps_a_value_only_for_parameters_that_name_nobody() -> None:
    assert loggable_target("/report/items?q=V%C3%B6rsk%C3%A4l%C3%A4&store=s1&from=2026-11-01") == (
        "/report/items?q=…&store=s1&from=2026-11-01"
    )
    assert loggable_target("/auth/oidc/callback?code=abc&state=xyz") == "/auth/oidc/callback?code=…&state=…"
    assert loggable_target("/report?Virtanen&limit=3&surname=Virtanen") == "/report?…&limit=3&…"
    assert loggable_target("/live/feedback/abc-1") == "/live/feedback/abc-1"
    assert loggable_target("/report?") == "/report?"


async def test_a_failed_statement_names_no_value(tmp_path: Path) -> None:
    """A statement's values stay out of its exception, and so out of any traceback the log writes."""
    store = FeedbackStore(migrated_url(tmp_path))
    try:
        async with store.engine.connect() as conn:
            with pytest.raises(Exception) as failed:
                await conn.execute(text("SELECT id FROM no_such_table WHERE text = :words"), {"words": SEARCH})
    finally:
        await store.aclose()
    assert "no_such_table" in str(failed.value) and SEARCH not in str(failed.value)

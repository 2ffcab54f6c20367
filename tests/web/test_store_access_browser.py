"""With accounts, in Chromium against the real app: a store's manager opening another store's report reads
that they have no access (not "check the connection"), a clerk at the management view lands on the desk,
and the change log says every action in words (ADR 0047)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server
from tests.support.monday_data import STORES

pytestmark = [pytest.mark.browser, pytest.mark.process]

PASSWORD = "myymala-paallikko"
PEOPLE = {"pia": "manager:hki-kamppi", "maija": "manager:*", "kalle": "clerk:hki-kamppi"}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_AUTH": "local",
        "FI_SESSION_SECRET": "store-access-browser-test",
        "FI_STORES": json.dumps(STORES),
    }
    with app_server(env) as server:
        cli = {**os.environ, "FEEDCTL_URL": server.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": PASSWORD}
        for name, role in PEOPLE.items():
            command = [sys.executable, "-m", "feedback_intelligence", "user", "add", name, "--role", role]
            added = subprocess.run(command, env=cli, capture_output=True, text=True, timeout=60)
            assert added.returncode == 0, added.stderr
        yield server


def _sign_in(pages, app: ServerProcess, name: str, path: str):
    page = pages.open(f"{app.url}{path}")
    page.wait_for_url("**/signin**")
    page.locator("#signin-username").fill(name)
    page.locator("#signin-password").fill(PASSWORD)
    page.locator("#signin-btn").click()
    return page


def test_a_store_manager_at_another_stores_report_reads_that_they_have_no_access(pages, app) -> None:
    page = _sign_in(pages, app, "pia", "/")
    page.wait_for_url(app.url + "/")
    page.goto(app.url + "/?store=esp-isoomena")  # the sign-in's `next` keeps the path alone
    status = page.locator("#report-status")
    expect(status).to_have_text("Sinulla ei ole pääsyä tämän myymälän tietoihin.", timeout=15000)
    expect(status).not_to_contain_text("yhteys")


def test_a_clerk_at_the_management_view_lands_on_the_desk(pages, app) -> None:
    page = _sign_in(pages, app, "kalle", "/")
    page.wait_for_url("**/desk**")
    page.goto(app.url + "/")  # the report link again: the desk, never a JSON refusal
    page.wait_for_url("**/desk")
    assert "forbidden" not in page.content()


def test_the_change_log_says_every_action_in_words(pages, app) -> None:
    page = _sign_in(pages, app, "maija", "/")
    entries = page.locator("#audit-list li.audit-entry")
    signin = page.locator('#audit-list li[data-action="session.signin"]').first
    expect(signin).to_contain_text("kirjautui sisään", timeout=15000)
    expect(page.locator('#audit-list li[data-action="account.grant"]').first).to_contain_text("rooli myönnetty")
    for text in entries.all_text_contents():
        assert "audit.action" not in text and "null" not in text, text


def test_the_brief_names_each_stores_manager(pages, app) -> None:
    """The chain's manager reads who manages each store on its line in the brief: the person granted `manager`
    of it, or that no one is (a chain-wide grant is every store's, so it names no store's manager); a case no
    one has taken yet names its store's manager, who would."""
    fall = {
        "id": "fall-kamppi",
        "source": "email",
        "text": "Asiakas liukastui märällä lattialla ja loukkasi polvensa.",
        "timestamp": datetime.now(UTC).isoformat(),
        "store": "hki-kamppi",
        "acceptedStructure": {
            "category": "tilat_siisteys",
            "theme": "liukas lattia",
            "severity": "high",
            "type": "complaint",
            "language": "fi",
        },
    }
    saved = httpx.post(app.url + "/feedback/batch", json={"items": [fall]}, timeout=60)  # the host: an operator
    assert saved.status_code == 200 and saved.json()["created"] == 1, saved.text
    page = _sign_in(pages, app, "maija", "/")
    page.wait_for_url(app.url + "/")
    expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)
    rows = page.locator("#brief-stores li.brief-store-row")
    expect(rows).to_have_count(len(STORES))
    expect(page.locator("#brief-stores li[data-store='hki-kamppi'] .brief-managers")).to_have_text(" · päällikkö: pia")
    for store in STORES[1:]:
        line = page.locator(f"#brief-stores li[data-store='{store['id']}'] .brief-managers")
        expect(line).to_have_text(" · ei nimettyä päällikköä")
    case = page.locator("#brief-act li.brief-case[data-ref='corpus:fall-kamppi']")
    expect(case.locator(".brief-owner")).to_have_text("ei vielä vastuuhenkilöä")
    expect(case.locator(".brief-case-managers")).to_have_text(" (päällikkö: pia)")

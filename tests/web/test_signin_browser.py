"""Signing in with Chromium: single sign-on through a real provider (npm oidc-provider, the full
redirect), and the local sign-in page; the pages then work with the session (CSRF included)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, free_port
from tests.support.oidc import CLIENT_ID, CLIENT_SECRET, oidc_provider
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}


@pytest.fixture(scope="module")
def sso() -> Iterator[ServerProcess]:
    provider_port = free_port()
    issuer = f"http://127.0.0.1:{provider_port}"
    env = {
        **DEAD_LLM,
        "FI_AUTH": "oidc",
        "FI_SESSION_SECRET": "sso-browser-test",
        "FI_OIDC_ISSUER": issuer,
        "FI_OIDC_CLIENT_ID": CLIENT_ID,
        "FI_OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "FI_OIDC_ROLE_MAP": json.dumps({"FI.Manager": "manager", "FI.Clerk": "clerk"}),
        "FI_OIDC_CHAIN_VALUE": "*",  # manu's stores claim is "*": the chain, because this deployment says so
    }
    with app_server(env) as app, oidc_provider(provider_port, app.url + "/auth/oidc/callback"):
        yield app


def _me(page, app: ServerProcess) -> dict:
    return page.evaluate("async () => (await fetch('/auth/me')).json()")


def _status(page, path: str) -> int:
    """A GET from the page itself (a browser's request: Sec-Fetch-* set, so never the loopback operator)."""
    return int(page.evaluate("async (path) => (await fetch(path)).status", path))


def _sign_in_at_provider(page, login: str) -> None:
    page.locator("#sso-btn").click()
    page.locator('input[name="login"]').fill(login)
    page.locator('input[name="password"]').fill("any")
    page.locator('button[type="submit"]').click()
    page.locator('button[type="submit"]').click()  # the provider's consent page: Continue


def test_single_sign_on_through_the_full_redirect_takes_the_role_from_a_claim(pages, sso: ServerProcess) -> None:
    page = pages.open(sso.url + "/")
    expect(page).to_have_url(sso.url + "/signin?next=/")  # anonymous: to the sign-in page
    expect(page.locator("#sso-box")).to_be_visible()
    _sign_in_at_provider(page, "manu")
    expect(page).to_have_url(sso.url + "/")  # back where the person set out
    expect(page.locator("#session-name")).to_have_text("Manu Manageri")
    me = _me(page, sso)
    assert me["signedIn"] and me["grants"] == [{"role": "manager", "store": "*"}]  # FI.Manager → manager, * → chain
    assert _status(page, "/report") == 200
    screenshot(page, "signin-sso-management")

    page.locator("#signout-btn").click()
    expect(page).to_have_url(sso.url + "/signin")
    assert _me(page, sso)["signedIn"] is False
    assert _status(page, "/report") == 401


def test_single_sign_on_with_a_next_that_leaves_the_origin_comes_back_home(pages, sso: ServerProcess) -> None:
    page = pages.open(sso.url + "/signin?next=/%09/evil.example")  # a tab: //evil.example to a browser
    expect(page.locator("#sso-box")).to_be_visible()
    _sign_in_at_provider(page, "manu")
    expect(page).to_have_url(sso.url + "/")  # the server's one next rule (auth/next_path.py): home, not away
    assert page.evaluate("() => location.origin") == sso.url
    expect(page.locator("#session-name")).to_have_text("Manu Manageri")


def test_a_clerk_from_the_provider_reaches_the_desk_but_not_the_report(pages, sso: ServerProcess) -> None:
    page = pages.open(sso.url + "/desk")
    _sign_in_at_provider(page, "kaisa")
    expect(page).to_have_url(sso.url + "/desk")
    assert _me(page, sso)["grants"] == [{"role": "clerk", "store": "s1"}]  # FI.Clerk → clerk
    assert _status(page, "/report") == 403
    assert _status(page, "/live/feedback") == 200


@pytest.fixture(scope="module")
def local() -> Iterator[ServerProcess]:
    with app_server({**DEAD_LLM, "FI_AUTH": "local", "FI_SESSION_SECRET": "local-browser-test"}) as app:
        env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": "myymala-paallikko"}
        added = subprocess.run(
            [
                sys.executable,
                "-m",
                "feedback_intelligence",
                "user",
                "add",
                "pia",
                "--role",
                "manager:s1",
                "--name",
                "Pia",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert added.returncode == 0, added.stderr
        operator = subprocess.run(
            [
                sys.executable,
                "-m",
                "feedback_intelligence",
                "user",
                "add",
                "olli",
                "--role",
                "operator",
                "--name",
                "Olli",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert operator.returncode == 0, operator.stderr
        yield app


def test_the_local_sign_in_page_then_a_change_through_the_page_carries_the_csrf_token(
    pages, local: ServerProcess
) -> None:
    page = pages.open(local.url + "/desk")
    expect(page).to_have_url(local.url + "/signin?next=/desk")
    page.locator("#signin-username").fill("pia")
    page.locator("#signin-password").fill("väärin-väärin")
    page.locator("#signin-btn").click()
    expect(page.locator("#signin-error")).to_have_text("Käyttäjätunnus tai salasana on väärin.")
    page.locator("#signin-password").fill("myymala-paallikko")
    page.locator("#signin-btn").click()
    expect(page).to_have_url(local.url + "/desk")
    expect(page.locator("#session-name")).to_have_text("Pia")
    # the page's own request helper sends X-CSRF-Token from the fi_csrf cookie
    status = page.evaluate(
        """async () => {
          const api = await import('/static/js/api.js');
          const r = await api.request('/interpret/proposal', {method: 'POST', body: {text: 'Maito oli hapanta.'}});
          return r.status;
        }"""
    )
    assert status == 200
    # the same change without the header is refused, even from the signed-in browser
    bare = page.evaluate(
        """async () => (await fetch('/interpret/proposal', {method: 'POST', credentials: 'same-origin',
             headers: {'Content-Type': 'application/json'}, body: JSON.stringify({text: 'x'})})).status"""
    )
    assert bare == 403
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["fi_session"]["httpOnly"] and cookies["fi_session"]["sameSite"] == "Lax"
    assert httpx.get(local.url + "/live/feedback", timeout=10, headers={"Sec-Fetch-Mode": "cors"}).status_code == 401


def test_muokkaa_and_poista_on_the_entry_just_saved(pages, local: ServerProcess) -> None:
    page = pages.open(local.url + "/signin?next=/desk")
    page.locator("#signin-username").fill("pia")
    page.locator("#signin-password").fill("myymala-paallikko")
    page.locator("#signin-btn").click()
    expect(page).to_have_url(local.url + "/desk")
    # the desk's own save path ends in showSavedEntry; here it is called with an entry saved the same way
    page.evaluate(
        """async () => {
          const api = await import('/static/js/api.js');
          const { showSavedEntry } = await import('/static/js/saved-entry.js');
          const body = {id: 'desk-ui-1', source: 'desk', text: 'Asiakas Matti sanoi: maito oli hapanta.',
            acceptedStructure: {category: 'maito_kylma', theme: 'hapan maito', severity: 'high', type: 'complaint',
              language: 'fi'}};
          const saved = await api.request('/live/feedback', {method: 'POST', body});
          if (saved.status !== 201) throw new Error('save ' + saved.status);
          showSavedEntry(document.getElementById('saved-entry'), body.id, body.text);
        }"""
    )
    box = page.locator("#saved-entry")
    expect(box).to_be_visible()
    box.locator("#saved-entry-edit").click()
    box.locator("#saved-entry-text").fill("Asiakas sanoi: maito oli hapanta.")
    box.locator("#saved-entry-save").click()
    expect(box).to_contain_text("Muutos tallennettu.")
    stored = page.evaluate("async () => (await fetch('/live/feedback/desk-ui-1')).json()")
    assert stored["text"] == "Asiakas sanoi: maito oli hapanta."
    box.locator("#saved-entry-erase").click()
    expect(box.locator("#saved-entry-erase")).to_have_text("Vahvista poisto")
    box.locator("#saved-entry-erase").click()
    expect(box).to_contain_text("Merkintä poistettu.")
    assert page.evaluate("async () => (await fetch('/live/feedback/desk-ui-1')).status") == 410
    screenshot(page, "desk-saved-entry-erased")


def test_muokkaa_tai_poista_in_the_management_view(pages, local: ServerProcess) -> None:
    item = {
        "id": "corpus-ui-1",
        "source": "email",
        "text": "Kylmäallas oli lämmin koko aamun, maito lämmintä.",
        "timestamp": datetime.now(UTC).isoformat(),
        "acceptedStructure": {
            "category": "maito_kylma",
            "theme": "kylmäketju",
            "severity": "high",
            "type": "complaint",
            "language": "fi",
        },
    }
    assert httpx.post(local.url + "/feedback", json=item, timeout=10).status_code == 201  # a loopback program
    page = pages.open(local.url + "/signin?next=/")
    page.locator("#signin-username").fill("olli")
    page.locator("#signin-password").fill("myymala-paallikko")
    page.locator("#signin-btn").click()
    expect(page).to_have_url(local.url + "/")
    page.get_by_role("button", name=re.compile("Näytä")).first.click()
    dialog = page.locator("#sources-dialog")  # a theme's examples (the drill-in has a dialog of its own)
    dialog.get_by_role("button", name="Muokkaa tai poista").first.click()
    dialog.locator("#saved-entry-erase").click()
    dialog.locator("#saved-entry-erase").click()
    expect(dialog).to_contain_text("Merkintä poistettu.")
    assert httpx.get(local.url + "/feedback/corpus-ui-1", timeout=10).status_code == 410

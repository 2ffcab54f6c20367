"""Passwords and the ``next`` rule in Chromium, against the real app (FI_AUTH=local): after a genuine
sign-in the page goes only where the server's one rule says (the shared table, tests/support/next_paths.py),
and a signed-in person changes their password from their name in the top bar."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.support.next_paths import NEXT_PATHS
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}
PASSWORD = "myymalan-paallikko-7"


@pytest.fixture(scope="module")
def local() -> Iterator[ServerProcess]:
    env = {
        **DEAD_LLM,
        "FI_AUTH": "local",
        "FI_SESSION_SECRET": "password-life-browser-test",
        "FI_LOGIN_ADDRESS_RATE_LIMIT": "1000/300seconds",  # one sign-in per row of the table
    }
    with app_server(env) as app:
        for username in ("manu", "pia"):
            added = httpx.post(  # a program on the host: the loopback operator, as feedctl user add
                app.url + "/admin/users",
                json={"username": username, "password": PASSWORD, "grants": [{"role": "manager", "store": "*"}]},
                timeout=30,
            )
            assert added.status_code == 201, added.text
        yield app


def _fenced(origin: str, left: list[str], documents: list[str]):
    """Every request to another origin is aborted and noted (nothing leaves this machine); every page
    the main frame loads is noted."""

    def setup(page) -> None:
        def route(handler_route) -> None:
            url = handler_route.request.url
            if url == origin or url.startswith(origin + "/"):
                handler_route.continue_()
            else:
                left.append(url)
                handler_route.abort()

        page.route("**/*", route)
        page.on(
            "request",
            lambda request: (
                documents.append(request.url)
                if request.resource_type == "document" and request.frame == page.main_frame
                else None
            ),
        )

    return setup


def _sign_in(page, username: str = "manu", password: str = PASSWORD) -> None:
    page.locator("#signin-username").fill(username)
    page.locator("#signin-password").fill(password)
    page.locator("#signin-btn").click()


@pytest.mark.parametrize(("raw", "lands"), NEXT_PATHS)
def test_after_a_genuine_sign_in_the_page_goes_only_where_the_rule_says(
    pages, local: ServerProcess, raw: str, lands: str
) -> None:
    left: list[str] = []
    documents: list[str] = []
    page = pages.open(setup=_fenced(local.url, left, documents))
    page.goto(f"{local.url}/signin?next={raw}")
    expect(page.locator("#signin-form")).to_be_visible()
    _sign_in(page)
    expect(page).not_to_have_url(re.compile(r"/signin"))  # the sign-in page was left, to somewhere
    assert left == []  # no request went to another origin
    assert documents[-1] == local.url + lands
    assert page.evaluate("() => location.origin") == local.url


def test_a_person_changes_their_password_from_their_name_and_their_other_sessions_end(
    pages, local: ServerProcess
) -> None:
    other = pages.open(f"{local.url}/signin?next=/desk")
    _sign_in(other, "pia")
    expect(other).to_have_url(local.url + "/desk")

    page = pages.open(f"{local.url}/signin?next=/desk")
    _sign_in(page, "pia")
    expect(page).to_have_url(local.url + "/desk")
    page.locator("#session-name").click()  # the name in the top bar is the way to one's own account
    expect(page).to_have_url(local.url + "/account")
    expect(page.locator("h1")).to_have_text("Oma tili")  # the retail domain speaks Finnish
    expect(page.locator("#account-who")).to_have_text("Olet kirjautunut: pia (pia).")
    expect(page.locator("#account-roles")).to_have_text("Roolit: esihenkilö, koko ketju.")
    expect(page.locator("#password-hint")).to_contain_text("Vähintään 8 merkkiä; 15 tai enemmän")
    expect(page.locator("#signout-btn")).to_have_text("Kirjaudu ulos")
    message = page.locator("#password-message")

    page.locator("#password-current").fill("vaara-salasana-1")
    page.locator("#password-new").fill("hyllyt taynna maitoa")
    page.locator("#password-repeat").fill("hyllyt taynna maitoa")
    page.locator("#password-btn").click()
    expect(message).to_have_text("Nykyinen salasana on väärin.")

    page.locator("#password-current").fill(PASSWORD)
    page.locator("#password-repeat").fill("hyllyt taynna maitoo")
    page.locator("#password-btn").click()
    expect(message).to_have_text("Uudet salasanat eroavat. Kirjoita sama salasana kahdesti.")

    page.locator("#password-new").fill("salasana")
    page.locator("#password-repeat").fill("salasana")
    page.locator("#password-btn").click()
    expect(message).to_have_text("Tämä salasana on yleisimpien joukossa ja arvataan ensimmäisenä. Valitse toinen.")

    page.locator("#password-new").fill(" " * 10)
    page.locator("#password-repeat").fill(" " * 10)
    page.locator("#password-btn").click()
    expect(message).to_have_text("Pelkistä välilyönneistä ei tule salasanaa.")

    page.locator("#password-new").fill("hyllyt taynna maitoa")
    page.locator("#password-repeat").fill("hyllyt taynna maitoa")
    page.locator("#password-btn").click()
    expect(message).to_have_text("Salasana vaihdettu. Toinen kirjautumisesi päättyi.")
    expect(page.locator("#password-current")).to_have_value("")  # the form is emptied
    screenshot(page, "account-password-changed")

    # this browser goes on; the other one was signed out
    assert page.evaluate("async () => (await fetch('/live/feedback')).status") == 200
    assert other.evaluate("async () => (await (await fetch('/auth/me')).json()).signedIn") is False
    again = pages.open(f"{local.url}/signin?next={quote('/account')}")
    _sign_in(again, "pia", "hyllyt taynna maitoa")
    expect(again).to_have_url(local.url + "/account")

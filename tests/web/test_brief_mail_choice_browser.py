"""A person asks for the brief by mail on their own account page, in Chromium against the real app
(FI_AUTH=local): an address, every Monday or every day, the mail's language; a wrong address is refused in
the page's language; the choice is kept. At a desktop's width and a phone's."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}
PASSWORD = "myymalan-paallikko-7"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def local() -> Iterator[ServerProcess]:
    env = {**DEAD_LLM, "FI_AUTH": "local", "FI_SESSION_SECRET": "brief-mail-browser-test"}
    with app_server(env) as app:
        for username in ("pia", "ben"):
            added = httpx.post(  # the loopback operator, as feedctl user add
                app.url + "/admin/users",
                json={"username": username, "password": PASSWORD, "grants": [{"role": "manager", "store": "*"}]},
                timeout=30,
            )
            assert added.status_code == 201, added.text
        yield app


def _account(pages, local: ServerProcess, username: str, viewport: dict[str, int] | None = None):
    page = pages.open(f"{local.url}/signin?next=/account", viewport=viewport)
    page.locator("#signin-username").fill(username)
    page.locator("#signin-password").fill(PASSWORD)
    page.locator("#signin-btn").click()
    expect(page).to_have_url(local.url + "/account")
    expect(page.locator("#brief-box")).to_be_visible()
    return page


def _choice(local: ServerProcess, page) -> dict[str, object]:
    """What the server keeps, read with the page's own session."""
    return page.evaluate("async () => (await fetch('/auth/me/mail')).json()")


def test_a_person_opts_in_to_the_brief_by_mail_and_it_is_kept(pages, local: ServerProcess) -> None:
    page = _account(pages, local, "pia")
    expect(page.locator("#brief-heading")).to_have_text("Katsaus sähköpostiin")  # the retail domain speaks Finnish
    expect(page.locator("#brief-when")).to_have_value("")  # opt-in: nothing until asked
    message = page.locator("#brief-message")

    page.locator("#brief-when").select_option("weekly")
    page.locator("#brief-btn").click()
    expect(message).to_have_text("Katsaus sähköpostiin tarvitsee sähköpostiosoitteesi.")

    page.locator("#brief-email").fill("pia@kauppa")
    page.locator("#brief-btn").click()
    expect(message).to_have_text("Tämä ei ole yksi sähköpostiosoite (nimi@esimerkki.fi).")

    page.locator("#brief-email").fill("pia@kauppa.example")
    page.locator("#brief-language").select_option("en")
    page.locator("#brief-btn").click()
    expect(message).to_have_text("Tallennettu: katsaus tulee joka maanantaiaamu.")
    assert _choice(local, page) == {
        "username": "pia",
        "email": "pia@kauppa.example",
        "language": "en",
        "briefMail": "weekly",
    }
    screenshot(page, "account-brief-by-mail")

    page.reload()
    expect(page.locator("#brief-email")).to_have_value("pia@kauppa.example")
    expect(page.locator("#brief-when")).to_have_value("weekly")
    expect(page.locator("#brief-language")).to_have_value("en")

    page.locator("#brief-when").select_option("")
    page.locator("#brief-btn").click()
    expect(message).to_have_text("Tallennettu: katsausta ei lähetetä sähköpostiin.")
    assert _choice(local, page)["briefMail"] is None


def test_on_a_phone_the_choice_fits_and_saves(pages, local: ServerProcess) -> None:
    page = _account(pages, local, "ben", viewport=PHONE)
    box = page.locator("#brief-form")
    bounds = box.bounding_box()
    assert bounds is not None and bounds["x"] >= 0 and bounds["x"] + bounds["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
    page.locator("#brief-email").fill("ben@kauppa.example")
    page.locator("#brief-when").select_option("daily")
    page.locator("#brief-btn").click()
    expect(page.locator("#brief-message")).to_have_text("Tallennettu: katsaus tulee joka aamu.")
    screenshot(page, "account-brief-by-mail-phone")
    assert _choice(local, page)["briefMail"] == "daily"

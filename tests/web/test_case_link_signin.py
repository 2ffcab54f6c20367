"""The alert mail's case link, in Chromium against the real app with accounts (ADR 0058): opened signed out,
`/#case=<ref>` goes through the sign-in and lands on that case, open and in view, even when it is past the
first few of the list; the owner offered are the managers granted its store, and "take it" makes the signed-in
person its owner."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.support.monday_data import STORES

pytestmark = [pytest.mark.browser, pytest.mark.process]

PASSWORD = "tapaus-paallikko-7"
PEOPLE = {
    "pia": ("Pia Päällikkö", "manager", "hki-kamppi"),
    "maija": ("Maija Aluepäällikkö", "manager", "*"),
    "olli": ("Olli Espoo", "manager", "esp-isoomena"),
    "kalle": ("Kalle Kassa", "clerk", "hki-kamppi"),
}
ACCEPTED = {
    "category": "liha_kala",
    "theme": "jauheliha",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}
TARGET = "live:linkki-6"


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_AUTH": "local",
        "FI_SESSION_SECRET": "case-link-browser-test",
        "FI_STORES": json.dumps(STORES),
        "FI_CASE_INCIDENT_WINDOW_H": "0",  # seven cases of one store and category, not one incident (ADR 0060)
    }
    with app_server(env) as server:
        # the operator routes from the host itself, as feedctl reaches them
        for username, (name, role, store) in PEOPLE.items():
            body = {
                "username": username,
                "displayName": name,
                "password": PASSWORD,
                "grants": [{"role": role, "store": store}],
            }
            added = httpx.post(server.url + "/admin/users", json=body, timeout=30)
            assert added.status_code == 201, added.text
        for n in range(7):  # more than the list shows at first: the linked one is the last
            entry = {
                "id": f"linkki-{n}",
                "source": "desk",
                "store": "hki-kamppi",
                "text": f"Asiakas sai vatsataudin jauhelihasta, erä {n}.",
                "acceptedStructure": ACCEPTED,
            }
            saved = httpx.post(server.url + "/live/feedback", json=entry, timeout=30)
            assert saved.status_code == 201, saved.text
        yield server


def test_a_case_link_opened_signed_out_lands_on_the_case_after_signing_in(pages, app: ServerProcess) -> None:
    page = pages.open(f"{app.url}/#case={TARGET}")
    page.wait_for_url("**/signin**")
    assert page.url.endswith(f"#case={TARGET}")  # the redirect kept the fragment on the sign-in page's address
    page.locator("#signin-username").fill("pia")
    page.locator("#signin-password").fill(PASSWORD)
    page.locator("#signin-btn").click()
    page.wait_for_url(f"{app.url}/#case={TARGET}")

    case = page.locator(f'#cases-list li[data-ref="{TARGET}"]')
    expect(case).to_have_class(re.compile(r"\bcase-target\b"), timeout=15000)
    expect(case).to_be_visible()
    expect(case).to_be_in_viewport()
    expect(case.locator("details.case-story")).to_have_attribute("open", "")

    # the owners offered: the managers granted this store or the chain, by their names
    owner = case.get_by_label("Vastuuhenkilö", exact=True)
    expect(owner.locator("option")).to_have_text(["Ei vastuuhenkilöä", "Maija Aluepäällikkö", "Pia Päällikkö"])
    case.get_by_role("button", name="Ota itselleni").click()
    expect(case.locator(".case-owner")).to_have_text("Vastuuhenkilö: Pia Päällikkö", timeout=10000)
    expect(case.get_by_role("button", name="Ota itselleni")).to_have_count(0)  # one's own case: nothing to take
    owner = case.get_by_label("Vastuuhenkilö", exact=True)
    owner.select_option(label="Maija Aluepäällikkö")
    case.get_by_role("button", name="Aseta vastuuhenkilö").click()
    expect(case.locator(".case-owner")).to_have_text("Vastuuhenkilö: Maija Aluepäällikkö", timeout=10000)

    # another link on the open page (hashchange): that case is marked and brought into view
    page.evaluate("location.hash = '#case=live:linkki-0'")
    other = page.locator('#cases-list li[data-ref="live:linkki-0"]')
    expect(other).to_have_class(re.compile(r"\bcase-target\b"), timeout=10000)
    expect(other).to_be_in_viewport()
    expect(case).not_to_have_class(re.compile(r"\bcase-target\b"))

"""The pages against the real app (``feedctl serve`` as a process) with the simulated Ollama behind the gate."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

CORPUS = [
    ("c-1", "Maito oli hapanta vaikka päiväys oli vasta huomenna.", "maito_kylma", "vanhentunut maito", "high"),
    ("c-2", "Jogurttihyllyssä vanhentuneita purkkeja.", "maito_kylma", "vanhentunut maito", "medium"),
    ("c-3", "Kylmäallas oli lämmin koko aamun.", "maito_kylma", "kylmäketju", "high"),
    (
        "c-4",
        "Liukastuin märällä lattialla pullonpalautuksen luona, polvessa haava.",
        "tilat_siisteys",
        "liukas lattia",
        "critical",
    ),
    ("c-5", "Kassajono oli pitkä ja vain yksi kassa auki.", "kassa_palvelu", "jonot", "medium"),
    ("c-6", "Kassalla erittäin ystävällinen palvelu, kiitos!", "kassa_palvelu", "ystävällinen palvelu", "low"),
    ("c-7", "Leipähylly oli tyhjä jo kuudelta illalla.", "leipa", "loppunut tuote", "low"),
]


@pytest.fixture(scope="module")
def real() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with (
        sim_ollama(service_ms=150) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
                "FI_REPORT_CACHE_SECONDS": "0",
            }
        ) as app,
    ):
        yield sim, app


def test_full_desk_flow_on_the_real_app(pages, real):
    _, app = real
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    expect(page.locator("#live-totals")).to_contain_text("Ei vielä merkintöjä")
    text = "Maito oli vanhentunutta jo ostopäivänä, ja kylmähylly tuntui lämpimältä."
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    model_severity = page.locator("#f-severity").input_value()
    corrected = "critical" if model_severity != "critical" else "low"
    page.select_option("#f-severity", corrected)
    expect(page.locator(".field[data-field='severity']")).to_have_class("field corrected")
    screenshot(page, "real-desk-interpretation")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=10000)

    # The entry shows in the live segment, and the stored row carries the correction.
    expect(page.locator("#live-sections")).to_contain_text(text, timeout=10000)
    expect(page.locator("#live-totals")).to_have_text("1 merkintä", timeout=10000)
    # ...and under the clerk's own entries (FI_AUTH=none: this browser's), with nothing that is not text
    mine = page.locator("#mine-list .mine-item")
    expect(mine).to_contain_text(text, timeout=10000)
    expect(mine).not_to_contain_text("null")
    rows = httpx.get(app.url + "/live/feedback", timeout=10).json()
    [row] = [r for r in rows if r["text"] == text]
    assert row["id"].startswith("desk-")
    stored = httpx.get(f"{app.url}/live/feedback/{row['id']}", timeout=10).json()
    assert stored["structure"]["severity"] == corrected
    assert stored["corrections"] == [{"field": "severity", "modelValue": model_severity, "humanValue": corrected}]
    assert stored["modelFailed"] is False
    assert stored["source"] == "desk"
    screenshot(page, "real-desk-saved")


def test_management_view_live_then_snapshot_then_model_down(pages, real):
    sim, app = real
    for feedback_id, text, category, theme, severity in CORPUS:
        body = {
            "id": feedback_id,
            "source": "email",
            "text": text,
            "acceptedStructure": {
                "category": category,
                "theme": theme,
                "severity": severity,
                "type": "praise" if "kiitos" in text else "complaint",
                "language": "fi",
            },
        }
        assert httpx.post(app.url + "/feedback", json=body, timeout=10).status_code == 201

    # the one inbox: the corpus and whatever the desk saved before (the desk test's entry, when it ran)
    desk = len(httpx.get(app.url + "/live/feedback", timeout=10).json())
    page = pages.open(app.url + "/")
    expect(page.locator("#mode-badge")).to_have_text("Ajantasainen", timeout=30000)
    expect(page.locator("#report-meta")).to_contain_text(f"{len(CORPUS) + desk} merkintää")
    expect(page.locator("#report")).to_have_attribute("data-prose", "done", timeout=30000)
    expect(page.locator("#report-alerts .alert-card")).to_have_count(1)
    expect(page.locator("#themes-list .theme")).to_have_count(4)
    expect(page.locator("#themes-list .origin").first).to_be_visible()
    screenshot(page, "real-management-live")

    # The operator saves a snapshot (loopback caller), then the report call fails: the page falls back to it.
    saved = httpx.get(app.url + "/report", params={"snapshot": "true"}, timeout=60)
    assert saved.status_code == 200
    assert httpx.get(app.url + "/report/snapshot", timeout=10).status_code == 200
    fallback = pages.open(setup=lambda p: p.route("**/report?*", lambda route: route.abort("connectionrefused")))
    fallback.goto(app.url + "/")
    expect(fallback.locator("#mode-badge")).to_have_text("Tallennettu tilannekuva", timeout=15000)
    expect(fallback.locator("#report-status")).to_contain_text("Palvelin ei toimittanut raporttia")
    expect(fallback.locator("#themes-list .theme")).to_have_count(4)
    screenshot(fallback, "real-management-snapshot")

    # The model backend stops and new feedback arrives: the report still renders, every narrative
    # marked as automated (prose written before, for the old data, is not served for the new).
    sim.stop()
    late = {
        "id": "c-8",
        "source": "email",
        "text": "Leipä oli kuivaa.",
        "acceptedStructure": {
            "category": "leipa",
            "theme": "kuiva leipä",
            "severity": "low",
            "type": "complaint",
            "language": "fi",
        },
    }
    assert httpx.post(app.url + "/feedback", json=late, timeout=10).status_code == 201
    down = pages.open(app.url + "/")
    expect(down.locator("#mode-badge")).to_have_text("Ajantasainen", timeout=30000)
    expect(down.locator("#report")).to_have_attribute("data-prose", "done", timeout=30000)
    expect(down.locator("#themes-list .theme")).to_have_count(4)
    expect(down.locator("#themes-list .origin-model")).to_have_count(0)
    expect(down.locator("#themes-list .origin-auto")).to_have_count(4)
    expect(down.locator("#report-meta")).to_contain_text("ilman kielimallia")


def test_six_desks_against_the_real_saturated_gate_spread_their_retries(pages):
    """Six clerks press Tulkitse at one instant against the real app: 2 gate slots, a sim taking 1.5 s."""
    with (
        sim_ollama(parallel=2, service_ms=1500) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
            }
        ) as app,
    ):
        starts: dict[int, list[float]] = {}
        desks = []
        for n in range(6):
            page = pages.open(app.url + "/desk")
            expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
            page.fill("#feedback-text", f"Kassa {n}: jono oli pitkä ja vain yksi kassa auki.")
            page.on(
                "requestfinished",
                lambda request, n=n: (
                    request.url.endswith("/interpret") and starts.setdefault(n, []).append(request.timing["startTime"])
                ),
            )
            desks.append(page)
        at_ms = int(time.time() * 1000) + 500
        for page in desks:
            page.evaluate(
                "(at) => setTimeout(() => document.getElementById('interpret-btn').click(), at - Date.now())", at_ms
            )
        outcome = re.compile("Tarkista kentät|Kielimalli on juuri nyt varattu")
        for page in desks:  # none hangs: each ends in a result or the busy message
            expect(page.locator("#entry-message")).to_contain_text(outcome, timeout=20000)
        assert httpx.get(sim.url + "/sim/stats", timeout=5).json()["maxConcurrency"] == 2

    assert sorted(starts) == list(range(6))
    assert all(1 <= len(times) <= 3 for times in starts.values())
    retried = [times for times in starts.values() if len(times) > 1]
    assert len(retried) >= 3  # two slots: at most two could be admitted at first
    second = sorted(times[1] for times in retried)
    assert second[-1] - second[0] >= 30, f"retries came back in lockstep: {second}"

"""The management view against the real app and a slow model: numbers at once, prose later, never the wrong window."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

SLOW_CALL_MS = 2500  # each model call: long enough to watch the pending state, short enough for a test
RECENT = [  # within the last 7 days
    ("p-1", "Maito oli hapanta vaikka päiväys oli vasta huomenna.", "maito_kylma", "hapan maito", "high", 1),
    ("p-2", "Jogurtti oli vanhentunut jo hyllyssä.", "maito_kylma", "vanhentunut jogurtti", "medium", 2),
    ("p-3", "Liukastuin märällä lattialla, polvessa haava.", "tilat_siisteys", "liukas lattia", "critical", 3),
]
OLDER = [  # 10 to 20 days ago: in the 30-day window only
    ("p-4", "Kassajono oli pitkä ja vain yksi kassa auki.", "kassa_palvelu", "pitkä jono", "medium", 10),
    ("p-5", "Leipähylly oli tyhjä jo kuudelta illalla.", "leipa", "tyhjä hylly", "low", 12),
    ("p-6", "Minulta veloitettiin kahdesti samasta ostoksesta.", "kassa_palvelu", "2-4", "high", 15),
    ("p-7", "Kassalla erittäin ystävällinen palvelu, kiitos!", "kassa_palvelu", "PALAUTE_LOPPU", "low", 20),
]
COUNTS = {"7": len(RECENT), "30": len(RECENT) + len(OLDER)}

# Records, for every change of the report's numbers, which window the selector showed at that moment.
WATCH = """() => {
  window.__seen = [];
  window.__changed = null;
  const report = document.getElementById("report");
  const select = document.getElementById("window-select");
  select.addEventListener("change", () => { window.__changed = performance.now(); });
  new MutationObserver(() => {
    window.__seen.push({ select: select.value, items: report.dataset.items || "", at: performance.now() });
  }).observe(report, { attributes: true, attributeFilter: ["data-items"] });
}"""


@pytest.fixture(scope="module")
def slow() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with (
        sim_ollama(parallel=2, service_ms=SLOW_CALL_MS) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
                "FI_REPORT_ALERT_VERIFY_BUDGET": "0",
            }
        ) as app,
    ):
        now = datetime.now(UTC)
        for feedback_id, text, category, theme, severity, days_ago in RECENT + OLDER:
            body = {
                "id": feedback_id,
                "source": "email",
                "text": text,
                "timestamp": (now - timedelta(days=days_ago, hours=1)).isoformat(),
                "acceptedStructure": {
                    "category": category,
                    "theme": theme,
                    "severity": severity,
                    "type": "praise" if "kiitos" in text else "complaint",
                    "language": "fi",
                },
            }
            assert httpx.post(app.url + "/feedback", json=body, timeout=10).status_code == 201
        yield sim, app


def test_seven_days_shows_its_numbers_at_once_then_writes_the_prose_in(pages, slow):
    _, app = slow
    page = pages.open(app.url + "/")
    expect(page.locator("#report")).to_have_attribute("data-items", str(COUNTS["30"]), timeout=10000)
    page.evaluate(WATCH)

    page.select_option("#window-select", "7")
    expect(page.locator("#report")).to_have_attribute("data-items", str(COUNTS["7"]), timeout=5000)
    shown_after_ms = page.evaluate("() => window.__seen.find((s) => s.items !== '').at - window.__changed")
    assert shown_after_ms < 1000, shown_after_ms
    expect(page.locator("#report-meta")).to_contain_text(f"{COUNTS['7']} merkintää")
    pending = page.locator("#themes-list .theme[data-prose='pending']")
    expect(pending.first).to_be_visible()
    expect(pending.first.locator(".origin-pending")).to_have_text("kirjoitetaan yhteenvetoa…")
    expect(page.locator("#report-status")).to_contain_text("kielimalli kirjoittaa")
    # Nothing raw: labels, not keys; the alert shows the customer's words and the category's label.
    expect(page.locator("#themes-list .theme-title").first).not_to_contain_text("_")
    alert = page.locator("#report-alerts .alert-card").first
    expect(alert.locator(".alert-origin")).to_contain_text("loukkaantuminen tai turvallisuus")
    expect(alert.locator(".alert-words")).to_contain_text("Liukastuin")
    screenshot(page, "management-prose-pending")

    # The prose fills in (the sim's one-word prose fails the length guard: the card says so).
    expect(page.locator("#report")).to_have_attribute("data-prose", "done", timeout=60000)
    expect(page.locator("#themes-list .theme[data-prose='pending']")).to_have_count(0)
    expect(page.locator("#themes-list .origin-why").first).to_have_text(
        "Ei kielimallin yhteenvetoa: kielimallin teksti oli liian lyhyt."
    )
    expect(page.locator("#report-status")).to_have_text("Raportti on ajan tasalla.")
    assert all(s["items"] in ("", str(COUNTS["7"])) for s in page.evaluate("window.__seen")[1:])
    screenshot(page, "management-prose-done")


def test_switching_windows_quickly_never_shows_the_earlier_windows_numbers(pages, slow):
    _, app = slow
    page = pages.open(app.url + "/")
    expect(page.locator("#report")).to_have_attribute("data-items", str(COUNTS["30"]), timeout=10000)
    page.evaluate(WATCH)
    for choice in ("7", "30", "7", "30", "7", "today", "7"):
        page.select_option("#window-select", choice)
    expect(page.locator("#report")).to_have_attribute("data-items", str(COUNTS["7"]), timeout=5000)
    expect(page.locator("#report")).to_have_attribute("data-prose", "done", timeout=60000)
    seen = page.evaluate("window.__seen")
    wrong = [s for s in seen if s["items"] and s["select"] in COUNTS and s["items"] != str(COUNTS[s["select"]])]
    assert not wrong, wrong
    assert seen[-1]["select"] == "7" and seen[-1]["items"] == str(COUNTS["7"])

"""What the clerk did survives a restart (ADR 0046): on the embedded defaults (no FI_VISITOR_SECRET, no
FI_SESSION_SECRET) the service keeps the secrets it makes in its data folder, so after a real restart
of the same data "Tänään tallentamani" still lists the entry in the same browser."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env

pytestmark = pytest.mark.browser

TEXT = "Maitohyllyn valot vilkkuivat koko illan."


def test_mine_survives_a_restart_of_the_service_on_the_same_data(pages) -> None:
    data = Path(tempfile.mkdtemp(prefix="fi-restart-"))
    page = pages.open()
    with sim_ollama(service_ms=50) as sim:
        env = ollama_env(sim)
        with app_server(env, data_dir=data) as first:
            page.goto(first.url + "/desk")
            expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
            page.fill("#feedback-text", TEXT)
            page.click("#interpret-btn")
            expect(page.locator("#review")).to_be_visible(timeout=15000)
            page.click("#save-btn")
            expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)
            expect(page.locator("#mine-list")).to_contain_text(TEXT, timeout=10000)
        for name in ("visitor-secret", "session-secret"):
            kept = data / name
            assert kept.is_file(), f"{name} was not kept in the data folder"
            assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        first_secret = (data / "visitor-secret").read_text()

        with app_server(env, data_dir=data) as second:
            assert (data / "visitor-secret").read_text() == first_secret  # read, never made anew
            page.goto(second.url + "/desk")
            expect(page.locator("#mine-list")).to_contain_text(TEXT, timeout=15000)
            # and the service says so on the API: the same browser's key still names the author
            cookies = {c["name"]: c["value"] for c in page.context.cookies() if c["name"] == "fi_visitor"}
            mine = httpx.get(second.url + "/live/feedback", params={"mine": "true"}, cookies=cookies, timeout=10)
            assert [row["text"] for row in mine.json()] == [TEXT]


def test_a_configured_secret_is_used_and_no_file_is_made() -> None:
    data = Path(tempfile.mkdtemp(prefix="fi-configured-"))
    with app_server({"FI_VISITOR_SECRET": "v" * 40, "FI_SESSION_SECRET": "s" * 40}, data_dir=data) as app:
        assert httpx.get(app.url + "/livez", timeout=5).status_code == 200
    assert not (data / "visitor-secret").exists() and not (data / "session-secret").exists()

"""Busy is said at the first shed, with its two ways out, while the page keeps retrying behind them;
Ctrl/Cmd+Enter interprets; "Peruuta" leaves no verdict behind; the model is warm at start-up."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.browser

TEXT = "Kassalla oli pitkä jono ja vain yksi kassa auki."
RETRYING_FI = "yritetään taustalla uudelleen"


def open_desk(pages, url: str):
    page = pages.open(url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    return page


@pytest.fixture(scope="module")
def held() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """The real app with two slots over a simulated Ollama whose calls take 20 s: easy to hold both."""
    with (
        sim_ollama(service_ms=20000) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
                "FI_STRUCTURE_WORKER": "false",
            }
        ) as app,
    ):
        yield sim, app


def hold_both_slots(app: ServerProcess, sim: ServerProcess) -> list[threading.Thread]:
    """Two interpret calls in flight, each holding a gate slot; returns once the sim serves both."""

    def call() -> None:
        with contextlib.suppress(httpx.HTTPError):  # the module's end stops the servers under it
            httpx.post(app.url + "/interpret", json={"text": "Maito oli hapanta."}, timeout=60)

    holders = [threading.Thread(target=call, daemon=True) for _ in range(2)]
    for thread in holders:
        thread.start()
    wait_for_sync(
        lambda: httpx.get(sim.url + "/sim/stats", timeout=5).json()["inFlight"] >= 2,
        15,
        "the two holding calls to reach the model",
        poll_s=0.05,
    )
    return holders


def test_with_both_slots_held_the_ways_out_appear_within_a_second_and_a_half(pages, held) -> None:
    sim, app = held
    page = open_desk(pages, app.url)
    hold_both_slots(app, sim)
    page.fill("#feedback-text", TEXT)
    # Measured in the page itself, from the press to the moment both ways out are on screen.
    elapsed_ms = page.evaluate(
        """() => new Promise((resolve) => {
            const manual = document.getElementById('manual-btn');
            const later = document.getElementById('later-btn');
            const start = performance.now();
            const seen = () => !manual.hidden && !later.hidden;
            const observer = new MutationObserver(() => {
                if (seen()) { observer.disconnect(); resolve(performance.now() - start); }
            });
            observer.observe(document.body, {subtree: true, attributes: true, attributeFilter: ['hidden']});
            document.getElementById('interpret-btn').click();
            setTimeout(() => { observer.disconnect(); resolve(-1); }, 10000);
        })"""
    )
    assert 0 < elapsed_ms <= 1500, f"the busy options took {elapsed_ms:.0f} ms (-1: never)"
    expect(page.locator("#entry-message")).to_contain_text(RETRYING_FI)
    expect(page.locator("#manual-btn")).to_have_text("Täytä itse")
    expect(page.locator("#later-btn")).to_have_text("Tallenna, tulkitaan myöhemmin")
    # Still shed after the retries: the final word, and the ways out stay.
    expect(page.locator("#entry-message")).to_contain_text("Kielimalli on juuri nyt varattu", timeout=10000)
    expect(page.locator("#manual-btn")).to_be_visible()


def test_a_proposal_that_arrives_after_a_shed_still_fills_the_form(pages, fake) -> None:
    fake.script.interpret_statuses = [503, 503, 200]
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#manual-btn")).to_be_visible(timeout=1500)
    expect(page.locator("#later-btn")).to_be_visible()
    expect(page.locator("#review")).to_be_visible(timeout=5000)
    expect(page.locator("#f-category")).to_have_value("maito_kylma")
    expect(page.locator("#review-heading")).to_have_text("Tulkinta")
    expect(page.locator("#entry-message")).to_contain_text("Tarkista kentät")
    expect(page.locator("#manual-btn")).to_be_hidden()
    expect(page.locator("#later-btn")).to_be_hidden()
    assert [a.status for a in fake.script.attempts] == [503, 503, 200]


def test_choosing_by_hand_stops_the_background_retries(pages, fake) -> None:
    fake.script.interpret_statuses = [503] * 10
    fake.script.interpretation = {**fake.script.interpretation}
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#manual-btn")).to_be_visible(timeout=1500)
    page.click("#manual-btn")
    expect(page.locator("#review")).to_be_visible()
    expect(page.locator("#review-heading")).to_have_text("Kentät käsin")
    seen = len(fake.script.attempts)
    # Longer than both retry waits together (at most 800 + 1200 ms): a retry, if any, would have come.
    page.wait_for_timeout(2500)
    assert len(fake.script.attempts) == seen
    expect(page.locator("#review-heading")).to_have_text("Kentät käsin")  # no late answer overwrote it


def test_choosing_later_saves_and_stops_the_background_retries(pages, fake) -> None:
    fake.script.interpret_statuses = [503] * 10
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#later-btn")).to_be_visible(timeout=1500)
    page.click("#later-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=5000)
    [saved] = fake.script.saves
    assert saved["text"] == TEXT and saved["structureLater"] is True
    seen = len(fake.script.attempts)
    page.wait_for_timeout(2500)
    assert len(fake.script.attempts) == seen
    expect(page.locator("#review")).to_be_hidden()


@pytest.mark.parametrize("modifier", ["Control", "Meta"])
def test_ctrl_or_cmd_enter_interprets_and_then_saves(pages, fake, modifier: str) -> None:
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", TEXT)
    page.focus("#feedback-text")
    page.keyboard.press(f"{modifier}+Enter")
    expect(page.locator("#review")).to_be_visible(timeout=5000)
    assert [a.text for a in fake.script.attempts] == [TEXT]
    expect(page.locator("#feedback-text")).to_have_value(TEXT)  # no newline slipped in
    page.focus("#f-theme")
    page.keyboard.press(f"{modifier}+Enter")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=5000)
    assert len(fake.script.saves) == 1


def test_plain_enter_in_the_text_is_a_new_line(pages, fake) -> None:
    page = open_desk(pages, fake.url)
    page.focus("#feedback-text")
    page.keyboard.type("Rivi yksi")
    page.keyboard.press("Enter")
    page.keyboard.type("rivi kaksi")
    expect(page.locator("#feedback-text")).to_have_value("Rivi yksi\nrivi kaksi")
    assert fake.script.attempts == []


def test_cancel_goes_back_to_the_text_without_a_verdict(pages, fake) -> None:
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=5000)
    page.click("#cancel-btn")
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("#entry-message")).to_have_text("")
    expect(page.locator("#feedback-text")).to_have_value(TEXT)
    expect(page.locator("#feedback-text")).to_be_focused()
    expect(page.locator("#interpret-btn")).to_be_enabled()
    assert fake.script.saves == []


def test_messages_go_when_they_no_longer_apply(pages, fake) -> None:
    page = open_desk(pages, fake.url)
    page.fill("#feedback-text", " ")
    page.click("#interpret-btn")
    expect(page.locator("#entry-message")).to_have_text("Kirjoita palaute ensin.")
    page.keyboard.type("Kassalla")
    expect(page.locator("#entry-message")).to_have_text("")
    # A busy message is about the model, not the text: editing keeps it and its ways out.
    fake.script.interpret_statuses = [503] * 10
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#entry-message")).to_contain_text("Kielimalli on juuri nyt varattu", timeout=5000)
    page.keyboard.type(" Lisää.")
    expect(page.locator("#entry-message")).to_contain_text("Kielimalli on juuri nyt varattu")
    expect(page.locator("#manual-btn")).to_be_visible()
    # A reminder under the form goes once the field it is about is changed.
    page.click("#manual-btn")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_contain_text("Valitse")
    page.select_option("#f-category", "muu")
    expect(page.locator("#save-message")).to_have_text("")


def test_the_service_warms_its_model_at_start(tmp_path) -> None:
    """With FI_WARM_AT_START (the default) one real completion runs before anyone presses a key."""
    with (
        sim_ollama(service_ms=50) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_STRUCTURE_WORKER": "false",
                "FI_WARM_AT_START": "1",
            },
            data_dir=tmp_path,
        ),
    ):
        stats: dict = {}

        def completed() -> bool:
            stats.update(httpx.get(sim.url + "/sim/stats", timeout=5).json())
            return stats["completed"] >= 1

        wait_for_sync(completed, 20, "a warm-up completion to reach the model", poll_s=0.1)
        assert stats["loads"] >= 1

"""The desk's answer to 503 / 429 / no network, seen through the real page against the scripted API."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Scheduling slack on a loaded, shared 2-core machine, added on the upper bounds only (the lower
# bounds are the policy's own floors and cannot be undercut by a slow machine).
EPS_MS = 750
BUSY_FI = "Kielimalli on juuri nyt varattu"
RATE_FI = "Liian monta pyyntöä"
NETWORK_FI = "Palvelimeen ei saada yhteyttä"


def open_desk(pages, fake, **kw):
    page = pages.open(fake.url + "/desk", **kw)
    expect(page.locator("#interpret-btn")).to_be_enabled()
    return page


def interpret(page, text="Maito oli vanhentunutta, päiväys meni eilen."):
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")


def gaps_ms(attempts):
    return [(b.at - a.at) * 1000 for a, b in itertools.pairwise(attempts)]


def test_503_503_200_shows_the_interpretation_after_three_jittered_attempts(pages, fake):
    fake.script.interpret_statuses = [503, 503, 200]
    page = open_desk(pages, fake)
    interpret(page)
    expect(page.locator("#review")).to_be_visible(timeout=5000)
    expect(page.locator("#f-category")).to_have_value("maito_kylma")
    expect(page.locator("#entry-message")).not_to_contain_text(BUSY_FI)
    assert [a.status for a in fake.script.attempts] == [503, 503, 200]
    gap1, gap2 = gaps_ms(fake.script.attempts)
    assert 300 <= gap1 <= 800 + EPS_MS, gap1
    assert 700 <= gap2 <= 1200 + EPS_MS, gap2


def test_a_longer_retry_after_is_honoured_with_jitter_on_top(pages, fake):
    fake.script.interpret_statuses = [503, 503, 200]
    fake.script.retry_after = "1"
    page = open_desk(pages, fake)
    interpret(page)
    expect(page.locator("#review")).to_be_visible(timeout=6000)
    gap1, gap2 = gaps_ms(fake.script.attempts)
    assert 1000 <= gap1 <= 1500 + EPS_MS, gap1
    assert 1000 <= gap2 <= 1500 + EPS_MS, gap2


def test_always_503_ends_in_the_busy_message_after_exactly_three_attempts(pages, fake):
    fake.script.interpret_statuses = [503] * 10
    page = open_desk(pages, fake)
    interpret(page)
    expect(page.locator("#entry-message")).to_contain_text(BUSY_FI, timeout=5000)
    # The clerk can still fill the fields by hand (a save with an accepted structure needs no model).
    expect(page.locator("#manual-btn")).to_be_visible()
    expect(page.locator("#interpret-btn")).to_be_enabled()
    time.sleep(1.3)  # longer than any further retry would wait: none may come
    assert len(fake.script.attempts) == 3
    gap1, gap2 = gaps_ms(fake.script.attempts)
    assert 300 <= gap1 <= 800 + EPS_MS and 700 <= gap2 <= 1200 + EPS_MS, (gap1, gap2)


def test_429_shows_the_rate_limit_message_after_one_attempt(pages, fake):
    fake.script.interpret_statuses = [429, 200, 200]
    fake.script.retry_after = "30"
    page = open_desk(pages, fake)
    interpret(page)
    expect(page.locator("#entry-message")).to_contain_text(RATE_FI, timeout=3000)
    time.sleep(1.0)
    assert len(fake.script.attempts) == 1
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("#manual-btn")).to_be_hidden()


def test_model_down_is_told_apart_from_busy_and_not_retried(pages, fake):
    fake.script.interpret_statuses = [503, 503, 503]
    fake.script.unavailable = True
    page = open_desk(pages, fake)
    interpret(page)
    expect(page.locator("#entry-message")).to_contain_text("Kielimalli ei vastaa", timeout=3000)
    time.sleep(0.9)
    assert len(fake.script.attempts) == 1
    expect(page.locator("#manual-btn")).to_be_visible()


def test_network_error_has_its_own_message(pages, fake):
    page = open_desk(pages, fake)
    page.route("**/interpret", lambda route: route.abort("connectionrefused"))
    interpret(page)
    expect(page.locator("#entry-message")).to_contain_text(NETWORK_FI, timeout=3000)
    expect(page.locator("#entry-message")).not_to_contain_text(BUSY_FI)
    assert fake.script.attempts == []  # never reached the server, and not retried blindly
    expect(page.locator("#interpret-btn")).to_be_enabled()


def test_english_domain_speaks_english(pages, fake):
    from tests.web import sample_data

    fake.script.schema = sample_data.schema("en")
    fake.script.interpret_statuses = [503, 503, 503]
    page = open_desk(pages, fake)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#interpret-btn")).to_have_text("Interpret")
    interpret(page, "The milk was sour.")
    expect(page.locator("#entry-message")).to_contain_text("busy", timeout=5000)


def test_six_desks_against_a_saturated_two_slot_backend_do_not_retry_in_lockstep(pages, fake):
    sc = fake.script
    sc.saturated_slots = 2
    sc.hold_s = 1.5
    sc.retry_after = "1"  # as the real gate answers; the page must still spread its retries
    desks = [open_desk(pages, fake) for _ in range(6)]
    for n, page in enumerate(desks):
        page.fill("#feedback-text", f"Kassa {n}: jono oli pitkä ja vain yksi kassa auki.")
    # Press Tulkitse on all six at one shared wall-clock instant (the contexts share the clock).
    at_ms = int(time.time() * 1000) + 1000
    for page in desks:
        page.evaluate(
            "(at) => setTimeout(() => document.getElementById('interpret-btn').click(), at - Date.now())", at_ms
        )
    outcome = re.compile(f"Tarkista kentät|{BUSY_FI}")
    for page in desks:
        expect(page.locator("#entry-message")).to_contain_text(outcome, timeout=10000)

    by_desk: dict[str, list] = {}
    for attempt in sc.attempts:
        by_desk.setdefault(attempt.text.split(":")[0], []).append(attempt)
    assert len(by_desk) == 6
    first = [a[0].at for a in by_desk.values()]
    # The presses only need to overlap the first two calls' 1.5 s hold to contend for the slots.
    assert max(first) - min(first) < 1.0, "the six presses did not contend for the slots"
    for attempts in by_desk.values():
        assert 1 <= len(attempts) <= 3
        assert attempts[-1].status == 200 or len(attempts) == 3  # a result, or busy after 3 attempts
    retried = [a for a in by_desk.values() if len(a) > 1]
    assert len(retried) >= 3  # only two could get a slot at first
    # Each desk's own wait before its retry, so a late press cannot pass for jitter.
    waits = sorted(a[1].at - a[0].at for a in retried)
    spread_ms = (waits[-1] - waits[0]) * 1000
    assert spread_ms >= 30, f"retries came back in lockstep: waits {spread_ms:.1f} ms apart"
    for attempts in retried:
        gap = (attempts[1].at - attempts[0].at) * 1000
        assert 1000 <= gap <= 1500 + EPS_MS, gap
    results = sum(1 for a in by_desk.values() if a[-1].status == 200)
    busy = [p for p in desks if BUSY_FI in p.locator("#entry-message").inner_text()]
    assert results + len(busy) == 6
    assert results >= 2


def test_the_policy_module_as_the_browser_loads_it(pages, fake):
    """The same pure checks as under node, in Chromium: the served module, real Response objects."""
    page = pages.open(fake.url + "/desk")
    result = page.evaluate("""async () => {
        const p = await import('/static/js/retry-policy.js');
        const busy = () => new Response(JSON.stringify({error: 'busy'}), {status: 503});
        const seq = [busy(), busy(), new Response('{}', {status: 200})];
        const slept = [];
        const ok = await p.fetchWithShedRetry(async () => seq.shift(),
            {random: () => 0.5, sleep: async (ms) => { slept.push(ms); }});
        const r429 = await p.fetchWithShedRetry(async () => new Response(null, {status: 429}),
            {sleep: async () => { throw new Error('must not sleep'); }});
        let spread = new Set();
        for (let i = 0; i < 50; i++) spread.add(Math.round(p.shedDelay(0, Math.random(), 1000)));
        return {outcome: ok.outcome, attempts: ok.attempts, slept, r429: r429.outcome, r429Attempts: r429.attempts,
                bounds: [p.shedDelay(0, 0), p.shedDelay(0, 1), p.shedDelay(1, 0), p.shedDelay(1, 1)],
                distinct: spread.size};
    }""")
    assert result["outcome"] == "ok" and result["attempts"] == 3
    assert result["slept"] == [550, 950]
    assert result["r429"] == "rate_limited" and result["r429Attempts"] == 1
    assert result["bounds"] == [300, 800, 700, 1200]
    assert result["distinct"] > 10

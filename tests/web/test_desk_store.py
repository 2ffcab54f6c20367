"""Stores (ADR 0027): a desk opened as ``/desk?store=…`` shows its store's name, carries the store in every
save and shows only its own store's live entries; an unknown store is said plainly and nothing is saved."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.web import sample_data

pytestmark = pytest.mark.browser


def test_a_desk_bound_by_its_address_names_its_store_and_saves_for_it(pages, fake):
    fake.script.store_names = {"tre-1": "Tampere Hervanta"}
    fake.script.interpretation = sample_data.interpretation()
    page = pages.open(fake.url + "/desk?store=tre-1")
    expect(page.locator("#desk-store")).to_have_text("Myymälä: Tampere Hervanta")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    page.fill("#feedback-text", "Maito oli vanhentunutta jo ostopäivänä.")
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")
    assert [save.get("store") for save in fake.script.saves] == ["tre-1"]


def test_an_unknown_store_in_the_address_is_said_and_nothing_is_saved(pages, fake):
    fake.script.store_names = {"tre-1": "Tampere Hervanta"}
    fake.script.interpretation = sample_data.interpretation()
    page = pages.open(fake.url + "/desk?store=oulu-9")
    expect(page.locator("#desk-store")).to_contain_text("Tällä kassalla ei voi tallentaa")
    expect(page.locator("#desk-store")).to_contain_text("osoitteen myymälä ei ole tämän palvelun myymälä")
    page.fill("#feedback-text", "Maito oli vanhentunutta jo ostopäivänä.")
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_contain_text("Tällä kassalla ei voi tallentaa")
    assert fake.script.saves == []


def test_a_desk_without_a_store_saves_without_one(pages, fake):
    fake.script.interpretation = sample_data.interpretation()
    page = pages.open(fake.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    expect(page.locator("#desk-store")).to_be_hidden()
    page.fill("#feedback-text", "Maito oli vanhentunutta jo ostopäivänä.")
    page.click("#interpret-btn")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")
    assert "store" not in fake.script.saves[0]

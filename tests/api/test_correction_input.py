"""A correction's fields are checked and normalised exactly as a save's: a corrected text with NUL
is refused 400 and changes nothing (it was stored as sent, a NUL that PostgreSQL cannot hold), a
bidi control is dropped, a key that is not one is refused."""

from __future__ import annotations

from pathlib import Path

from feedback_intelligence.api.routes.corrections import CHANGEABLE, ItemChangeIn
from tests.support.people import ACCEPTED, LOOPBACK, client, people_settings, running_app


async def test_a_corrected_text_follows_the_save_rules(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, auth="none")) as app, client(app, LOOPBACK) as operator:
        saved = await operator.post(
            "/feedback",
            json={"id": "fix-1", "source": "email", "text": "Maito oli hapanta.", "acceptedStructure": ACCEPTED},
        )
        assert saved.status_code == 201, saved.text

        with_nul = await operator.patch("/feedback/fix-1", json={"text": "Maito\x00 oli hapanta."})
        assert with_nul.status_code == 400
        assert with_nul.json()["codes"][0]["code"] == "text_nul_character"
        assert (await operator.get("/feedback/fix-1")).json()["text"] == "Maito oli hapanta."

        with_bidi = await operator.patch("/feedback/fix-1", json={"text": "Maito oli \u202ehapanta."})
        assert with_bidi.status_code == 200, with_bidi.text
        assert (await operator.get("/feedback/fix-1")).json()["text"] == "Maito oli hapanta."

        not_a_key = await operator.patch("/feedback/fix-1", json={"category": "maito\nkylmä"})
        assert not_a_key.status_code == 400


def test_the_schema_names_every_field_a_correction_can_change() -> None:
    assert set(CHANGEABLE) == set(ItemChangeIn.model_fields)

"""The report's reply models: which model replies have the shape the prompts ask for."""

from __future__ import annotations

import pytest

from feedback_intelligence.report.prose.replies import NominationReply, SynthesisReply, parsed_reply


@pytest.mark.parametrize(
    ("obj", "usable"),
    [
        ({"title": "t", "narrative": "n", "citedIds": ["a"]}, True),
        ({"title": "t", "narrative": "n", "citedIds": [], "extra": 1}, True),  # extra keys ignored
        ({"title": "t", "narrative": "n", "citedIds": [7]}, True),  # shape ok; the grounding guard judges ids
        ({"title": 1, "narrative": "n", "citedIds": ["a"]}, False),
        ({"title": "t", "narrative": None, "citedIds": ["a"]}, False),
        ({"title": "t", "narrative": "n", "citedIds": "a"}, False),
        ({"title": "t", "narrative": "n"}, False),
        (None, False),
    ],
)
def test_a_synthesis_reply_is_used_only_with_its_three_fields(obj: dict | None, usable: bool) -> None:
    assert (parsed_reply(SynthesisReply, obj) is not None) is usable


def test_a_nomination_keeps_its_well_formed_entries_and_drops_the_rest() -> None:
    reply = parsed_reply(
        NominationReply,
        {"alerts": [{"id": "m1", "reason": "Hylly kaatui"}, "m2", {"id": 3}, {"id": "m4"}, {"id": "m5", "reason": 5}]},
    )
    assert reply is not None
    assert [(a.id, a.reason) for a in reply.nominated()] == [("m1", "Hylly kaatui"), ("m4", None)]
    assert parsed_reply(NominationReply, {"alerts": "m1"}) is None

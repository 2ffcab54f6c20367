"""A stored text longer than the model reads: the model reads its first part, cut at a word, and the
result's notes say how much (ADR 0025); a text within the limit is read whole and no note is added."""

from __future__ import annotations

import json

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.structuring.service import StructuringService
from feedback_intelligence.text.first_part import first_part, read_note
from tests.structuring import domains
from tests.structuring.fakes import make_runner
from tests.structuring.test_service import GOOD

END = "Vaadin rahat takaisin."


def test_first_part_cuts_at_a_word_within_the_limit() -> None:
    text = "sana " * 300 + END
    part = first_part(text, 800)
    assert len(part) <= 800 and text.startswith(part) and not part.endswith(" ")
    assert text[len(part)] == " "  # cut between words
    assert first_part("lyhyt", 800) == "lyhyt"
    assert first_part(text, None) == text
    assert first_part("x" * 900, 800) == "x" * 800  # no space near the end: cut at the limit itself


async def test_the_model_reads_the_first_part_and_the_notes_say_so() -> None:
    backend = FakeBackend(json.dumps(GOOD, ensure_ascii=False))
    svc = StructuringService(make_runner(backend), domains.small(), read_max_chars=800)
    text = "Maito oli hapanta ja hylly lämmin. " * 40 + END
    result = await svc.structure(text, CallContext.interactive("test", "ingest"))
    assert result.structure is not None
    [prompt] = backend.prompts
    assert END not in prompt and first_part(text, 800) in prompt
    assert result.notes[-1] == read_note(len(first_part(text, 800)), len(text))


async def test_a_text_within_the_limit_is_read_whole_without_a_note() -> None:
    backend = FakeBackend(json.dumps(GOOD, ensure_ascii=False))
    svc = StructuringService(make_runner(backend), domains.small(), read_max_chars=800)
    text = "Maito oli hapanta. " + END
    result = await svc.structure(text, CallContext.interactive("test", "ingest"))
    assert END in backend.prompts[0]
    assert not any("the model read the first" in note for note in result.notes)

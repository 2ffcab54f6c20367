"""One reading of a text (ADR 0073) answers /interpret exactly as the old path did.

The old path is kept in ``bench/legacy_interpret.py`` (the wiring only: it calls today's rules, so the two stay
comparable as the rules change). Every text of both eval sets goes through both paths with the same scripted
model reply, and every field of the answer is compared as the route serialises it (key order included):
the shipped theme-only domains with a theme the guards keep, normalise or replace; retail with the model
deciding every field (every guard judges it; some texts re-prompted after a broken first reply); and long
texts of which the model reads only the first part (the structuring reads the part, the preview the whole).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace

import pytest

from bench import interpret_cpu as bench
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.services import interpret
from feedback_intelligence.services.interpret import Interpretation

_WORD = re.compile(r"[^\W\d_]{4,}")


def own_word(text: str) -> str:
    """The text's longest word: a theme the guards keep (or put in base form)."""
    found = _WORD.findall(text)
    return max(found, key=len) if found else "palvelu"


def theme_reply(text: str, i: int) -> str:
    themes = ("kassajono", own_word(text), "2-4 word lowercase noun phrase", "Kielen Kielen kielen")
    return json.dumps({"theme": themes[i % len(themes)]}, ensure_ascii=False)


def full_reply(text: str, i: int) -> str:
    replies = (
        {"category": "muu", "severity": "low", "type": "praise", "language": "en", "sentiment": "positive"},
        {"category": "kassa_palvelu", "severity": "critical", "type": "complaint", "language": "fi"},
        {"category": "maito_kylma", "severity": "medium", "type": "question", "language": "al", "sentiment": "x"},
        {"category": "rasismi", "severity": "high", "type": "suggestion", "language": "de", "sentiment": "neutral"},
    )
    return json.dumps({**replies[i % len(replies)], "theme": own_word(text)}, ensure_ascii=False)


def answer(result: Interpretation) -> str:
    return json.dumps([result.to_json(), result.backend], ensure_ascii=False)


async def compare(
    domain: Domain,
    texts: list[str],
    reply: Callable[[str, int], str],
    *,
    broken_every: int = 0,
    failing_every: int = 0,
    read_max_chars: int | None = None,
) -> int:
    """Both paths over ``texts`` with ``reply(text, i)`` as the model's answer (every ``broken_every``-th text
    re-prompted after a broken reply, every ``failing_every``-th failing twice); the number of texts."""
    paths = bench.paths(domain, {"theme": "unused"})
    for service in (paths.old, paths.new):
        service.structuring.read_max_chars = read_max_chars
    differing = []
    for i, text in enumerate(texts):
        answers = []
        for service in (paths.old, paths.new):
            paths.backend.reply = reply(text, i)
            paths.backend.steps = ["no json here"] if broken_every and i % broken_every == 0 else []
            if failing_every and i % failing_every == 1:
                paths.backend.steps = ["no json here", "nor here"]  # no structure: the preview still answers
            answers.append(answer(await service.interpret(text, visitor="test")))
        if answers[0] != answers[1]:
            differing.append((text, *answers))
    assert differing == []
    return len(texts)


@pytest.mark.parametrize("name", bench.DOMAINS)
async def test_every_eval_text_is_answered_as_the_old_path_answered_it(name: str) -> None:
    assert await compare(load_domain(name), bench.eval_texts(name), theme_reply) > 100


async def test_a_model_that_decides_every_field_is_guarded_as_before() -> None:
    retail = replace(load_domain("retail"), prior_fields=())
    assert await compare(retail, bench.eval_texts("retail"), full_reply, broken_every=7, failing_every=11) > 300


async def test_a_long_text_read_in_part_is_answered_as_before() -> None:
    long = [t for t in bench.eval_texts("retail") if len(t) > 80]
    assert await compare(load_domain("retail"), long, theme_reply, read_max_chars=60) > 20


async def test_the_preview_takes_the_alerts_from_the_structurings_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The text is read once: the preview does not match the alerts or read the evidence again."""
    service = bench.paths(load_domain("retail"), {"theme": "kassajono"}).new

    def again(*_args: object) -> None:
        raise AssertionError("the preview read the text again")

    monkeypatch.setattr(interpret, "text_evidence", again)
    result = await service.interpret("Asiakas liukastui märällä lattialla kassan vieressä.", visitor="test")
    assert result.alert_categories  # an injury, found in the one reading

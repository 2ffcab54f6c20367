"""The guards over real HTTP: the app as a process, the simulated Ollama scripted to say exactly the
broken things a small model said in practice (prompt echoes as themes, a made-up language code, a
cheerful tone on a complaint, a theme hiding a right-to-left override: that one is removed by the text
normalisation every model text passes, before the guards look, and noted as such).

Each reply is matched by a phrase of its feedback text (``feedctl sim-ollama --replies FILE``), so the
corrective re-prompt, if any, hears the same broken reply again and the guard has to act.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


@dataclass(frozen=True)
class Broken:
    """A feedback text, the one field the model gets wrong on it, and what it says there."""

    text: str
    field: str
    model_value: str

    @property
    def reply(self) -> str:
        structure = {
            "category": "kassa_palvelu",
            "theme": "jono kassalla",
            "severity": "medium",
            "type": "complaint",
            "sentiment": "negative",
            "language": "fi",
        }
        return json.dumps({**structure, self.field: self.model_value}, ensure_ascii=False)


RLO = "\u202e"
RLO_THEME = f"porakone{RLO}lanoisiv"
CASES = [
    Broken(
        "Kassajono oli tosi pitkä ja vain yksi kassa auki.",
        "theme",
        "2-4 word lowercase noun phrase in base form, in the feedback",
    ),
    Broken("Maito oli hapanta vaikka päiväys oli vasta huomenna.", "theme", "2-4"),
    Broken("Leipähylly oli tyhjä jo kuudelta illalla.", "theme", "PALAUTE_LOPPU"),
    Broken("Pakastealtaan kansi oli rikki ja jäätelöt sulaneet.", "theme", "Sentiment"),
    Broken("Hedelmäosaston vaaka näytti väärää hintaa koko päivän.", "theme", "low"),
    Broken("Myyjä ei osannut neuvoa porakoneen valinnassa ollenkaan.", "theme", RLO_THEME),
    Broken("Kahvipaketit olivat hyllyssä rikki ja kahvia oli lattialla.", "language", "al"),
    Broken("Jono palvelutiskille kesti puoli tuntia, todella huonoa palvelua.", "sentiment", "positive"),
]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    replies = Path(tmp_path_factory.mktemp("replies")) / "broken.jsonl"
    replies.write_text(
        "".join(json.dumps({"match": case.text, "reply": case.reply}, ensure_ascii=False) + "\n" for case in CASES),
        encoding="utf-8",
    )
    with sim_ollama(service_ms=50, extra=["--replies", str(replies)]) as sim, app_server(ollama_env(sim)) as app:
        yield app


def the_rejection(guards: list[dict[str, Any]], case: Broken) -> dict[str, Any]:
    [rejection] = [g for g in guards if g["field"] == case.field]
    assert set(rejection) == {"field", "reason", "modelValue", "replacement"}
    assert rejection["modelValue"] == case.model_value
    assert isinstance(rejection["reason"], str) and rejection["reason"]
    return rejection


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.field}={case.model_value[:12]!r}")
def test_an_interpret_never_shows_the_broken_value_and_says_why(stack: ServerProcess, case: Broken) -> None:
    response = httpx.post(stack.url + "/interpret", json={"text": case.text}, timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    structure = body["structure"]
    assert body["failed"] is False and structure is not None
    shown = structure[case.field]
    assert shown and shown != case.model_value
    assert RLO not in json.dumps(structure, ensure_ascii=False)
    if case.model_value == RLO_THEME:
        # The text normalisation every model text passes (text/normalize.py) removes the override before
        # the guards look, and says so; the guards then judge what is left.
        assert any("'theme' normalized" in note for note in body["notes"]), body["notes"]
    else:
        rejection = the_rejection(body["guards"], case)
        assert rejection["replacement"] == shown
    # Whatever a guard replaced is what the clerk sees; nothing else was changed silently.
    for guard in body["guards"]:
        assert structure[guard["field"]] == guard["replacement"]
    changed = {name for name, value in json.loads(case.reply).items() if structure.get(name) != value}
    # a theme put in base form (ADR 0022) is said in the notes, like the RLO's removal
    normalized = {"theme"} if any("'theme' normalized" in note for note in body["notes"]) else set()
    assert changed <= {g["field"] for g in body["guards"]} | normalized


def test_the_replacements_follow_the_text_and_the_domain(stack: ServerProcess) -> None:
    by_field = {}
    for case in CASES[-2:]:
        body = httpx.post(stack.url + "/interpret", json={"text": case.text}, timeout=30).json()
        by_field[case.field] = body["structure"][case.field]
    assert by_field["language"] == "fi"  # detected from the Finnish text
    assert by_field["sentiment"] == "negative"  # a complaint's tone in the retail domain's typeSentiment


@pytest.mark.parametrize("case", [CASES[2], CASES[5], CASES[6]], ids=["theme-echo", "theme-rlo", "language"])
def test_ingest_stores_the_guarded_structure_with_a_note(stack: ServerProcess, case: Broken) -> None:
    feedback_id = f"guarded-{uuid.uuid4().hex[:12]}"
    created = httpx.post(
        stack.url + "/feedback", json={"id": feedback_id, "source": "email", "text": case.text}, timeout=30
    )
    assert created.status_code == 201, created.text
    stored = httpx.get(f"{stack.url}/feedback/{feedback_id}", timeout=10).json()
    assert stored["structureFailed"] is False
    assert stored["structure"][case.field] not in (None, "", case.model_value)
    assert RLO not in json.dumps(stored, ensure_ascii=False)
    said = "normalized" if case.model_value == RLO_THEME else "guard"
    notes = [n for n in stored["salvageNotes"] if said in n and f"'{case.field}'" in n]
    assert notes, stored["salvageNotes"]

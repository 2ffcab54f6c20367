"""Every row the rules and the derivation make of the eval sets' and the demo corpus's texts, as digests.

A row is a text made into a stored record four ways — saved for later in one batch (``record_many``), saved
for later alone (``record``), saved with a person's structure (``acceptedStructure``), and structured by a
model (a scripted structure the override may change) — and each record's derivation. Each is serialised
(key order included) and digested; ``data/rows.json`` holds the digests the code gave when it was frozen,
so a change of any answer of the rules or the derivation names its text and kind.

Rewrite the frozen digests only for a change meant to change answers (then DERIVATION_VERSION moves too):
``PYTHONPATH=. .venv/bin/python -m tests.derivation.rows --write``
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import derive
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.records import Derived, StoredFeedback, Structure
from feedback_intelligence.services.ingest import IngestCommand, IngestService, ModelOutcome

FROZEN = Path(__file__).resolve().parent / "data" / "rows.json"
TIMESTAMP = "2026-12-01T10:00:00+02:00"
KINDS = ("batch", "later", "accepted", "model")

Record = Callable[[IngestService, list[IngestCommand], list[Structure]], list[StoredFeedback]]


def text_sets() -> Iterator[tuple[str, Domain, list[tuple[str, str, dict[str, str]]]]]:
    """(set name, its domain, [(id, text, gold fields)]): both eval sets and the demo corpus (retail)."""
    for name in ("retail", "game"):
        domain = load_domain(name)
        yield f"{name}-eval", domain, [(item.id, item.text, item.gold) for item in load_set(domain)]
    retail = load_domain("retail")
    yield "demo", retail, [(entry["id"], entry["text"], {}) for entry in load_corpus()]


def structures(domain: Domain, texts: list[tuple[str, str, dict[str, str]]]) -> list[Structure]:
    """A person's or a model's structure per text: its gold fields where the set has them, else fields taken
    in turn from the domain's lists, so every category meets the override; the theme a word of the text."""
    categories, severities, types = list(domain.categories), list(domain.severities), list(domain.types)
    made = []
    for i, (_, text, gold) in enumerate(texts):
        words = [w.strip(".,!?:;\"'()") for w in text.split()]
        theme = max(words, key=len).lower() if words else "palvelu"
        made.append(
            Structure(
                category=gold.get("category") or categories[i % len(categories)],
                theme=theme,
                severity=gold.get("severity") or severities[i % len(severities)],
                type=gold.get("type") or types[i % len(types)],
                language=gold.get("language") or domain.language,
                sentiment=gold.get("sentiment"),
            )
        )
    return made


def _batch(service: IngestService, commands: list[IngestCommand], _: list[Structure]) -> list[StoredFeedback]:
    return service.record_many([dataclasses.replace(c, structure_later=True) for c in commands])


def _later(service: IngestService, commands: list[IngestCommand], _: list[Structure]) -> list[StoredFeedback]:
    return [service.record(dataclasses.replace(c, structure_later=True)) for c in commands]


def _accepted(service: IngestService, commands: list[IngestCommand], given: list[Structure]) -> list[StoredFeedback]:
    return service.record_many(
        [dataclasses.replace(c, accepted_structure=s) for c, s in zip(commands, given, strict=True)]
    )


def _model(service: IngestService, commands: list[IngestCommand], given: list[Structure]) -> list[StoredFeedback]:
    return [service.record(c, ModelOutcome(s, (), False)) for c, s in zip(commands, given, strict=True)]


RECORDERS: dict[str, Record] = {"batch": _batch, "later": _later, "accepted": _accepted, "model": _model}


def serialised(record: StoredFeedback, derived: Derived) -> tuple[str, str]:
    """The record as the API shows it (plus what ``to_json`` leaves out) and its derivation, as JSON."""
    shown = record.to_json() | {"author": record.author, "proposal": repr(record.proposal)}
    return (
        json.dumps(shown, ensure_ascii=False),
        json.dumps(dataclasses.asdict(derived), ensure_ascii=False),
    )


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:16]


def rows(derive_row: Callable[[StoredFeedback, Domain], Derived] = derive) -> dict[str, str]:
    """``{"<set>/<id>/<kind>/record|derived": digest}`` for every text, kind and part."""
    out: dict[str, str] = {}
    for name, domain, texts in text_sets():
        service = IngestService(domain, None, clock=ManualClock())  # type: ignore[arg-type]  # no model call
        commands = [IngestCommand("email", text, TIMESTAMP, id=item_id) for item_id, text, _ in texts]
        given = structures(domain, texts)
        for kind in KINDS:
            for record in RECORDERS[kind](service, commands, given):
                shown, derived = serialised(record, derive_row(record, domain))
                out[f"{name}/{record.id}/{kind}/record"] = digest(shown)
                out[f"{name}/{record.id}/{kind}/derived"] = digest(derived)
    return out


def frozen() -> dict[str, str]:
    return dict(json.loads(FROZEN.read_text(encoding="utf-8")))


def main(argv: list[str]) -> int:
    made = rows()
    if "--write" in argv:
        FROZEN.write_text(json.dumps(made, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(made)} digests to {FROZEN}")
        return 0
    differing = sorted(k for k in made.keys() | frozen().keys() if made.get(k) != frozen().get(k))
    print("\n".join(differing) or "no row differs")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

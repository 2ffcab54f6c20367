"""The rules and the derivation answer every eval-set and demo-corpus text as they did when frozen
(tests/derivation/rows.py): a record and a derivation per text, saved for later (in a batch and alone), with
a person's structure, and with a model's; byte for byte."""

from __future__ import annotations

from tests.derivation import rows


def test_every_row_is_as_frozen() -> None:
    made, frozen = rows.rows(), rows.frozen()
    differing = sorted(k for k in made.keys() | frozen.keys() if made.get(k) != frozen.get(k))
    assert differing == [], f"{len(differing)} rows differ: {differing[:20]}"
    assert len(made) == 8 * len({k.rsplit("/", 2)[0] for k in made})  # 4 kinds × (record, derived) a text

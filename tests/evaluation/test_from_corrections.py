"""``feedctl eval --from-corrections`` (ADR 0065): the chain's corrected entries, their saved structure the
gold, read from real channel databases (SQLite, and PostgreSQL where the machine has it); one store's, from a
date on; erased entries never; refused until the chain opts in."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from feedback_intelligence.cli.main import app
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit, Correction, Proposer, StoredFeedback, Structure
from feedback_intelligence.store import audit
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.cli.in_process import feedctl_in_process
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
GPU = Proposer("gpu1", "m")


def entry(n: int, day: int, store: str, text: str, structure: Structure, corrected: bool = True) -> StoredFeedback:
    stamp = f"2026-11-{day:02d}T10:00:00.0000000+00:00"
    return StoredFeedback(
        id=f"k{n}",
        source="desk",
        text=text,
        timestamp=stamp,
        created_at=stamp,
        structure=structure,
        corrections=(Correction("category", "muu", structure.category),) if corrected else None,
        store=store,
        proposal=GPU,
        alerts=(AlertHit("food_safety", "vatsa"),) if "vatsa" in text else (),
    )


MILK = Structure("maito_kylma", "maito", "high", "complaint", "fi", None)
QUEUE = Structure("kassa_palvelu", "jono", "medium", "complaint", "fi", "negative")
ENTRIES = [
    entry(1, 2, "s1", "Maito oli hapanta, sain vatsakivun.", MILK),  # before --since
    entry(2, 5, "s1", "Jono kassalla oli pitkä.", QUEUE),
    entry(3, 6, "s1", "Maito oli vanhentunutta ja vatsa kipeä.", MILK),
    entry(4, 6, "s1", "Jono oli taas pitkä.", QUEUE, corrected=False),  # saved as proposed: no correction
    entry(5, 6, "s2", "Toisen kaupan jono.", QUEUE),  # another store
    entry(6, 7, "s1", "Tämä poistetaan.", QUEUE),  # erased below
]


async def _fill(corpus_url: str, live_url: str) -> None:
    for url in (corpus_url,):
        await FeedbackStore(url).migrate()
    live = FeedbackStore(live_url, derive=DomainDeriver(DOMAIN))
    try:
        await live.migrate()
        for item in ENTRIES:
            await live.insert(item)
        gone = audit.AuditEntry("2026-11-30T00:00:00.0000000+00:00", "e", "operator", None, None, "item.erase", "k6")
        assert await live.erase("k6", gone, expected_revision=None)
    finally:
        await live.aclose()


@pytest.fixture(params=DATABASE_KINDS)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(corpus, live) SQLAlchemy URLs of two migrated databases holding ``ENTRIES`` (k6 erased)."""
    if request.param == "sqlite":
        urls = (f"sqlite+aiosqlite:///{tmp_path / 'feedback.db'}", f"sqlite+aiosqlite:///{tmp_path / 'live.db'}")
        asyncio.run(_fill(*urls))
        yield urls
    else:
        with postgres_pair("fi_from_corrections") as urls:
            asyncio.run(_fill(*urls))
            yield urls


def test_a_stores_corrected_entries_are_scored_with_their_saved_structure_as_gold(
    databases: tuple[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus_url, live_url = databases
    feedctl = feedctl_in_process(monkeypatch, capsys, tmp_path, app)
    env = {"FI_DATABASE_URL": corpus_url, "FI_LIVE_DATABASE_URL": live_url, "FI_DATA_DIR": str(tmp_path / "data")}
    args = ("--from-corrections", "--store", "s1", "--since", "2026-11-05", "--prior-only")

    refused = feedctl("eval", *args, env=env)
    assert refused.code != 0 and "FI_EVAL_FROM_CORRECTIONS=true" in refused.one_line_error()

    out = tmp_path / "result.json"
    ran = feedctl("eval", *args, "--json", str(out), env={**env, "FI_EVAL_FROM_CORRECTIONS": "true"})
    assert ran.code == 0, ran.err + ran.out
    assert "2 corrected entries of store s1" in ran.out
    result = json.loads(out.read_text(encoding="utf-8"))
    card = result["splits"]["corrections"]
    assert list(result["splits"]) == ["corrections"] and card["n"] == 2  # k2 and k3: not k1, k4, k5, erased k6
    # the same per-field table as the shipped set's: the prior beside the saved structures
    assert {"category", "severity", "type", "sentiment", "language"} <= set(card["fields"])
    assert card["fields"]["language"]["prior"] == 1.0


def test_the_corrected_set_reads_both_channels_and_never_an_erased_entry(databases: tuple[str, str]) -> None:
    from feedback_intelligence.evaluation.corrections import corrected_set

    corpus_url, live_url = databases
    found = asyncio.run(corrected_set({"live": live_url, "corpus": corpus_url}, DOMAIN))
    assert [item.id for item in found.items] == ["live:k1", "live:k2", "live:k3", "live:k5"]
    first = found.items[0]
    assert first.gold == {
        "category": "maito_kylma",
        "severity": "high",
        "type": "complaint",
        "sentiment": DOMAIN.sentiment_for("complaint"),
        "language": "fi",
    }
    assert first.alerts == {"food_safety"} and found.skipped == 0

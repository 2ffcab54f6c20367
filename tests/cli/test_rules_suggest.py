"""``feedctl rules suggest`` on a synthetic month of corrections (ADR 0065): the planted rule (clerks moved
every compost-bin entry from "other" to the garden department) is proposed with its evidence and its effect
on the labelled set, the noise is not (a word of every kind of feedback, words seen twice); accepting it
writes one term into the domain's file and the labelled set's figure becomes what the suggestion claimed."""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feedback_intelligence.cli.main import app
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.loader import DOMAINS_ROOT, load_domain
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import Correction, Proposer, StoredFeedback, Structure
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.cli.in_process import feedctl_in_process

GARDEN = "piha_puutarha"
PLANTED = [
    "Kompostori hajosi viikossa, kansi ei pysy kiinni.",
    "Ostin kompostorin ja sen luukku irtosi heti.",
    "Kompostorin kansi halkesi pakkasella.",
    "Asiakas palautti kompostorin, saranat ruostuivat.",
    "Kompostoria ei saanut koottua ohjeilla.",
]
# clerks corrected these to the service desk: "asiakas" is in four of them, but in most other entries too
SERVICE = [
    "Asiakas odotti pitkään palvelua.",
    "Asiakas sai väärää tietoa tarjouksesta.",
    "Asiakas ei saanut apua hyllyjen välissä.",
    "Asiakas toivoi ystävällisempää kohtelua.",
]
OTHER = [  # saved as proposed, in many departments: "asiakas" names no department
    ("Asiakas kehui tuoretta leipää.", "leipa"),
    ("Asiakas löysi homeisen sämpylän.", "leipa"),
    ("Asiakas kysyi laktoositonta maitoa.", "maito_kylma"),
    ("Asiakas moitti jogurtin hintaa.", "maito_kylma"),
    ("Asiakas etsi porkkanoita turhaan.", "hevi"),
    ("Asiakas kiitti omenoiden laatua.", "hevi"),
]
SET_ITEMS = [
    ("Kompostori meni rikki heti.", GARDEN),
    ("Kompostorin kansi ei sulkeudu.", GARDEN),
    ("Asiakas etsi kompostoria.", GARDEN),
]


def _structure(category: str) -> Structure:
    return Structure(category, "asia", "medium", "complaint", "fi", None)


def _month() -> list[StoredFeedback]:
    now = datetime.now(UTC)
    rows: list[StoredFeedback] = []

    def add(text: str, category: str, corrected_from: str | None) -> None:
        stamp = format_instant(now - timedelta(days=1 + len(rows) % 28, hours=len(rows)))
        rows.append(
            StoredFeedback(
                id=f"m{len(rows):03d}",
                source="desk",
                text=text,
                timestamp=stamp,
                created_at=stamp,
                structure=_structure(category),
                corrections=(Correction("category", corrected_from, category),) if corrected_from else None,
                proposal=Proposer("gpu1", "m"),
                store="s1",
            )
        )

    for text in PLANTED:
        add(text, GARDEN, "muu")
    for text in SERVICE:
        add(text, "kassa_palvelu", "muu")
    for text, category in OTHER:
        add(text, category, None)
    add("Saranat irtosivat laatikosta.", "koti_taloustavara", "muu")  # words seen twice or once: noise
    add("Laatikon saranat olivat vinossa.", "koti_taloustavara", "muu")
    return rows


async def _fill(live_url: str, corpus_url: str) -> None:
    await FeedbackStore(corpus_url).migrate()
    store = FeedbackStore(live_url, derive=DomainDeriver(load_domain("retail")))
    try:
        await store.migrate()
        await store.insert_batch(_month())
    finally:
        await store.aclose()


def _domain_copy(root: Path) -> Path:
    folder = root / "retail"
    shutil.copytree(DOMAINS_ROOT / "retail", folder)
    shipped = (folder / "eval" / "set.jsonl").read_text(encoding="utf-8").splitlines()[:8]
    planted = [
        json.dumps(
            {
                "id": f"compost-{n}",
                "split": "dev",
                "text": text,
                "gold": {"category": gold, "severity": "medium", "type": "complaint", "sentiment": "negative"}
                | {"language": "fi"},
                "alerts": [],
            },
            ensure_ascii=False,
        )
        for n, (text, gold) in enumerate(SET_ITEMS)
    ]
    (folder / "eval" / "set.jsonl").write_text("\n".join([*shipped, *planted]) + "\n", encoding="utf-8")
    return folder


def test_the_planted_rule_is_proposed_and_accepting_it_moves_the_figure_it_claims(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    live_url, corpus_url = (f"sqlite+aiosqlite:///{tmp_path / name}" for name in ("live.db", "feedback.db"))
    asyncio.run(_fill(live_url, corpus_url))
    folder = _domain_copy(tmp_path / "domains")
    feedctl = feedctl_in_process(monkeypatch, capsys, tmp_path, app)
    env = {
        "FI_DATABASE_URL": corpus_url,
        "FI_LIVE_DATABASE_URL": live_url,
        "FI_DOMAINS_ROOT": str(tmp_path / "domains"),
        "FI_DATA_DIR": str(tmp_path / "data"),
    }

    ran = feedctl("rules", "suggest", "--json", env=env)
    assert ran.code == 0, ran.err + ran.out
    [suggestion] = json.loads(ran.out)["suggestions"]  # the planted rule, and nothing of the noise
    assert (suggestion["kind"], suggestion["term"], suggestion["target"]) == ("category", "kompostori", GARDEN)
    assert suggestion["evidence"] == 5
    [effect] = suggestion["effects"]
    assert effect["after"] > effect["before"]

    keywords = folder / "category-keywords.json"
    before = keywords.read_text(encoding="utf-8")
    accepted = feedctl("rules", "suggest", "--accept", suggestion["id"], env=env)
    assert accepted.code == 0, accepted.err + accepted.out
    after = keywords.read_text(encoding="utf-8")
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(changed) == 1 and '"kompostori"' in changed[0], changed  # one line: a person reviews it
    assert "kompostori" in json.loads(after)["categories"][GARDEN]["terms"]

    out = tmp_path / "eval.json"
    measured = feedctl("eval", "--prior-only", "--domain", str(folder), "--json", str(out), env=env)
    assert measured.code == 0, measured.err + measured.out
    figure = json.loads(out.read_text(encoding="utf-8"))["splits"]["all"]["fields"]["category"]["prior"]
    assert figure == effect["after"] != effect["before"]

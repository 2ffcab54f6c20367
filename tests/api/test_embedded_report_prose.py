"""On the embedded default the report's summaries are automatic at once (ADR 0028): no card waits for
prose the packaged model cannot write, and no two cards carry the same sentence."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from feedback_intelligence.devtools.processes import app_server
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.embedded

_SENTENCES = re.compile(r"(?<=[.!?”])\s+")
ITEMS = [
    ("maito_kylma", "maito", "Maito oli hapanta vaikka päiväys oli ensi viikolla."),
    ("maito_kylma", "jogurtti", "Jogurttipurkki oli pullistunut hyllyssä."),
    ("hevi", "banaani", "Banaanit olivat mustia jo ostopäivänä."),
    ("hevi", "omena", "Omenat olivat jauhoisia ja pehmeitä."),
    ("kassa_palvelu", "jono", "Kassajono oli puoli tuntia pitkä lauantaina."),
    ("kassa_palvelu", "kassa", "Kassalla veloitettiin kahteen kertaan."),
    ("leipa", "leipä", "Tuoretta leipää ei ollut illalla ollenkaan."),
]


def test_the_first_report_shows_automatic_summaries_at_once_with_no_shared_sentence() -> None:
    with app_server({"FI_LLM_BACKEND": "embedded", "FI_LLM_SLOTS": "1"}) as app:
        wait_for_sync(
            lambda: httpx.get(app.url + "/health", timeout=60).status_code == 200,
            120,
            "the embedded model to become ready",
            poll_s=0.5,
        )
        now = datetime.now(UTC)
        for n, (category, theme, text) in enumerate(ITEMS):
            body = {
                "id": f"prose-{n}",
                "source": "email",
                "text": text,
                "timestamp": (now - timedelta(hours=n + 1)).isoformat(),
                "acceptedStructure": {
                    "category": category,
                    "theme": theme,
                    "severity": "medium",
                    "type": "complaint",
                    "language": "fi",
                },
            }
            assert httpx.post(app.url + "/feedback", json=body, timeout=30).status_code == 201
        params = {"from": (now - timedelta(days=1)).isoformat(), "to": now.isoformat()}
        report = httpx.get(app.url + "/report", params=params, timeout=30).json()

        assert report["llm"]["prose"] == "automatic"
        rated = [t for t in report["themes"] if not t["unrated"]]
        assert len(rated) == 4
        assert all(t["prose"]["status"] == "automatic" for t in rated), [t["prose"] for t in rated]
        sentences = [s for t in rated for s in _SENTENCES.split(t["narrative"]) if s]
        assert len(sentences) == len(set(sentences)), sentences

"""The services over a real SQLite channel, the real retail domain and a scripted backend behind a real gate."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.services.channels import LIVE, Channel
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.structuring.service import StructuringService
from tests.structuring.fakes import make_runner
from tests.support.databases import migrated_url


@pytest.fixture(scope="session")
def retail() -> Domain:
    return load_domain("retail")


@pytest.fixture
async def channel(tmp_path: Path) -> AsyncIterator[Channel]:
    store = FeedbackStore(migrated_url(tmp_path, "live.db"), name=LIVE)
    await store.migrate()
    yield Channel(LIVE, store)
    await store.aclose()


def structuring(domain: Domain, backend: FakeBackend) -> StructuringService:
    return StructuringService(make_runner(backend, slots=2), domain, use_schema=False)


def reply(category: str, severity: str = "medium", theme: str = "maidon laatu") -> str:
    """A model reply that passes every check."""
    return json.dumps(
        {
            "category": category,
            "theme": theme,
            "severity": severity,
            "type": "complaint",
            "language": "fi",
            "sentiment": "negative",
        }
    )

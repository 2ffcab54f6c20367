from __future__ import annotations

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain


@pytest.fixture(scope="session")
def retail() -> Domain:
    return load_domain("retail")


@pytest.fixture(scope="session")
def game() -> Domain:
    return load_domain("game")

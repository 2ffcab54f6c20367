from __future__ import annotations

from dataclasses import replace

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain


@pytest.fixture(scope="session")
def retail() -> Domain:
    """The retail domain with every field guarded: the shipped ``priorFields`` (chosen by measurement,
    see docs/benchmarks.md) would hand the fields these tests guard to the prior."""
    return replace(load_domain("retail"), prior_fields=())


@pytest.fixture(scope="session")
def game() -> Domain:
    """The game domain with every field guarded, as ``retail`` above."""
    return replace(load_domain("game"), prior_fields=())

"""The real packaged SmolLM2 through the whole road: prompt, gate, llama.cpp with the schema grammar, parser.

The 135M model is too small to classify well; it is held only to the contract: a structure whose
every enum field is the domain's, or no structure and the reasons why.
"""

from __future__ import annotations

import logging
import time

import pytest

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.llm.embedded import EmbeddedBackend
from feedback_intelligence.structuring.service import StructuringService
from tests.structuring import domains
from tests.structuring.fakes import make_runner

log = logging.getLogger(__name__)


@pytest.mark.embedded
async def test_smollm2_structures_a_finnish_sentence_within_the_contract() -> None:
    backend = EmbeddedBackend(None, slots=1)
    await backend.start()
    try:
        await backend.wait_loaded()
        domain = domains.retail_like()
        svc = StructuringService(make_runner(backend, slots=1, call_timeout_s=240), domain)
        started = time.perf_counter()
        result = await svc.structure(
            "Ostin eilen maitoa ja se oli jo pilaantunut, vaikka päiväys oli vasta ensi viikolla.",
            CallContext.interactive("test", "ingest"),
        )
        elapsed = time.perf_counter() - started
        log.warning(
            "SmolLM2 in %.1f s: structure=%s retried=%s notes=%s raw=%r",
            elapsed,
            result.structure,
            result.retried,
            result.notes,
            result.raw_response,
        )
        if result.structure is not None:
            s = result.structure
            assert s.category in domain.categories
            assert s.severity in domain.severities
            assert s.type in domain.types
            assert s.sentiment is None or s.sentiment in domain.sentiments
            assert s.theme.strip() and s.language.strip()
        else:
            assert result.notes
            assert result.retried
    finally:
        await backend.aclose()

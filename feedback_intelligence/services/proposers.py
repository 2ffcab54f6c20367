"""Who proposed a structure a person saved: a backend of the pool by its public name, and its model
(ADR 0065). The desk echoes the backend its interpretation named; only a name of the configured pool is
recorded (anything else is ``unknown``), so the metrics' labels stay as few as the pool."""

from __future__ import annotations

from pathlib import PurePath

from feedback_intelligence.config.backends import BackendSettings, BackendSpec
from feedback_intelligence.llm.engine.model_file import PACKAGED_MODEL_DISTRIBUTION
from feedback_intelligence.llm.ollama import DEFAULT_MODEL as OLLAMA_DEFAULT_MODEL
from feedback_intelligence.records import Proposer

UNKNOWN = Proposer("unknown", "unknown")
MODEL_MAX_CHARS = 100  # the column's width (store/schema.py)


def _model(spec: BackendSpec) -> str:
    """The model a backend runs, as its status names it: a GGUF by its file name, else the configured
    name, else the kind's default."""
    if spec.model is None:
        default = {"embedded": PACKAGED_MODEL_DISTRIBUTION, "ollama": OLLAMA_DEFAULT_MODEL}
        return default.get(spec.kind, "default")
    name = PurePath(spec.model).name if spec.kind == "embedded" else spec.model
    return name[:MODEL_MAX_CHARS]


def proposers(settings: BackendSettings) -> dict[str, Proposer]:
    """Each backend of the pool by its public name."""
    return {spec.name: Proposer(spec.name, _model(spec)) for spec in settings.specs}


def proposer_of(known: dict[str, Proposer], backend: str | None) -> Proposer:
    """The proposer a save names: a backend of the pool, else ``unknown``."""
    return known.get(backend or "", UNKNOWN)

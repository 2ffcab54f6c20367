"""The domain the service reads feedback in, and the bounds of what clients send and ask for."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from pydantic import model_validator

from feedback_intelligence.config.fields import Group, variable


class DomainSettings(Group):
    name: str = variable("FI_DOMAIN", "retail")
    root: Path | None = variable("FI_DOMAINS_ROOT", None)
    # longest text the model reads and /interpret accepts; longer is refused, never cut
    input_max_chars: int = variable("FI_INPUT_MAX_CHARS", 800, ge=1, le=100_000)
    # A stored text may be longer than the model reads: by hand or "later", the model reads its first part (ADR 0025)
    text_store_max_chars: int = variable("FI_TEXT_STORE_MAX_CHARS", 4000, ge=1, le=100_000)
    id_max_length: int = variable("FI_ID_MAX_LENGTH", 100, ge=1, le=1000)
    query_default_limit: int = variable("FI_QUERY_DEFAULT_LIMIT", 200, ge=1)
    query_max_limit: int = variable("FI_QUERY_MAX_LIMIT", 1000, ge=1)
    restructure_limit: int = variable("FI_RESTRUCTURE_LIMIT", 500, ge=1)  # rows one restructure pass takes

    @model_validator(mode="after")
    def _default_within_max(self) -> Self:
        if self.query_default_limit > self.query_max_limit:
            raise ValueError(f"FI_QUERY_DEFAULT_LIMIT: must not exceed FI_QUERY_MAX_LIMIT ({self.query_max_limit})")
        return self

"""The management page's import: the preview of an uploaded CSV and the progress of its run (ADR 0063)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from feedback_intelligence.api.models import ApiModel


class ImportPreviewOut(ApiModel):
    """200: what the upload would store; nothing was stored."""

    columns: list[str] = Field(description="The header's column names, in the file's order.")
    mapping: dict[str, str] = Field(description="Item field → column, as used: as sent, or suggested.")
    suggested: bool = Field(description="True when the mapping was suggested from the header's words.")
    sources: list[str] = Field(description="The domain's sources, which a channel label may map to.")
    unknownSources: list[str] = Field(description="The labels of the source column that the domain does not know.")
    rows: int = Field(description="Rows read and mapped (without the unreadable ones).")
    wouldStore: int = Field(description="Rows that would be stored as they are.")
    linesWithProblems: int = Field(description="Lines that need fixing before the file can be run.")
    problems: list[str] = Field(description="The first 20 problems, `UPLOAD:N: what is wrong`, in the file's order.")
    moreProblems: int = Field(description="How many problems more than those listed.")
    sample: list[dict[str, Any]] = Field(
        description="The first rows as they would be stored: `line`, and the item's fields (the time a UTC instant)."
    )
    timezone: str = Field(description="The shop's zone (FI_TIMEZONE): a time without an offset was read on its clock.")


class ImportProgressOut(ApiModel):
    """One line of a run's progress (NDJSON): the rows answered so far and their outcomes."""

    total: int = Field(description="Rows the run stores.")
    done: int = Field(description="Rows answered so far.")
    created: int = Field(description="Rows stored with their structure (the rules' in a backfill without the model).")
    accepted: int = Field(description="Rows stored and waiting for the model (background priority).")
    duplicate: int = Field(description="Rows already there (by id): a rerun of the same file stores nothing twice.")
    erased: int = Field(description="Rows whose id was erased: never stored again.")
    invalid: int = Field(description="Rows the service refused, each named in `problems`.")
    problems: list[str] = Field(description="The first 20 refused rows, `UPLOAD:N: why`.")
    finished: bool = Field(description="True on the last line.")
    failed: str | None = Field(None, description="Why the run stopped early (the rows answered before are stored).")

"""The ``FI_PRIOR_FIELDS`` line an eval's own figures recommend: a field where the model alone does not
beat the deterministic prior goes to the prior; every field where the model beats it stays with the
model. Read from the dev split (the holdout stays for honest reporting), else the split that was run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from feedback_intelligence.evaluation.dataset import SCORED_FIELDS


def recommended_prior_fields(result: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """``(split it was read from, fields for the prior)``, or None when the figures cannot tell."""
    splits = result.get("splits") or {}
    split = "dev" if "dev" in splits else next(iter(splits), None)
    if split is None:
        return None
    fields = splits[split]["fields"]
    chosen = []
    for field in SCORED_FIELDS:
        model, prior = fields[field].get("modelAlone"), fields[field].get("prior")
        if model is None or prior is None:
            continue  # not measured either way: the model keeps it
        if prior >= model:
            chosen.append(field)
    return split, chosen


def prior_fields_line(fields: list[str]) -> str:
    return f"FI_PRIOR_FIELDS={','.join(fields) if fields else 'none'}"

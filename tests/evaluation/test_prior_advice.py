"""The FI_PRIOR_FIELDS line feedctl eval recommends: each field where the model alone beats the prior
stays with the model; a tie or a loss goes to the prior; read from dev when it was run."""

from __future__ import annotations

from feedback_intelligence.evaluation.prior_advice import prior_fields_line, recommended_prior_fields


def card(**model_vs_prior: tuple[float | None, float | None]) -> dict:
    fields = {"category": (0.8, 0.6), "severity": (0.5, 0.7), "type": (0.7, 0.7), "sentiment": (0.9, 0.4)}
    fields.update(model_vs_prior)
    fields.setdefault("language", (1.0, 0.9))
    return {"fields": {f: {"modelAlone": m, "prior": p} for f, (m, p) in fields.items()}}


def test_the_prior_takes_a_field_the_model_does_not_beat() -> None:
    result = {"splits": {"dev": card(), "holdout": card(category=(0.1, 0.9)), "all": card()}}
    assert recommended_prior_fields(result) == ("dev", ["severity", "type"])


def test_without_dev_the_split_that_was_run_is_read() -> None:
    assert recommended_prior_fields({"splits": {"holdout": card(severity=(0.9, 0.1))}}) == ("holdout", ["type"])


def test_an_unmeasured_field_stays_with_the_model_and_none_is_written_out() -> None:
    result = {"splits": {"dev": card(severity=(None, 0.9), type=(0.9, 0.1))}}
    assert recommended_prior_fields(result) == ("dev", [])
    assert prior_fields_line([]) == "FI_PRIOR_FIELDS=none"
    assert prior_fields_line(["severity", "type"]) == "FI_PRIOR_FIELDS=severity,type"
    assert recommended_prior_fields({"splits": {}}) is None

"""Structure later: the worker that drains rows saved without the model (workers/structuring_worker.py)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationInfo, ValidatorFunctionWrapHandler, field_validator

from feedback_intelligence.config.fields import Group, composition, variable


class WorkerSettings(Group):
    enabled: bool = variable("FI_STRUCTURE_WORKER", True)
    # rows structured at once by this replica (the gate still decides who gets a slot); unset: the gate's
    # slots + 1
    tasks: int = variable("FI_STRUCTURE_WORKER_TASKS", None, ge=1, le=65, validate_default=True)
    lease_s: float = variable("FI_STRUCTURE_LEASE_S", 30, ge=1, le=3600)  # renewed every third of it
    max_attempts: int = variable("FI_STRUCTURE_MAX_ATTEMPTS", 5, ge=1, le=100)
    poll_s: float = variable("FI_STRUCTURE_POLL_S", 2, gt=0, le=600)  # how often an idle worker looks
    retry_base_s: float = variable("FI_STRUCTURE_RETRY_S", 5, ge=0, le=3600)  # × 2^(attempt-1), capped at 5 min
    # The bounded wait: a row pending longer asks for a slot as a visitor would, one at a time per
    # replica, so a desk that keeps every slot busy cannot starve the backlog (docs/adr/0031); 0 (None)
    # turns the bound off.
    max_wait_s: float | None = variable("FI_STRUCTURE_MAX_WAIT_S", 120, ge=0, le=86_400)

    @field_validator("tasks", mode="wrap")
    @classmethod
    def _tasks(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> int:
        if value is None:
            return composition(info).total_slots + 1
        result: int = handler(value)
        return result

    @field_validator("max_wait_s")
    @classmethod
    def _off(cls, value: float | None) -> float | None:
        return value or None

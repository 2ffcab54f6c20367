"""The chain: its stores (stores.py: a list, or a pattern of ids), the store a desk saves for, and bulk
import (``POST /feedback/batch``; docs/adr/0027, docs/adr/0043)."""

from __future__ import annotations

import os
import re
from functools import cached_property
from typing import Self

from pydantic import field_validator, model_validator

from feedback_intelligence.config.fields import Group, blank_is_none, variable
from feedback_intelligence.config.stores import DEFAULT_STORE_PATTERN, StoreDirectory, StoreList


class ChainSettings(Group):
    # a JSON list of {"id", "name"}, or a path to a file holding one; unset = any id of the pattern
    listed_stores: StoreList = variable("FI_STORES", None)
    store_pattern: str = variable("FI_STORE_PATTERN", DEFAULT_STORE_PATTERN, min_length=1, max_length=200)
    desk_store: str | None = variable("FI_DESK_STORE", None)  # every desk of this service saves for it
    batch_max_items: int = variable("FI_BATCH_MAX_ITEMS", 1000, ge=1, le=10_000)
    # the batch routes' own body cap (FI_MAX_BODY_BYTES stays the cap of every other route)
    batch_max_body_bytes: int = variable("FI_BATCH_MAX_BODY_BYTES", 8_388_608, ge=1024, le=268_435_456)
    # batches one process stores at once; one that finds none free within 0.5 s is shed 503 (docs/adr/0043)
    batch_slots: int = variable("FI_BATCH_SLOTS", 1, ge=1, le=16)
    # worker processes for a batch's rules and derivation (docs/adr/0074); unset: a core's fewer than the usable
    # cores from four cores up, none below; 0 or 1: in the service process, in a thread
    batch_processes: int | None = variable("FI_BATCH_PROCESSES", None, ge=0, le=64)
    # the chain's corrected entries may be read as an evaluation set (``feedctl eval --from-corrections``):
    # customer texts sent to whichever backend is measured, so off until the operator opts in (docs/adr/0065)
    eval_from_corrections: bool = variable("FI_EVAL_FROM_CORRECTIONS", False)

    @field_validator("store_pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"is not a regular expression ({exc})") from None
        return value

    @field_validator("desk_store")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return blank_is_none(value)

    @field_validator("batch_processes", mode="before")
    @classmethod
    def _blank_processes_is_unset(cls, value: object) -> object:
        # an empty FI_BATCH_PROCESSES= is unset, as every other setting's blank is
        return None if isinstance(value, str) and not value.strip() else value

    @cached_property
    def stores(self) -> StoreDirectory:
        """The stores a save, a filter or a grant may name: FI_STORES, else ids of FI_STORE_PATTERN."""
        return StoreDirectory(self.listed_stores, self.store_pattern)

    @property
    def batch_workers(self) -> int:
        """The batch pool's worker processes: FI_BATCH_PROCESSES, else :func:`default_batch_workers` of the
        cores this process may run on; fewer than 2 means no pool."""
        if self.batch_processes is not None:
            return self.batch_processes
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        return default_batch_workers(usable)

    @model_validator(mode="after")
    def _desk_store_is_a_store(self) -> Self:
        if self.desk_store is not None and not self.stores.accepts(self.desk_store):
            raise ValueError(f"FI_DESK_STORE: '{self.desk_store}' is not {self.stores.rule()}")
        return self


#: The fewest usable cores from which a batch pool is started unless FI_BATCH_PROCESSES says otherwise.
POOL_FROM_CORES = 4


def default_batch_workers(cores: int) -> int:
    """The pool a service starts on ``cores`` usable cores: one core stays the service's own (its loop, the
    COPY, the rollups: ~300 µs of an accepted row), the rest take the rules. Below four cores, none: on two,
    a pool of two measured ×0.97–1.33 of the thread at 6–15 % more CPU and ~250–330 MB a worker
    (docs/benchmarks.md, "The batch pool, off and on"), the workers taking turns with the service for the
    same cores."""
    return cores - 1 if cores >= POOL_FROM_CORES else 0

"""What every group of settings is made of: a field read from its ``FI_`` variable, list parsing, the
composition's context.

A group is a frozen pydantic model. Each field names its variable once (:func:`variable`) and is set by
that name when Settings reads the environment, or by the field's own name when code builds the group
(``WorkerSettings(tasks=1)``). A few defaults depend on another group (the worker's tasks on the gate's
slots); Settings resolves them while it composes the groups and hands them over as a :class:`Composition`
in the validation context, so every group is read as it is and nothing copies it afterwards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo
from pydantic_core import PydanticUndefined

ENV_PREFIX = "FI_"


class Group(BaseModel):
    """A group of settings: frozen, each field read from its own ``FI_`` variable, no unknown field."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True)

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Each field's variable: ``{"tasks": "FI_STRUCTURE_WORKER_TASKS", …}``."""
        return {name: str(info.validation_alias) for name, info in cls.model_fields.items()}


def variable(name: str, default: Any = PydanticUndefined, **constraints: Any) -> Any:
    """A group field read from the environment variable ``name``; its bounds are ``constraints``."""
    assert name.startswith(ENV_PREFIX) and name.isupper(), name
    return Field(default, validation_alias=name, **constraints)


@dataclass(frozen=True, slots=True)
class Composition:
    """What a default of one group reads from another, resolved once as Settings composes them. A group
    built alone (tests, benchmarks) gets the defaults of a default deployment."""

    total_slots: int = 2  # the gate's slots: FI_LLM_SLOTS, or the FI_LLM_BACKENDS pool's sum
    packaged_model: bool | None = None  # every backend the packaged SmolLM2 model; None: not known here
    listen_host: str = "127.0.0.1"  # FI_HOST


def composition(info: ValidationInfo) -> Composition:
    found = (info.context or {}).get("composition")
    return found if isinstance(found, Composition) else Composition()


def split_list(value: Any) -> Any:
    """``a,b`` or ``a`` or ``["a", "b"]`` → a list of non-blank, stripped strings."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise ValueError('starts with \'[\' but is not a JSON list; write a,b or ["a", "b"]') from exc
        if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
            raise ValueError("must be a JSON list of strings")
        return [item.strip() for item in parsed if item.strip()]
    return [item.strip() for item in text.split(",") if item.strip()]


def split_list_or_none(value: Any) -> Any:
    """Like :func:`split_list`; ``none`` (any case) is the empty list, so 'no field' can be said."""
    if isinstance(value, str) and value.strip().lower() == "none":
        return []
    return split_list(value)


StringList = Annotated[list[str], BeforeValidator(split_list)]


def absolute_url(value: str) -> str:
    from urllib.parse import urlparse

    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError("must be an absolute http(s) URL")
    return value.rstrip("/")


def blank_is_none(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


def iana_zone(value: str) -> str:
    """``value`` if it names an IANA time zone this machine knows (tzdata), else a ValueError."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"'{value}' is not an IANA time zone (such as Europe/Helsinki)") from None
    return value

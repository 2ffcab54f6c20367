"""The settings that hold a JSON list of objects (``FI_LLM_BACKENDS``, ``FI_NOTIFY_CHANNELS``, ``FI_STORES``).

Pydantic parses each entry into its model (``extra="forbid"``: an unknown key is a mistake, not a
silence). This module only reads the variable's text as JSON and words pydantic's first complaint as one
line that names the entry, so the boot's message reads ``FI_STORES: store 's1': name must be …`` rather
than a location tuple: :func:`named_entries` wraps the list's validation, :func:`problem` words one error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError, ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import ErrorDetails


def json_list_text(value: Any, *, example: str) -> Any:
    """A variable's text as the JSON it holds (``None`` when blank); any other value as it is."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise ValueError(f"must be a JSON list such as {example}") from None


def named_entries(noun: str, key: str, model: type[BaseModel]) -> WrapValidator:
    """Validate a list of ``model`` entries; a problem becomes one line naming the entry by its ``key``."""

    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            raise ValueError(_entry_problem(exc.errors()[0], value, noun, key, model)) from None

    return WrapValidator(validate)


def unique(noun: str, key: str) -> Callable[[Any], Any]:
    """An after-validator: no two entries share ``key``."""

    def check(entries: Any) -> Any:
        seen: set[str] = set()
        for entry in entries or ():
            value = getattr(entry, key)
            if value in seen:
                raise ValueError(f"{noun} {key} '{value}' is used twice; {key}s must be unique")
            seen.add(value)
        return entries

    return check


def _entry_problem(error: ErrorDetails, value: Any, noun: str, key: str, model: type[BaseModel]) -> str:
    loc = error["loc"]
    if not loc or not isinstance(loc[0], int):  # the list itself, not one entry
        return problem(error, model)
    index = loc[0]
    item = value[index] if isinstance(value, list | tuple) and index < len(value) else None
    ident = item.get(key) if isinstance(item, dict) else None
    label = f"{noun} '{ident}'" if isinstance(ident, str) and ident.isprintable() and len(ident) <= 64 else None
    where = label or f"{noun} {index + 1}"
    return f"{where}: {problem({**error, 'loc': loc[1:]}, model)}"


def problem(error: ErrorDetails, model: type[BaseModel]) -> str:
    """One pydantic error in words, led by the key at fault. The value is never repeated: it may be a secret."""
    field = ".".join(str(part) for part in error["loc"])
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        known = ", ".join(sorted(info.alias or name for name, info in model.model_fields.items()))
        return f"must be an object with {known}"
    if kind == "extra_forbidden":
        known = ", ".join(sorted(info.alias or name for name, info in model.model_fields.items()))
        return f"unknown field '{field}' (known: {known})"
    if kind == "missing":
        return f"{field} is required"
    if kind == "literal_error":
        return f"{field} must be one of {ctx.get('expected')}"
    if kind in ("bool_type", "bool_parsing"):
        return f"{field} must be true or false"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{field} must be a whole number"
    if kind == "greater_than_equal":
        return f"{field} must be at least {ctx.get('ge')}"
    if kind == "less_than_equal":
        return f"{field} must be at most {ctx.get('le')}"
    if kind == "string_type":
        return f"{field} must be a string"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{field} {message}" if field else message

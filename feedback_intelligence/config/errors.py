"""A bad setting stops the boot with one line per fault, each naming its variable:
``invalid configuration: FI_PORT: … (got 'x')`` (docs/invariants.md, invariant 10)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from feedback_intelligence.config.fields import ENV_PREFIX

PREFIX = "invalid configuration: "
# Settings whose value is never repeated in the error: FI_NOTIFY_CHANNELS holds webhook secrets, chat
# webhook URLs (a Slack or Teams URL is its secret) and SMTP passwords, and the boot log is no place for them.
NOT_ECHOED = frozenset({"FI_NOTIFY_CHANNELS"})


class ConfigurationError(Exception):
    """Raised at boot when a setting is invalid; the message names each bad setting."""


def message_of(item: ErrorDetails) -> str:
    message = str(item["msg"])
    for noise in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(noise)
    return message


def lines_of(error: ValidationError, written: Mapping[str, Any] | None = None) -> Iterator[str]:
    """One line per fault. A field's fault is led by its variable and ends with the value as ``written``
    (not as a validator had decoded it); a rule across fields already names the variable to change first."""
    for item in error.errors():
        variable = next((str(part) for part in item["loc"] if str(part).startswith(ENV_PREFIX)), None)
        if variable is None:
            yield f"{PREFIX}{message_of(item)}"
        elif variable in NOT_ECHOED:
            yield f"{PREFIX}{variable}: {message_of(item)}"
        else:
            got = (written or {}).get(variable, item.get("input"))
            yield f"{PREFIX}{variable}: {message_of(item)} (got {got!r})"

"""Where the ``FI_`` variables come from: the process environment over a ``.env`` file, names in any case.

pydantic-settings reads them, as it reads any settings class. The class is made from the variables the
groups declare, each read as plain text: the groups, not the reader, parse and validate them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

from feedback_intelligence.config.fields import ENV_PREFIX


class _Reader(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=".env", extra="ignore")


@cache
def _reader(variables: tuple[str, ...]) -> type[BaseSettings]:
    fields: dict[str, Any] = {name.removeprefix(ENV_PREFIX).lower(): (str | None, None) for name in variables}
    return create_model("Environment", __base__=_Reader, **fields)


def read_variables(variables: Iterable[str], env_file: Path | None = Path(".env")) -> dict[str, str]:
    """The value of each of ``variables`` that is set, by its ``FI_`` name."""
    found = _reader(tuple(sorted(variables)))(_env_file=env_file)
    return {ENV_PREFIX + name.upper(): value for name, value in found.model_dump(exclude_unset=True).items()}

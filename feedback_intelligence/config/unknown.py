"""``FI_`` variables the service does not read, each with the nearest setting's name: a warning at boot.

A misspelt setting (``FI_LLM_SLOT=3``) would otherwise be silently ignored and the default used. It is a
warning, not a refusal (ADR 0052): the same environment often carries ``FI_`` variables meant for
something else (a compose file's, a script's), and a release rolled back must still start where a newer
one's setting is set.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from dotenv import dotenv_values

from feedback_intelligence.config.fields import ENV_PREFIX
from feedback_intelligence.config.settings import variables

#: ``FI_`` variables that are not the service's settings, and who reads them: never reported as unknown.
NOT_SETTINGS = {
    "FI_ENGINE_CMAKE_ARGS": "scripts/engine-wheel.sh: the embedded engine's build flags",
    "FI_ENGINE_WHEEL_CACHE": "scripts/engine-wheel.sh: where built engine wheels are kept",
    "FI_GPU_SLOTS": "deploy/docker-compose.two-gpus.yml: each GPU's slots and OLLAMA_NUM_PARALLEL",
    "FI_HTTP_PORT": "deploy/docker-compose.chain.yml: nginx's published port",
    "FI_POSTGRES_PASSWORD": "deploy/docker-compose.chain.yml: the chain's database password",
    "FI_PUBLIC_HOST": "deploy/docker-compose.chain.yml: the name people open",
    "FI_PG_ADMIN_DSN": "the tests' and benchmarks' throwaway PostgreSQL databases (devtools/databases.py)",
    "FI_WEBHOOK_SECRET": "the webhook receiver's example code, not the service",
    "FI_X": "a placeholder in the shape of a configuration error",
}


def unknown(names: Iterable[str]) -> dict[str, str | None]:
    """Each ``FI_`` name of ``names`` (any case) that is neither a setting nor in NOT_SETTINGS → the nearest
    setting's name, or None when none is near."""
    known = set(variables())
    found: dict[str, str | None] = {}
    for name in names:
        upper = name.upper()
        if upper.startswith(ENV_PREFIX) and upper not in known and upper not in NOT_SETTINGS:
            nearest = difflib.get_close_matches(upper, known, n=1)
            found[name] = nearest[0] if nearest else None
    return found


def warnings(environ: Mapping[str, str] = os.environ, env_file: Path | None = Path(".env")) -> list[str]:
    """One line per unknown variable of the environment and the ``.env`` file (as load_settings reads them)."""
    names = set(environ)
    if env_file is not None and env_file.is_file():
        names |= set(dotenv_values(env_file))
    lines = []
    for name, nearest in sorted(unknown(names).items()):
        hint = f"; did you mean {nearest}?" if nearest else ""
        lines.append(f"{name} is not a setting of this service and is ignored{hint} (docs/operations/configuration.md)")
    return lines

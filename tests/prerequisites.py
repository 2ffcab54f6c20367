"""What parts of the suite need from the machine, checked in one place.

A test that needs a prerequisite says so, by a marker (``redis``, ``postgres``, ``nginx``, ``browser``,
``embedded``, ``voikko``; ``tests/conftest.py`` maps them) or by calling :func:`require`. Where one is missing the
test is skipped with the reason, so a developer can run most of the suite anywhere. In CI (``CI`` set)
nothing may hide in a skip: the session stops at start if any prerequisite is missing, and
:func:`require` fails instead of skipping. This is the only place a test may skip for the machine's sake;
a test never turns an exception of the code under test into a skip.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("FI_TEST_CHROMIUM", "/usr/bin/chromium")
NGINX = "/usr/sbin/nginx"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _listening(port: int) -> str | None:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return None if probe.connect_ex(("127.0.0.1", port)) == 0 else f"nothing listens on 127.0.0.1:{port}"


def _file(path: str) -> str | None:
    return None if Path(path).exists() else f"{path} does not exist"


def _tool(name: str) -> str | None:
    return None if shutil.which(name) else f"{name} is not on PATH"


def _module(name: str) -> str | None:
    return None if importlib.util.find_spec(name) is not None else f"the Python module {name} is not installed"


def _packaged_model() -> str | None:
    from feedback_intelligence.llm.engine.model_file import packaged_model_path
    from feedback_intelligence.llm.errors import LlmUnavailable

    try:
        packaged_model_path()
    except LlmUnavailable as exc:
        return str(exc)
    return None


def _voikko() -> str | None:
    from feedback_intelligence.text import morphology

    return None if morphology.available() else "Voikko is not loadable (apt: libvoikko1 voikko-fi; pip: libvoikko)"


def _tzdata() -> str | None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo("Europe/Helsinki")
    except ZoneInfoNotFoundError:
        return "no tzdata for Europe/Helsinki"
    return None


CHECKS: dict[str, Callable[[], str | None]] = {
    "redis": lambda: _listening(6379),
    "redis-server": lambda: _tool("redis-server"),
    "redis-cli": lambda: _tool("redis-cli"),
    "postgres": lambda: _listening(5432),
    "chromium": lambda: _file(CHROMIUM),
    "playwright": lambda: _module("playwright"),
    "nginx": lambda: _file(NGINX),
    "node": lambda: _tool("node"),
    "oidc-provider": lambda: _file(str(Path(__file__).parent / "oidc_provider" / "node_modules" / "oidc-provider")),
    "llama_cpp": lambda: _module("llama_cpp"),
    "packaged model": _packaged_model,
    "jsonschema_rs": lambda: _module("jsonschema_rs"),
    "tzdata": _tzdata,
    "voikko": _voikko,
}

# What each marker needs.
MARKERS: dict[str, tuple[str, ...]] = {
    "redis": ("redis",),
    "postgres": ("postgres",),
    "nginx": ("nginx",),
    "browser": ("chromium", "playwright"),
    "embedded": ("llama_cpp", "packaged model"),
    "voikko": ("voikko",),
}


@functools.cache
def missing(name: str) -> str | None:
    """Why prerequisite ``name`` is missing, or None when it is there."""
    return CHECKS[name]()


def all_missing() -> dict[str, str]:
    return {name: reason for name in CHECKS if (reason := missing(name)) is not None}


def require(name: str) -> None:
    """Skip the calling test when ``name`` is missing; in CI, fail it."""
    reason = missing(name)
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"CI must not skip: prerequisite {name!r} is missing ({reason})", pytrace=False)
    pytest.skip(f"prerequisite {name!r} is missing: {reason}")

"""Suite-wide checks.

Some tests skip when a local prerequisite is missing (Chromium, nginx, Redis, PostgreSQL, node), so a
developer can run most of the suite anywhere. In CI nothing may be skipped for that reason: the
bootstrap installs and starts all of them, and a missing one must fail the run, not hide in a skip.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _missing_prerequisites() -> list[str]:
    missing = []
    if not Path("/usr/bin/chromium").exists():
        missing.append("Debian chromium (/usr/bin/chromium)")
    if not Path("/usr/sbin/nginx").exists():
        missing.append("nginx (/usr/sbin/nginx)")
    for tool in ("node", "redis-server", "redis-cli"):
        if shutil.which(tool) is None:
            missing.append(tool)
    if not _listening(6379):
        missing.append("Redis on 127.0.0.1:6379")
    if not _listening(5432):
        missing.append("PostgreSQL on 127.0.0.1:5432")
    try:
        ZoneInfo("Europe/Helsinki")
    except Exception:
        missing.append("tzdata (Europe/Helsinki)")
    return missing


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("CI"):
        missing = _missing_prerequisites()
        if missing:
            raise pytest.UsageError("CI must not skip tests; missing: " + ", ".join(missing))

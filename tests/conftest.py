"""Suite-wide checks: prerequisites once, and no skip that hides a failure.

Tests skip only for a missing prerequisite (:mod:`tests.prerequisites`), so a developer can run most of the
suite anywhere. In CI (``CI`` set; ``.ci/run`` sets it) the bootstrap installs and starts all of them: the
session stops at start if one is missing, and any skip at all is reported as a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from hypothesis import settings

from feedback_intelligence.auth import passwords
from feedback_intelligence.instants.clock import ManualClock
from tests.prerequisites import MARKERS, all_missing, in_ci, require
from tests.support.redis import REDIS_URL

# `make test-fast` selects this profile (`--hypothesis-profile=fast`): a fifth of the examples, also of a
# test's own count (tests/support/examples.py). The full run keeps hypothesis' default profile.
settings.register_profile("fast", max_examples=20)

# A test app stores a batch in a thread of its own process unless the test asks for the batch pool: a pool
# of worker processes per app would start processes in every test that imports a batch (docs/adr/0074).
os.environ.setdefault("FI_BATCH_PROCESSES", "0")


def pytest_sessionstart(session: pytest.Session) -> None:
    if in_ci():
        missing = all_missing()
        if missing:
            details = ", ".join(f"{name} ({reason})" for name, reason in missing.items())
            raise pytest.UsageError("CI must not skip tests; missing: " + details)


# Markers whose tests start processes (Chromium, nginx) or run a real model for tens of seconds
# (embedded): they count as ``process`` too, so the fast run leaves them out.
_PROCESS_BY_NATURE = ("browser", "nginx", "embedded")
_running: pytest.Item | None = None  # the test being set up, run or torn down


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(name) for name in _PROCESS_BY_NATURE):
            item.add_marker(pytest.mark.process)


def _leaves_out_process(config: pytest.Config) -> bool:
    return "not process" in (config.option.markexpr or "")


_MODULE_MARK = re.compile(r"^pytestmark\s*=.*\bpytest\.mark\.(?:process|browser|nginx|embedded)\b", re.M)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In a run that leaves ``process`` out, a module marked so as a whole is not even imported: its
    imports (Playwright, the app's subprocess helpers) would cost the fast run seconds for nothing."""
    candidate = collection_path.suffix == ".py" and collection_path.name.startswith("test_")
    if candidate and _leaves_out_process(config) and _MODULE_MARK.search(collection_path.read_text(encoding="utf-8")):
        return True
    return None


_TEMP_ROOT: Path | None = None  # this process's temp folder (tempfile's and its children's TMPDIR)


def pytest_configure(config: pytest.Config) -> None:
    """Every temporary file of the run goes under one folder of this process, removed when the run
    passes (kept, and named, when it fails): the app's data folders, process logs, the fuzz schema's
    app, pytest's own ``tmp_path``. Before, each run left dozens of folders in /tmp.

    In a run that leaves ``process`` out (``make test-fast``), a test that starts a process anyway
    fails, naming the marker it lacks, so the fast run cannot silently grow slow (every child process,
    asyncio's and Playwright's included, goes through Popen). The full suite runs everything unguarded."""
    global _TEMP_ROOT
    _TEMP_ROOT = Path(tempfile.mkdtemp(prefix="fi-tests-"))
    tempfile.tempdir = str(_TEMP_ROOT)
    os.environ["TMPDIR"] = str(_TEMP_ROOT)
    if not _leaves_out_process(config):
        return
    original = subprocess.Popen.__init__

    def guarded(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        if _running is not None and _running.get_closest_marker("process") is None:
            raise pytest.fail.Exception(
                f"{_running.nodeid} starts a process ({args[0] if args else kwargs.get('args')!r}); mark it "
                "@pytest.mark.process (tests/conftest.py)"
            )
        original(self, *args, **kwargs)

    subprocess.Popen.__init__ = guarded  # type: ignore[method-assign]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _TEMP_ROOT is None:
        return
    if exitstatus != 0:
        print(f"\ntemporary files of this run kept in {_TEMP_ROOT}")
        return
    shutil.rmtree(_TEMP_ROOT, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    global _running
    _running = item
    try:
        yield
    finally:
        _running = None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, needs in MARKERS.items():
        if item.get_closest_marker(marker) is not None:
            for name in needs:
                require(name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    report = outcome.get_result()
    if in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"CI must not skip a test: {report.longrepr}"


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashes(pytestconfig: pytest.Config) -> Iterator[None]:
    """In the run that leaves ``process`` out, passwords are hashed with Argon2id at its lowest cost: the
    product's own parameters cost ~0.1 s and 64 MiB a hash, over ~80 hashes and checks in that run. The
    full run keeps the product's parameters, and so does every app started as a process."""
    if not _leaves_out_process(pytestconfig):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
        yield


@pytest.fixture
def clock() -> ManualClock:
    """A clock the test moves (feedback_intelligence/instants/clock.py)."""
    return ManualClock()


@pytest.fixture
async def redis_client() -> AsyncIterator[aioredis.Redis]:
    """A client of the shared Redis; the test marks itself ``redis`` and uses unique names."""
    require("redis")
    client = aioredis.from_url(REDIS_URL)
    yield client
    await client.aclose()

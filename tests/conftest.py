"""Suite-wide checks: prerequisites once, and no skip that hides a failure.

Tests skip only for a missing prerequisite (:mod:`tests.prerequisites`), so a developer can run most of the
suite anywhere. In CI (``CI`` set; ``.ci/run`` sets it) the bootstrap installs and starts all of them: the
session stops at start if one is missing, and any skip at all is reported as a failure.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from tests.prerequisites import MARKERS, all_missing, in_ci, require


def pytest_sessionstart(session: pytest.Session) -> None:
    if in_ci():
        missing = all_missing()
        if missing:
            details = ", ".join(f"{name} ({reason})" for name, reason in missing.items())
            raise pytest.UsageError("CI must not skip tests; missing: " + details)


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

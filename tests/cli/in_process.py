"""feedctl run in the test's own process, as ``main()`` runs it (``failures.run``): its exit code, stdout,
stderr. For commands that work on this machine's databases, not over HTTP, so no process is started."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from feedback_intelligence.cli import failures


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    def one_line_error(self) -> str:
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in self.err, self.err
        return lines[0]


class Feedctl(Protocol):
    def __call__(self, *args: str, env: dict[str, str] | None = None) -> Ran: ...


def feedctl_in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cwd: Path, app: Callable[..., object]
) -> Feedctl:
    """A feedctl that runs in ``cwd`` (so no ``.env`` of the checkout is read) with only ``env``'s ``FI_`` variables."""
    monkeypatch.chdir(cwd)
    for name in [n for n in os.environ if n.upper().startswith("FI_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str, env: dict[str, str] | None = None) -> Ran:
        with monkeypatch.context() as patch:
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            capsys.readouterr()
            code = failures.run(lambda: app(list(args), prog_name="feedctl"))
            captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return run

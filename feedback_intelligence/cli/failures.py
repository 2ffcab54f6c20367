"""feedctl's exit codes and the one place where a failure becomes a one-line message.

Commands raise :class:`CliError` (or let a known exception through); :func:`run` turns each into one
line on stderr and its exit code. A person never sees a traceback for something they can fix: a
missing file, a bad line, a bad flag value, a service that is down. A traceback is left only for a
bug in feedctl itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import IntEnum
from pathlib import Path
from typing import Any

import click
import httpx
from rich.console import Console
from rich.markup import escape

from feedback_intelligence.config import PREFIX as CONFIGURATION_PREFIX
from feedback_intelligence.config import ConfigurationError


class ExitCode(IntEnum):
    """What scripts can rely on (documented in the README)."""

    OK = 0
    DEGRADED = 1  # the service answered, but not all is well: failed items, /health 503, a story not found
    UNREACHABLE = 2  # the service (or its backend, for `warm`) could not be reached
    BAD_INPUT = 2  # a missing or malformed file, a bad setting, an answer feedctl cannot use
    # serve, migrate: a database is down, missing, refuses the role, or is newer than this
    # release (cli/databases.py); uvicorn's own startup-failure code
    CANNOT_START = 3


def read_json_file(path: Path, what: str = "") -> Any:
    """A JSON file a person named; each way it cannot be used is a CliError naming ``what`` and the path."""
    where = f"{what}: {path}" if what else str(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CliError(f"{where}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{where}: cannot read ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise CliError(f"{where}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


class CliError(Exception):
    """A failure the person can act on: ``message`` is printed as one line, ``code`` is the exit status."""

    def __init__(self, message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def unreachable(url: str, exc: Exception) -> CliError:
    reason = str(exc) or type(exc).__name__
    return CliError(f"cannot reach the service at {url} ({reason}); is it running? (FEEDCTL_URL)", ExitCode.UNREACHABLE)


def describe(exc: BaseException) -> tuple[str, ExitCode] | None:
    """The one-line message and exit code for an exception a person can act on; ``None`` for a bug."""
    if isinstance(exc, CliError):
        return exc.message, exc.code
    if isinstance(exc, ConfigurationError):  # already "invalid configuration: FI_X: …", one line per fault
        return str(exc), ExitCode.BAD_INPUT
    if isinstance(exc, httpx.TransportError):
        return f"cannot reach {_url_of(exc)} ({exc or type(exc).__name__})", ExitCode.UNREACHABLE
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file", ExitCode.BAD_INPUT
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}", ExitCode.BAD_INPUT
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", ExitCode.BAD_INPUT
    return None


def _url_of(exc: httpx.TransportError) -> str:
    try:
        return str(exc.request.url)
    except RuntimeError:  # raised before a request was made
        return "the service"


def report(message: str, console: Console | None = None) -> None:
    """Print one error line on stderr (red on a terminal, plain text otherwise)."""
    err = console or Console(stderr=True, highlight=False, soft_wrap=True)
    if message.startswith(CONFIGURATION_PREFIX):  # already says what it is
        err.print(f"[red]{escape(message)}[/red]")
    else:
        err.print(f"[red]error:[/red] {escape(message)}")


def run(command: Callable[[], object]) -> int:
    """Run the click/Typer app ``command``; every failure a person can fix ends as one line and its code."""
    try:
        command()
    except SystemExit as exit_:  # click's own way out: --help, a usage error (already printed), typer.Exit
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except click.exceptions.Abort:  # Ctrl-C at a prompt
        return 130
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        described = describe(exc)
        if described is None:
            raise  # a bug in feedctl: the traceback is what a developer needs
        message, code = described
        for line in message.splitlines() or [message]:
            report(line)
        return int(code)
    return 0

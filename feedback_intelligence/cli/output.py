"""What feedctl prints: Rich tables and progress for people (stdout), plain JSON for scripts (``--json``)."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

console = Console(highlight=False)
# Progress goes to stderr so that `--json > file` and pipes keep only the result on stdout.
progress_console = Console(stderr=True, highlight=False)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON (for scripts) instead of tables.")]


def emit_json(data: Any) -> None:
    """One JSON document on stdout, no colour, nothing else."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    sys.stdout.flush()


def key_value_table(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    return table


def counts_table(title: str, counts: dict[str, int]) -> Group:
    """A heading line, then outcome → count (a title inside the table would wrap to the table's width)."""
    table = Table(show_header=True)
    table.add_column("outcome")
    table.add_column("items", justify="right")
    for key, value in counts.items():
        table.add_row(key, str(value))
    return Group(Text(title, style="bold"), table)


def bar(label: str, *, quiet: bool = False) -> Progress:
    """A progress bar with a count and the time left (hidden with ``--json``)."""
    return Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=progress_console,
        disable=quiet,
        transient=False,
    )


@contextmanager
def spinner(label: str, *, quiet: bool = False) -> Iterator[Progress]:
    """An elapsed-time spinner for work whose size the service does not tell (restructure, warm)."""
    # Off when stderr is not a terminal: a spinner frozen in a log says nothing.
    progress = Progress(
        SpinnerColumn(),
        TextColumn(f"[bold]{label}"),
        TimeElapsedColumn(),
        console=progress_console,
        disable=quiet or not progress_console.is_terminal,
        transient=True,
    )
    with progress:
        progress.add_task(label, total=None)
        yield progress


class PlainProgress:
    """Progress for a log or a pipe, where a bar draws nothing until the end: one plain line on stderr
    at least every ``every_s`` seconds (also while one slow item is still being sent), and one at the end."""

    def __init__(
        self, label: str, total: int, every_s: float, extra: Callable[[], str] = lambda: "", out: Console | None = None
    ) -> None:
        self.label, self.total, self.every_s, self.extra = label, total, every_s, extra
        self.out = out or progress_console
        self.done = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="feedctl-progress", daemon=True)

    def line(self) -> str:
        share = f" ({100 * self.done // self.total} %)" if self.total else ""
        extra = self.extra()
        elapsed = time.monotonic() - self._started
        return f"{self.label}: {self.done}/{self.total} items{share}{' · ' + extra if extra else ''} · {elapsed:.0f} s"

    def advance(self, n: int = 1) -> None:
        self.done += n

    def _tick(self) -> None:
        while not self._stop.wait(self.every_s):
            self.out.print(self.line(), markup=False, highlight=False)

    def __enter__(self) -> PlainProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.out.print(self.line(), markup=False, highlight=False)

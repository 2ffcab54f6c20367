"""``feedctl load``'s files read through the import's own rules (:mod:`feedback_intelligence.imports`):
a CSV file and a ``--values`` map from disk, and the import's refusals as the command's one-line errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from feedback_intelligence.cli.failures import CliError, read_json_file
from feedback_intelligence.imports.csv_rows import parse_mapping, read_csv_rows
from feedback_intelligence.imports.rows import ImportRefused, Line
from feedback_intelligence.imports.values import value_map_of


@contextmanager
def as_cli_errors(prefix: str = "") -> Iterator[None]:
    """An :class:`ImportRefused` raised inside, as the command's :class:`CliError` (exit 2)."""
    try:
        yield
    except ImportRefused as exc:
        raise CliError(f"{prefix}{exc.message}") from exc


def read_value_map(path: Path | None) -> dict[str, dict[str, str]]:
    """``--values FILE``: field → {folded label → value}; raises CliError naming what is wrong."""
    if path is None:
        return {}
    raw = read_json_file(path, "--values")
    with as_cli_errors():
        return value_map_of(raw, f"--values: {path}")


def read_csv_file(
    path: Path,
    *,
    mapping: str | None,
    delimiter: str | None,
    encoding: str | None,
    source: str | None,
    bad: list[str] | None,
) -> list[Line]:
    """The CSV file's rows (``--map``, ``--delimiter``, ``--encoding``, ``--source``); every bad line
    raised at once, or added to ``bad`` when given (a dry run)."""
    with as_cli_errors("--map: " if mapping else ""):
        columns = parse_mapping(mapping)
    try:
        stream = path.open("rb")
    except FileNotFoundError as exc:
        raise CliError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise CliError(f"{path}: is a directory, not a CSV file") from exc
    except OSError as exc:
        raise CliError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    with stream, as_cli_errors():
        return read_csv_rows(
            stream, str(path), mapping=columns, delimiter=delimiter, encoding=encoding, source=source, bad=bad
        )

"""``feedctl backup --to DIR`` and ``feedctl restore --from DIR``: both SQLite channel databases, and the
secrets the service made itself, copied consistently and checked (docs/operations/backups.md).

A PostgreSQL database is ``pg_dump``'s and ``pg_restore``'s: the command says so in one line instead of
copying half a deployment. Each database's copy is one snapshot of it (SQLite's online backup API);
the two databases are copied one after the other, so only a stopped service gives one instant for both.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import typer

from feedback_intelligence.cli import databases
from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.output import JsonFlag, console, emit_json
from feedback_intelligence.config import Settings, load_settings
from feedback_intelligence.config.kept_secrets import KEPT
from feedback_intelligence.config.storage import sqlite_file
from feedback_intelligence.store import sqlite_copy

SECRETS = "secrets"


def _files(settings: Settings) -> list[tuple[databases.Database, Path]]:
    found = []
    for database in databases.databases(settings):
        path = sqlite_file(database.url)
        if path is None:
            raise CliError(
                f"{database.variable} is not a SQLite file: back PostgreSQL up with pg_dump and put it back with "
                "pg_restore (docs/operations/backups.md)"
            )
        found.append((database, path))
    return found


def _show(title: str, checked: list[tuple[databases.Database, Path, sqlite_copy.Checked]], json_output: bool) -> None:
    if json_output:
        emit_json(
            {
                d.channel: {
                    "file": str(p),
                    "integrity": c.integrity,
                    "revision": c.revision,
                    "feedbackRows": c.feedback_rows,
                }
                for d, p, c in checked
            }
        )
        return
    console.print(title, style="bold")
    for database, path, found in checked:
        console.print(
            f"{database.channel}: {path}  integrity {found.integrity}, revision {found.revision or 'none'}, "
            f"{found.feedback_rows} feedback rows"
        )


def _copy(source: Path, target: Path) -> None:
    try:
        sqlite_copy.copy(source, target)
    except sqlite3.Error as exc:  # locked past the busy wait, no room, not a database: one line, no traceback
        raise CliError(f"cannot copy {source} to {target}: {exc}") from exc


def _secret_files(settings: Settings) -> list[Path]:
    return [settings.storage.secrets_dir / name for _group, _setting, name in KEPT]


def backup(
    to: Path = typer.Option(..., "--to", help="A new or empty folder for this backup (one folder per backup)."),
    json_output: JsonFlag = False,
) -> None:
    """SQLite: copy both databases (while the service runs) and its kept secrets into DIR, then check the copies."""
    settings = load_settings()
    files = _files(settings)
    taken = [to / f"{d.channel}.db" for d, _ in files if (to / f"{d.channel}.db").exists()]
    if taken:
        raise CliError(f"{taken[0]} exists: back up into a new folder (one folder per backup)")
    to.mkdir(mode=0o700, parents=True, exist_ok=True)
    checked = []
    for database, path in files:
        if not path.is_file():
            raise CliError(f"{database.variable}: {path} does not exist: nothing to back up")
        target = to / f"{database.channel}.db"
        _copy(path, target)
        target.chmod(0o600)  # customers' words and people's accounts: the operator's to read, no one else's
        found = sqlite_copy.check(target)
        if not found.ok:
            raise CliError(f"{target}: the copy is not whole ({found.integrity})", ExitCode.DEGRADED)
        checked.append((database, target, found))
    for secret in _secret_files(settings):  # without them, sessions and the desk's own entries start over
        if secret.is_file():
            (to / SECRETS).mkdir(mode=0o700, exist_ok=True)
            shutil.copy2(secret, to / SECRETS / secret.name)
    _show(f"backed up into {to}", checked, json_output)


def restore(
    from_: Path = typer.Option(..., "--from", help="A folder `feedctl backup` wrote."),
    json_output: JsonFlag = False,
) -> None:
    """SQLite, with the service stopped: put both databases (and kept secrets) of DIR back, then check them."""
    settings = load_settings()
    files = _files(settings)
    sources = []
    for database, path in files:  # every copy checked before anything is overwritten
        source = from_ / f"{database.channel}.db"
        if not source.is_file():
            raise CliError(f"{source}: no such file: not a folder `feedctl backup` wrote")
        found = sqlite_copy.check(source)
        if not found.ok:
            raise CliError(f"{source}: the backup is not whole ({found.integrity}); nothing was restored")
        sources.append((database, source, path))
    checked = []
    for database, source, path in sources:
        path.parent.mkdir(parents=True, exist_ok=True)
        _copy(source, path)
        checked.append((database, path, sqlite_copy.check(path)))
    for secret in _secret_files(settings):
        kept = from_ / SECRETS / secret.name
        if kept.is_file():
            secret.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kept, secret)
    _show(f"restored from {from_}", checked, json_output)

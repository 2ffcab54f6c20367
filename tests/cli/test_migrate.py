"""``feedctl migrate``: each database's revision against the head, an upgrade that is safe twice, and a
database fault as one line naming the variable and the fix (exit 3), on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from feedback_intelligence.cli.main import app
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.store.revisions import head
from tests.cli.in_process import Feedctl, feedctl_in_process


@pytest.fixture
def feedctl(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Feedctl:
    return feedctl_in_process(monkeypatch, capsys, tmp_path, app)


@pytest.fixture
def sqlite_pair(tmp_path: Path) -> Iterator[tuple[str, str]]:
    yield f"sqlite:///{tmp_path}/corpus.db", f"sqlite:///{tmp_path}/live.db"


@pytest.fixture
def pg_pair() -> Iterator[tuple[str, str]]:
    with postgres_pair("fi_migrate") as pair:
        yield pair


def _upgrade_twice(feedctl: Feedctl, corpus: str, live: str, caplog: pytest.LogCaptureFixture) -> None:
    env = {"FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}
    before = feedctl("migrate", "status", "--json", env=env)
    assert before.code == 1  # behind: an upgrade is due
    assert {c: v["revision"] for c, v in json.loads(before.out).items()} == {"corpus": None, "live": None}
    if corpus.startswith("sqlite"):
        assert not any(Path(url.removeprefix("sqlite:///")).exists() for url in (corpus, live))  # a look made nothing

    with caplog.at_level(logging.INFO, logger="feedback_intelligence.store.revisions"):
        first = feedctl("migrate", "upgrade", "--json", env=env)
    assert first.code == 0, first.err
    applied = json.loads(first.out)
    assert {c: (v["before"], v["revision"]) for c, v in applied.items()} == {
        "corpus": (None, head()),
        "live": (None, head()),
    }
    assert f"corpus database migrated from empty to {head()} (head)" in caplog.text  # the boot log's line

    second = feedctl("migrate", "upgrade", "--json", env=env)
    assert second.code == 0, second.err
    assert {c: (v["before"], v["revision"]) for c, v in json.loads(second.out).items()} == {
        "corpus": (head(), head()),
        "live": (head(), head()),
    }
    after = feedctl("migrate", "status", env=env)
    assert after.code == 0 and after.out.count(f"{head()} (head)") == 2, after.out


def test_upgrade_is_safe_twice_on_sqlite(
    feedctl: Feedctl, sqlite_pair: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    _upgrade_twice(feedctl, *sqlite_pair, caplog)


@pytest.mark.postgres
def test_upgrade_is_safe_twice_on_postgresql(
    feedctl: Feedctl, pg_pair: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    _upgrade_twice(feedctl, *pg_pair, caplog)


def test_a_database_a_newer_release_migrated_is_one_line(feedctl: Feedctl, sqlite_pair: tuple[str, str]) -> None:
    """A rollback onto a database the newer release migrated: named, with the fix, not alembic's traceback."""
    env = {"FI_DATABASE_URL": sqlite_pair[0], "FI_LIVE_DATABASE_URL": sqlite_pair[1]}
    assert feedctl("migrate", "upgrade", env=env).code == 0
    with closing(sqlite3.connect(sqlite_pair[1].removeprefix("sqlite:///"))) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    for command in ("status", "upgrade"):
        ran = feedctl("migrate", command, env=env)
        assert ran.code == 3
        line = ran.one_line_error()
        assert (
            f"the live database (FI_LIVE_DATABASE_URL) is at schema revision 9999, newer than this release's {head()}"
            in line
        )
        assert "restore the backup taken before the upgrade" in line

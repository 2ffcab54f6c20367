"""Backup, wipe, restore: the same rows in every table of both databases (the feedback store's and the
accounts' in the live one) and the same report, on SQLite (``feedctl backup``/``restore``) and on PostgreSQL
(the ``pg_dump``/``pg_restore`` commands docs/operations/backups.md gives)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import threading
from collections.abc import Awaitable, Callable
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from feedback_intelligence.cli.main import app
from feedback_intelligence.config import ReportSettings
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import PG_ADMIN_DSN, postgres_pair
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.report.window import build_window
from feedback_intelligence.store import sqlite_copy
from feedback_intelligence.store.accounts import AccountStore, Grant
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import metadata
from tests.cli.in_process import Feedctl, feedctl_in_process
from tests.report.test_aggregates_agree import dataset

DOMAIN = load_domain("retail")
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
ITEMS = dataset(n=120, seed=39)


async def _seed(corpus_url: str, live_url: str) -> None:
    derive = DomainDeriver(DOMAIN)
    corpus = FeedbackStore(corpus_url, name="corpus", derive=derive)
    live = FeedbackStore(live_url, name="live", derive=derive)
    try:
        for store in (corpus, live):
            await store.migrate()
        await corpus.insert_batch(ITEMS[:70])
        await live.insert_batch([replace(item, id=f"live-{item.id}") for item in ITEMS[70:]])
        await AccountStore(live).add_local("Maija", "Maija M", "$argon2id$not-a-real-hash", (Grant("manager", "*"),))
    finally:
        await corpus.aclose()
        await live.aclose()


async def _answer(corpus_url: str, live_url: str) -> tuple[dict[str, list[tuple[Any, ...]]], dict[str, Any]]:
    """Every row of every table of both databases, and the report over both for November."""
    corpus, live = FeedbackStore(corpus_url, name="corpus"), FeedbackStore(live_url, name="live")
    try:
        rows: dict[str, list[tuple[Any, ...]]] = {}
        for store in (corpus, live):
            async with store.connection() as conn:
                for table in metadata.sorted_tables:
                    found = (await conn.execute(select(table))).all()
                    rows[f"{store.name}.{table.name}"] = sorted((tuple(r) for r in found), key=repr)
        options = ReportSettings(cache_seconds=0)
        service = ReportService(DOMAIN, options, None, StoreSource([corpus, live]), clock=ManualClock(NOW))
        window = build_window("2026-11-01T00:00:00Z", "2026-11-29T00:00:00Z", NOW, options)
        report = (await service._build(window, "standard")).report.to_json()  # the deterministic layer
        report.pop("generatedAt", None)
        return rows, report
    finally:
        await corpus.aclose()
        await live.aclose()


def _round_trip(
    corpus_url: str, live_url: str, backup: Callable[[], None], wipe: Callable[[], None], restore: Callable[[], None]
) -> None:
    asyncio.run(_seed(corpus_url, live_url))
    rows, report = asyncio.run(_answer(corpus_url, live_url))
    assert len(rows["corpus.feedback"]) == 70 and len(rows["live.feedback"]) == 50 and len(rows["live.accounts"]) == 1
    assert rows["live.audit_log"] and rows["corpus.feedback_daily"] and report["totalItems"] == 120
    backup()
    wipe()
    assert asyncio.run(_answer(corpus_url, live_url))[0]["live.feedback"] == []  # wiped: a database, but empty
    restore()
    assert asyncio.run(_answer(corpus_url, live_url)) == (rows, report)


def test_feedctl_backup_and_restore_on_sqlite(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    feedctl: Feedctl = feedctl_in_process(monkeypatch, capsys, tmp_path, app)
    data = tmp_path / "data"
    env = {"FI_DATABASE_URL": f"sqlite:///{data}/feedback.db", "FI_LIVE_DATABASE_URL": f"sqlite:///{data}/live.db"}
    (data / "secret").mkdir(parents=True)
    env["FI_DATA_DIR"] = str(data / "secret")
    (data / "secret" / "visitor-secret").write_text("v" * 64, encoding="utf-8")
    corpus_url, live_url = (f"sqlite+aiosqlite:///{data}/{name}" for name in ("feedback.db", "live.db"))
    ran: dict[str, Any] = {}

    def backup() -> None:
        ran["backup"] = feedctl("backup", "--to", str(tmp_path / "backup"), "--json", env=env)
        assert ran["backup"].code == 0, ran["backup"].err

    def wipe() -> None:
        for path in data.rglob("*"):
            if path.is_file():
                path.unlink()
        asyncio.run(_migrated(corpus_url, live_url))  # what a new machine's first boot makes

    def restore() -> None:
        ran["restore"] = feedctl("restore", "--from", str(tmp_path / "backup"), "--json", env=env)
        assert ran["restore"].code == 0, ran["restore"].err

    _round_trip(corpus_url, live_url, backup, wipe, restore)
    backed_up, restored = json.loads(ran["backup"].out), json.loads(ran["restore"].out)
    for channel, rows in (("corpus", 70), ("live", 50)):
        assert backed_up[channel]["feedbackRows"] == restored[channel]["feedbackRows"] == rows
        assert backed_up[channel]["integrity"] == restored[channel]["integrity"] == "ok"
        assert backed_up[channel]["revision"] == restored[channel]["revision"] is not None
    assert (data / "secret" / "visitor-secret").read_text(encoding="utf-8") == "v" * 64  # "mine" survives
    assert feedctl("migrate", "status", env=env).code == 0
    again = feedctl("backup", "--to", str(tmp_path / "backup"), env=env)
    assert again.code == 2 and "exists: back up into a new folder" in again.one_line_error()


def test_backup_on_postgresql_points_to_pg_dump(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    feedctl: Feedctl = feedctl_in_process(monkeypatch, capsys, tmp_path, app)
    env = {"FI_DATABASE_URL": f"sqlite:///{tmp_path}/c.db", "FI_LIVE_DATABASE_URL": "postgresql://fi@db/fi"}
    ran = feedctl("backup", "--to", str(tmp_path / "b"), env=env)
    assert ran.code == 2 and ran.one_line_error().startswith("error: FI_LIVE_DATABASE_URL is not a SQLite file")


async def _migrated(*urls: str) -> None:
    for url in urls:
        store = FeedbackStore(url)
        try:
            await store.migrate()
        finally:
            await store.aclose()


def _libpq(url: str) -> str:
    """The URL pg_dump takes: FI_…_DATABASE_URL without its SQLAlchemy driver (``+asyncpg``)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _run(*command: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (command, done.stderr)


def _admin(statement: Callable[[asyncpg.Connection], Awaitable[None]]) -> None:
    async def run() -> None:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        try:
            await statement(admin)
        finally:
            await admin.close()

    asyncio.run(run())


@pytest.mark.postgres
@pytest.mark.process  # pg_dump, pg_restore
def test_pg_dump_and_pg_restore_as_documented(tmp_path: Path) -> None:
    with postgres_pair("fi_backup") as (corpus_url, live_url):
        names = {url: make_url(url).database for url in (corpus_url, live_url)}

        def backup() -> None:
            for url in names:  # docs/operations/backups.md, "PostgreSQL": one custom-format dump a database
                _run("pg_dump", "--format=custom", f"--file={tmp_path / names[url]}.dump", _libpq(url))

        async def recreate(admin: asyncpg.Connection) -> None:
            for name in names.values():
                await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
                await admin.execute(f'CREATE DATABASE "{name}"')

        def wipe() -> None:
            _admin(recreate)
            asyncio.run(_migrated(corpus_url, live_url))  # a service started meanwhile made empty tables

        def restore() -> None:
            for url in names:
                _run(
                    "pg_restore",
                    "--clean",
                    "--if-exists",
                    "--no-owner",
                    "--exit-on-error",
                    f"--dbname={_libpq(url)}",
                    f"{tmp_path / names[url]}.dump",
                )

        _round_trip(corpus_url, live_url, backup, wipe, restore)


def test_a_backup_that_is_not_whole_restores_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    feedctl: Feedctl = feedctl_in_process(monkeypatch, capsys, tmp_path, app)
    env = {"FI_DATABASE_URL": f"sqlite:///{tmp_path}/c.db", "FI_LIVE_DATABASE_URL": f"sqlite:///{tmp_path}/l.db"}
    assert feedctl("migrate", "upgrade", env=env).code == 0
    assert feedctl("backup", "--to", str(tmp_path / "b"), env=env).code == 0
    (tmp_path / "b" / "live.db").write_bytes(b"not a database, a truncated copy" * 100)
    before = (tmp_path / "c.db").read_bytes()
    ran = feedctl("restore", "--from", str(tmp_path / "b"), env=env)
    assert ran.code == 2
    assert "live.db: the backup is not whole (file is not a database); nothing was restored" in ran.one_line_error()
    assert (tmp_path / "c.db").read_bytes() == before  # the corpus copy, though whole, was not written either


def test_a_backup_taken_while_the_desk_saves_is_one_instant(tmp_path: Path) -> None:
    """Saves land during the copy: the copy holds whole transactions only (every row's rollup with it)."""
    url = f"sqlite+aiosqlite:///{tmp_path}/live.db"
    asyncio.run(_migrated(url))
    stop, saved = threading.Event(), threading.Event()

    async def desk() -> None:
        store = FeedbackStore(url, name="live", derive=DomainDeriver(DOMAIN))
        try:
            for k, item in enumerate(ITEMS * 100):
                if stop.is_set():
                    return
                await store.insert(replace(item, id=f"save-{k}"))
                if k == 20:
                    saved.set()
        finally:
            await store.aclose()

    writer = threading.Thread(target=asyncio.run, args=(desk(),))
    writer.start()
    try:
        assert saved.wait(30)
        copies = []
        for n in range(3):
            copies.append(tmp_path / f"copy-{n}.db")
            sqlite_copy.copy(tmp_path / "live.db", copies[-1])
        assert writer.is_alive()  # the desk was still saving through every copy
    finally:
        stop.set()
        writer.join(30)
    for copy in copies:
        found = sqlite_copy.check(copy)
        assert found.ok and found.feedback_rows > 20
        with closing(sqlite3.connect(copy)) as db:
            assert db.execute("SELECT sum(items) FROM feedback_daily").fetchone()[0] == found.feedback_rows

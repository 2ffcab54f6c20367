"""The day-one mistakes with a database, each as one line naming the variable and the fix, exit 3 (as a
database that is down): a database that does not exist, a role the server does not know, a role without
privileges on the database, a wrong password. And a misspelt ``FI_`` variable named at boot with the
setting it was probably meant to be.

The local PostgreSQL trusts every connection, so a wrong password cannot be provoked on it: that mistake
is tested with the exception asyncpg raises for it (``InvalidPasswordError``, SQLSTATE 28P01), through
the store's one translation and the command's one line.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest

from feedback_intelligence.cli.databases import Database, fault_line
from feedback_intelligence.cli.main import app
from feedback_intelligence.config import unknown
from feedback_intelligence.devtools.databases import PG_ADMIN_DSN, postgres_database
from feedback_intelligence.devtools.processes import REPO, free_port
from feedback_intelligence.store.base import translating
from feedback_intelligence.store.errors import StoreAccessDenied
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.cli.in_process import Feedctl, feedctl_in_process

CANNOT_START = 3
SERVER = PG_ADMIN_DSN.split("://", 1)[1].rsplit("/", 1)[0].split("@")[-1]  # host:port


@pytest.fixture
def feedctl(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Feedctl:
    return feedctl_in_process(monkeypatch, capsys, tmp_path, app)


def _env(tmp_path: Path, live: str) -> dict[str, str]:
    return {"FI_DATABASE_URL": f"sqlite:///{tmp_path}/corpus.db", "FI_LIVE_DATABASE_URL": live}


@asynccontextmanager
async def _role() -> AsyncIterator[str]:
    """A login role that owns nothing and was granted nothing; dropped afterwards."""
    name = f"fi_noprivs_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await admin.execute(f'CREATE ROLE "{name}" LOGIN')
        yield name
    finally:
        await admin.execute(f'DROP OWNED BY "{name}"')  # in the admin's database; the test's is dropped
        await admin.execute(f'DROP ROLE IF EXISTS "{name}"')
        await admin.close()


@pytest.fixture
def role_and_database() -> Iterator[tuple[str, str]]:
    """A role without privileges and a fresh database owned by the admin (PostgreSQL 15: no CREATE in public)."""
    with asyncio.Runner() as runner:
        role, database = _role(), postgres_database("fi_dayone")
        names = runner.run(role.__aenter__()), runner.run(database.__aenter__())
        try:
            yield names[0], names[1].rsplit("/", 1)[1]
        finally:
            runner.run(database.__aexit__(None, None, None))
            runner.run(role.__aexit__(None, None, None))


@pytest.mark.postgres
def test_a_database_that_does_not_exist(feedctl: Feedctl, tmp_path: Path) -> None:
    missing = f"fi_missing_{uuid.uuid4().hex[:8]}"
    ran = feedctl("migrate", "upgrade", env=_env(tmp_path, f"postgresql://postgres@{SERVER}/{missing}"))
    assert ran.code == CANNOT_START
    line = ran.one_line_error()
    assert f'the live database "{missing}" does not exist' in line
    assert "FI_LIVE_DATABASE_URL" in line and f"createdb -h 127.0.0.1 -p 5432 -O postgres {missing}" in line


@pytest.mark.postgres
def test_a_role_the_server_does_not_know(feedctl: Feedctl, tmp_path: Path) -> None:
    ran = feedctl("migrate", "upgrade", env=_env(tmp_path, f"postgresql://fi_nobody_{uuid.uuid4().hex[:8]}@{SERVER}/x"))
    assert ran.code == CANNOT_START
    line = ran.one_line_error()
    assert "refused role" in line and "does not exist" in line and "correct the user in FI_LIVE_DATABASE_URL" in line


@pytest.mark.postgres
def test_a_role_without_privileges_on_the_database(
    feedctl: Feedctl, tmp_path: Path, role_and_database: tuple[str, str]
) -> None:
    role, database = role_and_database
    env = _env(tmp_path, f"postgresql://{role}@{SERVER}/{database}")
    ran = feedctl("migrate", "upgrade", env=env)
    assert ran.code == CANNOT_START
    line = ran.one_line_error()
    assert f'the live database "{database}" refuses role "{role}" (permission denied' in line
    assert f"ALTER DATABASE {database} OWNER TO {role}" in line and "FI_LIVE_DATABASE_URL" in line

    async def follow_the_fix() -> None:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        try:
            await admin.execute(f'ALTER DATABASE "{database}" OWNER TO "{role}"')
        finally:
            await admin.close()

    asyncio.run(follow_the_fix())
    assert feedctl("migrate", "upgrade", env=env).code == 0  # the line's fix is the fix


@pytest.mark.postgres
def test_a_role_refused_connect_on_the_database(
    feedctl: Feedctl, tmp_path: Path, role_and_database: tuple[str, str]
) -> None:
    role, database = role_and_database

    async def revoke() -> None:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        try:
            await admin.execute(f'REVOKE CONNECT ON DATABASE "{database}" FROM PUBLIC')
        finally:
            await admin.close()

    asyncio.run(revoke())
    ran = feedctl("migrate", "status", env=_env(tmp_path, f"postgresql://{role}@{SERVER}/{database}"))
    assert ran.code == CANNOT_START
    assert f'refuses role "{role}" (permission denied for database' in ran.one_line_error()


def test_a_wrong_password_is_named_without_echoing_it() -> None:
    store = FeedbackStore("sqlite+aiosqlite:///:memory:", name="corpus")
    refused = asyncpg.exceptions.InvalidPasswordError('password authentication failed for user "fi"')
    with pytest.raises(StoreAccessDenied) as raised, translating(store):
        raise refused
    assert raised.value.kind == "password"
    database = Database("corpus", "FI_DATABASE_URL", "postgresql+asyncpg://fi:s3cret-typo@db.example:5432/fi")
    line = fault_line(database, raised.value, "cannot start")
    assert line == (
        'cannot start: the corpus database refused the password of role "fi" (FI_DATABASE_URL); '
        "correct the password in FI_DATABASE_URL"
    )


def test_unknown_variables_are_named_with_the_nearest_setting(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("FI_REDIS_ULR=redis://x\n", encoding="utf-8")
    environ = {"FI_LLM_SLOT": "3", "fi_databse_url": "x", "FI_LLM_SLOTS": "2", "FI_POSTGRES_PASSWORD": "p", "HOME": "/"}
    assert unknown.warnings(environ, env_file) == [
        "FI_LLM_SLOT is not a setting of this service and is ignored; did you mean FI_LLM_SLOTS? "
        "(docs/operations/configuration.md)",
        "FI_REDIS_ULR is not a setting of this service and is ignored; did you mean FI_REDIS_URL? "
        "(docs/operations/configuration.md)",
        "fi_databse_url is not a setting of this service and is ignored; did you mean FI_DATABASE_URL? "
        "(docs/operations/configuration.md)",
    ]
    assert unknown.unknown(["FI_COMPLETELY_DIFFERENT_THING"]) == {"FI_COMPLETELY_DIFFERENT_THING": None}


@pytest.mark.process
@pytest.mark.postgres
def test_serve_names_a_misspelt_variable_and_a_missing_database_in_one_line_each(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.upper().startswith("FI_")},
        "PYTHONPATH": str(REPO),
        "FI_PORT": str(free_port()),
        "FI_LLM_SLOT": "3",
        **_env(tmp_path, f"postgresql://postgres@{SERVER}/fi_missing_{uuid.uuid4().hex[:8]}"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == CANNOT_START, done.stderr
    assert "Traceback" not in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line and "FI_LLM_SLOT " in line]
    assert len(warnings) == 1 and "did you mean FI_LLM_SLOTS?" in warnings[0], done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "does not exist" in errors[0] and "FI_LIVE_DATABASE_URL" in errors[0], done.stderr

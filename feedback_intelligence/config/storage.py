"""Where the service keeps its data: the two channel databases, report snapshots, the secrets it makes."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from pydantic import field_validator, model_validator

from feedback_intelligence.config.fields import Group, variable

_POSTGRESQL_SCHEMES = frozenset(
    {
        "postgres",
        "postgresql",
        "postgresql+asyncpg",
        "postgresql+psycopg",
        "postgresql+psycopg2",
        "postgresql+psycopg2cffi",
        "postgresql+pg8000",
    }
)


class StorageSettings(Group):
    database_url: str = variable("FI_DATABASE_URL", "sqlite+aiosqlite:///data/feedback.db")
    live_database_url: str = variable("FI_LIVE_DATABASE_URL", "sqlite+aiosqlite:///data/desk-live.db")
    snapshot_dir: Path = variable("FI_SNAPSHOT_DIR", Path("data/snapshots"))
    # where the service keeps the secrets it makes itself (kept_secrets.py); unset: the live SQLite
    # database's folder, else ./data
    data_dir: Path | None = variable("FI_DATA_DIR", None)

    @field_validator("database_url", "live_database_url")
    @classmethod
    def _db_url(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        scheme, sep, rest = value.partition("://")
        if not sep:
            raise ValueError("must be a sqlite:// or postgresql:// URL")
        # Accept the spellings operators copy from psql or other SQLAlchemy apps (any driver
        # suffix) and use the driver this project ships: asyncpg, aiosqlite.
        if scheme.lower() in _POSTGRESQL_SCHEMES:
            return f"postgresql+asyncpg://{rest}"
        if scheme.lower() in ("sqlite", "sqlite+aiosqlite", "sqlite+pysqlite"):
            return f"sqlite+aiosqlite://{rest}"
        raise ValueError("must be a sqlite:// or postgresql:// URL")

    @model_validator(mode="after")
    def _two_databases(self) -> Self:
        corpus, live = sqlite_file(self.database_url), sqlite_file(self.live_database_url)
        if self.database_url == self.live_database_url or (corpus is not None and corpus == live):
            raise ValueError(
                "FI_LIVE_DATABASE_URL: must name a different database than FI_DATABASE_URL "
                f"(both are {corpus or self.database_url})"
            )
        return self

    @property
    def secrets_dir(self) -> Path:
        """Where a secret the service makes is kept: FI_DATA_DIR, else beside the live SQLite database
        (the desk's data, whose authors the visitor secret names), else ./data."""
        if self.data_dir is not None:
            return self.data_dir
        live = sqlite_file(self.live_database_url)
        return live.parent if live is not None else Path("data")


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names, resolved (relative paths against the working directory), or None."""
    if not url.startswith("sqlite+aiosqlite://"):
        return None
    path = url.removeprefix("sqlite+aiosqlite://").split("?", 1)[0]
    if path in ("", "/", "/:memory:") or ":memory:" in path or path.startswith("/file:"):
        return None
    # sqlite:///relative.db has path "/relative.db"; sqlite:////abs.db has "//abs.db"
    path = path[1:] if path.startswith("/") else path
    return Path(path).expanduser().resolve()

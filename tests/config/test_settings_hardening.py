"""Hardening the edges (ADR 0012): PostgreSQL URLs in every driver spelling; two spellings of one SQLite file;
and the allowed-hosts default."""

from __future__ import annotations

from pathlib import Path

import pytest

from feedback_intelligence.config import ConfigurationError, load_settings


@pytest.mark.parametrize(
    "scheme", ["postgresql", "postgres", "postgresql+asyncpg", "postgresql+psycopg", "postgresql+psycopg2"]
)
def test_postgresql_urls_in_any_driver_spelling_use_the_shipped_driver(scheme: str) -> None:
    settings = load_settings(
        database_url=f"{scheme}://fi@10.0.0.6/feedback", live_database_url=f"{scheme}://fi@10.0.0.6/desk_live"
    )
    assert settings.storage.database_url == "postgresql+asyncpg://fi@10.0.0.6/feedback"
    assert settings.storage.live_database_url == "postgresql+asyncpg://fi@10.0.0.6/desk_live"


def test_one_sqlite_file_named_relatively_and_absolutely_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError, match="FI_LIVE_DATABASE_URL") as refused:
        load_settings(
            database_url="sqlite:///data/feedback.db",
            live_database_url=f"sqlite+aiosqlite:///{tmp_path}/data/../data/feedback.db",
        )
    assert str(tmp_path / "data" / "feedback.db") in str(refused.value)


def test_two_sqlite_files_and_in_memory_databases_are_fine(tmp_path: Path) -> None:
    load_settings(database_url=f"sqlite:///{tmp_path}/a.db", live_database_url=f"sqlite:///{tmp_path}/b.db")
    load_settings(database_url="sqlite:///:memory:", live_database_url="sqlite+aiosqlite:///:memory:?cache=private")


def test_allowed_hosts_default_to_the_listen_host_and_the_loopback_names() -> None:
    assert load_settings(host="10.1.2.3").edge.allowed_hosts == ["localhost", "127.0.0.1", "[::1]", "10.1.2.3"]
    assert load_settings(host="0.0.0.0").edge.allowed_hosts == ["localhost", "127.0.0.1", "[::1]"]
    assert load_settings(allowed_hosts=["Shop.Example", "*.shop.example"]).edge.allowed_hosts == [
        "shop.example",
        "*.shop.example",
    ]
    with pytest.raises(ConfigurationError, match="FI_ALLOWED_HOSTS"):
        load_settings(allowed_hosts=["shop.*"])

"""Kept secrets (ADR 0046): made once, 0600, atomically; read on every later start; a configured one wins."""

from __future__ import annotations

import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from feedback_intelligence.config import load_settings
from feedback_intelligence.config.kept_secrets import KeptSecretError, kept_secret, with_kept_secrets


def test_a_secret_is_made_once_private_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "data" / "visitor-secret"
    value, made = kept_secret(path)
    assert made and len(value) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kept_secret(path) == (value, False)
    assert [p.name for p in path.parent.iterdir()] == ["visitor-secret"]  # no draft left behind


def test_starts_racing_on_one_folder_agree_on_one_secret(tmp_path: Path) -> None:
    path = tmp_path / "session-secret"
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: kept_secret(path), range(32)))
    assert len({value for value, _ in answers}) == 1
    assert sum(made for _, made in answers) == 1


def test_an_unusable_file_stops_the_boot_instead_of_being_replaced(tmp_path: Path) -> None:
    (tmp_path / "visitor-secret").write_text("short\n")
    with pytest.raises(KeptSecretError, match="at least 32"):
        kept_secret(tmp_path / "visitor-secret")
    assert (tmp_path / "visitor-secret").read_text() == "short\n"


def test_settings_take_the_kept_secrets_beside_the_live_database_unless_configured(tmp_path: Path) -> None:
    live = tmp_path / "desk" / "desk-live.db"
    settings = load_settings(
        database_url=f"sqlite:///{tmp_path}/feedback.db",
        live_database_url=f"sqlite:///{live}",
        session_secret="configured-session-secret-of-forty-chars!",
    )
    assert settings.storage.secrets_dir == live.parent
    kept = with_kept_secrets(settings)
    assert kept.edge.visitor_secret == (live.parent / "visitor-secret").read_text().strip()
    assert kept.auth.session_secret == "configured-session-secret-of-forty-chars!"
    assert not (live.parent / "session-secret").exists()
    assert load_settings(data_dir=tmp_path / "elsewhere").storage.secrets_dir == tmp_path / "elsewhere"

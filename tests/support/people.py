"""The real app with FI_AUTH on, over ASGI: accounts added the way feedctl adds them, sign-in helpers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from feedback_intelligence.api.app import create_app
from feedback_intelligence.config import Settings, load_settings
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.testing import FakeBackend
from tests.support.clock import stamp
from tests.support.databases import migrated

OPERATOR_TOKEN = "operator-token-for-people-tests"
LOOPBACK = ("127.0.0.1", 4301)  # a program on the host: the loopback operator
STRANGER = ("203.0.113.50", 4302)  # anyone else
PASSWORD = "kassa-salasana-1"
ACCEPTED = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


def people_settings(tmp_path: Path, auth: str = "local", **overrides: Any) -> Settings:
    return load_settings(
        **{
            "llm_backend": "ollama",
            "llm_base_url": "http://127.0.0.1:9",
            "llm_model": "held",
            "database_url": f"sqlite:///{migrated(tmp_path / 'feedback.db')}",
            "live_database_url": f"sqlite:///{migrated(tmp_path / 'live.db')}",
            "snapshot_dir": tmp_path / "snapshots",
            "operator_token": OPERATOR_TOKEN,
            "allowed_hosts": ["fi.test"],
            "auth": auth,
            "session_secret": "people-tests-secret",
            "warm_at_start": False,
            "structure_worker": False,
            **overrides,
        }
    )


def client(app: FastAPI, peer: tuple[str, int] = STRANGER) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=peer), base_url="http://fi.test", follow_redirects=False
    )


@asynccontextmanager
async def running_app(settings: Settings, *, clock: Clock = SYSTEM_CLOCK) -> AsyncIterator[FastAPI]:
    app = create_app(settings, backend=FakeBackend(reply="{}"), clock=clock)
    async with app.router.lifespan_context(app):
        yield app


async def add_user(app: FastAPI, username: str, *grants: tuple[str, str]) -> str:
    """As ``feedctl user add`` does: the operator route from the host itself."""
    async with client(app, LOOPBACK) as operator:
        answer = await operator.post(
            "/admin/users",
            json={"username": username, "password": PASSWORD, "grants": [{"role": r, "store": s} for r, s in grants]},
        )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


async def sign_in(http: httpx.AsyncClient, username: str, password: str = PASSWORD) -> httpx.Response:
    answer = await http.post("/auth/signin", json={"username": username, "password": password})
    return answer


def csrf(http: httpx.AsyncClient) -> dict[str, str]:
    return {"X-CSRF-Token": http.cookies.get("fi_csrf") or ""}


def desk_entry(feedback_id: str, text: str = "Maito oli hapanta, sain vatsakivun.", **extra: Any) -> dict[str, Any]:
    return {
        "id": feedback_id,
        "source": "desk",
        "text": text,
        "timestamp": stamp(hours=24),
        "acceptedStructure": ACCEPTED,
        **extra,
    }

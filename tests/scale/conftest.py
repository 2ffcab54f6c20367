"""Replicas as real processes: several ``feedctl serve`` sharing one Redis gate and one PostgreSQL store."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager

import httpx
import pytest

from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port
from tests.prerequisites import require
from tests.support.redis import REDIS_URL
from tests.support.waiting import wait_for_sync

SHARED_REDIS = REDIS_URL
VISITOR_SECRET = "replicas-share-this-visitor-secret"
INTERPRET = {"text": "Maito oli hapanta ja kassajono pitkä."}
ACCEPTED = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


def desk_entry(feedback_id: str, text: str = "Maito oli hapanta vaikka päiväys oli huomenna.") -> dict:
    """A desk save with the clerk's accepted structure: stored without any LLM call."""
    return {"id": feedback_id, "source": "desk", "text": text, "acceptedStructure": ACCEPTED}


def unique_gate_name() -> str:
    return f"scale-{uuid.uuid4().hex[:10]}"


def replica_env(
    sim: ServerProcess, databases: tuple[str, str], *, redis_url: str = SHARED_REDIS, gate_name: str, **extra: str
) -> dict[str, str]:
    """What every replica must share: the gate (Redis URL + name), the stores, the visitor secret, the slots."""
    corpus, live = databases
    return {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": sim.url,
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": "2",
        "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
        "FI_REDIS_URL": redis_url,
        "FI_GATE_NAME": gate_name,
        "FI_DATABASE_URL": corpus,
        "FI_LIVE_DATABASE_URL": live,
        "FI_VISITOR_SECRET": VISITOR_SECRET,
        **extra,
    }


@contextmanager
def replicas(count: int, env: dict[str, str]) -> Iterator[list[ServerProcess]]:
    """``count`` app processes with the same environment, booted at once (migrations race on purpose)."""
    managers: list[AbstractContextManager[ServerProcess]] = [app_server(env) for _ in range(count)]
    with ExitStack() as stack, ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(m.__enter__) for m in managers]
        servers: list[ServerProcess] = []
        errors: list[Exception] = []
        for manager, future in zip(managers, futures, strict=True):
            try:
                servers.append(future.result())
                stack.push(manager.__exit__)
            except Exception as exc:  # the ones that did boot are stopped by the stack
                errors.append(exc)
        if errors:
            raise errors[0]
        yield servers


@pytest.fixture
def pg_databases() -> Iterator[tuple[str, str]]:
    with postgres_pair() as urls:
        yield urls


def sim_stats(sim: ServerProcess) -> dict:
    return httpx.get(sim.url + "/sim/stats", timeout=5).json()


def gate_status(app: ServerProcess) -> dict:
    return httpx.get(app.url + "/admin/status", timeout=5).json()["gate"]


# -- a private Redis that a test may stop (never the shared one on 6379) ----------------------------


class PrivateRedis:
    def __init__(self, binary: str, port: int) -> None:
        self.binary = binary
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        subprocess.run(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "yes",
            ],
            check=True,
            capture_output=True,
        )
        wait_for_sync(self.answers, 5, "the private redis to start")

    def stop(self) -> None:
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True, check=False)
        wait_for_sync(lambda: not self.answers(), 5, "the private redis to stop")

    def answers(self) -> bool:
        done = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, check=False)
        return done.stdout.strip() == b"PONG"


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    require("redis-server")
    require("redis-cli")
    binary = shutil.which("redis-server")
    assert binary is not None
    redis = PrivateRedis(binary, free_port())
    redis.start()
    try:
        yield redis
    finally:
        subprocess.run(["redis-cli", "-p", str(redis.port), "shutdown", "nosave"], capture_output=True, check=False)

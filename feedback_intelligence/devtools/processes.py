"""Real server processes for tests and benchmarks: the app (``feedctl serve``) and the simulated Ollama."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]  # the checkout (PYTHONPATH for children)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout_s: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.HTTPError as exc:
            last = exc
            time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout_s} s: {last}")


class ServerProcess:
    def __init__(self, proc: subprocess.Popen, url: str, log_path: Path) -> None:
        self.proc = proc
        self.url = url
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def _spawn(args: list[str], env: dict[str, str], log_name: str) -> tuple[subprocess.Popen, Path]:
    log_dir = Path(tempfile.mkdtemp(prefix="fi-proc-"))
    log_path = log_dir / f"{log_name}.log"
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **env}
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=env.get("FI_TEST_CWD", str(REPO)),
        env=full_env,
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
    )
    return proc, log_path


@contextmanager
def sim_ollama(
    parallel: int = 2,
    max_queue: int = 8,
    service_ms: int = 300,
    load_ms: int = 0,
    extra: list[str] | None = None,
    port: int | None = None,
) -> Iterator[ServerProcess]:
    port = port or free_port()  # a fixed port brings a killed sim back where the app looks for it
    proc, log_path = _spawn(
        [
            "-m",
            "feedback_intelligence.sim",
            "--port",
            str(port),
            "--parallel",
            str(parallel),
            "--max-queue",
            str(max_queue),
            "--service-ms",
            str(service_ms),
            "--load-ms",
            str(load_ms),
            *(extra or []),
        ],
        {},
        "sim",
    )
    server = ServerProcess(proc, f"http://127.0.0.1:{port}", log_path)
    try:
        wait_http(server.url + "/api/version", proc=proc)
        yield server
    finally:
        server.stop()


@contextmanager
def app_server(
    env: dict[str, str], data_dir: Path | None = None, *, log_level: str = "warning"
) -> Iterator[ServerProcess]:
    """``feedctl serve`` as a real process; SQLite files under a fresh temp dir unless told otherwise.
    ``log_level`` ``info`` writes the access log and the info lines too (``ServerProcess.log``)."""
    port = free_port()
    data = data_dir or Path(tempfile.mkdtemp(prefix="fi-data-"))
    base_env = {
        "FI_PORT": str(port),
        "FI_HOST": "127.0.0.1",
        "FI_DATABASE_URL": f"sqlite:///{data}/feedback.db",
        "FI_LIVE_DATABASE_URL": f"sqlite:///{data}/desk-live.db",
        "FI_SNAPSHOT_DIR": str(data / "snapshots"),
        "FI_TEST_CWD": str(data),
        # Tests count the backend's calls: the start-up warm-up is asked for where it is under test.
        "FI_WARM_AT_START": "0",
    }
    proc, log_path = _spawn(
        ["-m", "feedback_intelligence", "serve", "--log-level", log_level], {**base_env, **env}, "app"
    )
    server = ServerProcess(proc, f"http://127.0.0.1:{port}", log_path)
    try:
        wait_http(server.url + "/livez", timeout_s=60, proc=proc)
        yield server
    finally:
        server.stop()


def on_sim(sim: ServerProcess, **env: str) -> dict[str, str]:
    """The app's environment for the Ollama backend at ``sim`` (a simulated Ollama), plus ``env``."""
    return {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": sim.url, "FI_LLM_MODEL": "sim-model", **env}


@contextmanager
def app_on_sim(env: dict[str, str] | None = None, *, service_ms: int = 20) -> Iterator[ServerProcess]:
    """``feedctl serve`` over a simulated Ollama of its own: the pages' and the API's usual test app."""
    with sim_ollama(service_ms=service_ms) as sim, app_server(on_sim(sim, **(env or {}))) as server:
        yield server


@contextmanager
def llama_cpp_server(context_tokens: int = 2048, *, alias: str = "smollm2", ready_s: float = 120) -> Iterator[str]:
    """llama-cpp-python's own OpenAI-compatible server on the packaged GGUF (a real peer, not ours).

    Yields its base URL (without ``/v1``) once ``/v1/models`` answers.
    """
    from feedback_intelligence.llm.engine.model_file import packaged_model_path

    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(packaged_model_path())]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(context_tokens), "--model_alias", alias]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/v1/models", timeout_s=ready_s, proc=proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)

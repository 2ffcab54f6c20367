"""The service's handle on one engine child process: start it, send it calls, see how it ended."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from feedback_intelligence.llm.engine.protocol import (
    REPLIES,
    Cancel,
    Complete,
    Done,
    Failed,
    Fatal,
    Message,
    Ready,
    Started,
    encode,
)
from feedback_intelligence.llm.engine.supervisor import describe_exit

log = logging.getLogger(__name__)

_LINE_LIMIT = 4 * 1024 * 1024  # one reply a line; a reply is a few kB


class EngineExited(Exception):
    """The child ended (crashed, was killed, or could not start): every call in flight ends with this."""

    def __init__(self, returncode: int | None, fatal: str | None, *, before_ready: bool) -> None:
        self.returncode = returncode
        self.fatal = fatal
        self.before_ready = before_ready
        super().__init__(fatal or f"the engine process {describe_exit(returncode)}")


class CallFailed(Exception):
    """One call raised inside the child (the child serves on)."""


def _retrieve(future: asyncio.Future[Done]) -> None:
    if not future.cancelled():
        future.exception()


def worker_command(model_path: Path, *, context_tokens: int, threads: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "feedback_intelligence.llm.engine.worker",
        "--model",
        str(model_path),
        "--context-tokens",
        str(context_tokens),
        "--threads",
        str(threads),
        "--parent-pid",
        str(os.getpid()),
    ]


class EngineChild:
    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        self._command = command
        self._process: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._calls: dict[int, tuple[asyncio.Future[Done], Callable[[], None] | None]] = {}
        self._ready: asyncio.Future[Ready] | None = None
        self._fatal: str | None = None
        self._exited: asyncio.Future[int] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self.info: Ready | None = None
        self.last_done: Done | None = None  # the last call's reply (tokens made, stopped early or not)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def start(self) -> Ready:
        """Spawn the child and wait until it has loaded and answered its first completion."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._exited = loop.create_future()
        self._process = await asyncio.create_subprocess_exec(
            *self._command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=_LINE_LIMIT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self._tasks = [
            asyncio.create_task(self._read_replies(), name=f"{self.name}-replies"),
            asyncio.create_task(self._read_stderr(), name=f"{self.name}-stderr"),
        ]
        watched: set[asyncio.Future[Any]] = {self._ready, self._exited}
        try:
            await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            await self.stop()
            raise
        if self._ready.done() and not self._ready.cancelled():
            self.info = self._ready.result()
            return self.info
        raise EngineExited(self._exited.result(), self._fatal, before_ready=True)

    async def complete(
        self,
        request: Complete,
        *,
        on_started: Callable[[], None] | None = None,
        on_finished: Callable[[], None] | None = None,
    ) -> Done:
        """Send one call; a caller that is cancelled asks the child to stop at its next token.
        ``on_finished`` runs when the child is really done with the call (answered, stopped, or dead),
        which after a cancellation is a token later than the caller left."""
        if self._process is None or self._process.stdin is None or (self._exited and self._exited.done()):
            raise EngineExited(self.returncode, self._fatal, before_ready=False)
        call_id = next(self._ids)
        future: asyncio.Future[Done] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_retrieve)  # a caller that left does not read the outcome: no warning
        if on_finished is not None:
            future.add_done_callback(lambda _: on_finished())
        self._calls[call_id] = (future, on_started)
        self._send(request.model_copy(update={"id": call_id}))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._send(Cancel(id=call_id))
            raise

    def _send(self, message: Message) -> None:
        assert self._process is not None and self._process.stdin is not None
        with contextlib.suppress(ConnectionError, RuntimeError):  # a dead child is seen by the reader
            self._process.stdin.write(encode(message))

    async def _read_replies(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        try:
            async for line in self._process.stdout:
                try:
                    reply = REPLIES.validate_json(line)
                except ValidationError:
                    log.warning("%s: unreadable line from the engine: %r", self.name, line[:200])
                    continue
                self._dispatch(reply)
        except (ValueError, asyncio.LimitOverrunError):
            log.error("%s: the engine sent a line over %d bytes; stopping it", self.name, _LINE_LIMIT)
            self.kill()
        returncode = await self._process.wait()
        error = EngineExited(returncode, self._fatal, before_ready=self.info is None)
        for future, _ in self._calls.values():
            if not future.done():
                future.set_exception(error)
        self._calls.clear()
        assert self._exited is not None
        if not self._exited.done():
            self._exited.set_result(returncode)

    def _dispatch(self, reply: Ready | Started | Done | Failed | Fatal) -> None:
        if isinstance(reply, Ready):
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(reply)
        elif isinstance(reply, Fatal):
            self._fatal = reply.message
        elif isinstance(reply, Started):
            entry = self._calls.get(reply.id)
            if entry is not None and entry[1] is not None:
                entry[1]()
        else:
            entry = self._calls.pop(reply.id, None)
            if entry is None or entry[0].done():
                return
            if isinstance(reply, Done):
                self.last_done = reply
                entry[0].set_result(reply)
            else:
                entry[0].set_exception(CallFailed(reply.message))

    async def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        async for raw in self._process.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line:
                self.stderr_tail.append(line)
                log.info("%s: %s", self.name, line)

    async def wait_exit(self) -> int:
        assert self._exited is not None
        return await asyncio.shield(self._exited)

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process is not None else None

    @property
    def fatal(self) -> str | None:
        return self._fatal

    def rss_bytes(self) -> int | None:
        """Resident memory of the child (Linux ``/proc``); None where it cannot be read."""
        if self.pid is None or self.returncode is not None:
            return None
        try:
            with open(f"/proc/{self.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
        return None

    def kill(self) -> None:
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()

    async def stop(self, grace_s: float = 3.0) -> None:
        """Close its stdin (the child exits by itself), then kill it if it has not within ``grace_s``."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), grace_s)
        except TimeoutError:
            self.kill()
            await process.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

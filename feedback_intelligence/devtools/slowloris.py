"""A slowloris crowd for tests and benchmarks: many sockets from one source address that each send a
request head a byte at a time and never finish it, reconnecting on its next round (``trickle_s``)
whenever the server drops or refuses one.

It runs as a process of its own (:func:`slowloris`), so a caller's probes are timed without sharing
an interpreter with the crowd. Binding a source address of its own (``127.0.0.2``) lets a test tell
the crowd's address apart from the prober's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from feedback_intelligence.devtools.processes import REPO


@dataclass
class SlowlorisCounts:
    connects: int = 0  # connections the server accepted at TCP level
    refused: int = 0  # answered 429 too_many_connections at once
    dropped: int = 0  # closed by the server after a while (a header or read deadline)
    open: int = 0  # open when the crowd stopped, still trickling
    most_open: int = 0  # the most that were open and trickling at one time


class SlowlorisCrowd:
    def __init__(self, host: str, port: int, sockets: int, *, source: str, trickle_s: float) -> None:
        self.host, self.port, self.sockets, self.source, self.trickle_s = host, port, sockets, source, trickle_s
        self.counts = SlowlorisCounts()
        self.stop = asyncio.Event()
        self.all_tried = asyncio.Event()  # every socket connected (or was refused) at least once
        self._tried = 0

    async def run(self) -> None:
        await asyncio.gather(*(self._one() for _ in range(self.sockets)))

    async def _one(self) -> None:
        first = True
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port, local_addr=(self.source, 0))
            except OSError:
                await asyncio.sleep(0.05)  # the backlog is full: try again, as an attacker would
                continue
            self.counts.connects += 1
            await self._trickle(reader, writer, first)
            first = False
            # Reconnect on the next round, as the classic tool re-creates dropped sockets once per
            # pass; a tight loop would mostly measure this process's CPU on the same machine.
            await asyncio.sleep(self.trickle_s * (0.5 + random.random()))  # rounds drift apart

    def _tried_once(self) -> None:
        self._tried += 1
        if self._tried == self.sockets:
            self.all_tried.set()

    async def _trickle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bool) -> None:
        answer = b""
        counted_open = False
        try:
            writer.write(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while not self.stop.is_set():
                with contextlib.suppress(TimeoutError):
                    answer = await asyncio.wait_for(reader.read(4096), self.trickle_s)
                    break  # the server spoke (a refusal) or closed (b"")
                if not counted_open:  # still open after one trickle interval: the server holds it
                    counted_open = True
                    self.counts.open += 1
                    self.counts.most_open = max(self.counts.most_open, self.counts.open)
                    if first:
                        self._tried_once()
                writer.write(b"X")  # one more header byte, never the blank line
                await writer.drain()
        except OSError:
            pass  # reset by the server
        finally:
            if counted_open:
                self.counts.open -= 1
            elif first:
                self._tried_once()
            if b" 429 " in answer[:20]:
                self.counts.refused += 1
            elif not self.stop.is_set():
                self.counts.dropped += 1
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _main(args: argparse.Namespace) -> None:
    crowd = SlowlorisCrowd(args.host, args.port, args.sockets, source=args.source, trickle_s=args.trickle_s)
    running = asyncio.create_task(crowd.run())
    await crowd.all_tried.wait()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # until told to stop
    open_at_stop = crowd.counts.open
    crowd.stop.set()
    await asyncio.wait_for(running, 30)
    crowd.counts.open = open_at_stop
    print(json.dumps(asdict(crowd.counts)), flush=True)


class SlowlorisProcess:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.counts: SlowlorisCounts | None = None  # set when it stops

    def finish(self) -> SlowlorisCounts:
        if self.counts is None:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
            self.counts = SlowlorisCounts(**json.loads(self.proc.stdout.readline()))
            self.proc.wait(30)
        return self.counts


@contextlib.contextmanager
def slowloris(
    port: int, sockets: int, *, host: str = "127.0.0.1", source: str = "127.0.0.2", trickle_s: float = 0.5
) -> Iterator[SlowlorisProcess]:
    """The crowd against ``host:port`` until the block ends; ready once every socket was tried once."""
    command = [sys.executable, "-m", "feedback_intelligence.devtools.slowloris", "--host", host, "--port", str(port)]
    command += ["--sockets", str(sockets), "--source", source, "--trickle-s", str(trickle_s)]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    crowd = SlowlorisProcess(proc)
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the slowloris crowd did not start (exit {proc.poll()})")
        yield crowd
        crowd.finish()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--source", default="127.0.0.2")
    parser.add_argument("--trickle-s", type=float, default=0.5)
    asyncio.run(_main(parser.parse_args()))

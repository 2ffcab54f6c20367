"""An adaptive limit the replicas share: one Gradient2 state per backend in Redis, beside its pool's keys.

Each replica measures its own completed calls and applies them to the one state every replica admits
against (``fi:gate:<pool>:limit``, a hash; the admission scripts read its ``limit``, lua/limit.lua). The
arithmetic is gate/limit.py's :func:`~.limit.gradient2_step`, here as in-process, never a Lua twin: a
replica reads the state with the calls in flight across replicas (``lua/limit_read.lua``), applies its
samples, and writes the result only if no other replica wrote in between (``lua/limit_write.lua``, a
compare-and-set on the state's version). A replica that lost the race reads again and applies the same
samples to the newer state, so no sample is lost or counted twice. Its samples wait in order for one
flush at a time, so a busy replica sends one write for many calls and races only other replicas.

A replica that dies between read and write has written nothing; the hash is always a whole state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from feedback_intelligence.gate.limit import (
    Gradient2Settings,
    Gradient2State,
    LimitChange,
    announce,
    check,
    gradient2_step,
    initial_state,
    per_token,
)
from feedback_intelligence.redis_leases import lua_script

log = logging.getLogger(__name__)

_READ = lua_script("feedback_intelligence.gate", "limit_read.lua")
_WRITE = lua_script("feedback_intelligence.gate", "policy.lua", "queues.lua", "limit.lua", "limit_write.lua")

ATTEMPTS = 5  # writes lost to other replicas in a row before the samples wait for the next call
PENDING_MAX = 1000  # samples kept while Redis is away; the oldest go first
KEEP_S = 24 * 3600  # a state nobody touched for this long lapses: the limit starts again at its floor


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def parse(flat: Sequence[object], settings: Gradient2Settings) -> tuple[int, Gradient2State, str]:
    """The version, the state and the last move stored in the hash (a fresh state when there is none)."""
    fields = {_text(k): _text(v) for k, v in zip(flat[::2], flat[1::2], strict=True)}
    if "estimate" not in fields:
        return int(fields.get("version", 0)), initial_state(settings), ""
    state = Gradient2State(
        float(fields["estimate"]),
        float(fields["long"]),
        int(fields["samples"]),
        # a hash written before the limit yielded to a neighbour has none of these: nothing learned yet
        float(fields.get("slope", 0.0)),
        float(fields.get("excess", 0.0)),
        fields.get("neighbour", "0") == "1",
        # nor these (written since the limit yields with room, ADR 0080): the slope learns again
        int(fields.get("taught", 0)),
        float(fields.get("ratio", 0.0)),
        float(fields.get("mix", 0.0)),
        float(fields.get("resume", 0.0)),
    )
    return int(fields["version"]), state.within(settings), fields.get("reason", "")


def stored(state: Gradient2State) -> list[str | int]:
    """The state as the hash's fields (repr: the shortest text that reads back as the very same float)."""
    return [
        *("limit", state.limit, "estimate", repr(state.estimate), "long", repr(state.long)),
        *("samples", state.samples, "slope", repr(state.slope), "excess", repr(state.excess)),
        *("neighbour", int(state.neighbour), "taught", state.taught, "ratio", repr(state.ratio)),
        *("mix", repr(state.mix), "resume", repr(state.resume)),
    ]


class SharedGradient2:
    """One backend's Gradient2 limit, shared through Redis by every replica's pool of that backend.

    ``current`` and ``reason`` are what this replica last read or wrote (for its load ordering and the
    operator's views); admission never uses them, it reads the hash itself.
    """

    adaptive = True

    def __init__(
        self, redis: aioredis.Redis, backend: str, gate_keys: Sequence[str], settings: Gradient2Settings, reserve: int
    ) -> None:
        check(settings)
        self.backend = backend
        self.settings = settings
        self.gate_keys = list(gate_keys)  # lua/queues.lua's layout: [0] leases, [11] the limit hash
        self.reserve = reserve
        self.current = initial_state(settings).limit
        self.reason = ""
        self._read = redis.register_script(_READ)
        self._write = redis.register_script(_WRITE)
        self._pending: list[tuple[float, float]] = []  # seconds and prompt tokens per output token, oldest first
        self._flushing = asyncio.Lock()

    @property
    def key(self) -> str:
        return self.gate_keys[11]

    def seen(self, limit: int, reason: str) -> None:
        """What another read (occupancy) found in Redis."""
        self.current, self.reason = limit, reason

    async def sample(self, latency_s: float, tokens: int, prompt_tokens: int = 0) -> LimitChange | None:
        """One completed call on this replica: its latency per token goes into the shared state. The
        change it caused (with the samples it was sent with), if any; logged here, by the replica that
        wrote it. Never fails the call it measures: on a Redis error, or a hash no replica wrote (edited by
        hand), the samples wait for the next call."""
        short, prompt_per_token = per_token(latency_s, tokens, prompt_tokens)
        if short <= 0:
            return None
        self._pending.append((short, prompt_per_token))
        del self._pending[:-PENDING_MAX]
        async with self._flushing:
            if not self._pending:
                return None  # the flush before this one took it
            try:
                return await self._flush()
            except RedisError as exc:
                log.warning(
                    "backend %s: could not update the shared limit (%d samples wait): %s",
                    self.backend,
                    len(self._pending),
                    exc,
                )
            except ValueError as exc:
                log.warning(
                    "backend %s: the shared limit %s cannot be read (delete it to reset): %s",
                    self.backend,
                    self.key,
                    exc,
                )
            return None

    async def _flush(self) -> LimitChange | None:
        for _ in range(ATTEMPTS):
            batch = list(self._pending)
            flat, in_flight = await self._read(keys=[self.key, self.gate_keys[0]])
            version, before, last = parse(flat, self.settings)
            state, reason = before, ""
            for short, prompt_per_token in batch:
                # One read of the calls in flight serves the batch: it is when their samples arrive.
                state, moved = gradient2_step(self.settings, state, short, int(in_flight), prompt_per_token)
                reason = moved or reason
            fields = stored(state)
            # a move, or the limit beginning or ending to yield to another load (gate/neighbour.py)
            moved_now = state.limit != before.limit or state.neighbour != before.neighbour
            if moved_now:
                last = f"{before.limit} -> {state.limit}: {reason}"
                fields += ["reason", last]
            args = [version, KEEP_S * 1000, self.settings.ceiling, self.settings.floor, self.reserve, *fields]
            if await self._write(keys=self.gate_keys, args=args):
                del self._pending[: len(batch)]
                self.seen(state.limit, last)
                return announce(self.backend, before.limit, state.limit, reason) if moved_now else None
        log.debug("backend %s: shared limit written by others %d times in a row; samples wait", self.backend, ATTEMPTS)
        return None

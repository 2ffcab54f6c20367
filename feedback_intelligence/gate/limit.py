"""How many calls one backend may run at once: the number its slot pool admits against.

A :class:`FixedLimit` is the declared slots (Ollama, where parallelism is a server setting; every
backend unless the operator opts in). A :class:`Gradient2Limit` is for servers that batch (vLLM, SGLang,
``llama-server`` with continuous batching): it moves between a floor and the backend's declared
parallelism from the latency per output token of each completed call, as Netflix concurrency-limits'
``Gradient2Limit`` does with round-trip times (docs/adr/0067-adaptive-limit-for-batching-backends.md).
Its arithmetic is :func:`gradient2_step`, on a :class:`Gradient2State` that lives here in one process or
in Redis for replicas that share one limit (gate/shared_limit.py, docs/adr/0068-a-limit-shared-by-replicas.md).
While it sees another application's load on the GPU it yields to it (gate/neighbour.py, ADR 0077).

A limit only decides the number; who takes a slot under it stays gate/policy.py's.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import Protocol

from feedback_intelligence.gate import neighbour

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LimitChange:
    """One move of a limit and why: the figures it was judged on (logged, shown to the operator)."""

    backend: str
    before: int
    after: int
    reason: str


class Limit(Protocol):
    """The number of calls a backend's pool admits at once."""

    @property
    def current(self) -> int: ...

    @property
    def adaptive(self) -> bool: ...

    @property
    def yielding(self) -> bool:
        """Whether it holds back for another load it sees on the backend (gate/neighbour.py)."""
        ...

    def sample(self, latency_s: float, tokens: int, in_flight: int, prompt_tokens: int = 0) -> LimitChange | None:
        """One completed call: it was held ``latency_s`` and produced ``tokens`` output tokens from
        ``prompt_tokens`` of prompt while ``in_flight`` calls (itself included) ran on the backend. The
        change it caused, if any."""
        ...


class FixedLimit:
    """The declared slots, whatever the latency: today's gate."""

    adaptive = False
    yielding = False

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a gate needs at least one slot")
        self._slots = slots

    @property
    def current(self) -> int:
        return self._slots

    def sample(self, latency_s: float, tokens: int, in_flight: int, prompt_tokens: int = 0) -> LimitChange | None:
        return None


@dataclass(frozen=True, slots=True)
class Gradient2Settings:
    floor: int = 2
    ceiling: int = 64  # the backend's declared parallelism; the limit never exceeds it
    initial: int | None = None  # None: the floor
    tolerance: float = 1.6  # how much slower than its no-load latency a token may get before the limit falls
    smoothing: float = 0.2
    # Gradient2's "queue size", what the limit adds per sample when latency holds: None is the square
    # root of the limit (concurrency-limits' SquareRootFunction), so that a limit of 2 can fall to 4 or
    # below under overload, where a constant 4 would hold it at 8 or more.
    growth: float | None = None
    long_window: int = 600  # samples over which the no-load latency learns a slower token (at the lowest load)
    # An absolute latency per output token above which the limit falls whatever the no-load latency
    # says (0: none): a cap an operator derives from the clerk's latency target.
    target_s_per_token: float = 0.0
    # With another application's load seen on the GPU, how much slower than without us its tokens may get
    # (0: the limit never yields; gate/neighbour.py). Our calls' share of each step stays within it, with room.
    neighbour_tolerance: float = 1.2


WARMUP = 10  # the first samples, whose plain mean is the no-load latency to start from (they run at the floor)


@dataclass(frozen=True, slots=True)
class Gradient2State:
    """What a Gradient2 limit remembers between samples: held by :class:`Gradient2Limit` in-process, or
    in Redis for a limit the replicas share (gate/shared_limit.py). Either way :func:`gradient2_step`
    is the one place it changes."""

    estimate: float  # the limit before it is rounded down to whole slots
    long: float = 0.0  # the long-run (no-load) latency per output token, seconds: :func:`no_load`
    samples: int = 0  # samples taken so far
    slope: float = 0.0  # seconds per token each call of ours in flight adds (gate/neighbour.py)
    excess: float = 0.0  # seconds per token beyond what our own load explains, smoothed
    neighbour: bool = False  # another load is on the GPU: the limit yields to it
    taught: int = 0  # samples the slope learned from since it last started over
    ratio: float = 0.0  # our prompt tokens per output token while the slope learned
    mix: float = 0.0  # our prompt tokens per output token lately
    resume: float = 0.0  # the estimate while the GPU was last quiet: where the limit goes back to after yielding

    @property
    def limit(self) -> int:
        return int(self.estimate)

    def within(self, s: Gradient2Settings) -> Gradient2State:
        """The same state inside the bounds of ``s`` (a state kept in Redis may predate a new floor or
        ceiling)."""
        return replace(self, estimate=max(float(s.floor), min(float(s.ceiling), self.estimate)))


def initial_state(s: Gradient2Settings) -> Gradient2State:
    return Gradient2State(float(s.floor if s.initial is None else s.initial)).within(s)


def lowest(s: Gradient2Settings) -> int:
    """The lowest the limit falls to however slow its tokens: the floor, or where the smallest gradient
    (0.5) and the growth balance, ``limit = limit / 2 + growth`` (4 with the square root)."""
    balance = 4.0 if s.growth is None else 2 * s.growth
    return min(s.ceiling, max(s.floor, math.ceil(balance)))


def no_load(s: Gradient2Settings, state: Gradient2State, short: float, in_flight: int) -> float:
    """The long-run latency per output token, held at what a token takes with (almost) nothing of ours in
    flight, as Vegas holds its no-load round trip: the first ``WARMUP`` samples' plain mean; then a faster
    token pulls it down at once (a window of ``WARMUP`` samples), a slower one pulls it up only if it ran
    with no more in flight than the limit falls to (:func:`lowest`; the long window) and while no other load
    is seen on the GPU (gate/neighbour.py). An average of every call would follow the latency the limit
    itself causes, and let the limit climb with it past the knee.
    """
    if state.samples < WARMUP:
        return (state.long * state.samples + short) / (state.samples + 1)
    if short < state.long:
        factor = 2.0 / (WARMUP + 1)
    elif in_flight <= lowest(s) and not state.neighbour:  # beside another load a slow token is not ours
        factor = 2.0 / (s.long_window + 1)
    else:
        return state.long
    return state.long * (1 - factor) + short * factor


def per_token(latency_s: float, tokens: int, prompt_tokens: int) -> tuple[float, float]:
    """A completed call as the limit reads it: seconds per output token, and prompt tokens per output
    token (what prefill each call of ours brings to the GPU's steps, gate/neighbour.py)."""
    return latency_s / max(1, tokens), max(0, prompt_tokens) / max(1, tokens)


def gradient2_step(
    s: Gradient2Settings, state: Gradient2State, short: float, in_flight: int, prompt_per_token: float = 0.0
) -> tuple[Gradient2State, str]:
    """One completed call, ``short`` seconds per output token while ``in_flight`` calls ran (``prompt_per_token``
    prompt tokens per output token): the next state, and why the whole limit moved or began or stopped
    yielding ("" when neither).

    ``gradient = clamp(tolerance * long / short, 0.5, 1)`` (with a target, also at most
    ``target / short``); the new limit is ``limit * gradient + growth``, smoothed, within the floor and
    the ceiling; ``long`` is the no-load latency per token (:func:`no_load`). While another load is on
    the GPU (gate/neighbour.py) the new limit is also at most the calls that keep its tokens within
    ``neighbour_tolerance``, at once (not smoothed: each second over it is the neighbour's); once that load
    is gone the limit goes back to its estimate from before that load came. While fewer than half the limit's calls
    are in flight the limit does not rise.
    """
    state = state.within(s)
    long = no_load(s, state, short, in_flight)
    outside = neighbour.Outside(state.slope, state.excess, state.neighbour, state.taught, state.ratio, state.mix)
    if s.neighbour_tolerance > 1:
        outside = neighbour.our_mix(outside, prompt_per_token)
        if state.samples >= WARMUP:  # the no-load latency the excess is judged against is not known before
            outside = neighbour.observe(outside, long, short, in_flight, s.floor, lowest(s))
    learned = replace(
        state,
        long=long,
        samples=state.samples + 1,
        slope=outside.slope,
        excess=outside.excess,
        neighbour=outside.present,
        taught=outside.taught,
        ratio=outside.ratio,
        mix=outside.mix,
        # held from before the other load's excess began to rise (Gradient2 had already fallen a little)
        resume=state.estimate if neighbour.quiet(outside, long) else state.resume,
    )
    share = neighbour.share_limit(outside, long, s.floor, s.neighbour_tolerance) if outside.present else math.inf
    gradient = max(0.5, min(1.0, s.tolerance * long / short))
    if s.target_s_per_token > 0:
        gradient = max(0.5, min(gradient, s.target_s_per_token / short))
    growth = math.sqrt(state.estimate) if s.growth is None else s.growth
    if state.neighbour and not outside.present:
        # The other load is gone: back to where the limit stood before it came, as Gradient2 held it on
        # the quiet GPU; if that is too many for the GPU now, Gradient2 takes it down again.
        moved = replace(learned, estimate=max(state.estimate, state.resume)).within(s)
    elif in_flight < state.estimate / 2 and share >= state.estimate:
        moved = learned  # the backend is not the bottleneck: the limit holds (no growth on load never seen)
    else:
        proposed = state.estimate * (1 - s.smoothing) + (state.estimate * gradient + growth) * s.smoothing
        moved = replace(learned, estimate=min(proposed, share)).within(s)
    if moved.limit == state.limit and outside.present == state.neighbour:
        return moved, ""
    target = f", target {s.target_s_per_token * 1000:.1f}" if s.target_s_per_token > 0 else ""
    reason = (
        f"{short * 1000:.1f} ms/token against {long * 1000:.1f} ms/token no-load{target}"
        f" (gradient {gradient:.2f}, {in_flight} in flight)"
    )
    return moved, reason + _outside_reason(s, state.neighbour, outside, share)


def _outside_reason(s: Gradient2Settings, was: bool, outside: neighbour.Outside, share: float) -> str:
    """The part of a move's reason that concerns another load on the GPU ("" when there is none)."""
    added = f"{outside.excess * 1000:.1f} ms/token more than our {outside.slope * 1000:.2f} ms/token a call explains"
    if outside.present:
        start = "another load on the GPU" if not was else "yielding to another load"
        return f"; {start}: {added}, at most {share:.1f} of ours keep it within {s.neighbour_tolerance:g}×"
    return f"; the other load is gone: {added}" if was else ""


def announce(backend: str, before: int, after: int, reason: str) -> LimitChange:
    """A limit moved: logged with why, as the operator reads it."""
    log.info("backend %s limit %d -> %d: %s", backend, before, after, reason)
    return LimitChange(backend, before, after, reason)


class Gradient2Limit:
    """Gradient2 on the latency per output token, in this process (:func:`gradient2_step`).

    Each sample compares this call's latency per token (short) with the no-load latency per token
    (long). It settles where ``limit * (1 - gradient) = growth``: a token somewhat slower than
    ``tolerance`` times the no-load one (or the target), which is what keeps the batch full. While
    fewer than half the limit's calls are in flight the backend is not the bottleneck and the limit
    holds (it does not grow on load it never saw).
    """

    adaptive = True

    def __init__(self, backend: str, settings: Gradient2Settings) -> None:
        check(settings)
        self.backend = backend
        self.settings = settings
        self.state = initial_state(settings)
        self.last_change: LimitChange | None = None

    @property
    def current(self) -> int:
        return self.state.limit

    @property
    def yielding(self) -> bool:
        return self.state.neighbour

    def sample(self, latency_s: float, tokens: int, in_flight: int, prompt_tokens: int = 0) -> LimitChange | None:
        short, prompt_per_token = per_token(latency_s, tokens, prompt_tokens)
        if short <= 0:
            return None
        before = self.current
        self.state, reason = gradient2_step(self.settings, self.state, short, in_flight, prompt_per_token)
        if not reason:
            return None
        self.last_change = announce(self.backend, before, self.current, reason)
        return self.last_change


def check(settings: Gradient2Settings) -> None:
    if not 1 <= settings.floor <= settings.ceiling:
        raise ValueError("an adaptive limit needs 1 <= floor <= ceiling")
    if settings.neighbour_tolerance != 0 and settings.neighbour_tolerance <= 1:
        raise ValueError("a neighbour tolerance is 0 (never yield) or more than 1")

"""Telling another application's load on the GPU (a neighbour) from our own, for the adaptive limit.

On a batching GPU every running sequence shares each step, so a token of ours takes about what a token of
the neighbour's takes. On a quiet GPU our latency per token is our no-load latency plus a share per call of
ours in flight (the *slope*, learned from calls that ran with more than the limit's lowest in flight). When a
token takes more than that explains, the rest (the *excess*) is someone else's. While the excess is clearly
there the limit yields: it keeps our calls' share of each step within ``neighbour_tolerance`` of what the
step takes without them, which is the neighbour's slowdown because of us
(docs/adr/0077-the-limit-yields-to-a-neighbour.md). The arithmetic stays inside gate/limit.py's one
``gradient2_step``; these are its parts.
"""

from __future__ import annotations

from dataclasses import dataclass

SLOPE_WINDOW = 100  # samples over which the share per call of ours learns (only while the excess is small)
EXCESS_WINDOW = 20  # samples over which the excess is smoothed: a few seconds of calls, not one odd call
ENTER = 0.6  # excess, as a fraction of the no-load latency, above which someone else is on the GPU...
LEAVE = ENTER / 2  # ...and below which they are gone (apart, so that noise does not flip it)
LEARNED_AFTER = 20  # samples before the slope is trusted to judge anything


@dataclass(frozen=True, slots=True)
class Outside:
    """What the limit knows of load that is not ours."""

    slope: float  # seconds per token each call of ours in flight adds (on a quiet GPU)
    excess: float  # seconds per token beyond what our load explains (smoothed)
    present: bool  # someone else is on the GPU: the limit yields


def expected(no_load: float, slope: float, in_flight: int, floor: int) -> float:
    """What a token of ours takes with ``in_flight`` of our calls and nobody else. The no-load latency is
    what a token took at the floor (the first calls run there), so our share is counted from it."""
    return no_load + slope * (in_flight - floor)


def observe(
    outside: Outside, no_load: float, short: float, in_flight: int, samples: int, floor: int, lowest: int
) -> Outside:
    """One completed call (``short`` seconds a token with ``in_flight`` of ours): the next view of the
    outside load. The slope learns only while the excess is small, from calls with more in flight than
    ``lowest`` (below it the no-load latency learns); the excess always, smoothed."""
    slope = outside.slope
    # Only while the excess is well below where someone else is seen: an excess on its way there must not
    # be learned as our own share, or a neighbour arriving slowly is never seen.
    quiet = not outside.present and outside.excess < LEAVE * no_load
    if quiet and in_flight > max(lowest, floor):
        seen = max(0.0, short - no_load) / (in_flight - floor)
        slope = seen if slope <= 0 else slope + (seen - slope) * 2 / (SLOPE_WINDOW + 1)
    if slope <= 0 or samples < LEARNED_AFTER:
        return Outside(slope, 0.0, False)
    gap = short - expected(no_load, slope, in_flight, floor)
    excess = outside.excess + (gap - outside.excess) * 2 / (EXCESS_WINDOW + 1)
    present = excess > ENTER * no_load if not outside.present else excess > LEAVE * no_load
    return Outside(slope, excess, present)


def share_limit(outside: Outside, no_load: float, floor: int, tolerance: float) -> float:
    """The most calls of ours that keep the neighbour's tokens within ``tolerance`` of what they take
    without us: our share of a step (``slope`` a call) at most ``tolerance - 1`` of the rest of it. Its
    load counts as at least the least that is seen (``ENTER``): a smaller one is not yielded to anyway,
    and a neighbour leaving (its excess fading) must not squeeze our calls to the floor on its way out."""
    seen = max(outside.excess, ENTER * no_load)
    rest = max(outside.slope, expected(no_load, outside.slope, 0, floor) + seen)
    return (tolerance - 1) * rest / outside.slope

"""Telling another application's load on the GPU (a neighbour) from our own, for the adaptive limit.

On a batching GPU every running sequence shares each step, so a token of ours takes about what a token of
the neighbour's takes. On a quiet GPU our latency per token is our no-load latency plus a share per call of
ours in flight (the *slope*, learned from calls that ran with more than the limit's lowest in flight). When a
token takes more than that explains, the rest (the *excess*) is someone else's. While the excess is clearly
there the limit yields: it keeps our calls' share of each step within ``neighbour_tolerance`` of what the
step takes without them, which is the neighbour's slowdown because of us
(docs/adr/0077-the-limit-yields-to-a-neighbour.md), aiming a little below it
(docs/adr/0080-the-limit-yields-with-room.md). What a call of ours costs is learned for our calls as they
are: longer prompts (more prefill in every step) are learned again, not taken for a neighbour. The
arithmetic stays inside gate/limit.py's one ``gradient2_step``; these are its parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

SLOPE_WINDOW = 100  # samples over which the share per call of ours learns (only while the excess is small)
EXCESS_WINDOW = 20  # samples over which a rising excess is smoothed: a few seconds of calls, not one odd call
# A falling excess is believed sooner: a neighbour that leaves frees the GPU at once, and every call spent
# yielding to nobody costs our clerks (a sixth of a second at a time while the limit yields, not four).
FALLING_WINDOW = 5
ENTER = 0.6  # excess, as a fraction of the no-load latency, above which someone else is on the GPU...
LEAVE = ENTER / 2  # ...and below which they are gone (apart, so that noise does not flip it)
LEARNED_AFTER = 20  # samples the slope learned from before it is trusted to judge anything
# The share aims at this part of the slowdown the tolerance allows: a whole call of ours moves the neighbour
# by about 4 % on the simulated GPU, and at the line (5 calls, 1.195× by the arithmetic) the measured
# neighbour ended 0.01-0.03 over 1.2× in four of seven runs; 0.85 leaves it 4 calls and room.
AIM = 0.85
MIX_WINDOW = 50  # calls over which our prompt tokens per output token are averaged
# Our calls' prompt tokens per output token moving by this factor from what the slope was learned at: the
# prefill each of our calls brings to every step changed, so what a call of ours costs is learned again.
MIX_CHANGE = 1.5


@dataclass(frozen=True, slots=True)
class Outside:
    """What the limit knows of load that is not ours, and of what our own calls cost."""

    slope: float  # seconds per token each call of ours in flight adds (on a quiet GPU)
    excess: float  # seconds per token beyond what our load explains (smoothed)
    present: bool  # someone else is on the GPU: the limit yields
    taught: int = 0  # samples the slope learned from since it was last learned afresh
    ratio: float = 0.0  # our prompt tokens per output token while the slope learned
    mix: float = 0.0  # our prompt tokens per output token lately (0: none seen yet)


def expected(no_load: float, slope: float, in_flight: int, floor: int) -> float:
    """What a token of ours takes with ``in_flight`` of our calls and nobody else. The no-load latency is
    what a token took at the floor (the first calls run there), so our share is counted from it."""
    return no_load + slope * (in_flight - floor)


def quiet(outside: Outside, no_load: float) -> bool:
    """Nobody else is on the GPU, and no excess is on its way to say so: what our calls do now is ours."""
    return not outside.present and outside.excess < LEAVE * no_load


def our_mix(outside: Outside, prompt_per_token: float) -> Outside:
    """One more call's prompt tokens per output token into the recent mix; when the mix moved by
    ``MIX_CHANGE`` from what the slope was learned at, the slope starts over (and judges nothing until it
    has learned again): our own heavier calls are not another load. A neighbour arriving just then is
    learned as ours, as on a fresh start."""
    mix = outside.mix + (prompt_per_token - outside.mix) * (2 / (MIX_WINDOW + 1) if outside.mix > 0 else 1.0)
    if outside.taught and abs(math.log(max(mix, 1e-9) / max(outside.ratio, 1e-9))) > math.log(MIX_CHANGE):
        return Outside(0.0, 0.0, False, 0, mix, mix)
    return replace(outside, mix=mix)


def observe(outside: Outside, no_load: float, short: float, in_flight: int, floor: int, lowest: int) -> Outside:
    """One completed call (``short`` seconds a token with ``in_flight`` of ours): the next view of the
    outside load. The slope learns only while the excess is small, from calls with more in flight than
    ``lowest`` (below it the no-load latency learns); the excess always, smoothed."""
    slope, taught, ratio = outside.slope, outside.taught, outside.ratio
    # Only while quiet: an excess on its way to where someone else is seen must not be learned as our own
    # share, or a neighbour arriving slowly is never seen.
    if quiet(outside, no_load) and in_flight > max(lowest, floor):
        seen = max(0.0, short - no_load) / (in_flight - floor)
        factor = max(2 / (SLOPE_WINDOW + 1), 1 / (taught + 1))  # a plain mean until the window is full
        slope, ratio, taught = slope + (seen - slope) * factor, ratio + (outside.mix - ratio) * factor, taught + 1
    if slope <= 0 or taught < LEARNED_AFTER:
        return replace(outside, slope=slope, taught=taught, ratio=ratio, excess=0.0, present=False)
    gap = short - expected(no_load, slope, in_flight, floor)
    window = FALLING_WINDOW if gap < outside.excess else EXCESS_WINDOW
    excess = outside.excess + (gap - outside.excess) * 2 / (window + 1)
    present = excess > ENTER * no_load if not outside.present else excess > LEAVE * no_load
    return replace(outside, slope=slope, taught=taught, ratio=ratio, excess=excess, present=present)


def share_limit(outside: Outside, no_load: float, floor: int, tolerance: float) -> float:
    """The most calls of ours that keep the neighbour's tokens within ``tolerance`` of what they take
    without us, with room (``AIM``): our share of a step (``slope`` a call) at most ``AIM · (tolerance - 1)``
    of the rest of it. Its load counts as at least the least that is seen (``ENTER``): a smaller one is not
    yielded to anyway, and a neighbour leaving (its excess fading) must not squeeze our calls to the floor
    on its way out."""
    seen = max(outside.excess, ENTER * no_load)
    rest = max(outside.slope, expected(no_load, outside.slope, 0, floor) + seen)
    return AIM * (tolerance - 1) * rest / outside.slope

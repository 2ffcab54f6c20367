"""The gate's admission policy as pure functions: who may take a slot, and who is served next.

Every pool keeps its own state (a counter and queues in this process, sorted sets in Redis) and asks
these functions, or their Lua twins in ``lua/policy.lua``, what to do; no pool writes a rule of its
own. ``tests/gate/test_policy.py`` runs one table of cases through each Python/Lua pair.

A waiter's *rank* is how many waiters of its priority come before it (least attained service
first, arrival among equals; gate/fairness.py), 0 for the head of the queue.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

from feedback_intelligence.gate.slots import Priority

K = TypeVar("K", bound=Hashable)


def admits(priority: Priority, *, slots: int, in_use: int, reserve: int, interactive_waiting: int) -> bool:
    """Whether a call of ``priority`` may take a slot at all.

    Interactive work takes any free slot. Background work takes a slot only while more than
    ``reserve`` slots stay free for live visitors, and never ahead of a waiting visitor.
    """
    free = slots - in_use
    if priority is Priority.INTERACTIVE:
        return free > 0
    return free > reserve and interactive_waiting == 0


def room(priority: Priority, *, slots: int, in_use: int, reserve: int) -> int:
    """How many slots a call of ``priority`` could take now, the background reserve kept back."""
    free = slots - in_use
    return max(0, free if priority is Priority.INTERACTIVE else free - reserve)


def may_take(priority: Priority, rank: int, *, slots: int, in_use: int, reserve: int, interactive_waiting: int) -> bool:
    """Whether the waiter of ``rank`` (0: the head; an arriving call: the waiters it does not pass)
    takes a slot now: the priority is admitted, and there is a slot for it once every waiter ahead
    has taken one. No call ever jumps a waiter of its own priority that comes before it."""
    if not admits(priority, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=interactive_waiting):
        return False
    return rank < room(priority, slots=slots, in_use=in_use, reserve=reserve)


def served_next(
    *, slots: int, in_use: int, reserve: int, interactive_waiting: int, background_waiting: int
) -> Priority | None:
    """Whose queue a slot that is free now goes to: a waiting visitor's first, background work's when
    the rule admits it, else nobody (the slot stays free)."""
    if interactive_waiting > 0 and admits(
        Priority.INTERACTIVE, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=interactive_waiting
    ):
        return Priority.INTERACTIVE
    if background_waiting > 0 and admits(
        Priority.BACKGROUND, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=interactive_waiting
    ):
        return Priority.BACKGROUND
    return None


def next_waiter(waiters: Iterable[tuple[K, float, int]]) -> K | None:
    """The head of one priority's queue from ``(waiter, key, arrival)``: the least key (attained
    service; 0 for everyone under first come), the earliest arrival among equals."""
    best: tuple[float, int, K] | None = None
    for waiter, key, arrival in waiters:
        if best is None or (key, arrival) < (best[0], best[1]):
            best = (key, arrival, waiter)
    return None if best is None else best[2]


def preemption_victim(offers: Mapping[K, float]) -> K | None:
    """Which offered background call a waiting visitor preempts: the most recently offered (it has
    done the least work, so the least is lost); ``None`` when nothing is offered."""
    if not offers:
        return None
    return max(offers, key=lambda lease: offers[lease])

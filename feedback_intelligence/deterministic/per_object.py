"""What is compiled once per domain object (a lexicon, an automaton, a digest), kept by the object itself.

Domain objects are frozen but not cheaply hashable (hashing a lexicon's tuples costs more than the lookup
saves), so the cache is keyed by ``id`` and holds the object too: an id is never reused while its object
is held, so a hit is always the same object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

V = TypeVar("V")


def kept_for(cache: dict[int, tuple[object, V]], owner: object, build: Callable[[], V]) -> V:
    """``build()`` for ``owner``, made on the first call for that object and kept in ``cache``."""
    found = cache.get(id(owner))
    if found is not None and found[0] is owner:
        return found[1]
    value = build()
    cache[id(owner)] = (owner, value)
    return value

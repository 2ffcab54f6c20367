"""What is compiled once per domain object (a lexicon, an automaton, a digest), kept by the object itself.

Domain objects are frozen but not cheaply hashable (hashing a lexicon's tuples costs more than the lookup
saves), so the cache is keyed by ``id`` and holds the object too: an id is never reused while its object
is held, so a hit is always the same object.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


def kept_for(cache: dict[int, tuple[object, V]], owner: object, build: Callable[[], V]) -> V:
    """``build()`` for ``owner``, made on the first call for that object and kept in ``cache``."""
    found = cache.get(id(owner))
    if found is not None and found[0] is owner:
        return found[1]
    value = build()
    cache[id(owner)] = (owner, value)
    return value


class RecentTexts(Generic[V]):
    """What was read of the last ``size`` texts, per domain object (or any owner), least recently used out
    first; thread-safe, as a batch reads in a worker thread while the loop serves a desk."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[int, str], tuple[object, V]] = OrderedDict()

    def get(self, text: str, owner: object) -> V | None:
        key = (id(owner), text)
        with self._lock:
            hit = self._items.get(key)
            if hit is None or hit[0] is not owner:
                return None
            self._items.move_to_end(key)
            return hit[1]

    def put(self, text: str, owner: object, value: V) -> None:
        key = (id(owner), text)
        with self._lock:
            self._items[key] = (owner, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

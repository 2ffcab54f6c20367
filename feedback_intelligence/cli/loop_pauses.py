"""What keeps the event loop's pauses short in the serving process (``feedctl serve``; docs/adr/0043).

The loop shares the interpreter with worker threads (a batch's rules and derivation). Two pauses are
the interpreter's, not the work's:

- **Turns at the interpreter lock.** A thread holding it gives it up this long after the loop asks:
  Python's 5 ms, paid again on every callback the loop runs (each socket read of a 4 MB body is one),
  stalled ``/livez`` for ~0.3 s while a batch worked; at 1 ms a batch stores as many rows a second.
- **The full garbage collection.** It holds the lock while it walks every tracked object, and at start
  the process has ~190,000 of them (modules, the domain, the lexicons, the runtime): 75–110 ms a pass,
  run whenever a batch's new objects tipped the balance, on whichever thread allocated. Frozen once
  the service has started, they are no longer walked; a pass then walks what was made since.
"""

from __future__ import annotations

import gc
import sys

SWITCH_INTERVAL_S = 0.001


def shorten_lock_turns() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def freeze_what_start_up_made() -> None:
    """After start-up: its garbage collected, and what is still alive left out of every later pass."""
    gc.collect()
    gc.freeze()

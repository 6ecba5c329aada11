"""How fast this machine runs Python right now: a reference printed beside the simulator
figures, since the shared machine's speed varies over a session."""

from __future__ import annotations

import time


def loop_seconds() -> float:
    """CPU seconds for 10M empty loop iterations (best of 3), to read the figures against
    (a 2023 laptop core: about 0.15 s)."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for _ in range(10_000_000):
            pass
        best = min(best, time.process_time() - started)
    return best


def reference() -> str:
    """The line the benches print."""
    return f"   machine: 10M empty loop iterations in {loop_seconds():.2f} s CPU (laptop ~0.15 s)"

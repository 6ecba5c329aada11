"""Helpers of the simulator benches (not a bench itself: no ``bench_`` prefix)."""

from __future__ import annotations

import time
from typing import Any

from engine.simulate import simulate


def recording_rate(prepared: Any, n: int, runs: int = 2) -> float:
    """Matches per CPU second when every event is recorded in full (``counting=False``: the
    log live play uses), best of ``runs``: the figure the counting mode is measured against."""
    best = 0.0
    for run in range(runs):
        cpu = time.process_time()
        simulate(prepared, n, seed=run, counting=False)
        best = max(best, n / (time.process_time() - cpu))
    return best

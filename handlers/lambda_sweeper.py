"""AWS Lambda entry for the once-a-minute turn clock (EventBridge Scheduler, ``template.yaml``).

It runs :func:`engine.usecases.sweep`, as the local runner's timer does: resolve turns past
their deadline, send the one reminder per turn, end expired pauses - and hands the results to
the bot to announce. Every step is conditional on the match version and turn, so an
overlapping or repeated sweep does nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from handlers import runtime
from handlers.metrics import metric
from handlers.runtime import Runtime

log = logging.getLogger("sekundant.lambda")


# Matches one run looks at (the due index is read page by page up to this), and the time a
# run keeps in reserve before its Timeout (template.yaml: 50 s) to deliver and report.
SWEEP_LIMIT = 1000
RESERVE_SECONDS = 15.0


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The function's handler (``template.yaml``: ``handlers.lambda_sweeper.lambda_handler``)."""
    return sweep(runtime.container(webhook=False), time_left=time_left_for(context))


def time_left_for(context: Any) -> Callable[[], bool] | None:
    """Whether the invocation still has more than :data:`RESERVE_SECONDS` (None: no limit)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    return lambda: float(remaining()) / 1000 > RESERVE_SECONDS


def sweep(
    rt: Runtime, limit: int = SWEEP_LIMIT, time_left: Callable[[], bool] | None = None
) -> dict[str, Any]:
    """One sweep with the runtime ``rt``: the clock's work on every due match (a match that
    keeps failing is parked after ``usecases.PARK_AFTER`` runs), then the outbox (what is
    owed and not yet delivered). Returns counts for the log (and tests); metrics for the
    alarms. Raises only when the store cannot even be read (the invocation fails: the
    alarm on the function's errors, and its on-failure destination)."""
    from engine import usecases  # wired with the runtime (handlers.runtime)
    from handlers.telegram import bot, outbox

    deps = rt.deps
    errors = rt.services.errors
    errors.clear()

    def failed_match(match_id: str, exc: Exception) -> None:  # still due: retried next minute
        log.error("sweeping match %s failed: %s: %s", match_id, type(exc).__name__, exc)
        errors.append(exc)

    results = usecases.sweep(deps, limit, on_error=failed_match, time_left=time_left)
    failed = len(errors)
    if results:
        try:  # the results are saved with what they owe: the outbox sends it
            rt.run(bot.announce_sweep(rt.app, results))
        except Exception as exc:
            errors.append(exc)
    for err in errors[failed:]:
        log.error("announcing a sweep result failed: %s: %s", type(err).__name__, err)
    delivery = rt.run(outbox.deliver_due(rt.app, time_left=time_left))
    kinds: dict[str, int] = {}
    for r in results:
        kinds[type(r).__name__] = kinds.get(type(r).__name__, 0) + 1
    summary = {"results": len(results), **kinds, "errors": len(errors), **delivery}
    metric("SweepErrors", len(errors))
    errors.clear()
    log.info("sweep done", extra={"sweep": summary})
    return summary

"""AWS Lambda entry for the once-a-minute turn clock (EventBridge Scheduler, ``template.yaml``).

It runs :func:`engine.usecases.sweep`, as the local runner's timer does: resolve turns past
their deadline, send the one reminder per turn, end expired pauses - and hands the results to
the bot to announce. Every step is conditional on the match version and turn, so an
overlapping or repeated sweep does nothing twice.
"""

from __future__ import annotations

import logging
from typing import Any

from handlers import runtime
from handlers.runtime import Runtime

log = logging.getLogger("sekundant.lambda")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The function's handler (``template.yaml``: ``handlers.lambda_sweeper.lambda_handler``)."""
    return sweep(runtime.container(webhook=False))


def sweep(rt: Runtime, limit: int = 50) -> dict[str, Any]:
    """One sweep with the runtime ``rt``; returns counts for the log (and tests)."""
    from engine import usecases  # wired with the runtime (handlers.runtime)
    from handlers.telegram import app

    deps = rt.deps
    errors = rt.services.errors
    errors.clear()

    def failed_match(match_id: str, exc: Exception) -> None:  # still due: retried next minute
        log.error("sweeping match %s failed: %s: %s", match_id, type(exc).__name__, exc)
        errors.append(exc)

    results = usecases.sweep(deps, limit, on_error=failed_match)
    failed = len(errors)
    if results:
        try:  # the results are saved already; a failed announcement is logged, not retried
            rt.run(app.announce_sweep(rt.app, results))
        except Exception as exc:
            errors.append(exc)
    for err in errors[failed:]:
        log.error("announcing a sweep result failed: %s: %s", type(err).__name__, err)
    kinds: dict[str, int] = {}
    for r in results:
        kinds[type(r).__name__] = kinds.get(type(r).__name__, 0) + 1
    summary = {"results": len(results), **kinds, "errors": len(errors)}
    errors.clear()
    log.info("sweep done", extra={"sweep": summary})
    return summary

"""AWS Lambda entry for the once-a-minute turn clock (EventBridge Scheduler, ``template.yaml``).

It runs :func:`engine.usecases.tick` on every due match - the use case behind
:func:`engine.usecases.sweep`, which the local runner's timer calls: resolve turns past their
deadline, send the one reminder per turn, end expired pauses - and hands the results to the bot
to announce. Every step is conditional on the match version and
turn, so an overlapping or repeated sweep does nothing twice.
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
    from engine.errors import CorruptRecordError, NotFoundError
    from handlers.telegram import bot

    deps = rt.deps
    errors = rt.services.errors
    errors.clear()
    # usecases.sweep's loop, but one match's failure (a bug on a damaged state, throttling)
    # neither stops the matches behind it in the index nor loses the results already saved:
    # those turns are no longer due, so no later sweep would announce them.
    results: list[usecases.SweepResult] = []
    for match_id in deps.repo.due(deps.clock(), limit):
        try:
            result = usecases.tick(deps, match_id)
        except (CorruptRecordError, NotFoundError, usecases.TryAgainError):
            continue  # flagged or raced; the next sweep looks again
        except Exception as exc:  # still due: the next sweep tries it again
            log.error("sweeping match %s failed: %s: %s", match_id, type(exc).__name__, exc)
            errors.append(exc)
            continue
        if result is not None:
            results.append(result)
    failed = len(errors)
    if results:
        try:  # the results are saved already; a failed announcement is logged, not retried
            rt.run(bot.announce_sweep(rt.app, results))
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

"""AWS Lambda entry for the once-a-minute turn clock (EventBridge Scheduler, ``template.yaml``).

It runs :func:`engine.usecases.sweep` - the same use case the local runner's timer calls:
resolve turns past their deadline, send the one reminder per turn, end expired pauses - and
hands the results to the bot to announce. Every step is conditional on the match version and
turn, so an overlapping or repeated sweep does nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram.ext import CallbackContext

from engine import usecases
from engine.usecases import Resolution, SweepResult
from handlers import runtime
from handlers.runtime import Runtime
from handlers.telegram import bot

log = logging.getLogger("sekundant.lambda")

Announcer = Callable[[Any, Sequence[SweepResult]], Awaitable[None]]


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The function's handler (``template.yaml``: ``handlers.lambda_sweeper.lambda_handler``)."""
    return sweep(runtime.container(webhook=False))


def sweep(rt: Runtime, limit: int = 50) -> dict[str, Any]:
    """One sweep with the runtime ``rt``; returns counts for the log (and tests)."""
    results = usecases.sweep(rt.deps, limit)
    errors = rt.services.errors
    errors.clear()
    if results:
        rt.run(_announcer()(rt.app, results))
    for exc in errors:
        log.error("announcing a sweep result failed: %s: %s", type(exc).__name__, exc)
    kinds: dict[str, int] = {}
    for r in results:
        kinds[type(r).__name__] = kinds.get(type(r).__name__, 0) + 1
    summary = {"results": len(results), **kinds, "errors": len(errors)}
    errors.clear()
    log.info("sweep done", extra={"sweep": summary})
    return summary


def _announcer() -> Announcer:
    """The bot's announcer of sweep results when it has one, else a minimal one here."""
    found = getattr(bot, "announce_sweep", None)
    return found if callable(found) else _announce


async def _announce(app: Any, results: Sequence[SweepResult]) -> None:
    # TODO(bot): replace with the bot's own announcer (``handlers.telegram.bot.announce_sweep``)
    # once it exists; this one reveals resolved turns and logs reminders and resumed pauses.
    context: Any = CallbackContext(app)
    for result in results:
        try:
            if isinstance(result, Resolution):
                await bot.on_resolved(context, result.match, result.match, result.record)
            else:
                log.info(
                    "sweep result not announced: %s for %s", type(result).__name__, result.match.id
                )
        except Exception as exc:  # one match's failure must not hide the others
            bot.services(context).errors.append(exc)

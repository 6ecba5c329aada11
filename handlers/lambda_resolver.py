"""AWS Lambda entry of the resolver: locked turns resolved when their beacon round is out.

No function waits for a beacon round (``docs/deploy.md``, "The beacon wait"): when a turn
locks and its lock message fixes a round not published yet, ``usecases.resolve_locked`` hands
the turn to the resolve queue (``infra.later.SqsLater``) with ``DelaySeconds`` = the whole
seconds until the round is due, and the invocation answers at once. The queue's event source
mapping (``template.yaml``: ``ResolverFunction``) invokes this with the messages once due:
each resolves its turn, fetching the round without waiting (a round still not to be had is
asked for again a little later, a bounded number of times, by ``resolve_locked``), and
delivers what the resolution owes - the reveal - through the outbox.

Idempotent: a job for a turn already resolved (a duplicate message, or the sweeper or the GM
was first) reads the match and does nothing else; two resolvers at once are one conditional
write apart, and the outbox's lease sends the reveal once. A job that fails (the table
throttling) is reported as a batch item failure: SQS offers it again after the queue's
visibility timeout, and after ``maxReceiveCount`` receives moves it to the dead-letter queue
(alarmed). The sweeper resolves any locked turn within a minute whatever happens here.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from handlers import observe, runtime
from handlers.metrics import metric
from handlers.runtime import Runtime

log = logging.getLogger("sekundant.lambda")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The function's handler (``template.yaml``: ``handlers.lambda_resolver.lambda_handler``)."""
    return handle(event, runtime.container(webhook=False))


def handle(event: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Resolve the jobs of one SQS batch; the messages that failed, for SQS to offer again
    (``ReportBatchItemFailures``)."""
    failed: list[dict[str, str]] = []
    for record in event.get("Records") or ():
        outcome = resolve_record(record, rt)
        if outcome == "failed":
            failed.append({"itemIdentifier": str(record.get("messageId", ""))})
        metric("Resolves", 1, dimensions={"Outcome": outcome})
    return {"batchItemFailures": failed}


def resolve_record(record: dict[str, Any], rt: Runtime) -> str:
    """One message: ``resolved``, ``nothing`` (not to be had yet, or nothing to do),
    ``junk`` (no job of ours: dropped) or ``failed`` (to be offered again)."""
    from engine import usecases  # wired with the runtime (handlers.runtime)
    from engine.errors import NotFoundError
    from infra.later import Job

    started = time.perf_counter()
    observe.begin()  # this message's log fields (handlers.observe)
    try:
        job = Job.from_json(str(record.get("body", "")))
    except ValueError as exc:
        log.error("dropped message %s: %s", record.get("messageId"), exc, extra={"outcome": "junk"})
        return "junk"
    observe.note(match_id=job.match_id)
    try:
        done = usecases.resolve_locked(rt.deps, job.match_id, job.turn, attempt=job.attempt)
        if done is not None:
            from handlers.telegram.shared import outbox
            from handlers.telegram.shared.context import SekundantContext

            # Never raises: what fails stays owed for the sweeper.
            known = outbox.Known(done.match, done.record)  # as resolve_locked saved it
            rt.run(outbox.deliver(SekundantContext(rt.app), job.match_id, known))
    except NotFoundError:  # no such match (any more): no try will find one
        log.warning("dropped the job for turn %s of %s: no such match", job.turn, job.match_id)
        return "junk"
    except Exception as exc:
        log.error(
            "resolving turn %s of %s failed (attempt %s): %s: %s",
            job.turn,
            job.match_id,
            job.attempt,
            type(exc).__name__,
            exc,
            extra={"outcome": "failed"},
        )
        return "failed"
    outcome = "nothing" if done is None else "resolved"
    log.info(
        "resolve %s turn %s (attempt %s): %s in %.0f ms",
        job.match_id,
        job.turn,
        job.attempt,
        outcome,
        (time.perf_counter() - started) * 1000,
        extra={"outcome": outcome},
    )
    return outcome

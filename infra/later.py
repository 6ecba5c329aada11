"""The :class:`engine.ports.Later` adapters: a delayed SQS message (production) and a list
(tests), and the job they carry.

On Lambda nothing waits for a beacon round: a turn locked with its round not out yet is handed
to the resolve queue with ``DelaySeconds`` = the whole seconds until the round is due, and the
resolver function (``handlers/lambda_resolver.py``, an SQS event source) resolves it then
(``docs/deploy.md``, "The beacon wait"). A job is only a match id, a turn and the tries so
far; resolving it again, or after the turn moved on, does nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

MAX_DELAY_SECONDS = 900  # SQS's longest DelaySeconds


@dataclass(frozen=True, slots=True)
class Job:
    """Resolve the locked ``turn`` of ``match_id`` (``usecases.resolve_locked``); ``attempt``:
    which try this is (1 for the first)."""

    match_id: str
    turn: int
    attempt: int = 1

    def to_json(self) -> str:
        return json.dumps({"match_id": self.match_id, "turn": self.turn, "attempt": self.attempt})

    @staticmethod
    def from_json(body: str) -> Job:
        """The job in a message body; ValueError for anything else (a message no code of ours
        sent: dropped, never retried)."""
        try:
            doc = json.loads(body)
            match_id, turn, attempt = doc["match_id"], doc["turn"], doc.get("attempt", 1)
        except (TypeError, KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"not a resolve job: {exc}") from exc
        if not isinstance(match_id, str) or not match_id:
            raise ValueError("not a resolve job: no match id")
        for n in (turn, attempt):
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ValueError("not a resolve job: turn and attempt are counts")
        return Job(match_id, turn, attempt)


def delay_seconds(due: float, now: float) -> int:
    """SQS's ``DelaySeconds`` for a job due at ``due``: whole seconds, never early."""
    return max(0, min(MAX_DELAY_SECONDS, math.ceil(due - now)))


class SqsLater:
    """Jobs as messages on the resolve queue (``template.yaml``: ``ResolveQueue``), each
    delayed until it is due. The SQS client is made on first use: a cold start that locks no
    turn never creates it."""

    def __init__(
        self, client: Callable[[], Any], queue_url: str, clock: Callable[[], float]
    ) -> None:
        self._make = client
        self._client: Any = None
        self.queue_url = queue_url
        self._clock = clock

    def resolve_at(self, match_id: str, turn: int, due: float, attempt: int) -> None:
        if self._client is None:
            self._client = self._make()
        client = self._client
        client.send_message(
            QueueUrl=self.queue_url,
            MessageBody=Job(match_id, turn, attempt).to_json(),
            DelaySeconds=delay_seconds(due, self._clock()),
        )


class MemoryLater:
    """Jobs in a list (tests): ``take(now)`` hands over those due by ``now``."""

    def __init__(self) -> None:
        self.jobs: list[tuple[float, Job]] = []

    def resolve_at(self, match_id: str, turn: int, due: float, attempt: int) -> None:
        self.jobs.append((due, Job(match_id, turn, attempt)))

    def take(self, now: float) -> list[Job]:
        due = [job for at, job in self.jobs if at <= now]
        self.jobs = [(at, job) for at, job in self.jobs if at > now]
        return due


RESOLVE_QUEUE = "SEKUNDANT_RESOLVE_QUEUE"


def later_from_env(
    env: Mapping[str, str], client: Callable[[], Any], clock: Callable[[], float]
) -> SqsLater | None:
    """``SEKUNDANT_RESOLVE_QUEUE`` (the resolve queue's URL, set by ``template.yaml``): locked
    turns are resolved by the resolver function; unset (a local run, older stacks): the
    beacon adapter waits for the round."""
    url = env.get(RESOLVE_QUEUE, "").strip()
    return SqsLater(client, url, clock) if url else None

"""The beacon wait, the serverless way (docs/deploy.md, "The beacon wait"): no function sleeps
for a drand round. The last seal locks the turn, posts the lock message and hands the turn to
the resolve queue (moto SQS, delayed until the round is due) and the webhook answers 200; the
resolver function takes the message when it is due, resolves the turn and posts the reveal.

The world runs on one fake clock: Telegram's dates, the drand relays (a round exists from its
publication time on), moto's SQS delays and visibility. The beacon is production's adapter
with fake relays whose ``sleep`` is recorded: a function that waited for a round would show
a sleep. The queue's event source mapping is played by :meth:`World.pump`: receive what is
due, invoke the resolver with it as an SQS event, delete what it did not report failed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from engine import usecases
from engine.beacon import QUICKNET, round_time
from engine.match import Phase
from handlers import lambda_resolver, lambda_sweeper
from handlers.runtime import Runtime, cold_start
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from tests.serverless.conftest import WebhookHarness
from tests.serverless.duel import open_duel
from tests.serverless.webhook_harness import REGION, fixture, lambda_env
from tests.support.clock import FakeClock
from tests.support.drand import SIGNATURE, relayed

MISS = "/order move 0 aim 5:5"  # wide of the mark: the duel goes on


class Relays:
    """drand's relays on the fake clock: a round is served 0.2 s after its publication time
    (``late`` seconds more when the test says so)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.late = 0.0
        self.asked: list[tuple[int, float]] = []

    def get(self, url: str, timeout: float) -> httpx.Response:
        number = int(url.rsplit("/", 1)[-1])
        self.asked.append((number, self.clock.now))
        if self.clock.now < round_time(QUICKNET, number) + 0.2 + self.late:
            return httpx.Response(404, json={"error": "round not yet published"})
        return httpx.Response(200, json={"round": number, "signature": SIGNATURE})


class World:
    """A webhook container, a resolver container, a sweeper container and the resolve queue."""

    def __init__(
        self,
        h: WebhookHarness,
        resolver: Runtime,
        sweeper: Runtime,
        sqs: Any,
        url: str,
        relays: Relays,
        slept: list[float],
    ) -> None:
        self.h, self.resolver, self.sweeper = h, resolver, sweeper
        self.sqs, self.url, self.relays, self.slept = sqs, url, relays, slept
        self.outcomes: list[dict[str, Any]] = []

    def receive(self) -> list[dict[str, Any]]:
        got = self.sqs.receive_message(
            QueueUrl=self.url, MaxNumberOfMessages=10, AttributeNames=["All"]
        )
        messages: list[dict[str, Any]] = got.get("Messages", [])
        return messages

    def invoke(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The resolver invoked with ``messages`` as the mapping does (the SQS event of AWS's
        documentation, one record per message)."""
        event = fixture("aws/sqs-event.json")
        shape = event["Records"][0]
        event["Records"] = [
            {
                **copy.deepcopy(shape),
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes", {}),
                "md5OfBody": m["MD5OfBody"],
                "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:resolve",
                "awsRegion": REGION,
            }
            for m in messages
        ]
        answer = lambda_resolver.handle(event, self.resolver)
        self.outcomes.append(answer)
        return answer

    def pump(self) -> int:
        """One poll of the event source mapping: the due messages to the resolver; those it
        did not report failed are deleted. Returns how many it was given."""
        messages = self.receive()
        if not messages:
            return 0
        answer = self.invoke(messages)
        failed = {f["itemIdentifier"] for f in answer["batchItemFailures"]}
        for m in messages:
            if m["MessageId"] not in failed:
                self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=m["ReceiptHandle"])
        return len(messages)

    def queued(self) -> int:
        attrs = self.sqs.get_queue_attributes(QueueUrl=self.url, AttributeNames=["All"])
        counts = ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed")
        return sum(int(attrs["Attributes"][k]) for k in counts)

    def jobs(self) -> list[dict[str, Any]]:
        """The bodies of the queued messages, however delayed (peeked: moto's own records)."""
        from moto.sqs.models import sqs_backends

        queue = sqs_backends["123456789012"][REGION].queues["sekundant-resolve"]
        return [json.loads(m.body) for m in queue._messages]


@pytest.fixture
def world(
    aws: Callable[[str], Any],
    fake_api: FakeBotAPI,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[World]:
    from moto.sqs import models as sqs_models

    # moto's SQS on the test's clock (delays, visibility, retention).
    monkeypatch.setattr(sqs_models, "unix_time", lambda: clock.now)
    monkeypatch.setattr(sqs_models, "unix_time_millis", lambda: clock.now * 1000)
    fake_api.clock = clock  # Telegram dates its messages by the same clock
    sqs = aws.full("sqs")  # type: ignore[attr-defined]
    url = sqs.create_queue(QueueName="sekundant-resolve", Attributes={"VisibilityTimeout": "120"})[
        "QueueUrl"
    ]
    relays = Relays(clock)
    beacon, slept = relayed(clock, relays.get)  # sleeps recorded: a function must not wait
    env = lambda_env(aws.secret_arn) | {"SEKUNDANT_RESOLVE_QUEUE": url}  # type: ignore[attr-defined]
    made = [
        cold_start(env, webhook=webhook, request=fake_api, clients=aws, clock=clock, beacon=beacon)
        for webhook in (True, False, False)
    ]
    h = WebhookHarness([made[0]], fake_api, clock)
    w = World(h, made[1], made[2], sqs, url, relays, slept)
    yield w
    for rt in made:
        rt.run(rt.app.shutdown())
        rt.loop.close()


def _seal_all_but_last(w: World) -> tuple[str, dict[str, Any]]:
    """A running duel whose turn 1 waits for Bob's order only; the match id and Bob."""
    match_id, alice, bob = open_duel(w.h)
    w.h.say(alice, int(alice["id"]), MISS)
    w.slept.clear()  # the start waits for its round once (docs/deploy.md, "The beacon wait")
    w.relays.asked.clear()
    return match_id, bob


def _past_due(w: World, match_id: str) -> None:
    """The clock past the locked turn's round and the relays' margin: the message is due."""
    match = w.h.deps.repo.load(match_id).match
    assert match.beacon_round is not None
    w.h.clock.now = round_time(QUICKNET, match.beacon_round) + usecases.LATER_MARGIN + 1


def _reveals(w: World, turn: int) -> list[str]:
    return [t for t in w.h.texts(GROUP_ID) if f"Ход {turn} — вскрытие" in t]


def test_the_last_seal_answers_at_once_and_the_delayed_message_reveals_the_turn(
    world: World,
) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.h.say(bob, int(bob["id"]), MISS)  # the last seal: the turn locks

    assert w.h.responses[-1]["statusCode"] == 200
    assert w.slept == []  # the webhook never waited for the round...
    assert w.relays.asked == []  # ...nor asked for it before it was due
    match = w.h.deps.repo.load(match_id).match
    assert match.turn == 1 and match.locked_at is not None and match.lock_message is not None
    assert match.beacon_round is not None
    assert w.jobs() == [{"match_id": match_id, "turn": 1, "attempt": 1}]
    assert _reveals(w, 1) == []

    # Not before the round is due: its time plus the relays' margin, in whole seconds.
    published = round_time(QUICKNET, match.beacon_round)
    w.h.clock.now = published + usecases.LATER_MARGIN - 0.01
    assert w.pump() == 0
    w.h.clock.now = published + usecases.LATER_MARGIN + 1
    assert w.pump() == 1
    assert w.slept == []
    assert w.outcomes[-1] == {"batchItemFailures": []}
    after = w.h.deps.repo.load(match_id).match
    assert after.turn == 2 and after.phase is Phase.RUNNING
    (record,) = [r for r in w.h.deps.repo.history(match_id) if r.turn == 1]
    assert record.beacon is not None and record.beacon.round == match.beacon_round
    assert len(_reveals(w, 1)) == 1
    assert w.queued() == 0
    # The reveal is the lock message, edited (docs/fairness.md, "The lock message").
    lock = w.h.api.message(GROUP_ID, match.lock_message)
    assert lock is not None and "Ход 1 — вскрытие" in lock.text


def test_a_duplicate_message_and_one_for_a_resolved_turn_do_nothing(world: World) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.h.say(bob, int(bob["id"]), MISS)
    _past_due(w, match_id)
    (message,) = w.receive()
    # SQS delivers at least once: the same message twice, at once.
    assert w.invoke([message, message]) == {"batchItemFailures": []}
    w.sqs.delete_message(QueueUrl=w.url, ReceiptHandle=message["ReceiptHandle"])
    assert len(_reveals(w, 1)) == 1
    resolved = w.h.deps.repo.load(match_id).match
    assert resolved.turn == 2
    # Later again (a redelivery after the turn resolved): nothing written, nothing sent.
    calls, version = len(w.h.api.calls), resolved.version
    assert w.invoke([message]) == {"batchItemFailures": []}
    assert len(w.h.api.calls) == calls
    assert w.h.deps.repo.load(match_id).match.version == version
    assert w.queued() == 0 and len(_reveals(w, 1)) == 1


def test_a_round_late_at_the_relays_is_asked_for_again_a_little_later(world: World) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.relays.late = 2.5  # the relays serve the round 2.5 s late
    w.h.say(bob, int(bob["id"]), MISS)
    _past_due(w, match_id)
    assert w.pump() == 1
    assert w.h.deps.repo.load(match_id).match.turn == 1  # not to be had yet
    assert w.jobs() == [{"match_id": match_id, "turn": 1, "attempt": 2}]
    w.h.clock.advance(1.0)
    assert w.pump() == 1
    assert w.h.deps.repo.load(match_id).match.turn == 1
    w.h.clock.advance(2.0)
    assert w.pump() == 1
    assert w.h.deps.repo.load(match_id).match.turn == 2
    assert len(_reveals(w, 1)) == 1 and w.slept == [] and w.queued() == 0


def test_drand_down_the_retries_stop_and_the_sweeper_resolves_it(world: World) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.relays.late = 10_000.0  # drand unreachable for now
    w.h.say(bob, int(bob["id"]), MISS)
    pumped = 0
    for _ in range(20):
        w.h.clock.advance(4.0)
        pumped += w.pump()
    assert pumped == 5  # usecases.LATER_ATTEMPTS, then no more messages
    assert w.queued() == 0 and w.h.deps.repo.load(match_id).match.turn == 1
    w.relays.late = 0.0
    w.h.clock.advance(61)
    lambda_sweeper.sweep(w.sweeper)
    assert w.h.deps.repo.load(match_id).match.turn == 2
    assert len(_reveals(w, 1)) == 1 and w.slept == []


def test_a_lost_message_is_made_up_by_the_sweeper(world: World) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.h.say(bob, int(bob["id"]), MISS)
    w.sqs.purge_queue(QueueUrl=w.url)  # the message is lost
    w.h.clock.advance(61)
    lambda_sweeper.sweep(w.sweeper)
    assert w.h.deps.repo.load(match_id).match.turn == 2
    assert len(_reveals(w, 1)) == 1
    assert w.slept == []


def test_a_failing_resolve_is_reported_for_sqs_to_offer_again(world: World) -> None:
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.h.say(bob, int(bob["id"]), MISS)
    _past_due(w, match_id)
    repo: Any = w.resolver.deps.repo
    real = repo.load

    def broken(mid: str) -> Any:
        raise ConnectionError("the table is unreachable")

    repo.load = broken
    assert w.pump() == 1
    (failure,) = w.outcomes[-1]["batchItemFailures"]
    assert failure["itemIdentifier"]
    assert w.pump() == 0  # invisible for the visibility timeout
    repo.load = real
    w.h.clock.advance(121)
    assert w.pump() == 1
    assert w.h.deps.repo.load(match_id).match.turn == 2 and len(_reveals(w, 1)) == 1


def test_a_message_that_is_no_job_of_ours_is_dropped(world: World) -> None:
    w = world
    w.sqs.send_message(QueueUrl=w.url, MessageBody="{not json")
    assert w.pump() == 1
    assert w.outcomes[-1] == {"batchItemFailures": []}
    assert w.queued() == 0


def test_a_turn_the_deadline_locks_goes_through_the_queue_too(world: World) -> None:
    """The sweeper locks a turn at its deadline: it posts the lock message and hands the turn
    to the queue like the webhook, without a sleep; the resolver reveals it."""
    w = world

    def hour_turns(match_id: str, gm: int) -> None:
        usecases.configure_clock(w.h.deps, match_id, gm, turn_seconds=3600)

    match_id, alice, _bob = open_duel(w.h, before_start=hour_turns)
    w.h.say(alice, int(alice["id"]), MISS)  # Bob never seals
    w.slept.clear()
    w.h.clock.advance(3601)
    lambda_sweeper.sweep(w.sweeper)
    match = w.h.deps.repo.load(match_id).match
    assert match.turn == 1 and match.lock_message is not None
    assert w.slept == [] and w.jobs() == [{"match_id": match_id, "turn": 1, "attempt": 1}]
    _past_due(w, match_id)
    assert w.pump() == 1
    assert w.h.deps.repo.load(match_id).match.turn == 2
    assert len(_reveals(w, 1)) == 1 and w.slept == [] and w.queued() == 0


def test_the_resolver_reads_the_match_once_and_announces_from_its_own_save(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/deploy.md, "Fewer reads and waits": the reveal, the next turn's commitment record
    and its builders' record start from the match the resolution saved (``outbox.Known``),
    not from reads of it (there were five, and the turn's history)."""
    w = world
    match_id, bob = _seal_all_but_last(w)
    w.h.say(bob, int(bob["id"]), MISS)
    _past_due(w, match_id)
    repo = w.resolver.deps.repo
    reads: list[str] = []
    load, history = repo.load, repo.history
    monkeypatch.setattr(repo, "load", lambda mid: reads.append("load") or load(mid))
    monkeypatch.setattr(
        repo, "history", lambda mid, **kw: reads.append("history") or history(mid, **kw)
    )
    assert w.pump() == 1
    assert len(_reveals(w, 1)) == 1
    assert reads == ["load"]  # resolve_locked's own: the round and the orders it resolves
    after = w.h.deps.repo.load(match_id).match
    assert after.turn == 2 and after.commitment_posted_at is not None
    assert len(after.ui["live"]["items"]) == 2  # both turn-2 builders remembered


def test_the_last_seal_reads_its_outbox_once_when_the_turn_goes_to_the_queue(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock message's delivery owes the reveal only when its round was already out
    (``outbox.owes_more``): handed to the resolve queue, no second pass reads the outbox."""
    w = world
    match_id, bob = _seal_all_but_last(w)
    repo = w.h.deps.repo
    reads: list[str] = []
    owed = repo.owed
    monkeypatch.setattr(repo, "owed", lambda mid: reads.append(mid) or owed(mid))
    w.h.say(bob, int(bob["id"]), MISS)  # the last seal: the lock message, then the queue
    assert w.h.responses[-1]["statusCode"] == 200
    assert w.jobs() == [{"match_id": match_id, "turn": 1, "attempt": 1}]
    assert reads == [match_id]

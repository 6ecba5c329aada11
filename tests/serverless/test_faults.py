"""The fault matrix: whole turns played through the webhook while DynamoDB throttles or is
unreachable and Telegram answers 429, 5xx or times out (or the invocation is stopped at a
call), then everything recovers. Afterwards every owed message was delivered exactly once,
every order is in the record, and no turn resolved twice. ``docs/deploy.md`` reports it.

Telegram is modelled as it behaves: an update answered with anything but 2xx (or not at all)
is delivered again later; the sweeper runs once a minute. Faults are injected at the request
layers (``tests/serverless/faults.py``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.match import Phase
from handlers import lambda_sweeper
from handlers.runtime import Runtime
from handlers.telegram import stale
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from tests.bot.test_commitments import never_edited_after_the_commitment
from tests.serverless.conftest import WebhookHarness
from tests.serverless.duel import open_duel
from tests.serverless.faults import FaultyDynamo, FaultyTelegram, InvocationDied
from tests.support.clock import FakeClock

TURNS = 3
MISS = "/order move 0 aim 5:5"  # wide of the mark: the duel goes on turn after turn
MINUTE = 61.0  # past a lease (30 s) and an outbox backoff's first step (30 s)


class World:
    """A webhook container and a sweeper container, their faults, and Telegram's redelivery."""

    def __init__(self, h: WebhookHarness, sweeper: Runtime, telegram: FaultyTelegram) -> None:
        self.h = h
        self.sweeper = sweeper
        self.telegram = telegram
        self.tables = [FaultyDynamo(h.deps.repo.client), FaultyDynamo(sweeper.deps.repo.client)]
        h.deps.repo.client, sweeper.deps.repo.client = self.tables  # type: ignore[attr-defined]
        self.statuses: list[int] = []

    def table(self, kind: str, times: int, ops: tuple[str, ...] = ()) -> None:
        for table in self.tables:
            table.arm(kind, times, ops)

    def deliver(self, update: dict[str, Any]) -> None:
        """Telegram's delivery of one update: again a minute later until it gets a 2xx."""
        for _ in range(12):
            try:
                self.h.feed(update)
                status = self.h.responses[-1]["statusCode"]
            except InvocationDied:
                status = 0  # no answer: Telegram retries
            self.statuses.append(status)
            if status == 200:
                return
            self.minute()
        raise AssertionError(f"update never accepted: {self.statuses[-12:]}")

    def minute(self) -> None:
        self.h.clock.now += MINUTE
        with contextlib.suppress(Exception, InvocationDied):  # a failed run: the next goes on
            lambda_sweeper.sweep(self.sweeper)

    def say(self, user: dict[str, Any], text: str) -> None:
        self.h.held = []
        self.h.say(user, int(user["id"]), text)
        (update,), self.h.held = self.h.held, None
        update["message"]["date"] = int(self.h.clock.now)  # as Telegram stamps it
        self.h.clock.now += 1.5  # and it reaches us a moment later
        self.deliver(update)


@pytest.fixture
def world(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> Iterator[World]:
    telegram = FaultyTelegram(fake_api)
    h = WebhookHarness([make_runtime()], fake_api, clock)
    sweeper = make_runtime(webhook=False)

    async def no_sleep(seconds: float) -> None:
        pass

    sweeper.services.sleep = no_sleep
    yield World(h, sweeper, telegram)


def counts(w: World, chats: dict[str, int]) -> dict[str, int]:
    """The bot's messages per chat, without refusals of redelivered typed orders."""
    return {name: sum(not _refused(t) for t in w.h.texts(chat)) for name, chat in chats.items()}


def _refused(text: str) -> bool:
    """The refusal of a typed order redelivered after its invocation died past the turn it
    resolved (``err.typed_before_turn``): Telegram's redelivery of an update whose first
    attempt did everything but confirm it; the order is not sealed again."""
    return "nothing was sealed" in text or "ничего не запечатано" in text


def bob_id(w: World) -> int:
    """The second player's (Bob's, p2) private chat: the fixtures' second user."""
    return 222222222


def play(w: World, fault: Callable[[World, int], None]) -> str:
    """A pistol duel: turn 1 without faults (it measures how many messages a turn sends to
    each chat), then :data:`TURNS` turns with ``fault(world, turn)`` armed before each turn's
    last order, each followed by recovery (the sweeper runs until nothing is owed). Checks
    that every chat got exactly a turn's messages per turn; returns the match id."""
    match_id, alice, bob = open_duel(w.h)
    chats = {"group": GROUP_ID, "alice": int(alice["id"]), "bob": int(bob["id"])}
    before = counts(w, chats)
    for turn in range(1, TURNS + 2):
        w.say(alice, MISS)
        if turn > 1:
            fault(w, turn)
        w.say(bob, MISS)
        for _ in range(20):  # recovery: the faults are used up, the outbox drains
            if not w.h.deps.repo.owed(match_id):
                break
            w.minute()
        if turn == 1:
            first = counts(w, chats)
            per_turn = {k: first[k] - before[k] for k in chats}
    # Exactly once: each faulted turn sent each chat what the fault-free turn 1 sent.
    assert counts(w, chats) == {k: first[k] + TURNS * per_turn[k] for k in chats}
    return match_id


def check(w: World, match_id: str) -> None:
    repo = w.h.deps.repo
    assert repo.owed(match_id) == []  # every owed message delivered (none given up)
    history = repo.history(match_id)
    assert [r.turn for r in history] == list(range(TURNS + 2))  # no turn resolved twice
    group = w.h.texts(GROUP_ID)
    for record in history[1:]:
        assert {o.pid for o in record.orders if not o.default} == {"p1", "p2"}  # every order
        reveals = [t for t in group if f"Ход {record.turn} — вскрытие" in t]
        assert len(reveals) == 1, f"turn {record.turn}: {len(reveals)} reveals"
    match = repo.load(match_id).match
    assert match.phase is Phase.RUNNING and match.turn == TURNS + 2
    # What each message is was kept (issue 28): the status pointer never became another
    # message, and nothing never-to-be-edited (a commitment, a reveal) was ever edited.
    records = [*history, match]
    commitments = {r.commitment_message for r in records if r.commitment_message is not None}
    assert int(match.ui["status"]) not in commitments
    for record in records[:-1]:  # the message carrying it: never edited after it
        assert record.commitment_message is not None
        assert never_edited_after_the_commitment(w.h, GROUP_ID, record.commitment_message, record)
    builders = {chat for chat, _ in stale.live(match, match.turn)}
    assert builders == {int(s.user_id or 0) for s in match.seats}  # each got its builder


FAULTS: dict[str, Callable[[World, int], None]] = {
    "none": lambda w, t: None,
    # DynamoDB: the seal's transaction and every other call, for a while.
    "dynamodb throttles": lambda w, t: w.table("throttle", 4),
    "dynamodb unreachable": lambda w, t: w.table("unreachable", 3),
    "dynamodb throttles the outbox": lambda w, t: w.table("throttle", 3, ("get_item", "put_item")),
    # Telegram, in the group: the reveal, the status, the next turn.
    "telegram 429 in the group": lambda w, t: w.telegram.arm("429", 2, chat_id=GROUP_ID),
    "telegram 502 in the group": lambda w, t: w.telegram.arm("500", 4, chat_id=GROUP_ID),
    "telegram times out in the group": lambda w, t: w.telegram.arm("timeout", 4, chat_id=GROUP_ID),
    "telegram 429 on the status edit": lambda w, t: w.telegram.arm(
        "429", 2, "editMessageText", GROUP_ID
    ),
    # ... after a delivery sent part of what it owes: the rest follows, the part is not
    # sent again (the journal).
    "telegram 502 after the reveal": lambda w, t: w.telegram.arm(
        "500", 3, chat_id=GROUP_ID, after=1
    ),
    "telegram 429 at the second builder": lambda w, t: w.telegram.arm("429", 1, after=2),
    # Issue 28: P1 (Bob)'s next private message answered 429 (retry_after 30), or 502 three
    # times; P1 seals last and the sweeper delivers later: P1 still gets the next builder.
    "telegram 429 to the last sealer": lambda w, t: w.telegram.arm("429", 2, chat_id=bob_id(w)),
    "telegram 502 three times to the last sealer": lambda w, t: w.telegram.arm(
        "500", 3, chat_id=bob_id(w)
    ),
    "killed after the reveal": lambda w, t: w.telegram.arm("die", 1, chat_id=GROUP_ID, after=1),
    # Telegram, in private: the receipt of the last order and the next builders.
    "telegram 502 to the players": lambda w, t: w.telegram.arm("500", 3),
    # The invocation stopped (timeout, out of memory) between the save and the sends.
    "killed at the reveal": lambda w, t: w.telegram.arm("die", 1, chat_id=GROUP_ID),
    "killed at the seal's save": lambda w, t: w.table("die", 1, ("transact_write_items",)),
    "killed at an outbox write": lambda w, t: w.table("die", 1, ("put_item",)),
    # Everything at once, on every turn differently.
    "all of it": lambda w, t: (
        w.table("throttle", t),
        w.telegram.arm("429", 1, chat_id=GROUP_ID),
        w.telegram.arm("500", t),
    ),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_nothing_is_lost_or_doubled(world: World, name: str) -> None:
    check(world, play(world, FAULTS[name]))
    if name != "none":
        failed = world.telegram.failed + sum(t.failed for t in world.tables)
        assert failed > 0  # the fault did happen

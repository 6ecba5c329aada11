"""The fault matrix: whole turns played through the webhook while DynamoDB throttles or is
unreachable and Telegram answers 429, 5xx or times out (or the invocation is stopped at a
call), then everything recovers. Afterwards every owed message was delivered exactly once,
every order is in the record, and no turn resolved twice. ``docs/deploy.md`` reports it.

Telegram is modelled as it behaves: an update answered with anything but 2xx (or not at all)
is delivered again later; the sweeper runs once a minute. Faults are injected at the request
layers (``tests/serverless/faults.py``)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from telegram.error import TimedOut

from engine import usecases
from engine.match import Phase
from handlers import lambda_sweeper, lambda_webhook
from handlers.runtime import Runtime
from handlers.telegram import hints, stale
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from handlers.telegram.i18n import Tr
from handlers.telegram.shared import outbox
from handlers.telegram.shared.context import SekundantContext
from tests.bot.test_commitments import never_edited_after_the_commitment
from tests.serverless.conftest import WebhookHarness, api_event
from tests.serverless.duel import open_duel
from tests.serverless.faults import OUTBOX, FaultyDynamo, FaultyTelegram, InvocationDied
from tests.serverless.test_webhook import LockedRequest, Serialized
from tests.serverless.webhook_harness import race_loads
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
    # The outbox's writes (its claims first; entries of the match item, docs/storage.md).
    "dynamodb throttles the outbox": lambda w, t: w.table("throttle", 3, (OUTBOX,)),
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
    "killed before the first send": lambda w, t: w.telegram.arm("die", 1, chat_id=bob_id(w)),
    "killed at an outbox write": lambda w, t: w.table("die", 1, (OUTBOX,)),
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


# --------------------------------------------------------------------------- races from outside


def test_the_late_edit_race_leaves_no_status_open(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    """Issue 28: Alice's (non-final) seal edits the status; that edit reaches Telegram after
    Bob's resolving update closed the status AND after Alice's bot gave up waiting for it (its
    read timeout). Her update answers 500; Telegram redelivers it; the redelivery is refused as
    older than the turn. The status must end closed."""
    a, b = make_runtime(), make_runtime()
    h = WebhookHarness([a, b], fake_api, clock)
    w = World(h, make_runtime(webhook=False), FaultyTelegram(fake_api))
    match_id, alice, bob = open_duel(h)
    status_id = int(h.deps.repo.load(match_id).match.ui["status"])
    h.held = []
    h.say(bob, int(bob["id"]), MISS)
    (bob_update,), h.held = h.held, None
    real = fake_api.do_request
    armed = [True]

    async def late(url: str, method: str, request_data: Any = None, *x: Any, **k: Any) -> Any:
        params = dict(request_data.parameters) if request_data else {}
        if armed[0] and url.endswith("/editMessageText") and params["message_id"] == status_id:
            armed[0] = False
            # Alice's edit travels; Bob's whole update happens meanwhile (another container)
            done = threading.Thread(target=lambda_webhook.handle, args=(api_event(bob_update), b))
            done.start()
            done.join()
            await real(url, method, request_data, *x, **k)  # then her edit lands, late
            raise TimedOut("Timed out")  # after her bot stopped waiting for it
        return await real(url, method, request_data, *x, **k)

    fake_api.do_request = late  # type: ignore[method-assign]
    w.say(alice, MISS)  # delivered until a 2xx, as Telegram does
    assert h.deps.repo.load(match_id).match.turn == 2
    status = next(m for m in fake_api.chat(GROUP_ID).messages if m.message_id == status_id)
    # One status message per match (the quiet group, issue 24): it shows the latest turn,
    # never the open screen of turn 1 that the late edit carried.
    text = status.text.lower()
    assert "ход 2" in text and "ход 1" not in text, status.text
    history = h.deps.repo.history(match_id)
    assert {o.pid for o in history[1].orders if not o.default} == {"p1", "p2"}


def four_player_battle(h: WebhookHarness) -> tuple[str, list[tuple[dict[str, Any], str]]]:
    """A started dragons battle of four players (two a side) in the store, its first turn
    opened in the chats (the sweeper delivers the start); each player with a typed order the
    bot suggests (``hints.order_example``)."""
    deps = h.deps
    users = [h.user(700 + i, f"P{i}") for i in range(1, 5)]
    for user in users:
        h.api.started.add(int(user["id"]))
    gm = int(users[0]["id"])
    m = usecases.create_match(deps, GROUP_ID, gm, "dragons")
    presets = list(m.rules.presets(m.rules.config(m.config)).values())
    for user in users:
        usecases.join(deps, m.id, int(user["id"]), str(user["first_name"]))
    for i, seat in enumerate(deps.repo.load(m.id).match.seats):
        assert seat.user_id is not None
        usecases.set_character(deps, m.id, seat.user_id, seat.pid, presets[0])
        usecases.set_side(deps, m.id, gm, seat.pid, "AB"[i % 2])
    usecases.start(deps, m.id, gm)
    sweeper = h.runtimes[0]
    h.rt.run(outbox.deliver(SekundantContext(sweeper.app), m.id))
    match = deps.repo.load(m.id).match
    assert match.phase is Phase.RUNNING and match.commitment_posted_at is not None
    tr = Tr("ru")
    orders = []
    for user, seat in zip(users, match.seats, strict=True):
        orders.append((user, hints.order_example(tr, match, seat.pid)))
    return m.id, orders


def test_four_players_sealing_at_once_lose_no_order(
    make_runtime: Callable[..., Runtime],
    fake_api: FakeBotAPI,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 28: four players seal the last orders of a turn at once, each update in its own
    container; whoever loses every write race (``TryAgainError``) answers 500 and Telegram
    redelivers it, so the turn resolves with all four orders (it stalled 1 round in 30 with a
    200 "please try again")."""
    containers = [make_runtime(api=LockedRequest(fake_api)) for _ in range(4)]
    for rt in containers:
        repo: Any = rt.deps.repo
        repo.client = Serialized(repo.client)
    h = WebhookHarness(containers, fake_api, clock)
    match_id, users = four_player_battle(h)
    turn = h.deps.repo.load(match_id).match.turn
    # One attempt per update: all four load before any saves, so three run out of retries
    # (as one in thirty did with six attempts and a beacon wait inside them).
    monkeypatch.setattr(usecases, "RETRIES", 1)
    race_loads(containers)
    h.held = []
    for user, text in users:
        h.say(user, int(user["id"]), text)
    held, h.held = h.held, None
    statuses: list[list[int]] = [[] for _ in held]

    def deliver(i: int) -> None:  # Telegram: again until a 2xx
        for _ in range(5):
            statuses[i].append(
                lambda_webhook.handle(api_event(held[i]), containers[i])["statusCode"]
            )
            if statuses[i][-1] == 200:
                return

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(deliver, range(4)))
    for rt in containers:
        del rt.deps.repo.load  # race_loads' hold, off again
    assert all(s[-1] == 200 for s in statuses), statuses
    record = next(r for r in h.deps.repo.history(match_id) if r.turn == turn)
    assert len([o for o in record.orders if not o.default]) == 4  # every order sealed
    assert any(500 in s for s in statuses)  # the races were lost, and redelivered
    assert h.deps.repo.load(match_id).match.turn == turn + 1
    reveals = [t for t in h.texts(GROUP_ID) if f"Ход {turn} — вскрытие" in t]
    assert len(reveals) == 1

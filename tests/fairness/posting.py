"""What the bot does around the use cases, for tests that drive them directly: each turn's
seed commitment goes to the group as its own message (docs/fairness.md), and that message's
id and time are recorded (``verify`` requires it for every turn with a sealed order); with
:class:`LockingBot`, each lock is a group message too."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import usecases as uc
from engine.dossier import build_dossier
from engine.errors import Rejection
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.conftest import FakeClock

_messages = itertools.count(7000)


def post(deps: uc.Deps, match_id: str) -> None:
    m = deps.repo.load(match_id).match
    if m.commitment is not None and m.commitment_posted_at is None:
        uc.commitment_posted(deps, match_id, m.turn, m.commitment, next(_messages))


class LockingBot:
    """What the bot does around the use cases when turns lock by a group message: posts each
    commitment, and each lock message (dated by "Telegram" to the whole second), then resolves
    the locked turn and edits the lock message into the reveal, which carries the next turn's
    commitment (docs/fairness.md, "The lock message")."""

    def __init__(self, deps: uc.Deps) -> None:
        self.deps = deps
        self.message = 9000

    def post(self, mid: str, *, folded: bool = False) -> None:
        m = self.deps.repo.load(mid).match
        if m.commitment is not None and m.commitment_posted_at is None:
            self.message += 0 if folded else 1
            uc.commitment_posted(self.deps, mid, m.turn, m.commitment, self.message)

    def after(self, mid: str) -> None:
        self.post(mid)
        m = self.deps.repo.load(mid).match
        if m.locked_at is not None and m.lock_message is None:
            clock = self.deps.clock
            assert isinstance(clock, FakeClock)
            self.message += 1
            uc.lock_posted(self.deps, mid, m.turn, self.message, float(math.ceil(clock() + 1)))
            clock.advance(4)
            uc.resolve_locked(self.deps, mid, m.turn)
            self.post(mid, folded=True)  # the reveal (the lock message) carries it

    def do(self, mid: str, action: Callable[[], object]) -> None:
        try:
            action()
        except Rejection as exc:
            assert exc.code == "beacon_pending", exc.code
        self.after(mid)


def started(
    ruleset: str = "coin",
    config: Mapping[str, Any] | None = None,
    characters: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {}),
) -> tuple[uc.Deps, FakeClock, LockingBot, str]:
    """A match of Ann (1) and Bob (2) with GM 100, started, as the bot runs it."""
    clock = FakeClock()
    deps = uc.Deps(
        repo=MemoryRepository(),
        clock=clock,
        entropy=uc.SystemEntropy(),
        beacon=LocalBeacon(),
        lock_by_message=True,
    )
    bot = LockingBot(deps)
    mid = uc.create_match(
        deps, chat_id=-5, gm_user_id=100, ruleset_id=ruleset, config=dict(config or {})
    ).id
    bot.after(mid)
    uc.join(deps, mid, 1, "Ann")
    uc.join(deps, mid, 2, "Bob")
    uc.set_character(deps, mid, 1, "p1", dict(characters[0]))
    uc.set_character(deps, mid, 2, "p2", dict(characters[1]))
    clock.advance(7)
    bot.do(mid, lambda: uc.start(deps, mid, 100))
    return deps, clock, bot, mid


def dossier_of(deps: uc.Deps, mid: str) -> dict[str, Any]:
    """The match's dossier now, as /dossier builds it."""
    loaded = deps.repo.load(mid)
    orders = list(loaded.orders.values())
    return build_dossier(loaded.match, deps.repo.history(mid), orders, generated_at=deps.clock())


# --------------------------------------------------------------------------- one played match

GM, ANN, BOB, CARL = 100, 1, 2, 3
Order = Mapping[str, Any]
Do = Callable[[str, Callable[[], object]], None]


@dataclass(frozen=True)
class Script:
    """The orders and rulings of the tampering suite's match, for one ruleset (the moves are
    :func:`play`'s): turn 1 all sealed, turn 2 forced (Bob's default), turn 3 undone and
    played again, a pause, Bob's seat handed to Carl, two GM rulings, turn 5 the last."""

    ann: tuple[Order, Order, Order]  # Ann's orders of turns 1-3
    bob: Order  # Bob's of turns 1 and 3 (turn 2 is forced)
    replay: tuple[Order, Order]  # Ann's and Bob's of turn 3 played again after the undo
    handed: tuple[Order, Order]  # Ann's and Carl's once Bob's seat is Carl's
    last: tuple[Order, Order]  # Ann's and Carl's of the last turn
    ruling: tuple[str, Any, Any]  # the state field the GM edits, p1's and p2's new values


COIN = Script(
    ann=({"call": 1}, {"call": 2}, {"call": 3}),
    bob={"call": 6},
    replay=({"call": 4}, {"call": 5}),
    handed=({"call": 2}, {"call": 3}),
    last=({"call": 1}, {"call": 1}),
    ruling=("score", 9, 0),
)


def posting(deps: uc.Deps) -> Do:
    """How a match that locks without a message is driven: each action, then the commitment
    it owes posted (:func:`post`); :meth:`LockingBot.do` is the other way."""

    def do(mid: str, action: Callable[[], object]) -> None:
        action()
        post(deps, mid)

    return do


def play(deps: uc.Deps, mid: str, script: Script, do: Do, *, finish: bool = True) -> None:
    """Play ``script`` on the started match ``mid`` (Ann p1, Bob p2, GM 100), each action
    through ``do``, 7 seconds apart; without ``finish`` the last turn stays open, Ann's
    order sealed."""
    clock = deps.clock
    assert isinstance(clock, FakeClock)

    def seal(user: int, pid: str, order: Order) -> Callable[[], object]:
        return functools.partial(uc.seal_order, deps, mid, user, pid, order)

    for turn in (1, 2, 3):
        clock.advance(7)
        do(mid, seal(ANN, "p1", script.ann[turn - 1]))
        clock.advance(7)
        if turn == 2:
            do(mid, functools.partial(uc.force_resolve, deps, mid, GM, turn=2))
        else:
            do(mid, seal(BOB, "p2", script.bob))
    clock.advance(7)
    do(mid, functools.partial(uc.undo, deps, mid, GM, "misclick", turn=4))
    clock.advance(7)
    do(mid, seal(ANN, "p1", script.replay[0]))
    do(mid, seal(BOB, "p2", script.replay[1]))
    clock.advance(7)
    uc.pause(deps, mid, GM)
    clock.advance(7)
    do(mid, functools.partial(uc.resume, deps, mid, GM))
    do(mid, functools.partial(uc.replace_player, deps, mid, GM, "p2", CARL, "Carl"))
    clock.advance(7)
    do(mid, seal(ANN, "p1", script.handed[0]))
    do(mid, seal(CARL, "p2", script.handed[1]))
    clock.advance(7)
    field, one, two = script.ruling
    uc.edit_state(deps, mid, GM, "p1", field, one, "ruling")
    uc.edit_state(deps, mid, GM, "p2", field, two, "ruling")
    clock.advance(7)
    do(mid, seal(ANN, "p1", script.last[0]))
    if finish:
        do(mid, seal(CARL, "p2", script.last[1]))

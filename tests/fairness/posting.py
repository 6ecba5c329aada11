"""What the bot does around the use cases, for tests that drive them directly: each turn's
seed commitment goes to the group as its own message (docs/fairness.md), and that message's
id and time are recorded (``verify`` requires it for every turn with a sealed order); with
:class:`LockingBot`, each lock is a group message too."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
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

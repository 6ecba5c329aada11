"""Building matches through the real use cases (the toy ``coin`` ruleset, endless), for storage
tests."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from engine import usecases
from engine.events import Event
from engine.match import Match, SealedOrder, TurnRecord
from engine.ports import MatchRepository
from engine.usecases import Deps, SystemEntropy
from tests.support.coin import ENDLESS, RULESET

CHAT = -1001
GM = 11
P1 = 21
P2 = 22

_clock = itertools.count(1_700_000_000)


def make_deps(repo: MatchRepository) -> Deps:
    """Deps with a strictly increasing clock (creation order = ``created_at`` order)."""
    return Deps(repo=repo, clock=lambda: float(next(_clock)), entropy=SystemEntropy())


def lobby(deps: Deps, chat_id: int = CHAT, gm: int = GM) -> Match:
    return usecases.create_match(deps, chat_id, gm, "coin", config=ENDLESS)


def started(
    deps: Deps, chat_id: int = CHAT, gm: int = GM, users: tuple[int, int] = (P1, P2)
) -> Match:
    """A running coin match (turn 1 open) with two players p1, p2."""
    m = lobby(deps, chat_id, gm)
    for i, uid in enumerate(users, 1):
        usecases.join(deps, m.id, uid, f"player{i}")
        usecases.set_character(deps, m.id, uid, f"p{i}", {})
    started_match, _ = usecases.start(deps, m.id, gm)
    return started_match


def fake_record(match: Match, turn: int, payload: Any = None) -> TurnRecord:
    """A syntactically complete turn record (for history tests)."""
    return TurnRecord(
        match_id=match.id,
        turn=turn,
        orders=(),
        events=(Event("note", None, {"payload": payload}),),
        state_before={"turn": turn},
        state_after={"turn": turn + 1},
        seed="00",
        commitment="11",
        reason="forced",
        resolved_at=float(turn),
        ruleset_version=RULESET.version,
    )


def order(match: Match, pid: str, *, turn: int | None = None, move: str = "wait") -> SealedOrder:
    return SealedOrder(
        pid=pid,
        turn=match.turn if turn is None else turn,
        order={"call": 3, "note": move},
        by_user=None,
        sealed_at=1.0,
        seq=1,
        salt="5a17",
        fingerprint="f" * 64,
    )


def with_deadline(match: Match, deadline: float | None) -> Match:
    return replace(match, deadline=deadline)

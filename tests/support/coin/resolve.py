"""One ``coin`` turn (K2) and the outcome (K4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from engine.dice import TurnLog
from engine.ruleset import RUNNING, Outcome, Sealed
from tests.support.coin.orders import CoinOrder
from tests.support.coin.state import CoinState


def resolve_turn(
    state: CoinState, orders: Mapping[str, Sealed[CoinOrder]], log: TurnLog
) -> CoinState:
    scores = list(state.scores)
    for i, pid in enumerate(state.pids):
        face = log.die(6, "coin", pid)
        if face == orders[pid].order.call:
            scores[i] += 1
            log.emit("point", pid, face=face)
    return replace(state, scores=tuple(scores), turn=state.turn + 1)


def outcome(state: CoinState) -> Outcome:
    best = [p for p, s in zip(state.pids, state.scores, strict=True) if s >= state.config.target]
    if len(best) == 1:
        return Outcome("win", (best[0],))
    if best:
        return Outcome("draw", reason="both")
    if state.turn > state.config.max_turns:
        return Outcome("draw", reason="turn_limit")
    return RUNNING

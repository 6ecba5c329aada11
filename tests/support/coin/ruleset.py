"""``coin``: the tests' one toy ruleset, for exercising the core and the stores without a real
ruleset.

Each participant calls a face 1-6 and rolls a d6; a match scores a point. The first to
``target`` points wins; both at once is a draw. Setup rolls a d6 "initiative" per participant
(turn 0), so the start-of-match record is exercised too. An order may carry a free-text
``note`` (up to 1,000,000 characters), so storage tests can seal secrets and big orders;
:data:`ENDLESS` is the configuration of a match that does not end by itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed


class CoinConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    target: int = Field(default=2, ge=1)
    max_turns: int = Field(default=10, ge=1)
    default_call: int = Field(default=1, ge=1, le=6)


class CoinCharacter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lucky: bool = False


class CoinOrder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    call: int
    note: str = Field(default="", max_length=1_000_000)


@dataclass(frozen=True, slots=True)
class CoinState:
    config: CoinConfig
    pids: tuple[str, ...]
    scores: tuple[int, ...]
    turn: int = 1


class Coin(Ruleset[CoinConfig, CoinState, CoinOrder]):
    id = "coin"
    version = "1"
    config_model = CoinConfig
    character_model = CoinCharacter
    max_participants = 4

    def setup(self, config: CoinConfig, entrants: Sequence[Entrant], log: TurnLog) -> CoinState:
        for e in entrants:
            log.die(6, "initiative", e.pid)
        return CoinState(config, tuple(e.pid for e in entrants), tuple(0 for _ in entrants))

    def acting(self, state: CoinState) -> frozenset[str]:
        return frozenset(state.pids)

    def parse_order(self, state: CoinState, pid: str, raw: Mapping[str, Any]) -> CoinOrder:
        return parse_model(CoinOrder, raw)

    def validate(self, state: CoinState, pid: str, order: CoinOrder) -> Rejection | None:
        if not 1 <= order.call <= 6:
            return Rejection("call_out_of_range", min=1, max=6, got=order.call)
        return None

    def dump_order(self, order: CoinOrder) -> dict[str, Any]:
        return order.model_dump(exclude_defaults=True)

    def default_order(self, state: CoinState, pid: str) -> CoinOrder:
        return CoinOrder(call=state.config.default_call)

    def random_order(self, state: CoinState, pid: str, rng: random.Random) -> CoinOrder:
        return CoinOrder(call=rng.randint(1, 6))

    def resolve(
        self, state: CoinState, orders: Mapping[str, Sealed[CoinOrder]], log: TurnLog
    ) -> CoinState:
        scores = list(state.scores)
        for i, pid in enumerate(state.pids):
            face = log.die(6, "coin", pid)
            if face == orders[pid].order.call:
                scores[i] += 1
                log.emit("point", pid, face=face)
        return replace(state, scores=tuple(scores), turn=state.turn + 1)

    def outcome(self, state: CoinState) -> Outcome:
        best = [
            p for p, s in zip(state.pids, state.scores, strict=True) if s >= state.config.target
        ]
        if len(best) == 1:
            return Outcome("win", (best[0],))
        if best:
            return Outcome("draw", reason="both")
        if state.turn > state.config.max_turns:
            return Outcome("draw", reason="turn_limit")
        return RUNNING

    def editable(self, state: CoinState, pid: str) -> Mapping[str, Any]:
        return {"score": state.scores[state.pids.index(pid)]}

    def edit(self, state: CoinState, pid: str, field: str, value: Any) -> CoinState:
        if field != "score":
            raise Rejection("edit_unknown_field", field=field, allowed="score")
        if not isinstance(value, int) or value < 0:
            raise Rejection("edit_bad_value", field=field, expected="a whole number >= 0")
        scores = list(state.scores)
        scores[state.pids.index(pid)] = value
        return replace(state, scores=tuple(scores))

    def view(self, state: CoinState, pid: str | None = None) -> dict[str, Any]:
        return {"scores": dict(zip(state.pids, state.scores, strict=True)), "turn": state.turn}

    def dump_state(self, state: CoinState) -> dict[str, Any]:
        return {
            "config": state.config.model_dump(),
            "pids": list(state.pids),
            "scores": list(state.scores),
            "turn": state.turn,
        }

    def load_state(self, raw: Mapping[str, Any]) -> CoinState:
        return CoinState(
            CoinConfig(**raw["config"]), tuple(raw["pids"]), tuple(raw["scores"]), int(raw["turn"])
        )


RULESET = Coin()
# A match that runs until a test stops it (storage tests seal turn after turn).
ENDLESS: Mapping[str, Any] = {"target": 10**9, "max_turns": 10**9}

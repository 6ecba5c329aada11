"""A tiny test-only ruleset ("tiny"), registered on import: storage tests need a match that
runs, seals and resolves, independent of the real rulesets being written concurrently.

Every active participant seals ``{"move": <text>, "n": 1..6}`` each turn; resolution adds
``n`` plus a d6 to the participant's score and ends the match after ``turns`` turns.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine import rulesets as registry
from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed


class TinyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    turns: int = Field(default=1000, ge=1)


class TinyCharacter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "x"


class TinyOrder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    move: str = Field(default="wait", max_length=1_000_000)
    n: int = Field(default=1, ge=1, le=6)


@dataclass(frozen=True, slots=True)
class TinyState:
    turn: int
    turns: int
    scores: tuple[tuple[str, int], ...]


class Tiny(Ruleset[TinyConfig, TinyState, TinyOrder]):
    id = "tiny"
    version = "tiny-1"
    config_model = TinyConfig
    character_model = TinyCharacter

    def setup(self, config: TinyConfig, entrants: Sequence[Entrant], log: TurnLog) -> TinyState:
        log.die(6, "setup")
        return TinyState(1, config.turns, tuple((e.pid, 0) for e in entrants))

    def acting(self, state: TinyState) -> frozenset[str]:
        return frozenset(pid for pid, _ in state.scores)

    def parse_order(self, state: TinyState, pid: str, raw: Mapping[str, Any]) -> TinyOrder:
        return parse_model(TinyOrder, dict(raw))

    def validate(self, state: TinyState, pid: str, order: TinyOrder) -> Rejection | None:
        return None

    def dump_order(self, order: TinyOrder) -> dict[str, Any]:
        return order.model_dump()

    def default_order(self, state: TinyState, pid: str) -> TinyOrder:
        return TinyOrder()

    def random_order(self, state: TinyState, pid: str, rng: random.Random) -> TinyOrder:
        return TinyOrder(n=rng.randint(1, 6))

    def resolve(
        self, state: TinyState, orders: Mapping[str, Sealed[TinyOrder]], log: TurnLog
    ) -> TinyState:
        scores = []
        for pid, score in state.scores:
            gain = orders[pid].order.n + log.die(6, "gain", pid)
            log.emit("scored", pid, gain=gain)
            scores.append((pid, score + gain))
        return TinyState(state.turn + 1, state.turns, tuple(scores))

    def outcome(self, state: TinyState) -> Outcome:
        if state.turn <= state.turns:
            return RUNNING
        best = max(s for _, s in state.scores)
        return Outcome("win", tuple(p for p, s in state.scores if s == best))

    def view(self, state: TinyState, pid: str | None = None) -> dict[str, Any]:
        return self.dump_state(state)

    def dump_state(self, state: TinyState) -> dict[str, Any]:
        return {"turn": state.turn, "turns": state.turns, "scores": dict(state.scores)}

    def load_state(self, raw: Mapping[str, Any]) -> TinyState:
        return TinyState(int(raw["turn"]), int(raw["turns"]), tuple(dict(raw["scores"]).items()))


RULESET = Tiny()
registry._LOADED[RULESET.id] = RULESET  # test-only registration (not in the public registry)

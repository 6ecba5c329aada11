"""The ``coin`` state and its dump/load."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.support.coin.config import CoinConfig


@dataclass(frozen=True, slots=True)
class CoinState:
    config: CoinConfig
    pids: tuple[str, ...]
    scores: tuple[int, ...]
    turn: int = 1


def dump_state(state: CoinState) -> dict[str, Any]:
    return {
        "config": state.config.model_dump(),
        "pids": list(state.pids),
        "scores": list(state.scores),
        "turn": state.turn,
    }


def load_state(raw: Mapping[str, Any]) -> CoinState:
    return CoinState(
        CoinConfig(**raw["config"]), tuple(raw["pids"]), tuple(raw["scores"]), int(raw["turn"])
    )

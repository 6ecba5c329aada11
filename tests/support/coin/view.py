"""The ``coin`` text view: the scores (never an order)."""

from __future__ import annotations

from typing import Any

from tests.support.coin.state import CoinState


def view(state: CoinState, pid: str | None = None) -> dict[str, Any]:
    return {"scores": dict(zip(state.pids, state.scores, strict=True)), "turn": state.turn}

"""Default and random ``coin`` orders."""

from __future__ import annotations

import random

from tests.support.coin.orders import CoinOrder
from tests.support.coin.state import CoinState


def default_order(state: CoinState, pid: str) -> CoinOrder:
    return CoinOrder(call=state.config.default_call)


def random_order(state: CoinState, pid: str, rng: random.Random) -> CoinOrder:
    return CoinOrder(call=rng.randint(1, 6))

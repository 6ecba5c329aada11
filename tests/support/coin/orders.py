"""The ``coin`` order (K1): a called face, and an optional free-text note."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import Rejection, parse_model
from tests.support.coin.state import CoinState


class CoinOrder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    call: int
    note: str = Field(default="", max_length=1_000_000)


def parse_order(state: CoinState, pid: str, raw: Mapping[str, Any]) -> CoinOrder:
    return parse_model(CoinOrder, raw)


def validate(state: CoinState, pid: str, order: CoinOrder) -> Rejection | None:
    if not 1 <= order.call <= 6:
        return Rejection("call_out_of_range", min=1, max=6, got=order.call)
    return None


def dump_order(order: CoinOrder) -> dict[str, Any]:
    return order.model_dump(exclude_defaults=True)

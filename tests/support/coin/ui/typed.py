"""Typed ``coin`` orders: ``/order call 3`` (the generic ``key value`` words)."""

from __future__ import annotations

from handlers.telegram.ui import RulesetUI


class CoinTyped(RulesetUI):
    def typed_example(self) -> str:
        return "call 3"

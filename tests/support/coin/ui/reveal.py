"""The ``coin`` reveal: each call in words, who scored (K2), every die one tap away."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from handlers.telegram.i18n import Tr
from handlers.telegram.ui import RulesetUI


class CoinReveal(RulesetUI):
    def order_text(self, tr: Tr, order: Mapping[str, Any]) -> str:
        return tr("coin.order", face=order.get("call", "?"))

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        if kind == "point":
            return tr("coin.point", who=names.get(actor or "", actor or ""), face=data["face"])
        return super().event_text(tr, names, kind, actor, data)

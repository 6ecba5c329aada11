"""The ``coin`` order builder (K1): six face buttons, then a confirmation with the seal button.
Builder state travels in the callback data: ``(pid,)`` then ``(pid, face)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import Button, RulesetUI, Screen

FACES = range(1, 7)


class CoinBuilder(RulesetUI):
    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        turn = match.turn
        if not state:
            row = [Button(str(f), Callback("b", match.id, turn, (pid, str(f)))) for f in FACES]
            return Screen(tr("coin.pick", turn=turn), [row])
        face = state[0]
        return Screen(
            tr("coin.confirm", face=face),
            [
                [Button(tr("btn.seal"), Callback("s", match.id, turn, (pid, face)))],
                [Button(tr("btn.back"), Callback("b", match.id, turn, (pid,)))],
            ],
        )

    def order_from_args(self, args: Sequence[str]) -> dict[str, Any]:
        if len(args) != 1 or not args[0].isdigit():
            raise Rejection("invalid_button")
        return {"call": int(args[0])}

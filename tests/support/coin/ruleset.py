"""``coin``: the tests' one toy ruleset, for exercising the core and the stores without a real
ruleset, and the proof that a fourth ruleset needs no shared module (``docs/rulesets.md``): it
has the package shape of every ruleset, a Telegram UI (:mod:`.ui`) and its own catalogs, and
registers at run time (:mod:`.plugin`).

Each participant calls a face 1-6 and rolls a d6; a match scores a point. The first to
``target`` points wins; both at once is a draw. Setup rolls a d6 "initiative" per participant
(turn 0), so the start-of-match record is exercised too. An order may carry a free-text
``note`` (up to 1,000,000 characters), so storage tests can seal secrets and big orders;
:data:`ENDLESS` is the configuration of a match that does not end by itself. Rules: ``rules.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.dice import TurnLog
from engine.errors import Rejection
from engine.ruleset import Entrant, Ruleset
from tests.support.coin import choices, orders, resolve, state, view
from tests.support.coin.config import ENDLESS, CoinConfig
from tests.support.coin.orders import CoinOrder
from tests.support.coin.sheet import PRESETS, CoinCharacter
from tests.support.coin.state import CoinState

__all__ = ["ENDLESS", "RULESET", "Coin"]


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

    def presets(self, config: CoinConfig) -> Mapping[str, Mapping[str, Any]]:
        return PRESETS

    def acting(self, state: CoinState) -> frozenset[str]:
        return frozenset(state.pids)

    parse_order = staticmethod(orders.parse_order)
    validate = staticmethod(orders.validate)
    dump_order = staticmethod(orders.dump_order)
    default_order = staticmethod(choices.default_order)
    random_order = staticmethod(choices.random_order)
    outcome = staticmethod(resolve.outcome)
    resolve = staticmethod(resolve.resolve_turn)  # last: the name is the module's until here
    view = staticmethod(view.view)
    dump_state = staticmethod(state.dump_state)
    load_state = staticmethod(state.load_state)

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


RULESET = Coin()

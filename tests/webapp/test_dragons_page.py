"""The dragons page (docs/rules/dragons.md): the sky and legal movements, the actions with
their reasons and the engine's exact attack chances, a seal exactly like a typed order, and
the GM ordering an NPC (never a player's dragon)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from engine.rulesets.dragons import RULESET
from engine.rulesets.dragons.odds import attack_odds, p_sum_at_least
from engine.savage import exact_trait_odds
from handlers.telegram.harness import TOKEN, Harness
from handlers.webapp import initdata
from handlers.webapp.api import RateLimiter, WebApp
from handlers.webapp.server import LocalBackend
from tests.bot.test_dragons_ui import Battle


class DragonsPage:
    def __init__(self, h: Harness) -> None:
        self.h = h
        self.battle = Battle(h)
        self.backend = LocalBackend(h.deps, h.app, TOKEN, h.runner.run)
        self.webapp = WebApp(self.backend, limiter=RateLimiter(burst=1000, per_second=1000))

    def init(self, user: dict[str, Any], *, age: float = 0, token: str = TOKEN) -> str:
        who = {k: user[k] for k in ("id", "first_name", "language_code") if k in user}
        return initdata.sign(who, token, int(self.h.now - age))

    def call(self, path: str, body: Any, user: dict[str, Any]) -> Any:
        import json

        raw = json.dumps(body).encode()
        return self.webapp.handle("POST", path, {"Authorization": f"tma {self.init(user)}"}, raw)


@pytest.fixture
def dp() -> Iterator[DragonsPage]:
    h = Harness()
    yield DragonsPage(h)
    h.close()


def _brute_at_least(dice: tuple[int, ...], flat: int, k: int, depth: int = 4) -> Fraction:
    """P(sum >= k) by enumerating every die's aces up to ``depth`` rolls (exact for the k
    checked here: longer chains all exceed it)."""

    def faces(s: int) -> list[tuple[int, Fraction]]:
        out = []
        for j in range(depth):
            for r in range(1, s):
                out.append((s * j + r, Fraction(1, s) ** (j + 1)))
        out.append((s * depth, Fraction(1, s) ** depth))  # and beyond: at least this
        return out

    total = Fraction(0)
    for combo in product(*(faces(s) for s in dice)):
        if flat + sum(v for v, _ in combo) >= k:
            p = Fraction(1)
            for _, q in combo:
                p *= q
            total += p
    return total


@pytest.mark.parametrize("dice", [(6,), (8,), (6, 8), (4, 4, 10)])
def test_D22_sums_of_acing_dice_are_exact(dice: tuple[int, ...]) -> None:
    for k in range(1, 20):
        assert p_sum_at_least(dice, 2, k) == _brute_at_least(dice, 2, k), (dice, k)


def test_D18_D20_an_attack_roll_is_the_trait_roll_with_its_penalties(dp: DragonsPage) -> None:
    dp.battle.start()
    state = RULESET.load_state(dp.battle.match().state)
    me = state.dragon("p2")
    for target in ("p1", "n1"):
        for w in state.stats["p2"].weapons:
            odds = attack_odds(state, "p2", w.name, target, ("level", 0), 2)
            if not odds.possible:
                assert odds.reason and odds.hit == 0
                continue
            die = state.stats["p2"].fighting if w.melee else state.stats["p2"].shooting
            assert die is not None
            hit, raised, _ = exact_trait_odds(
                die.sides, odds.modifier, wild_card=me.wild_card, tn=odds.tn
            )
            assert (odds.hit, odds.raise_) == (hit, raised)
            assert odds.modifier <= -2  # two actions: -2 (D3, decision 4)
            assert 0 <= odds.wound <= odds.shaken <= odds.hit


def test_the_page_offers_legal_moves_and_names_why_an_action_fails(dp: DragonsPage) -> None:
    dp.battle.start()
    view = dp.call("/api/view", {"match": "m00001"}, dp.battle.bob).json()["dragons"]
    assert view["me"]["pid"] == "p2"
    assert any(m["legal"] for m in view["moves"])
    assert all(m["reason"] for m in view["moves"] if not m["legal"])
    odds = dp.call(
        "/api/odds",
        {"match": "m00001", "pid": "p2", "order": {"move": "level", "n": 0, "actions": []}},
        dp.battle.bob,
    ).json()
    attacks = [a for a in odds["actions"] if a["action"]["type"] == "attack"]
    assert attacks and all(a["action"]["target"] in ("p1", "n1") for a in attacks)  # foes
    for a in attacks:
        assert ("odds" in a) != bool(a["reason"]), a  # chances, or why it cannot succeed
    force = next(a for a in odds["actions"] if a["action"]["type"] == "force")
    assert force["reason"]  # D27: not on a tail


def _typed_seal() -> tuple[dict[str, Any], Any, str]:
    h = Harness()
    b = Battle(h)
    b.start()
    h.say(b.bob, 222, "/order level +1; tail p1")
    sealed = h.deps.repo.load("m00001").orders["p2"]
    return dict(sealed.order), sealed, h.texts(222)[-1]


def test_a_page_seal_lands_exactly_like_a_typed_order(dp: DragonsPage) -> None:
    order, typed, receipt = _typed_seal()
    dp.battle.start()
    body = {"match": "m00001", "pid": "p2", "turn": 1, "order": order, "key": "dragons-key-1"}
    answer = dp.call("/api/seal", body, dp.battle.bob)
    assert answer.status == 200, answer.body
    assert dp.h.deps.repo.load("m00001").orders["p2"] == typed
    assert dp.h.texts(222)[-1] == receipt


def test_the_gm_orders_an_npc_and_no_players_dragon(dp: DragonsPage) -> None:
    dp.battle.start()
    order = {"move": "level", "n": 0, "actions": []}
    gm = dp.battle.gm
    body = {"match": "m00001", "turn": 1, "order": order, "key": "gm-key-0001"}
    assert dp.call("/api/seal", {**body, "pid": "n1"}, gm).status == 200
    refused = dp.call("/api/seal", {**body, "pid": "p1", "key": "gm-key-0002"}, gm)
    assert refused.status == 403
    orders = dp.h.deps.repo.load("m00001").orders
    assert set(orders) == {"n1"} and orders["n1"].by_user == 333

"""The plans page (docs/rules/plans.md): the form's choices, the engine's exact odds for a
draft, and a seal that lands exactly like the chat builder's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.rulesets.plans import RULESET
from engine.rulesets.plans.orders import parse_plan
from handlers.telegram.harness import TOKEN, Harness
from handlers.webapp.api import RateLimiter, WebApp
from handlers.webapp.server import LocalBackend
from tests.bot.test_plans_ui import PlansDuel
from tests.webapp.conftest import Page

TEXT = "Я делаю выпад и финт, ход 1"


class PlansPage(Page):
    def __init__(self, h: Harness) -> None:
        super().__init__(h)
        self.duel = PlansDuel(h)
        self.backend = LocalBackend(h.deps, h.app, TOKEN, h.runner.run)
        self.webapp = WebApp(self.backend, limiter=RateLimiter(burst=1000, per_second=1000))


@pytest.fixture
def pp() -> Iterator[PlansPage]:
    h = Harness()
    yield PlansPage(h)
    h.close()


def _chat_seal() -> tuple[dict[str, Any], Any, str]:
    h = Harness()
    pd = PlansDuel(h)
    pd.start()
    pd.h.say(pd.alice, pd.a, f"/plan physical fencing strong guess:magical/?/precise -- {TEXT}")
    sealed = h.deps.repo.load("m00001").orders["p1"]
    return dict(sealed.order), sealed, h.texts(pd.a)[-1]


def test_a_page_seal_lands_exactly_like_the_chat_builders(pp: PlansPage) -> None:
    order, chat_sealed, chat_receipt = _chat_seal()
    pp.duel.start()
    body = {"match": "m00001", "pid": "p1", "turn": 1, "order": order, "key": "plans-key-1"}
    answer = pp.call("/api/seal", body, pp.duel.alice)
    assert answer.status == 200, answer.body
    assert pp.h.deps.repo.load("m00001").orders["p1"] == chat_sealed
    assert pp.h.texts(pp.duel.a)[-1] == chat_receipt


def test_the_form_offers_the_sheet_and_the_odds_are_the_engines(pp: PlansPage) -> None:
    pp.duel.start()
    view = pp.call("/api/view", {"match": "m00001"}, pp.duel.alice).json()["plans"]
    assert [g["id"] for g in view["groups"]] == ["physical", "magical", "mental"]
    assert {"fencing", "feint"} <= {s["id"] for s in view["skills"]}
    assert view["opponent"]["name"] == "Ember" or view["opponent"]["pid"] == "p2"
    draft = {"group": "physical", "skill": "fencing", "action": "strong"}
    odds = pp.call(
        "/api/odds", {"match": "m00001", "pid": "p1", "order": draft}, pp.duel.alice
    ).json()
    state = RULESET.load_state(pp.duel.match().state)
    pv = RULESET.preview(state, "p1", parse_plan({**draft, "text": ""}))
    assert odds["pool"] == pv.pool and odds["damage_pool"] == pv.damage_pool
    assert odds["at_least"] == [[p.numerator, p.denominator] for p in pv.at_least]


def test_a_draft_the_rules_refuse_says_why_in_one_sentence(pp: PlansPage) -> None:
    pp.duel.start()
    draft = {"group": "physical", "skill": "pyromancy", "action": "strong"}
    odds = pp.call(
        "/api/odds", {"match": "m00001", "pid": "p1", "order": draft}, pp.duel.alice
    ).json()
    assert "pyromancy" in odds["error"] and "<" not in odds["error"]
    assert pp.h.deps.repo.load("m00001").orders == {}

"""A fourth ruleset needs no shared module (issue 19, ``docs/rulesets.md``): the toy ``coin``
(``tests/support/coin/``, the package shape of every ruleset, with its UI and catalogs)
registers at run time and plays a whole match through the bot and through the simulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from telegram import Update
from telegram.ext import CommandHandler

from engine.match import Phase
from engine.simulate import run
from handlers.telegram import ui
from handlers.telegram.harness import Harness, plain
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.routing import Flow, router
from tests.bot.conftest import Duel
from tests.support.coin import RULESET, plugin
from tests.support.coin.ui import CoinUI


@pytest.fixture
def coin_duel() -> Iterator[Duel]:
    plugin.install()
    h = Harness()
    try:
        yield Duel(h)
    finally:
        h.close()
        plugin.uninstall()


def test_coin_registers_and_plays_a_whole_match_through_the_bot(coin_duel: Duel) -> None:
    d, h = coin_duel, coin_duel.h
    h.say(d.gm, d.g, "/duel@sekundant_bot")
    picker = h.last(d.g, with_buttons=True)
    assert "Coin (toy)" in [b["text"] for b in picker.buttons]  # its own catalog
    h.press_text(d.gm, picker, "Coin (toy)")
    lobby = h.last(d.g, with_buttons=True)
    h.press(d.alice, lobby, 0)  # join
    h.press(d.bob, lobby, 0)
    h.press(d.alice, h.last(d.a, with_buttons=True), 0)  # K3: a preset button
    h.say(d.bob, d.b, "/character lucky=true")  # typed, as the UI's example shows
    h.press_text(d.gm, lobby, "Start")
    match = d.match()
    assert match.ruleset == "coin" and match.phase is Phase.RUNNING
    # K1: a bad call is refused in the toy's own words (its catalog) and seals nothing.
    h.say(d.bob, d.b, "/order call 9")
    assert "not 9" in plain(h.last(d.b).text)
    assert h.deps.repo.load(match.id).orders == {}
    for _ in range(match.rules.config(match.config).max_turns):
        if not h.deps.repo.active_in_chat(d.g):
            break
        # Alice seals with the builder's buttons (face 1, confirm, seal); Bob types.
        h.press(d.alice, h.last(d.a, with_buttons=True), 0)
        assert "You call" in plain(h.last(d.a, with_buttons=True).text) or "называете" in plain(
            h.last(d.a, with_buttons=True).text
        )
        h.press_text(d.alice, h.last(d.a, with_buttons=True), "🔒")
        h.say(d.bob, d.b, "/order call 2")
    finished = h.deps.repo.load(match.id).match
    assert finished.phase is Phase.FINISHED
    group = [plain(t) for t in h.texts(d.g)]
    assert any("calls 1" in t or "называет 1" in t for t in group), "the reveal, in coin's words"
    assert not any("coin." in t or "ruleset.coin" in t for t in group), "no raw message id"


def test_a_plugin_ui_wires_its_own_flow_through_the_hook() -> None:
    """RulesetUI.flow: a plug-in's commands and buttons are wired with every other handler,
    without a line in the shared modules (plans' /plan and veto come the same way)."""
    heard: list[str] = []

    async def cmd_toss(update: Update, context: Ctx) -> None:
        assert update.effective_message is not None
        heard.append(update.effective_message.text or "")

    async def btn_toss(*_: object) -> str | None:
        return None

    class TossingUI(CoinUI):
        def flow(self) -> Flow:
            return Flow(handlers=[CommandHandler("toss", cmd_toss)], buttons={"ctz": btn_toss})

    plugin.install()
    ui.register(RULESET.id, TossingUI())
    h = Harness()
    try:
        d = Duel(h)
        h.say(d.bob, d.b, "/toss high")
        assert heard == ["/toss high"]
        assert router(h.app).buttons["ctz"] is btn_toss
    finally:
        h.close()
        plugin.uninstall()


def test_coin_plays_through_the_simulator() -> None:
    setup = {
        "ruleset": "coin",
        "participants": [
            {"id": "a", "character": {"lucky": True}, "orders": "random"},
            {"id": "b", "character": {}, "orders": {"call": 6}},
        ],
    }
    result = run(setup, 200, seed=3)
    assert result.n == 200 and sum(result.outcomes.values()) == 200
    assert result.events["point"] > 0

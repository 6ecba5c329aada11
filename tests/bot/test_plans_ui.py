"""The ``plans`` ruleset's Telegram UI end to end through the real PTB Application (fake Bot
API, memory store): lobby options, presets and typed sheets, the step-by-step builder with
back/cancel, the confirmation screen's exact chances, the role-play text sealed by replying,
typed plans, secrecy until the reveal, the reveal itself, and the GM's veto (C22)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.match import Phase
from engine.rulesets.plans import RULESET
from engine.rulesets.plans.orders import parse_plan
from handlers.telegram.callbacks import MAX_BYTES
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import Harness, plain
from handlers.telegram.ui.plans.builder import rounded_percent
from tests.bot.conftest import Duel

_UPDATES = itertools.count(990_000_000)
BOB_TEXT = "<b>fire</b> & brimstone: I draw a burning sigil in the air"


class PlansDuel(Duel):
    """Alice (ru) plays the fencer preset, Bob (en, HTML in his name) a typed pyromancer sheet;
    Carol is the GM and plays no seat."""

    def lobby(self, *, gm_sees: bool = False) -> None:
        h = self.h
        h.say(self.gm, self.g, "/duel")
        h.press_text(self.gm, h.last(self.g, with_buttons=True), "Plan duel")
        lobby = h.last(self.g, with_buttons=True)
        self.lobby_msg = lobby
        if gm_sees:
            h.press_text(self.gm, lobby, "GM sees plans")
        h.press(self.alice, lobby, 0)
        h.press(self.bob, lobby, 0)
        h.press_text(self.alice, h.last(self.a, with_buttons=True), "Фехтовальщик")
        h.say(self.bob, self.b, "/character preset=pyromancer name=Ember")

    def start(self, *, gm_sees: bool = False) -> None:
        self.lobby(gm_sees=gm_sees)
        self.h.press_text(self.gm, self.lobby_msg, "Start")

    def start_with_alice_as_gm(self) -> None:
        """Alice runs the match (``/duel``) and duels in it, with ``gm_sees_plans`` on."""
        h = self.h
        h.say(self.alice, self.g, "/duel")
        h.press_text(self.alice, h.last(self.g, with_buttons=True), "Дуэль планов")
        lobby = h.last(self.g, with_buttons=True)
        h.press_text(self.alice, lobby, "Мастер видит планы")
        h.press(self.alice, lobby, 0)
        h.press(self.bob, lobby, 0)
        h.press(self.alice, h.last(self.a, with_buttons=True), 0)
        h.press_text(self.bob, h.last(self.b, with_buttons=True), "Pyromancer")
        h.press_text(self.alice, lobby, "Начать")

    def builder(self) -> FakeMessage:
        return self.h.last(self.a, with_buttons=True)

    def build_first_choices(self) -> FakeMessage:
        """Alice presses the first button of every step up to the confirmation screen."""
        for _ in range(12):
            msg = self.builder()
            if "✍️" in msg.buttons[0]["text"]:
                return msg
            self.h.press(self.alice, msg, 0)
        raise AssertionError(self.builder().text)

    def reply(self, user: dict[str, Any], to: FakeMessage, text: str) -> None:
        """``user`` replies to ``to`` in their private chat (Telegram includes the replied
        message, keyboard and all)."""
        uid = int(user["id"])
        msg = FakeMessage(self.h.api.new_message_id(), uid, text, from_bot=False, user_id=uid)
        self.h.api.chat(uid).messages.append(msg)
        body = self.h.api.message_json(msg)
        body["reply_to_message"] = self.h.api.message_json(to)
        self.h.feed({"update_id": next(_UPDATES), "message": body})

    def seal_shown(self, user: dict[str, Any]) -> None:
        """``user`` presses 🔒 under the text the bot showed back (no text is sealed
        silently: issue 24)."""
        shown = self.h.last(int(user["id"]), with_buttons=True)
        self.h.press(user, shown, self.h.find_button(shown, "🔒"))

    def bob_types(self, turn: int) -> None:
        self.h.say(
            self.bob,
            self.b,
            "/plan magical pyromancy precise soak:none guess:physical/fencing/strong"
            f" -- {BOB_TEXT} {turn}",
        )


@pytest.fixture
def pd() -> Iterator[PlansDuel]:
    h = Harness()
    yield PlansDuel(h)
    h.close()


def _all_callback_data(h: Harness) -> list[str]:
    return [
        str(b["callback_data"])
        for chat in h.api.chats.values()
        for m in chat.messages
        for b in m.buttons
        if "callback_data" in b
    ]


def test_lobby_options_presets_and_typed_sheet(pd: PlansDuel) -> None:
    h = pd.h
    pd.lobby()
    lobby = pd.lobby_msg
    labels = [b["text"] for b in lobby.buttons]
    assert any("End: incapacitation" in t for t in labels)
    assert any("Wound limit: 5" in t for t in labels)
    assert any("GM sees plans: no" in t for t in labels)
    h.press_text(pd.gm, lobby, "End:")  # C6: first blood; the wound limit then disappears
    assert pd.match().config["end_condition"] == "first_blood"
    assert not any("Wound limit" in b["text"] for b in lobby.buttons)
    # the typed sheet is on the lobby (escaped name), with the preset on Alice's seat
    assert "Ember" in lobby.text and "fencing 3" in lobby.text
    assert any("/character preset=fencer" in t for t in h.texts(pd.b))  # a plans example


def test_typed_sheets_with_bad_values_name_the_field(pd: PlansDuel) -> None:
    h = pd.h
    pd.lobby()
    cases = {
        "/character preset=pyromancer dex=11": "“dexterity” must be from 0 to 10, not 11",
        "/character fencing=3:physical": "no attribute “dexterity”",
        "/character preset=fencer fencing=x:physical": "skill fencing",
        "/character preset=fencer fencing=3:cosmic": "LEVEL:GROUP",
        "/character preset=wizard": "Fencer, Pyromancer",
        "/character attrs=1,2,3": "9 numbers",
    }
    before = pd.match().seat("p2").character
    for text, expected in cases.items():
        h.say(pd.bob, pd.b, text)
        assert expected in plain(h.last(pd.b).text), (text, h.last(pd.b).text)
    assert pd.match().seat("p2").character == before


def test_builder_steps_back_and_cancel(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    first = pd.builder()
    assert "Шаг 1/9" in first.text and "/plan" in first.text
    h.press(pd.alice, first, 0)  # physical
    h.press_text(pd.alice, pd.builder(), "финт")  # C10: no other group can pay a second skill
    assert "Шаг 4/9" in pd.builder().text  # the second skill step was skipped
    h.press_text(pd.alice, pd.builder(), "Назад")
    assert "Шаг 2/9" in pd.builder().text  # back skips the skipped step too
    h.press_text(pd.alice, pd.builder(), "фехтование")
    assert "Шаг 3/9" in pd.builder().text  # fencing can add feint paid by mental
    h.press_text(pd.alice, pd.builder(), "Назад")
    assert "Шаг 2/9" in pd.builder().text
    h.press_text(pd.alice, pd.builder(), "Отмена")
    assert "закрыта" in pd.builder().text
    h.press(pd.alice, pd.builder(), 0)  # build again
    assert "Шаг 1/9" in pd.builder().text
    assert pd.match().sealed == ()
    assert all(len(d.encode()) <= MAX_BYTES for d in _all_callback_data(h))


def test_confirmation_shows_the_pool_and_rounded_chances_of_the_engine(pd: PlansDuel) -> None:
    pd.start()
    confirm = pd.build_first_choices()
    text = plain(confirm.text)
    m = pd.match()
    state = RULESET.load_state(m.state)
    # physical, fencing + feint paid by mental, strong, soak physical, restore magical, guesses
    plan = parse_plan(
        {
            "group": "physical",
            "skill": "fencing",
            "second": {"skill": "feint", "group": "mental"},
            "action": "strong",
        }
    )
    pv = RULESET.preview(state, "p1", plan)
    assert f"Пул действия: {pv.pool} куб." in text
    shown = dict(re.findall(r"≥(\d+): (<1|>99|\d+)%", text))
    assert shown, text
    for k, pct in shown.items():  # issue 24: whole percentages, no exact fractions
        assert pct == rounded_percent(pv.at_least[int(k) - 1]).removesuffix("%"), (k, pct)
    assert "/" not in text.split("≥1:")[1].split("\n")[0]
    assert "=" not in text.split("≥1:")[1].split("\n")[0]
    assert f"пул урона {pv.damage_pool}" in text
    assert "/plan physical fencing +mental feint strong" in text  # the typed equivalent


def test_whole_duel_with_buttons_replies_and_typed_plans(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    # Then turn 0's commitment and the status (turn 1's commitment is folded into the start).
    start_text = plain(h.texts(pd.g)[-3])
    assert "Инициатива:" in start_text or "Initiative:" in start_text
    for turn in range(1, 25):
        m = h.deps.repo.active_in_chat(pd.g)
        if not m:
            break
        assert m[0].turn == turn
        confirm = pd.build_first_choices()
        pd.reply(pd.alice, confirm, f"Я делаю выпад и финт, ход {turn}")
        pd.seal_shown(pd.alice)
        assert "Запечатано" in plain(h.last(pd.a).text) or "🔒" in h.last(pd.a).text
        pd.bob_types(turn)
    finished = h.deps.repo.load("m00001").match
    assert finished.phase is Phase.FINISHED
    group = h.reveals(pd.g)
    reveals = [t for t in group if "вскрытие" in t.lower() or "reveal" in t.lower()]
    assert reveals
    first = reveals[0]
    assert "Я делаю выпад и финт, ход 1" in first  # C22: the texts beside the numbers
    assert "&lt;b&gt;fire&lt;/b&gt; &amp; brimstone" in first  # escaped, never markup
    assert "<b>fire</b>" not in first
    assert "🔮" in first and ("✅" in first or "❌" in first)  # guesses, right or wrong
    assert "🎲" in first and "🎯" in first and "📊" in first  # dice, the action check, status
    assert any("🏆" in t or "🤝" in t for t in group)  # the final summary


def test_secrecy_plan_text_only_for_its_owner_until_the_reveal(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "secret-word-xyz: a low lunge")
    pd.seal_shown(pd.alice)
    assert pd.match().sealed == ("p1",)
    assert "secret-word-xyz" in h.last(pd.a).text  # Alice's receipt
    for chat in (pd.g, pd.b, int(pd.gm["id"])):
        assert not any("secret-word-xyz" in t for t in h.texts(chat))
        assert not any("fencing + feint" in plain(t) for t in h.texts(chat))
    pd.bob_types(1)
    assert any("secret-word-xyz" in t for t in h.texts(pd.g))  # revealed now


def test_bad_typed_plans_name_the_field_and_change_nothing(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    long_text = "-- a long enough role-play text"
    cases = {
        "/plan magical pyromancy strong": "after “--”",
        f"/plan cosmic pyromancy strong {long_text}": "“cosmic” is not a group",
        f"/plan magical necromancy strong {long_text}": "no skill “necromancy”; your skills:",
        "/plan magical pyromancy strong -- short": "at least 10 characters, you wrote 5",
        f"/plan magical pyromancy strong guess:x {long_text}": "Could not read the guess “x”",
        f"/order magical pyromancy dance {long_text}": "dance",
    }
    for text, expected in cases.items():
        h.say(pd.bob, pd.b, text)
        assert expected in plain(h.last(pd.b).text), (text, h.last(pd.b).text)
    assert pd.match().sealed == ()


def test_stale_reply_to_an_old_confirmation_changes_nothing(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    old = pd.build_first_choices()
    pd.reply(pd.alice, old, "a first careful lunge")
    pd.seal_shown(pd.alice)
    pd.bob_types(1)
    assert pd.match().turn == 2
    pd.reply(pd.alice, old, "an old confirmation, replied to again")
    assert "Ход 1 уже закончился" in plain(h.last(pd.a).text)
    assert pd.match().sealed == ()


def test_C22_gm_veto_keeps_secrecy_and_the_turn_waits_for_approval(pd: PlansDuel) -> None:
    h = pd.h
    gm = int(pd.gm["id"])
    pd.start(gm_sees=True)
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "I juggle three swords while reciting poetry")
    pd.seal_shown(pd.alice)
    to_gm = h.last(gm, with_buttons=True)
    assert "juggle three swords" in to_gm.text and "Veto" in to_gm.buttons[0]["text"]
    h.press_text(pd.gm, to_gm, "Veto")
    assert pd.match().sealed == ()
    assert pd.match().audit[-1]["action"] == "veto"
    assert "juggle" not in str(pd.match().audit)  # audited without the content
    assert any("вето" in t for t in h.texts(pd.a))  # Alice is asked to seal again
    assert "Шаг 1/9" in pd.builder().text
    assert any("vetoed a plan" in t for t in h.texts(pd.g))
    assert not any("juggle" in t for t in h.texts(pd.g) + h.texts(pd.b))
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "a plain low lunge, as the sheet says")
    pd.seal_shown(pd.alice)
    pd.bob_types(1)
    assert pd.match().turn == 1  # every plan is in, but the GM reviews first
    assert any("reviews them" in t for t in h.texts(pd.g))
    approve = h.last(gm, with_buttons=True)
    h.press_text(pd.bob, approve, "Approve")  # not the GM: refused
    assert pd.match().turn == 1
    h.press_text(pd.gm, approve, "Approve")
    assert pd.match().turn == 2
    assert any("a plain low lunge" in t for t in h.texts(pd.g))
    # The turn is over: none of the GM's review messages keeps a live Veto or Approve.
    review = [m for m in h.api.chat(gm).messages if m.from_bot and "turn 1" in m.text.lower()]
    labels = [
        b["text"]
        for m in review
        for row in m.reply_markup.get("inline_keyboard", [])
        if m.reply_markup
        for b in row
    ]
    assert labels and not any("Veto" in b or "Approve" in b for b in labels), labels


def test_gm_who_plays_is_never_sent_plans(pd: PlansDuel) -> None:
    h = pd.h
    pd.start_with_alice_as_gm()
    pd.bob_types(1)  # Bob types a plan Alice (the GM) must not see
    assert pd.match().sealed == ("p2",)
    assert not any("brimstone" in t for t in h.texts(pd.a))


def test_C22_veto_use_case_needs_the_option_the_gm_and_the_fingerprint(pd: PlansDuel) -> None:
    from engine import usecases
    from engine.errors import Rejection

    deps = pd.h.deps
    pd.start()
    pd.bob_types(1)
    fp = deps.repo.load("m00001").orders["p2"].fingerprint
    with pytest.raises(Rejection) as off:  # DEFAULT: nobody read it, so nobody vetoes it
        usecases.veto_order(deps, "m00001", int(pd.gm["id"]), "p2", fp)
    assert off.value.code == "veto_not_allowed"
    assert pd.match().sealed == ("p2",)


def test_C22_veto_of_a_replaced_plan_is_stale(pd: PlansDuel) -> None:
    from engine import usecases
    from engine.errors import Rejection

    deps, gm = pd.h.deps, int(pd.gm["id"])
    pd.start(gm_sees=True)
    pd.bob_types(1)
    old = deps.repo.load("m00001").orders["p2"].fingerprint
    pd.bob_types(2)  # replaced before the GM pressed Veto on the first one
    with pytest.raises(Rejection) as stale:
        usecases.veto_order(deps, "m00001", gm, "p2", old[:8])
    assert stale.value.code == "stale_turn"
    with pytest.raises(Rejection) as not_gm:
        usecases.veto_order(deps, "m00001", pd.b, "p2", old[:8])
    assert not_gm.value.code == "gm_only"
    assert pd.match().sealed == ("p2",)


def test_C22_a_gm_handed_the_role_mid_turn_gets_the_plans_sealed_so_far(pd: PlansDuel) -> None:
    """The plans sealed before the handover went to the previous GM; without them the new one
    could neither veto nor approve, and the turn would wait for its deadline."""
    h = pd.h
    dave = h.user(444444444, "Dave", lang="en")
    h.say(dave, 444444444, "/start")
    pd.start(gm_sees=True)
    pd.bob_types(1)
    h.say(dave, pd.g, "I'll take it from here")
    h.say(pd.gm, pd.g, "/gm", reply_to=h.api.chat(pd.g).messages[-1])
    assert pd.match().gm_user_id == 444444444
    to_dave = h.last(444444444, with_buttons=True)
    assert "brimstone" in plain(to_dave.text) and "Veto" in to_dave.buttons[0]["text"]
    assert not any("Approve" in b["text"] for b in to_dave.buttons)  # Alice's plan is missing
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "a plain low lunge, as the sheet says")
    pd.seal_shown(pd.alice)
    approve = h.last(444444444, with_buttons=True)
    assert "Approve" in approve.buttons[0]["text"]
    h.press_text(dave, approve, "Approve")
    assert pd.match().turn == 2


def test_C22_plans_for_review_only_for_the_reviewing_gm(pd: PlansDuel) -> None:
    from engine import usecases
    from engine.errors import Rejection

    deps = pd.h.deps
    pd.start()  # DEFAULT: gm_sees_plans off, so nobody reviews
    pd.bob_types(1)
    with pytest.raises(Rejection) as off:
        usecases.orders_for_review(deps, "m00001", int(pd.gm["id"]))
    assert off.value.code == "veto_not_allowed"
    with pytest.raises(Rejection) as not_gm:
        usecases.orders_for_review(deps, "m00001", pd.b)
    assert not_gm.value.code == "gm_only"

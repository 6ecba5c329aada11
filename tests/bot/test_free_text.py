"""Free text without the reply gesture: when a builder waits for a text (a plan's role-play
text, C22; a dragon power's effect, D34a) the player's next plain private message is that
text. The pending step lives in the store, so a second bot process over the same store (another
Lambda container, a restart) takes the text too; replying still works; a plain message with
nothing pending gets a hint of what to do now; the offline sandbox can finish a guided plans
duel and a dragons battle with a power."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from engine import usecases
from engine.match import Phase
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import Harness, plain
from handlers.telegram.sandbox import Sandbox
from handlers.telegram.shared import text_steps
from tests.bot.test_plans_ui import PlansDuel

TEXT = "I feint high, then the blade drops to the knee"


@pytest.fixture
def pd() -> Iterator[PlansDuel]:
    h = Harness()
    yield PlansDuel(h)
    h.close()


def test_C22_the_next_plain_message_is_the_plans_text(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    confirm = pd.build_first_choices()
    assert "следующим сообщением" in plain(confirm.text)
    h.say(pd.alice, pd.a, TEXT)  # no reply: a plain message
    assert "p1" not in pd.match().sealed  # shown back first (issue 24)
    assert TEXT in plain(h.last(pd.a).text)
    pd.seal_shown(pd.alice)
    assert "p1" in pd.match().sealed
    order = usecases.my_orders(h.deps, pd.match().id, pd.a)[0].order
    assert order["text"] == TEXT
    h.say(pd.alice, pd.a, "and something else")  # the step is over: a hint, no second seal
    assert "только команды" in plain(h.last(pd.a).text)
    assert usecases.my_orders(h.deps, pd.match().id, pd.a)[0].order["text"] == TEXT


def test_the_pending_step_is_in_the_store_so_another_process_takes_the_text(
    pd: PlansDuel,
) -> None:
    h = pd.h
    pd.start()
    pd.build_first_choices()
    other = Harness(repo=h.deps.repo)  # a second container over the same store
    try:
        alice = other.user(pd.a, "Алиса", lang="ru")
        other.say(alice, pd.a, TEXT)
        shown = other.last(pd.a, with_buttons=True)
        other.press(alice, shown, other.find_button(shown, "🔒"))
        assert "p1" in pd.match().sealed
    finally:
        other.close()


def test_a_reply_still_seals_and_back_ends_the_step(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    confirm = pd.build_first_choices()
    h.press_text(pd.alice, confirm, "↩️")  # Back: no longer at the text step
    h.say(pd.alice, pd.a, TEXT)
    assert "p1" not in pd.match().sealed
    assert "/plan" in plain(h.last(pd.a).text)  # the hint shows a plan to type
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, TEXT)  # replying to the confirmation still works
    pd.seal_shown(pd.alice)
    assert "p1" in pd.match().sealed


def test_a_pending_step_of_a_turn_that_is_over_gives_the_hint(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    pd.build_first_choices()
    pd.reply(pd.alice, pd.builder(), TEXT)  # sealed by a reply
    pd.seal_shown(pd.alice)
    pd.build_first_choices()  # p1 rebuilds (a change of plan)…
    pd.bob_types(1)  # …but Bob's plan resolves the turn first
    assert pd.match().turn == 2
    h.say(pd.alice, pd.a, TEXT)
    assert "уже закончился" not in plain(h.last(pd.a).text)
    assert "Ход 2" in plain(h.last(pd.a).text)  # the hint: turn 2 waits for her plan


def test_the_text_button_makes_the_step_pending(pd: PlansDuel) -> None:
    """A confirmation drawn before the step was stored (an old message in the chat): its ✍️
    button starts the text step."""
    h = pd.h
    pd.start()
    confirm = pd.build_first_choices()
    text_steps.set_pending(h.services, pd.a, None)
    h.say(pd.alice, pd.a, TEXT)
    assert "p1" not in pd.match().sealed  # nothing was waiting: a hint
    h.press_text(pd.alice, confirm, "✍️")
    assert "следующим сообщением" in h.api.alerts[-1][1]
    h.say(pd.alice, pd.a, TEXT)
    pd.seal_shown(pd.alice)
    assert "p1" in pd.match().sealed


def test_unknown_private_text_gets_a_hint_of_what_to_do_now() -> None:
    h = Harness()
    try:
        eve = h.user(444, "Eve", lang="en")
        h.say(eve, 444, "hello?")
        assert "/duel" in plain(h.last(444).text)
    finally:
        h.close()


def test_a_reply_to_another_message_with_nothing_pending_gets_the_hint(pd: PlansDuel) -> None:
    h = pd.h
    pd.start()
    msg = FakeMessage(h.api.new_message_id(), pd.a, "old", from_bot=False, user_id=pd.a)
    h.api.chat(pd.a).messages.append(msg)
    h.say(pd.alice, pd.a, "what now?", reply_to=msg)
    assert "Ход 1" in plain(h.last(pd.a).text)


# --------------------------------------------------------------------------- the sandbox


class Driver:
    """Plays the sandbox only through what a person types there."""

    def __init__(self) -> None:
        self.sb = Sandbox(out=io.StringIO())
        self.h = self.sb.h

    def line(self, text: str) -> None:
        assert self.sb.handle(text)

    def act(self, who: str, where: str) -> None:
        self.line(f":as {who}")
        self.line(f":in {where}")

    def buttons(self) -> FakeMessage:
        msgs = [m for m in self.h.api.chat(self.sb.chat_id).messages if m.from_bot and m.buttons]
        return msgs[-1]

    def press(self, needle: str) -> None:
        self.line(f":press {self.h.find_button(self.buttons(), needle) + 1}")

    def match(self) -> object:
        return self.h.deps.repo.load("m00001").match


def test_the_sandbox_finishes_a_guided_plans_duel_typing_the_text() -> None:
    d = Driver()
    d.act("gm", "group")
    d.line("/duel")
    d.press("Plan duel")
    d.press("Turn limit")
    d.press("Turn limit")  # 20 -> 30 -> 10
    for who in ("alice", "bob"):
        d.act(who, "group")
        d.press("Join")  # the deep link switches to the private chat
        d.line("1")  # the first preset
    d.act("gm", "group")
    d.press("Start")
    for _turn in range(12):
        match = d.h.deps.repo.load("m00001").match
        if match.phase is not Phase.RUNNING:
            break
        for who in ("alice", "bob"):
            d.act(who, "private")
            for _ in range(12):  # the first choice of every step, up to the text step
                if "✍️" in d.buttons().buttons[0]["text"]:
                    break
                d.line("1")
            d.line(f"{who} strikes first, then steps back into guard")
            d.press("🔒")  # the text is shown back first
    match = d.h.deps.repo.load("m00001").match
    assert match.phase is Phase.FINISHED
    reveal = "\n".join(plain(t) for t in d.h.texts(d.sb.group))
    assert "strikes first, then steps back into guard" in reveal
    d.h.close()


def test_the_sandbox_finishes_a_dragons_battle_with_a_power() -> None:
    d = Driver()
    d.act("gm", "group")
    d.line("/duel")
    d.press("Dragon")
    d.press("Turn limit")  # ∞ -> 5
    for who, side, typed in (("alice", "A", "young arcane=d8"), ("bob", "B", "war")):
        d.act(who, "group")
        d.press("Join")
        d.line(f"/character {typed}")
        d.act(who, "group")
        d.press(f" {side}")
    d.act("gm", "group")
    d.press("Start")
    powers = 0
    for _turn in range(6):
        match = d.h.deps.repo.load("m00001").match
        if match.phase is not Phase.RUNNING:
            break
        d.act("alice", "private")
        d.line("1")  # a movement (or "to the actions" while falling or on a tail)
        d.press("➕")
        d.press("Применить чары")
        d.press("Готово")
        assert "✍️" in d.buttons().buttons[0]["text"]
        d.line("Порыв ветра сбивает противника вниз")
        d.press("🔒")
        powers += 1
        d.act("bob", "private")
        d.line("/order level 0")
    match = d.h.deps.repo.load("m00001").match
    assert match.phase is Phase.FINISHED
    assert powers >= 1
    reveal = "\n".join(plain(t) for t in d.h.texts(d.sb.group))
    assert "Порыв ветра сбивает противника вниз" in reveal
    d.h.close()

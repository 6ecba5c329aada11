"""The bot under test: the real PTB Application over the fake Bot API and the memory store."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.match import Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID, Harness
from tests.support.fixtures import load as fixture

__all__ = ["Duel", "fixture"]

MID = "m00001"  # the duel's match: the first the harness creates


class Duel:
    """A harness with the cast of the fixtures (``tests/fixtures/telegram``): Alice (ru), Bob
    (HTML in his name), a GM, and the group."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.gm = h.user(333333333, "Carol", lang="en")
        self.alice = h.user(111111111, "Алиса", username="alice_duelist", lang="ru")
        self.bob = h.user(222222222, "Bob", last_name="<b>Smith</b>", lang="en")
        self.g = h.group(GROUP_ID)

    @property
    def a(self) -> int:
        return int(self.alice["id"])

    @property
    def b(self) -> int:
        return int(self.bob["id"])

    def lobby(self) -> None:
        h = self.h
        h.say(self.gm, self.g, "/duel@sekundant_bot")
        h.press_text(self.gm, h.last(self.g, with_buttons=True), "Pistol")
        lobby = h.last(self.g, with_buttons=True)
        h.press(self.alice, lobby, 0)
        h.press(self.bob, lobby, 0)
        h.press(self.alice, h.last(self.a, with_buttons=True), 0)  # first preset
        h.say(self.bob, self.b, "/character weapon=revolver perks=lucky")
        self.lobby_msg = lobby

    def start(self) -> None:
        self.lobby()
        self.h.press_text(self.gm, self.lobby_msg, "Start")

    def match(self) -> Any:
        return self.h.deps.repo.active_in_chat(self.g)[0]

    def alice_seals(self, move: int, a: int, b: int) -> None:
        h = self.h
        h.press(self.alice, h.last(self.a, with_buttons=True), move + 2)
        # The aim keyboard: rows y = 3..-2, columns x = -3..3 (ui/pistol/builder.py).
        h.press(self.alice, h.last(self.a, with_buttons=True), (3 - b) * 7 + (a + 3))
        h.press_text(self.alice, h.last(self.a, with_buttons=True), "🔒")

    def play_out(self) -> None:
        """Play the duel to its end (shots at the torso: it ends within the 6 turns)."""
        for _ in range(6):
            if self.h.deps.repo.load("m00001").match.phase is Phase.FINISHED:
                return
            self.alice_seals(1, -1, 0)
            self.h.say(self.bob, self.b, "/order move -1 aim 0:0")

    def status_msg(self) -> Any:
        return self.h.api.message(self.g, int(self.match().ui["status"]))

    def panel(self, kind: str, *args: str) -> bool:
        """The GM presses ``kind`` (with ``args``) in the status message's panel; True, so
        presses chain (``duel.panel("gun") and duel.panel("guc")``)."""
        h = self.h
        turn = h.deps.repo.load(MID).match.turn
        h.click(self.gm, self.status_msg(), h.services.cb(Callback(kind, MID, turn, args)))
        return True

    def end(self, how: str, between: Callable[[], object] = lambda: None) -> None:
        """End the running duel: ``result`` (the GM names Bob's seat the winner), ``draw``
        (the GM ends it), or ``forfeit`` (Bob gives up; ``between`` runs between his command
        and his confirmation)."""
        if how == "result":
            self.panel("gwc", "p2")
        elif how == "draw":
            self.panel("gend")
            self.panel("gec")
        else:
            self.h.say(self.bob, self.b, "/forfeit")
            between()
            self.h.press_text(self.bob, self.h.last(self.b, with_buttons=True), "forfeit")


@pytest.fixture
def duel() -> Iterator[Duel]:
    h = Harness()
    yield Duel(h)
    h.close()


_MARKUP = ("&lt;", "&gt;", "&amp;", "<b>", "</b>", "<code>", "<i>")


def keyboard_labels(api: FakeBotAPI) -> list[str]:
    """Every button label of every keyboard the bot sent or edited in (from the recorded
    calls, so keyboards later replaced count too)."""
    labels = []
    for call in api.calls:
        markup = call.params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        for row in (markup or {}).get("inline_keyboard", []):
            labels += [str(b.get("text", "")) for b in row]
    return labels


def markup_in_labels(api: FakeBotAPI) -> list[str]:
    """Labels showing markup or escapes. A ``<`` is allowed only as part of a user's own name
    (Bob's last name is ``<b>Smith</b>``): Telegram shows button text verbatim."""
    names = [
        " ".join(filter(None, (u.get("first_name"), u.get("last_name"))))
        for u in api.users.values()
    ]
    bad = []
    for text in keyboard_labels(api):
        rest = text
        for name in names:
            rest = rest.replace(name, "")
        if any(m in rest for m in _MARKUP) or "<" in rest:
            bad.append(text)
    return bad


@pytest.fixture(autouse=True)
def plain_button_labels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Walk every keyboard every bot test sends: a label with markup fails the test."""
    apis: list[FakeBotAPI] = []
    init = FakeBotAPI.__init__

    def tracked(self: FakeBotAPI) -> None:
        init(self)
        apis.append(self)

    monkeypatch.setattr(FakeBotAPI, "__init__", tracked)
    yield
    bad = [label for api in apis for label in markup_in_labels(api)]
    assert not bad, f"button labels with markup: {bad[:5]}"

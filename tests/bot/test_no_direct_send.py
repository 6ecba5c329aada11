"""No update that changes stored state tells anyone anything outside the outbox (issue 28
point 2), over a scripted session of the features: a lobby, joins and characters, the start,
seals, a turn the GM forces, a player who blocked the bot, a seat and the GM role handed over,
NPCs, the GM panel, the end.

A recording fake of the Bot API marks every message sent or edited outside an outbox delivery
(:mod:`handlers.telegram.shared.outbox`), and the repository marks every write. An update
that wrote may send outside the outbox only its callback's answer, the pressed message edited
in place, and what it sends again, writing nothing, when Telegram redelivers it (the webhook
answers 500 when a send fails): the test delivers such an update a second time and fails on
any direct send that is not made again, or made again by a redelivery that writes again (a
typed ``/npc`` added its NPC twice), since a failure would lose it for good (the redelivered
update finds the change made and does not say it again). An update that wrote nothing (a
help text, a refusal, a picker) answers directly: its redelivery gets the same answer.

Each path that still sends directly is named below by the handler function that sends; the
list may only shrink.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from typing import Any

import pytest

from engine.match import Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.harness import Harness
from handlers.telegram.shared import outbox
from tests.bot.conftest import Duel

MID = "m00001"
SENDS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "sendMediaGroup",
        "copyMessage",
        "forwardMessage",
        "editMessageText",
        "editMessageMedia",
        "editMessageCaption",
        "editMessageReplyMarkup",
        "deleteMessage",
    }
)
WRITES = (
    "save",
    "create",
    "set_pref",
    "save_prefs",
    "put_characters",
    "delete_character",
    "put_library",
    "delete_library",
    "put_result",
    "delete_result",
    "flag",
)
# Paths that still send directly after a write (issue 28): may only shrink.
KNOWN_DIRECT: frozenset[str] = frozenset()


def _sender() -> str:
    """The handler that made the call: the innermost frame in handlers/telegram outside the
    send helpers."""
    for frame in reversed(traceback.extract_stack()):
        path = frame.filename.replace("\\", "/")
        if "/handlers/telegram/" not in path or path.endswith(("/shared/send.py", "fake_api.py")):
            continue
        return f"{path.split('/handlers/telegram/')[1]}:{frame.name}" + _caller()
    return "?"


def _caller() -> str:
    import os

    if not os.environ.get("DEBUG_SENDER"):
        return ""
    frames = [f for f in traceback.extract_stack() if "/handlers/telegram/" in f.filename]
    return " <- " + " <- ".join(f"{f.name}:{f.lineno}" for f in reversed(frames[-8:]))


class Recorder:
    """Per update: its writes, and the calls it made outside an outbox delivery."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.update: dict[str, Any] = {}
        self.wrote = False
        self.changed = False  # a match saved (not a preference set again to the same value)
        self.direct: list[tuple[str, str, Any, Any]] = []  # (sender, method, chat, message)
        self.found: dict[str, str] = {}  # sender -> an example, for the message
        api = h.api
        real = api.do_request

        async def do_request(
            url: str, method: str, request_data: Any = None, *a: Any, **k: Any
        ) -> Any:
            name = url.rsplit("/", 1)[-1]
            if name in SENDS and outbox.current() is None:
                params = dict(request_data.parameters) if request_data else {}
                if not self._answers_callback(name, params):
                    target = params.get("message_id")
                    self.direct.append((_sender(), name, params.get("chat_id"), target))
            return await real(url, method, request_data, *a, **k)

        api.do_request = do_request  # type: ignore[method-assign]
        repo: Any = h.deps.repo
        for write in WRITES:
            if hasattr(repo, write):
                setattr(repo, write, self._marking(getattr(repo, write)))
        feed = h.feed

        def feeding(update: dict[str, Any]) -> None:
            self.update, self.wrote, self.direct = update, False, []
            feed(update)
            if not (self.wrote and self.direct):
                return
            # Telegram's redelivery (the webhook answers 500 when a send fails): what was
            # sent directly must be sent again, else a failure would lose it.
            first, self.direct, self.changed = self.direct, [], False
            feed(update)
            if self.changed:  # the redelivery changed a match again: not a safe repeat
                for sender, name, chat, _target in first:
                    self.found.setdefault(sender, f"{name} to {chat} (repeated with a write)")
                return
            again = {(name, chat, target) for _s, name, chat, target in self.direct}
            import os

            if os.environ.get("DEBUG_SENDER"):
                print("FIRST", first, "AGAIN", self.direct)
            for sender, name, chat, target in first:
                if (name, chat, target) not in again:
                    self.found.setdefault(sender, f"{name} to {chat}")

        h.feed = feeding  # type: ignore[method-assign]

    def _marking(self, fn: Any) -> Any:
        def write(*a: Any, **k: Any) -> Any:
            self.wrote = True
            self.changed = self.changed or fn.__name__ in ("save", "create")
            return fn(*a, **k)

        return write

    def _answers_callback(self, name: str, params: dict[str, Any]) -> bool:
        """The pressed message edited in place (the update's own callback)."""
        cq = self.update.get("callback_query")
        if cq is None or not name.startswith("editMessage"):
            return False
        msg = cq["message"]
        return params.get("chat_id") == msg["chat"]["id"] and (
            params.get("message_id") == msg["message_id"]
        )


@pytest.fixture
def recorded() -> Iterator[tuple[Duel, Recorder]]:
    h = Harness()
    rec = Recorder(h)
    yield Duel(h), rec
    h.close()


def _session(duel: Duel) -> list[str]:
    """Play every feature once; the steps reached (the dice may end the duel early)."""
    h = duel.h
    reached: list[str] = []

    def running() -> bool:
        return h.deps.repo.load(MID).match.phase is Phase.RUNNING

    h.say(duel.alice, duel.a, "/lang en")
    h.say(duel.alice, duel.a, "/help")
    duel.lobby()
    h.say(duel.bob, duel.b, "/leave")  # and back in, with his typed character
    h.press(duel.bob, duel.lobby_msg, 0)
    h.say(duel.bob, duel.b, "/character weapon=revolver perks=lucky")
    h.say(duel.gm, duel.g, "/side p1 A")
    h.say(duel.gm, duel.g, "/clock turn=1h")
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    h.say(duel.alice, duel.g, "/status")
    h.say(duel.alice, duel.g, "/history")
    # Turn 1: Bob types his order, Alice seals with the buttons.
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    duel.alice_seals(0, -3, 3)
    # The GM panel: pause, resume, extend, a ruling.
    duel.panel("gpa")
    duel.panel("gre")
    duel.panel("gex", "3600")
    h.say(duel.gm, duel.g, "/edit p1 shrugs_left 2 a doctor")
    reached.append("panel")
    # Bob's seat handed over to Dave, then the GM role to Alice.
    dave = h.user(444444444, "Dave", lang="en", username="dave")
    h.say(dave, duel.g, "I can take over")
    h.say(duel.gm, duel.g, "/replace Bob", reply_to=h.api.chat(duel.g).messages[-1])
    h.press(dave, h.last(duel.g, with_buttons=True), 0)
    h.say(duel.alice, duel.g, "hi")
    h.say(duel.gm, duel.g, "/gm", reply_to=h.api.chat(duel.g).messages[-1])
    reached.append("handover")
    # Turn 2: Dave seals, the new GM (Alice) forces the turn: she gets the default order.
    h.say(dave, int(dave["id"]), "/order move 0 aim 5:5")
    m = h.deps.repo.load(MID).match
    h.click(duel.alice, duel.status_msg(), h.services.cb(Callback("gfr", MID, m.turn, ())))
    h.click(duel.alice, duel.status_msg(), h.services.cb(Callback("gfc", MID, m.turn, ())))
    reached.append("forced")
    if not running():
        return reached
    # Turn 3: Dave has blocked the bot; the deadline passes.
    h.api.started.discard(int(dave["id"]))
    h.now += 7200
    h.sweep()
    reached.append("deadline")
    if not running():
        return reached
    m = h.deps.repo.load(MID).match
    h.click(duel.alice, duel.status_msg(), h.services.cb(Callback("gend", MID, m.turn, ())))
    h.click(duel.alice, duel.status_msg(), h.services.cb(Callback("gec", MID, m.turn, ())))
    reached.append("end")
    return reached


def test_no_update_that_changed_something_sends_outside_the_outbox(
    recorded: tuple[Duel, Recorder],
) -> None:
    duel, rec = recorded
    assert _session(duel)[:4] == ["panel", "handover", "forced", "deadline"]
    new = {s: e for s, e in rec.found.items() if s not in KNOWN_DIRECT}
    assert new == {}, f"sent outside the outbox after a write: {sorted(new.items())}"
    gone = KNOWN_DIRECT - set(rec.found)
    assert gone == set(), "no longer sends directly: take it off KNOWN_DIRECT"


@pytest.mark.parametrize("how", ["remove", "result", "draw", "forfeit"])
def test_no_end_or_removal_sends_outside_the_outbox(
    recorded: tuple[Duel, Recorder], how: str
) -> None:
    duel, rec = recorded
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)  # an open builder's keyboard for the farewell to drop
    if how == "remove":
        duel.panel("gko", "p2")
        duel.panel("gkc", "p2")
    else:
        duel.end(how)
    assert h.deps.repo.load(MID).match.phase is Phase.FINISHED
    new = {s: e for s, e in rec.found.items() if s not in KNOWN_DIRECT}
    assert new == {}, f"sent outside the outbox after a write: {sorted(new.items())}"


def test_no_gm_handover_sends_outside_the_outbox() -> None:
    """The GM role handed over (``/gm``) and taken (``/takegm``) in a battle with NPCs: the
    announcement and the new GM's order screens of the NPCs are owed with the handover."""
    from tests.bot.test_dragons_ui import Battle

    h = Harness()
    rec = Recorder(h)
    try:
        battle = Battle(h)
        lobby = battle.lobby()
        h.say(battle.alice, 111, "/side B")  # typed: the answer and the lobby are owed
        assert battle.match().seat_of_user(111).side == "B"
        h.press_text(battle.gm, lobby, "Start")
        h.say(battle.alice, 111, "/start")
        h.say(battle.alice, battle.g, "hi")
        h.say(battle.gm, battle.g, "/gm", reply_to=h.api.chat(battle.g).messages[-1])
        npcs = [s.pid for s in battle.match().seats if s.npc]
        assert npcs and any(f"<code>{npcs[0]}</code>" in m.text for m in h.api.chat(111).messages)
        h.api.admins[battle.g] = {int(battle.bob["id"]): "administrator"}
        h.say(battle.bob, 222, "/start")
        h.say(battle.bob, battle.g, "/takegm")
        assert battle.match().gm_user_id == int(battle.bob["id"])
        assert any(f"<code>{npcs[0]}</code>" in m.text for m in h.api.chat(222).messages)
    finally:
        h.close()
    new = {s: e for s, e in rec.found.items() if s not in KNOWN_DIRECT}
    assert new == {}, f"sent outside the outbox after a write: {sorted(new.items())}"

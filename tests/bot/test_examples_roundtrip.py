"""Every example the bot shows is accepted when its reader sends it back verbatim.

For each ruleset and each language, a match is played through the real bot (fake Bot API,
seeded entropy, so every state is reproducible): the character prompt's example is sent back
by each player; then, turn after turn, every typed example a player (or the GM, for an NPC) is
shown in their builder is sent back and must be sealed, so the examples are checked in the
states the battle actually reaches (moved dragons, spent reserves, wounds). A rejection's own
example and the several-matches prompt's example are sent back too.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine import match as lifecycle
from engine.match import Match, Phase
from handlers.telegram.harness import GROUP_ID, Harness, plain
from handlers.telegram.hints import character_example
from handlers.telegram.i18n import Tr
from handlers.telegram.shared import gm_seats

CODE = re.compile(r"<code>(/(?:order|plan|npcorder|npc|character)\b[^<]*)</code>")
TURNS = 4  # turns played by examples alone (each one sent back)


def codes(text: str) -> list[str]:
    """The typed commands a message shows in ``<code>`` (what a reader copies)."""
    return [html.unescape(c) for c in CODE.findall(text)]


class World:
    """A GM (Carol) and two players, all with ``lang`` clients, in one group (and a second
    group for a second match)."""

    def __init__(self, h: Harness, lang: str) -> None:
        self.h, self.lang, self.tr = h, lang, Tr(lang)
        self.gm = h.user(333, "Carol", lang=lang)
        self.alice = h.user(111, "Alice", lang=lang)
        self.bob = h.user(222, "Bob", lang=lang)
        self.players = (self.alice, self.bob)
        h.group(GROUP_ID)
        h.group(GROUP_ID - 1, "Second")
        h.say(self.gm, 333, "/start")
        self.ids: dict[int, str] = {}

    def match(self, group: int = GROUP_ID) -> Match:
        """The group's match (also once it is over)."""
        return self.h.deps.repo.load(self.ids[group]).match

    def lobby(self, ruleset: str, group: int = GROUP_ID) -> Any:
        h, tr = self.h, self.tr
        h.say(self.gm, group, "/duel")
        h.press_text(self.gm, h.last(group, with_buttons=True), tr(f"ruleset.{ruleset}"))
        lobby = h.last(group, with_buttons=True)
        self.ids[group] = self.h.deps.repo.active_in_chat(group)[0].id
        for p in self.players:
            h.press(p, lobby, 0)  # Join: the deep link
        if ruleset == "dragons":
            h.press_text(self.alice, lobby, tr("dr.btn.side", side="A"))
            h.press_text(self.bob, lobby, tr("dr.btn.side", side="B"))
            h.say(self.gm, group, "/npc raider A Wingman")
        return lobby

    def send_back(self, user: dict[str, Any], chat: int, example: str) -> str:
        """``user`` sends ``example`` verbatim; the bot's answer, as the client shows it."""
        before = len(self.h.texts(chat))
        self.h.say(user, chat, example)
        answers = self.h.texts(chat)[before:]
        return plain("\n".join(answers))


@pytest.fixture(params=["ru", "en"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    h = Harness()
    yield World(h, request.param)
    h.close()


def _characters(w: World, ruleset: str) -> Any:
    """Each player sends back the character prompt's example; it is their character."""
    lobby = w.lobby(ruleset)
    for p in w.players:
        uid = int(p["id"])
        shown = codes(w.h.last(uid, with_buttons=True).text)
        assert shown, w.h.last(uid).text
        answer = w.send_back(p, uid, shown[0])
        seat = w.match().seat_of_user(uid)
        assert seat is not None and seat.character is not None, (shown[0], answer)
    return lobby


def _seal_back(w: World, user: dict[str, Any], example: str, pid: str) -> None:
    uid = int(user["id"])
    before = w.match()
    answer = w.send_back(user, uid, example)
    after = w.h.deps.repo.load(before.id).match
    assert after.turn > before.turn or pid in after.sealed, (example, answer)


def _builder_examples(w: World, uid: int, since: int, pid: str) -> list[str]:
    """The typed examples of the builder messages sent to ``uid`` for ``pid`` since ``since``."""
    msgs = [m for m in w.h.api.chat(uid).messages[since:] if m.from_bot]
    found = [c for m in msgs for c in codes(m.text) if not c.startswith("/npc ")]
    return [c for c in found if not c.startswith("/npcorder") or f" {pid} " in c]


@pytest.mark.parametrize("ruleset", ["pistol", "plans", "dragons"])
def test_every_example_shown_is_accepted_back_verbatim(world: World, ruleset: str) -> None:
    w, h = world, world.h
    lobby = _characters(w, ruleset)
    users = {111: w.alice, 222: w.bob, 333: w.gm}

    def lengths() -> dict[int, int]:
        return {uid: len(h.api.chat(uid).messages) for uid in users}

    turn_start = lengths()  # where this turn's builders begin in each chat
    h.press_text(w.gm, lobby, "▶️")
    checked = 0
    for _turn in range(TURNS):
        m = w.match()
        if m.phase is not Phase.RUNNING:
            break
        gm_run = gm_seats.gm_run(m)
        for seat in [s for s in m.seats if s.pid in lifecycle.acting(m)]:
            uid = 333 if seat.pid in gm_run else int(seat.user_id or 0)
            shown = _builder_examples(w, uid, turn_start[uid], seat.pid)
            mine = [c for c in shown if c.startswith("/npcorder") == (seat.pid in gm_run)]
            assert mine, (seat.pid, [plain(t) for t in h.texts(uid)[-3:]])
            before = lengths()
            _seal_back(w, users[uid], mine[-1], seat.pid)
            checked += 1
        turn_start = before  # the last seal resolved the turn: the next builders follow it
    assert checked >= 2
    m = w.match()
    assert m.phase is Phase.FINISHED or m.turn > TURNS, (m.phase, m.turn)


@pytest.mark.parametrize("ruleset", ["pistol", "plans", "dragons"])
def test_the_helps_example_in_private_is_the_readers_own_and_accepted_back(
    world: World, ruleset: str
) -> None:
    """/help in private ends its ruleset's syntax with an order this reader can send now
    (Bob, p2, in dragons: not an attack on himself; a Pyromancer: not fencing)."""
    w, h = world, world.h
    lobby = _characters(w, ruleset)
    h.press_text(w.gm, lobby, "▶️")
    w.send_back(w.bob, 222, "/help")
    shown = [c for c in codes(h.texts(222)[-1]) if c.startswith(("/order ", "/plan "))]
    assert shown and "&lt;" not in shown[-1] and "<" not in shown[-1], h.texts(222)[-1]
    _seal_back(w, w.bob, shown[-1], "p2")


@pytest.mark.parametrize("ruleset", ["pistol", "plans", "dragons"])
def test_a_rejections_example_is_accepted_back(world: World, ruleset: str) -> None:
    w, h = world, world.h
    lobby = _characters(w, ruleset)
    h.press_text(w.gm, lobby, "▶️")
    command = "/plan" if ruleset == "plans" else "/order"
    answer = w.send_back(w.alice, 111, f"{command} blah blah")
    shown = codes(h.texts(111)[-1])
    assert shown, answer
    _seal_back(w, w.alice, shown[-1], "p1")
    if ruleset == "dragons":  # the GM's NPC order, typed wrong first
        w.send_back(w.gm, 333, "/npcorder n9 nonsense")
        shown = codes(h.texts(333)[-1])
        assert shown and shown[-1].startswith("/npcorder n1 "), h.texts(333)[-1]
        _seal_back(w, w.gm, shown[-1], "n1")


@pytest.mark.parametrize("ruleset", ["pistol", "plans", "dragons"])
def test_the_several_matches_prompts_example_is_accepted_back(world: World, ruleset: str) -> None:
    w, h = world, world.h
    first = w.lobby(ruleset)
    second = w.lobby(ruleset, GROUP_ID - 1)
    # Two lobbies: a bare /character asks which match, with an example naming one.
    w.send_back(w.alice, 111, "/character")
    shown = codes(h.texts(111)[-1])
    assert shown, h.texts(111)[-1]
    w.send_back(w.alice, 111, shown[0])
    named = next(m for m in (w.match(), w.match(GROUP_ID - 1)) if m.id in shown[0].split())
    assert named.seat_of_user(111).character is not None  # type: ignore[union-attr]
    for group, lobby in ((GROUP_ID, first), (GROUP_ID - 1, second)):
        for p in w.players:
            uid = int(p["id"])
            if w.match(group).seat_of_user(uid).character is None:  # type: ignore[union-attr]
                h.say(p, uid, character_example(w.match(group), with_id=True))
        h.press_text(w.gm, lobby, "▶️")
        assert w.match(group).phase is Phase.RUNNING
    # Two running matches: a bare order command asks which, with an order for one of them.
    command = "/plan" if ruleset == "plans" else "/order"
    w.send_back(w.alice, 111, command)
    shown = codes(h.texts(111)[-1])
    assert shown, h.texts(111)[-1]
    target = next(m for m in (w.match(), w.match(GROUP_ID - 1)) if m.id in shown[0].split())
    _seal_back_in(w, target.id, shown[0])


def _seal_back_in(w: World, match_id: str, example: str) -> None:
    answer = w.send_back(w.alice, 111, example)
    after = w.h.deps.repo.load(match_id).match
    assert "p1" in after.sealed or after.turn > 1, (example, answer)


def test_the_plan_confirmations_typed_form_is_accepted_back(world: World) -> None:
    """The confirmation of a plan built with buttons shows it typed, text included."""
    w, h = world, world.h
    lobby = _characters(w, "plans")
    h.press_text(w.gm, lobby, "▶️")
    for _ in range(12):
        builder = h.last(111, with_buttons=True)
        if "✍️" in builder.buttons[0]["text"]:
            break
        h.press(w.alice, builder, 0)
    shown = [c for c in codes(builder.text) if c.startswith("/plan ")]
    assert shown, plain(builder.text)
    _seal_back(w, w.alice, shown[-1], "p1")


def test_the_npc_panels_example_is_accepted_back(world: World) -> None:
    w, h = world, world.h
    lobby = w.lobby("dragons")
    h.press_text(w.gm, lobby, w.tr("dr.btn.npc_panel"))
    shown = [c for c in codes(h.last(333, with_buttons=True).text) if c.startswith("/npc ")]
    assert shown
    seats = len(w.match().seats)
    w.send_back(w.gm, 333, shown[0])
    assert len(w.match().seats) == seats + 1


def test_the_lobby_commands_error_examples_are_accepted_back(world: World) -> None:
    """/npc, /side and /lang typed wrong: the example of the answer works as sent."""
    w, h = world, world.h
    w.lobby("dragons")
    seats = len(w.match().seats)
    w.send_back(w.gm, GROUP_ID, "/npc dragonzilla")
    example = codes_any(h.texts(GROUP_ID)[-1])
    w.send_back(w.gm, GROUP_ID, example)
    assert len(w.match().seats) == seats + 1, example
    w.send_back(w.bob, GROUP_ID, "/side")
    example = codes_any(h.texts(GROUP_ID)[-1])
    w.send_back(w.bob, GROUP_ID, example)
    assert w.match().seat_of_user(222).side == "A"  # type: ignore[union-attr]
    w.send_back(w.gm, GROUP_ID, "/lang xx")
    example = codes_any(h.texts(GROUP_ID)[-1])
    before = w.match().lang
    w.send_back(w.gm, GROUP_ID, example)
    assert w.match().lang != before


def codes_any(text: str) -> str:
    """The one command an answer shows in ``<code>`` (any command)."""
    found = re.findall(r"<code>(/[a-z]+\b[^<]*)</code>", text)
    assert found, text
    return html.unescape(found[-1])

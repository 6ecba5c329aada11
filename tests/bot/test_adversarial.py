"""Adversarial and confused-user input through the real PTB Application: every bad input gets a
specific reply and changes nothing; no input lets one user take what another holds, and no
button of one turn acts on another."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest

from engine import usecases
from engine.ports import Loaded
from handlers.telegram.harness import Harness, plain
from tests.bot.conftest import Duel
from tests.bot.test_plans_ui import PlansDuel

DEEP_JSON = '{"a":' + "[" * 1200 + "]" * 1200 + "}"  # ~2.4k characters: fits in a message


def _replies(h: Harness, user: dict[str, Any], chat: int, text: str) -> list[str]:
    """What the bot answers in ``chat`` when ``user`` writes ``text`` there."""
    before = len(h.texts(chat))
    h.say(user, chat, text)
    return [plain(t) for t in h.texts(chat)[before:]]


@contextmanager
def _racing(repo: Any, race: Callable[[str], object], *, load: int, after: bool) -> Iterator[None]:
    """Run ``race(match_id)`` at the repository's ``load``-th load, just before it or just
    after it: what another process does between two steps of a handler."""
    real_load = repo.load
    loads = {"n": 0}

    def racing_load(match_id: str) -> Loaded:
        loads["n"] += 1
        if loads["n"] == load and not after:
            race(match_id)
        result: Loaded = real_load(match_id)
        if loads["n"] == load and after:
            race(match_id)
        return result

    repo.load = racing_load
    try:
        yield
    finally:
        repo.load = real_load


def _before_second_load(repo: Any, race: Callable[[str], object]) -> AbstractContextManager[None]:
    """Between a handler's check (the first load) and its use case's own load."""
    return _racing(repo, race, load=2, after=False)


def _after_first_load(repo: Any, race: Callable[[str], object]) -> AbstractContextManager[None]:
    """Between a handler's read (its check, which a use case may start from) and the use
    case's save."""
    return _racing(repo, race, load=1, after=True)


def test_edit_with_a_malformed_number_names_the_bad_value_and_changes_nothing(duel: Duel) -> None:
    """``/edit p1 shrugs_left --5`` used to crash (``int('--5')``): no reply at all."""
    h = duel.h
    duel.start()
    before = duel.match()
    for raw in ("--5", "²", "-"):
        got = _replies(h, duel.gm, duel.g, f"/edit p1 shrugs_left {raw} x")
        assert got and f"“{raw}”" in got[-1] and "shrugs_left" in got[-1], (raw, got)
    assert h.services.errors == []
    after = duel.match()
    assert after.state == before.state and after.audit == before.audit


def test_deeply_nested_json_is_refused_with_a_reason_not_a_crash(duel: Duel) -> None:
    """A typed order, character or NPC nested deeper than the JSON parser recurses used to raise
    ``RecursionError``: no reply (and a webhook error Telegram would retry)."""
    h = duel.h
    duel.lobby()
    for user, chat, text in [
        (duel.bob, duel.b, f"/character {DEEP_JSON}"),
        (duel.gm, duel.g, f"/npc {DEEP_JSON}"),
    ]:
        got = _replies(h, user, chat, text)
        assert got and "nested too deeply" in got[-1], got
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    got = _replies(h, duel.bob, duel.b, f"/order {DEEP_JSON}")
    assert got and "nested too deeply" in got[-1], got
    ru = _replies(h, duel.alice, duel.a, f"/order {DEEP_JSON}")
    assert ru and "вложен" in ru[-1], ru
    assert h.services.errors == []
    assert duel.match().sealed == ()


def test_a_seal_button_pressed_as_its_turn_resolves_is_refused_not_sealed_into_the_next(
    duel: Duel,
) -> None:
    """Alice changes her sealed order; her new seal button is checked against turn 1, but Bob's
    last order resolves the turn (another process) right after the press read the match, which
    her seal starts from: the turn-1 order must not land in turn 2 (its save, conditional on
    what the press read, conflicts; ``seal_order`` binds to the turn the handler checked)."""
    h = duel.h
    duel.start()
    duel.alice_seals(0, 3, 3)  # far off the silhouette: nobody is hit
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 0)  # "Change" on the receipt
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 2)  # move 0
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 6)  # aim 3:3
    confirm = h.last(duel.a, with_buttons=True)
    repo = h.deps.repo
    # After the handler's read, before the seal's save: Bob's last order lands.
    with _after_first_load(
        repo, lambda mid: usecases.seal_order(h.deps, mid, duel.b, "p2", {"move": 0, "aim": [5, 5]})
    ):
        h.press_text(duel.alice, confirm, "🔒")
    loaded = repo.load("m00001")
    assert loaded.match.turn == 2
    assert loaded.orders == {} and loaded.match.sealed == ()
    assert h.api.alerts[-1] == (duel.a, "Ход 1 уже закончился.", True)


def test_an_old_seat_offer_cannot_take_a_seat_someone_else_holds_now(duel: Duel) -> None:
    """The GM offers Bob's seat (p2); Bob leaves the lobby and Dave joins, getting p2 again. The
    old offer was for Bob's seat, not Dave's: pressing it must not evict Dave."""
    h = duel.h
    duel.lobby()
    dave = h.user(444444444, "Dave", lang="en")
    eve = h.user(555555555, "Eve", lang="en")
    h.say(duel.gm, duel.g, "/replace p2")  # to anyone
    offer = h.last(duel.g, with_buttons=True)
    h.say(duel.bob, duel.b, "/leave")
    h.press(dave, duel.lobby_msg, 0)
    assert duel.match().seat("p2").user_id == 444444444
    h.press(eve, offer, 0)
    assert duel.match().seat("p2").user_id == 444444444
    assert "not on offer" in h.texts(555555555)[-1]
    assert h.services.errors == []


@pytest.fixture
def pd() -> Iterator[PlansDuel]:
    h = Harness()
    yield PlansDuel(h)
    h.close()


def test_a_gm_who_plays_with_gm_sees_plans_does_not_stall_the_turn(pd: PlansDuel) -> None:
    """With ``gm_sees_plans`` on and the GM in a seat, nobody reviews (the GM is never sent the
    plans), so nobody is ever offered "Approve": the turn used to wait silently forever once
    every plan was in."""
    h = pd.h
    pd.start_with_alice_as_gm()
    pd.bob_types(1)
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "I juggle three swords while reciting poetry")
    pd.seal_shown(pd.alice)
    assert pd.match().turn == 2
    assert any("juggle three swords" in t for t in h.texts(pd.g))  # the reveal
    assert not any("brimstone" in t for t in h.texts(pd.a))  # Alice never got Bob's plan


def test_a_side_too_long_for_a_button_is_refused_and_the_lobby_keeps_working() -> None:
    """A side travels in the lobby's "Side X" button data (64 bytes at most). Eleven emoji are
    11 characters but 44 bytes: the side was saved, and from then on every lobby refresh
    raised ValueError (no reply, Joins no longer shown, the lobby frozen)."""
    h = Harness()
    try:
        gm = h.user(333, "Carol", lang="en")
        alice = h.user(111, "Alice", lang="en")
        bob = h.user(222, "Bob", lang="en")
        g = h.group()
        h.say(gm, g, "/duel")
        h.press_text(gm, h.last(g, with_buttons=True), "Dragon")
        lobby = h.last(g, with_buttons=True)
        h.press_text(alice, lobby, "Join")
        got = _replies(h, alice, 111, "/side " + "🐉" * 11)
        assert got and "side" in got[-1] and "bytes" in got[-1], got
        assert h.deps.repo.load("m00001").match.seat("p1").side == "p1"
        h.press_text(bob, lobby, "Join")
        assert "Bob" in plain(lobby.text)
        assert h.services.errors == []
    finally:
        h.close()


def test_a_double_tap_on_confirm_undo_undoes_one_turn_not_two(duel: Duel) -> None:
    """The GM confirms "Undo turn 2?" with a double tap: two callback queries, which a webhook
    handles concurrently. Both pass the handler's turn check before either undo is saved, and
    the second undo used to take whatever turn was last by then: turn 1 as well."""
    h = duel.h
    duel.start()
    for _ in range(2):  # two turns that miss: turn 3 is open
        duel.alice_seals(0, -3, 3)
        h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    assert duel.match().turn == 3
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "Undo")
    confirm = duel.status_msg()
    repo = h.deps.repo
    # The first tap's undo lands after this tap's check.
    with _before_second_load(repo, lambda mid: usecases.undo(h.deps, mid, int(duel.gm["id"]))):
        h.press_text(duel.gm, confirm, "Confirm")
    assert duel.match().turn == 2  # turn 2 reopened once; turn 1 stays resolved
    assert [r.turn for r in repo.history("m00001")] == [0, 1]
    assert [a["action"] for a in duel.match().audit].count("undo") == 1
    assert h.api.alerts[-1][0] == int(duel.gm["id"]) and h.api.alerts[-1][2] is True


def _two_dragon_matches(h: Harness) -> tuple[dict[str, Any], dict[str, Any]]:
    """Carol is the GM of two dragons lobbies (two groups); Alice plays in both."""
    gm = h.user(333, "Carol", lang="en")
    alice = h.user(111, "Alice", lang="en")
    h.say(gm, 333, "/start")
    for i, chat in enumerate((-1001, -1002)):
        bob = h.user(200 + i, f"Bob{i}", lang="en")
        h.group(chat, f"Group {i}")
        h.say(gm, chat, "/duel")
        h.press_text(gm, h.last(chat, with_buttons=True), "Dragon")
        lobby = h.last(chat, with_buttons=True)
        for user in (alice, bob):
            h.press_text(user, lobby, "Join")
            h.press(user, h.last(int(user["id"]), with_buttons=True), 0)
        h.say(gm, chat, "/npc raider B")
    return gm, alice


def test_private_commands_never_pick_one_of_several_matches_silently() -> None:
    """With two matches, ``/npc`` and ``/side`` in private and ``/npcorder n1 …`` took the
    first match found: the GM's NPC order could be sealed into the other match. They now
    ask which match is meant, and change nothing."""
    h = Harness()
    try:
        gm, alice = _two_dragon_matches(h)
        before = {m.id: m.version for m in h.deps.repo.active_for_user(333)}
        got = _replies(h, gm, 333, "/npc raider A")
        assert got and "several" in got[-1], got
        got = _replies(h, alice, 111, "/side A")
        assert got and "several" in got[-1], got
        assert {m.id: m.version for m in h.deps.repo.active_for_user(333)} == before
        for chat in (-1001, -1002):
            h.press_text(gm, h.last(chat, with_buttons=True), "Start")
        got = _replies(h, gm, 333, "/npcorder n1 level 0")
        assert got and "name one by its id" in got[-1], got
        assert all(m.sealed == () for m in h.deps.repo.active_for_user(333))
        mid = h.deps.repo.active_for_user(333)[1].id
        h.say(gm, 333, f"/npcorder {mid} n1 level 0")  # named: sealed there
        assert h.deps.repo.load(mid).match.sealed == ("n1",)
        assert h.services.errors == []
    finally:
        h.close()


def test_a_double_tap_on_a_ruleset_creates_one_match(duel: Duel) -> None:
    """The GM double-taps "Pistol duel" in the picker: two callback queries a webhook handles
    at once, both before the chat's new match is visible (DynamoDB's chat index is eventually
    consistent). Each used to create a match: the second edited the picker over the first,
    which was left active with no lobby message and blocked ``/duel``."""
    h = duel.h
    h.say(duel.gm, duel.g, "/duel")
    picker = h.last(duel.g, with_buttons=True)
    tap = picker.buttons[h.find_button(picker, "Pistol")]["callback_data"]
    h.click(duel.gm, picker, tap)
    repo = h.deps.repo
    first = repo.active_in_chat(duel.g)
    real = repo.active_in_chat
    repo.active_in_chat = lambda chat_id: []  # type: ignore[method-assign]
    try:
        h.click(duel.gm, picker, tap)  # the second tap, as if the first were not visible yet
    finally:
        repo.active_in_chat = real  # type: ignore[method-assign]
    assert [m.id for m in repo.active_in_chat(duel.g)] == [first[0].id]
    assert "lobby of match " + first[0].id in plain(picker.text)  # its lobby, shown again
    assert repo.load(first[0].id).match.ui["lobby"] == picker.message_id


def test_a_gm_who_never_started_the_bot_is_told_once_and_gets_the_npc_screens_by_link() -> None:
    """A dragons GM who never opened the private chat: the NPCs' order screens could not be
    sent and nobody was told, so the turn waited for orders the GM never saw."""
    from tests.bot.test_dragons_ui import Battle

    h = Harness()
    try:
        battle = Battle(h)
        battle.lobby()
        gm = int(battle.gm["id"])
        h.api.started.discard(gm)  # as if the GM had never pressed Start
        before = len([m for m in h.api.chat(gm).messages if m.from_bot])
        h.press_text(battle.gm, battle.lobby_msg, "Start")
        notices = [
            m
            for m in h.api.chat(battle.g).messages
            if m.from_bot and "cannot write to the GM" in plain(m.text)
        ]
        assert len(notices) == 1  # once, not once per NPC (n1 and n2 both wait)
        assert len([m for m in h.api.chat(gm).messages if m.from_bot]) == before
        assert "start=play_m00001" in notices[0].buttons[0]["url"]
        seen = len(h.api.chat(gm).messages)
        h.press(battle.gm, notices[0], 0)  # the deep link: /start play_m00001 in private
        new = h.api.chat(gm).messages[seen:]
        screens = [plain(m.text) for m in new if m.from_bot and "Movement" in plain(m.text)]
        assert any("(n1)" in t for t in screens) and any("(n2)" in t for t in screens)
    finally:
        h.close()


def test_a_command_for_another_phase_says_why_instead_of_no_match(duel: Duel) -> None:
    """``/order`` in the lobby or ``/character`` once the duel started used to answer "You
    have no match that needs this now", though the user plays one."""
    h = duel.h
    duel.lobby()
    (reply,) = _replies(h, duel.bob, duel.b, "/order move 0 aim 0:1")
    assert "m00001 has not started yet" in reply
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    (reply,) = _replies(h, duel.bob, duel.b, "/character weapon=rifle")
    assert "m00001 has already started" in reply
    assert duel.match().seats[1].character == {"weapon": "revolver", "perks": ["lucky"]}

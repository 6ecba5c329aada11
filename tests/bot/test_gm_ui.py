"""GM powers and player commands through the real Application: every GM action refused for
others with a private alert; undo announced and players told; remove, forfeit, leave; state
rulings with a public audit line; replacing a player by a link they press themselves; handing
the GM role over; ending with a result; history."""

from __future__ import annotations

from engine.match import Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.harness import plain
from tests.bot.conftest import Duel

MID = "m00001"


def _m(duel: Duel):  # type: ignore[no-untyped-def]
    return duel.h.deps.repo.load(MID).match


def _turn_one(duel: Duel) -> None:
    """Both seal shots that miss: turn 1 resolves, the duel goes on."""
    duel.alice_seals(0, -3, 3)
    duel.h.say(duel.bob, duel.b, "/order move 0 aim 5:5")


def test_every_gm_action_is_refused_for_others_with_a_private_alert(duel: Duel) -> None:
    h = duel.h
    duel.start()
    _turn_one(duel)
    before = _m(duel)
    status = duel.status_msg()
    text = status.text
    svc = h.services
    k = before.turn
    for kind, args in [
        ("gm", ()),
        ("gpa", ()),
        ("gre", ()),
        ("gex", ("3600",)),
        ("gun", ()),
        ("guc", ()),
        ("grp", ("p2",)),
        ("gko", ("p2",)),
        ("gkc", ("p2",)),
        ("gwn", ()),
        ("gwc", ("p1",)),
    ]:
        h.click(duel.bob, status, svc.cb(Callback(kind, MID, k, args)))
        assert h.api.alerts[-1] == (duel.b, "Only the GM can do that.", True), kind
    after = _m(duel)
    assert after.version == before.version and after.audit == before.audit
    assert status.text == text


def test_undo_is_announced_and_every_player_told_their_orders_are_open(duel: Duel) -> None:
    h = duel.h
    duel.start()
    _turn_one(duel)
    before = _m(duel)
    assert before.turn == 2
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "Undo")
    assert "Undo turn 1?" in duel.status_msg().text and _m(duel).turn == 2  # asks first
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    after = _m(duel)
    assert after.turn == 1 and after.commitment != before.commitment
    assert after.audit[-1]["action"] == "undo"
    group = h.texts(duel.g)
    assert any("The GM undid turn 1" in t for t in group)
    assert "мастер отменил ход 1" in h.texts(duel.a)[-1]  # Alice, in Russian
    assert "the GM undid turn 1" in h.texts(duel.b)[-1]
    # The reopened turn can be played again.
    _turn_one(duel)
    assert _m(duel).turn == 2


def test_gm_removes_a_player_after_confirmation(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "Remove a player")
    h.press_text(duel.gm, duel.status_msg(), "Bob")
    assert _m(duel).phase is Phase.RUNNING  # asks first
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    m = _m(duel)
    assert m.phase is Phase.FINISHED and m.outcome is not None
    assert m.outcome["winners"] == ["p1"]
    assert any("removed Bob" in plain(t) for t in h.texts(duel.g))
    assert "Final" in h.texts(duel.g)[-1]


def test_player_forfeits_with_confirmation(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.say(duel.bob, duel.b, "/forfeit")
    confirm = h.last(duel.b, with_buttons=True)
    h.press_text(duel.alice, confirm, "forfeit")  # someone else's button
    assert h.api.alerts[-1][0] == duel.a and _m(duel).phase is Phase.RUNNING
    h.press_text(duel.bob, confirm, "Back")
    assert _m(duel).phase is Phase.RUNNING
    h.say(duel.bob, duel.b, "/forfeit")
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "forfeit")
    m = _m(duel)
    assert m.phase is Phase.FINISHED and m.outcome is not None and m.outcome["winners"] == ["p1"]
    assert any("forfeits" in plain(t) for t in h.texts(duel.g))


def test_leave_in_the_lobby(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    h.say(duel.bob, duel.b, "/leave")
    assert [s.name for s in _m(duel).seats] == ["Алиса"]
    assert "Bob" not in plain(duel.lobby_msg.text)
    h.say(duel.bob, duel.b, "/leave")
    assert "no match" in h.texts(duel.b)[-1]


def test_state_ruling_is_public_audited_and_bad_values_change_nothing(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.say(duel.gm, duel.g, "/edit")
    assert "shrugs_left=" in plain(h.texts(duel.g)[-1])
    h.say(duel.gm, duel.g, "/edit p1 shrugs_left 2 a doctor in the crowd")
    line = plain(h.texts(duel.g)[-1])
    assert "GM ruling" in line and "shrugs_left: 0 → 2" in line and "doctor" in line
    m = _m(duel)
    assert m.audit[-1]["action"] == "edit" and m.audit[-1]["reason"] == "a doctor in the crowd"
    for cmd, needle in [
        ("/edit p1 shrugs_left many why", "expected 0…99"),
        ("/edit p1 luck 3 why", "you can set: status, shrugs_left"),
        ("/edit p1 status wounded why", "would end the duel"),
        ("/edit p1 shrugs_left 1", "Give a reason"),
        ("/edit p9 shrugs_left 1 why", "No participant p9"),
    ]:
        h.say(duel.gm, duel.g, cmd)
        assert needle in plain(h.texts(duel.g)[-1]), cmd
    h.say(duel.bob, duel.g, "/edit p2 shrugs_left 5 I say so")
    assert "Only the GM" in h.texts(duel.g)[-1]
    assert _m(duel).version == m.version


def test_replace_a_player_by_a_link_the_new_player_presses(duel: Duel) -> None:
    h = duel.h
    duel.start()
    dave = h.user(444444444, "Dave", lang="en", username="dave")
    eve = h.user(555555555, "Eve", lang="en")
    h.say(dave, duel.g, "I can take over")
    hello = h.api.chat(duel.g).messages[-1]
    h.say(duel.bob, duel.g, "/replace p2", reply_to=hello)
    assert "Only the GM" in h.texts(duel.g)[-1]
    h.say(duel.gm, duel.g, "/replace Bob", reply_to=hello)
    offer = h.last(duel.g, with_buttons=True)
    assert "offers the seat of Bob" in plain(offer.text) and "Dave" in offer.text
    h.press(eve, offer, 0)  # the link, pressed by someone else
    assert "offered to someone else" in h.texts(555555555)[-1]
    assert _m(duel).seat("p2").user_id == duel.b
    h.press(dave, offer, 0)
    seat = _m(duel).seat("p2")
    assert seat.user_id == 444444444 and seat.name == "Dave"
    assert any("Dave takes the seat of Bob" in plain(t) for t in h.texts(duel.g))
    assert _m(duel).audit[-1]["action"] == "replace"
    h.say(dave, 444444444, "/order move 0 aim 5:5")  # Dave plays the seat now
    assert "p2" in _m(duel).sealed


def test_hand_the_gm_role_over_by_reply_or_username(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.say(duel.alice, duel.g, "hi")
    hi = h.api.chat(duel.g).messages[-1]
    h.say(duel.bob, duel.g, "/gm", reply_to=hi)
    assert "Only the GM" in h.texts(duel.g)[-1] and _m(duel).gm_user_id == duel.gm["id"]
    h.say(duel.gm, duel.g, "/gm")
    assert "reply to their message" in h.texts(duel.g)[-1]
    h.say(duel.gm, duel.g, "/gm", reply_to=hi)
    assert _m(duel).gm_user_id == duel.a
    assert "is now the GM" in plain(h.texts(duel.g)[-1])
    h.say(duel.alice, duel.g, "/gm @alice_duelist")
    assert "already the GM" in h.texts(duel.g)[-1]  # the group reads the match's language


def test_end_the_match_with_a_chosen_winner(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "End with a result")
    h.press_text(duel.gm, duel.status_msg(), "Bob")
    assert _m(duel).phase is Phase.RUNNING  # ending asks first (issue 24)
    assert "End the match now with the result" in plain(duel.status_msg().text)
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    m = _m(duel)
    assert m.phase is Phase.FINISHED and m.outcome is not None
    assert m.outcome["winners"] == ["p2"] and m.outcome["by_gm"]
    assert "Winner: Bob" in plain(h.texts(duel.g)[-1])


def test_history_shows_past_turns_with_orders_and_dice(duel: Duel) -> None:
    h = duel.h
    duel.start()
    _turn_one(duel)
    h.say(duel.bob, duel.g, "/history")
    text = plain(h.texts(duel.g)[-1])
    assert "History" in text and "Turn 0" in text and "Turn 1 (all sealed)" in text
    assert "5:5" in text and "d6" in text
    h.say(duel.alice, duel.a, "/history")
    assert "Ход 1 (все запечатали)" in plain(h.texts(duel.a)[-1])


def test_the_gm_can_undo_the_turn_that_finished_the_match_from_the_summary(duel: Duel) -> None:
    h = duel.h
    duel.start()
    for _ in range(6):  # both always miss: a draw at the turn limit (P2)
        _turn_one(duel)
    finished = _m(duel)
    assert finished.phase is Phase.FINISHED and finished.turn == 7
    summary = h.last(duel.g, with_buttons=True)
    undo = h.find_button(summary, "Undo")
    h.press(duel.bob, summary, undo)
    assert h.api.alerts[-1] == (duel.b, "Only the GM can do that.", True)
    assert _m(duel).version == finished.version
    h.press(duel.gm, summary, undo)  # asks first
    assert _m(duel).phase is Phase.FINISHED
    h.press_text(duel.gm, summary, "Back")
    assert _m(duel).phase is Phase.FINISHED and h.find_button(summary, "Undo") == undo
    h.press(duel.gm, summary, undo)
    h.press_text(duel.gm, summary, "Confirm")
    reopened = _m(duel)
    assert reopened.phase is Phase.RUNNING and reopened.turn == 6
    assert reopened.state == h.deps.repo.history(MID)[-1].state_after
    assert reopened.audit[-1]["action"] == "undo"
    assert [r.turn for r in h.deps.repo.history(MID)] == [0, 1, 2, 3, 4, 5]
    _turn_one(duel)  # turn 6 is played again
    assert _m(duel).phase is Phase.FINISHED

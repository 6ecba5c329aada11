"""No traps (issue 24 point 3): the bot never claims what is not so, never acts on a message the
user did not mean as an order, and leaves no button or message behind that lies."""

from __future__ import annotations

from handlers.telegram.callbacks import Callback
from handlers.telegram.harness import plain
from tests.bot.conftest import Duel


def test_lobby_free_text_never_claims_an_order(duel: Duel) -> None:
    h = duel.h
    duel.lobby()  # Alice picked a character; the match has not started
    h.say(duel.alice, duel.a, "когда начнём?")
    reply = plain(h.last(duel.a).text)
    assert "запечатан" not in reply
    assert "мастер" in reply and "m00001" in reply
    h.say(duel.bob, duel.b, "when do we start?")
    assert "sealed" not in plain(h.last(duel.b).text)


def test_free_text_after_sealing_says_sealed(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(1, -1, 0)
    h.say(duel.alice, duel.a, "ну что там?")
    assert "запечатан" in plain(h.last(duel.a).text)


def test_a_repeated_seal_is_a_no_op_with_the_same_fingerprint(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 3)  # move +1
    aim = h.last(duel.a, with_buttons=True)
    h.press(duel.alice, aim, 3 * 7 + 2)  # aim -1:0
    builder = h.last(duel.a, with_buttons=True)
    seal = builder.buttons[h.find_button(builder, "🔒")]["callback_data"]
    h.click(duel.alice, builder, seal)
    first = h.deps.repo.load("m00001").orders["p1"]
    group_before = len(h.texts(duel.g))
    h.click(duel.alice, builder, seal)  # the double tap: the same signed button again
    again = h.deps.repo.load("m00001").orders["p1"]
    assert (again.fingerprint, again.salt, again.seq) == (first.fingerprint, first.salt, first.seq)
    assert len(h.texts(duel.g)) == group_before  # the group hears of no new seal
    assert first.fingerprint[:8] in plain(h.last(duel.a).text) or "запечатан" in plain(
        h.last(duel.a).text
    )


def test_a_long_bad_order_is_quoted_at_most_40_characters(duel: Duel) -> None:
    h = duel.h
    duel.start()
    junk = "ы" * 5000
    for typed in (f"/order {junk}", f"/order move {junk}", f"/order move 1 aim {junk}"):
        before = len(h.texts(duel.a))
        h.say(duel.alice, duel.a, typed)
        replies = h.texts(duel.a)[before:]
        assert len(replies) == 1, typed[:20]
        assert "ы" * 40 not in replies[0], plain(replies[0])[:120]
        assert len(replies[0]) < 600
    assert duel.match().sealed == ()


def test_alerts_are_plain_text_and_names_show_as_typed(duel: Duel) -> None:
    h = duel.h
    duel.start()
    m = duel.match()
    status = duel.status_msg()
    h.click(duel.gm, status, h.services.cb(Callback("grp", m.id, m.turn, ("p2",))))
    uid, text, _ = h.api.alerts[-1]
    assert uid == int(duel.gm["id"])
    assert "Bob <b>Smith</b>" in text  # Telegram prints an alert verbatim
    assert "&lt;" not in text and "&amp;" not in text and "<code>" not in text

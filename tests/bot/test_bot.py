"""The bot end to end through the real PTB Application (fake Bot API, memory store)."""

from __future__ import annotations

from engine.match import Phase
from handlers.telegram import callbacks
from handlers.telegram.harness import plain
from handlers.telegram.screens.render import split_text
from tests.bot.conftest import Duel, fixture


def test_whole_duel_from_duel_command_to_final_summary(duel: Duel) -> None:
    h = duel.h
    duel.start()
    for turn in range(1, 7):
        m = h.deps.repo.active_in_chat(duel.g)
        if not m:
            break
        assert m[0].turn == turn
        duel.alice_seals(1, -1, 0)
        h.say(duel.bob, duel.b, "/order move -1 aim 0:0")
    finished = h.deps.repo.load("m00001").match
    assert finished.phase is Phase.FINISHED
    group = h.reveals(duel.g)  # a reveal: the picture's caption and the message after it
    reveals = [t for t in group if "reveal" in t]
    assert reveals, "a reveal per turn"
    # P20: the story in plain words, every die one tap away (a collapsed block)
    details = reveals[0].split("<blockquote expandable>", 1)[1]
    assert "initiative" in details and "d6" in details and "<code>" in details
    assert "turn 1 of 6" in group[group.index(reveals[0])]
    assert any("Final" in t for t in group)  # P20 final summary


def test_group_name_with_html_is_escaped(duel: Duel) -> None:
    duel.lobby()
    lobby = duel.lobby_msg.text
    assert "Bob &lt;b&gt;Smith&lt;/b&gt;" in lobby
    assert "<b>Smith</b>" not in lobby


def test_P7_secrecy_no_sealed_content_before_reveal(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(-2, 3, -2)
    sealed_words = ["3:-2", "влево", "left"]
    for t in h.texts(duel.g) + h.texts(duel.b):
        assert not any(w in plain(t) for w in sealed_words), t
    # Alice's receipt has it, with a fingerprint that the group also shows.
    receipt = h.last(duel.a).text
    assert "3:-2" in receipt
    fp = receipt.split("<code>")[2][:8]
    assert fp in duel.status_msg().text


def test_status_message_is_edited_in_place_not_a_stream(duel: Duel) -> None:
    h = duel.h
    duel.start()
    before = len(h.texts(duel.g))
    duel.alice_seals(0, 0, 0)
    assert len(h.texts(duel.g)) == before
    assert "✅" in duel.status_msg().text and "⏳" in duel.status_msg().text


def test_gm_panel_is_gm_only(duel: Duel) -> None:
    h = duel.h
    duel.start()
    status = duel.status_msg()
    text = status.text
    h.press_text(duel.bob, status, "Resolve")
    assert h.api.alerts[-1][0] == duel.b and h.api.alerts[-1][2] is True
    assert "GM" in h.api.alerts[-1][1]
    assert duel.match().turn == 1 and status.text == text


def test_gm_force_asks_for_confirmation_then_defaults_missing_orders(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, 0, 0)
    status = duel.status_msg()
    h.press_text(duel.gm, status, "Resolve")
    assert duel.match().turn == 1
    assert "default" in status.text
    h.press_text(duel.gm, status, "Confirm")
    reveal = [t for t in h.reveals(duel.g) if "reveal" in t][-1]
    assert "no order sealed: default" in reveal


def test_stale_and_forged_presses_get_an_alert_and_change_nothing(duel: Duel) -> None:
    h = duel.h
    duel.start()
    old_builder = h.last(duel.a, with_buttons=True)
    old_move = old_builder.buttons[0]["callback_data"]
    duel.alice_seals(0, 3, 3)  # far off the silhouette: nobody is hit, turn 2 opens
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    assert duel.match().turn == 2
    # the resolved turn's keyboards are gone: one inert line says so
    assert [b["text"] for b in old_builder.buttons] == ["✔️ Ход 1 вскрыт"]
    h.press(duel.alice, old_builder, 0)
    assert "Ход 1 окончен" in h.api.alerts[-1][1]
    version = duel.match().version
    h.click(duel.alice, old_builder, old_move)  # a turn-1 move button in turn 2 (kept data)
    assert "out of date" in h.api.alerts[-1][1] or "устарела" in h.api.alerts[-1][1]
    fx = fixture("group_callback_query")["callback_query"]
    h.click(duel.alice, duel.status_msg(), fx["data"])  # the fixture's unsigned data
    assert "недействительна" in h.api.alerts[-1][1]
    good = duel.status_msg().buttons[1]["callback_data"]
    h.click(duel.gm, duel.status_msg(), good[:-1] + ("A" if good[-1] != "A" else "B"))
    assert h.api.alerts[-1][2] is True
    assert duel.match().version == version


def test_bad_typed_orders_name_the_field_and_change_nothing(duel: Duel) -> None:
    h = duel.h
    duel.start()
    cases = {
        "/order move 9 aim 0:1": "Move must be from -2 to 2, not 9",
        "/order move 1 aim 9:0": "from -5 to 5, not 9",
        "/order move 1 aim": "“aim” needs a value",
        "/order move 1": "aim",
        "/order jump 1 aim 0:0": "jump",
    }
    for text, expected in cases.items():
        h.say(duel.bob, duel.b, text)
        assert expected in plain(h.last(duel.b).text), (text, h.last(duel.b).text)
    assert duel.match().sealed == ()


def test_language_switching(duel: Duel) -> None:
    h = duel.h
    h.say(duel.bob, duel.b, "/help")
    assert "In private" in h.last(duel.b).text
    h.say(duel.bob, duel.b, "/lang ru")
    h.say(duel.bob, duel.b, "/help")
    assert "В личке" in h.last(duel.b).text
    assert h.deps.repo.load_prefs(duel.b)["lang"] == "ru"  # type: ignore[attr-defined]
    duel.lobby()
    h.say(duel.gm, duel.g, "/lang ru")
    assert "сбор на матч" in duel.lobby_msg.text


def test_player_who_cannot_be_messaged_is_marked_and_the_match_goes_on(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    h.api.started.discard(duel.b)  # Bob blocks the bot before the start
    h.feed(fixture("my_chat_member_blocked"))
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    notice = [t for t in h.texts(duel.g) if "Bob" in t and "privately" in t]
    assert notice, h.texts(duel.g)
    assert not duel.match().seat("p2").reachable
    button = h.last(duel.g, with_buttons=True)
    assert any("start=play_" in b.get("url", "") for b in button.buttons)
    assert "not opened the private chat" in duel.status_msg().text
    duel.alice_seals(0, 0, 0)  # the duel goes on; the GM can force
    assert duel.match().sealed == ("p1",)
    h.say(duel.bob, duel.b, "/start play_m00001")  # Bob comes back
    assert duel.match().seat("p2").reachable


def test_fixtures_realistic_shapes(duel: Duel) -> None:
    h = duel.h
    h.feed(fixture("group_command_with_botname"))
    assert "Which duel" in h.last(duel.g).text
    calls = len(h.api.calls)
    h.feed(fixture("edited_message_ignored"))
    assert len(h.api.calls) == calls
    h.feed(fixture("private_text_order"))
    assert "no match" in h.last(duel.b).text


def test_bot_added_to_a_group_and_a_stray_reply_change_nothing(duel: Duel) -> None:
    """The bot joining a group (``my_chat_member`` in a supergroup) is not a private block: no
    seat changes. A reply in private to an old bot message that waits for nothing seals
    nothing."""
    h = duel.h
    duel.start()
    before = duel.match()
    h.feed(fixture("my_chat_member_added_to_group"))
    h.feed(fixture("private_reply_text"))  # Alice replies to a message that asked nothing
    after = duel.match()
    assert after.version == before.version
    assert after.sealed == ()
    assert all(seat.reachable for seat in after.seats)


def test_retry_after_is_honoured_when_short(duel: Duel) -> None:
    h = duel.h
    h.api.fail_next["sendMessage"] = [
        (429, {"description": "Too Many Requests: retry after 2", "parameters": {"retry_after": 2}})
    ]
    h.say(duel.gm, duel.g, "/duel")
    assert h.slept == [2.0]
    assert "Which duel" in h.last(duel.g).text


def test_callback_data_is_short_signed_and_bound_to_turn() -> None:
    secret = b"k" * 32
    cb = callbacks.Callback("s", "abcdEFGH", 6, ("p1", "-2", "-5", "-5"))
    data = callbacks.encode(cb, secret)
    assert len(data.encode()) <= 64
    assert callbacks.decode(data, secret) == cb
    assert callbacks.decode(data.replace("-5", "-4", 1), secret) is None
    assert callbacks.decode(data, b"other" * 8) is None
    assert callbacks.decode("v1:j:M7QX2", secret) is None


def test_long_messages_are_split_under_the_limit() -> None:
    text = "\n\n".join("line " * 100 for _ in range(30))
    parts = split_text(text)
    assert len(parts) > 1 and all(len(p) <= 4096 for p in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")


def test_P15_the_reveal_says_when_equal_initiative_made_the_shots_simultaneous(
    duel: Duel,
) -> None:
    from dataclasses import replace

    from engine.events import Event
    from handlers.telegram.i18n import Tr
    from handlers.telegram.ui import get_ui

    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    match = duel.match()
    record = h.deps.repo.history(match.id)[-1]

    def with_totals(a: int, b: int) -> str:
        totals = iter((a, b))
        events = tuple(
            Event(e.kind, e.actor, {**e.data, "total": next(totals)})
            if e.kind == "initiative"
            else e
            for e in record.events
        )
        return plain(
            get_ui("pistol").render_reveal(Tr("en"), match, replace(record, events=events))
        )

    assert "both shoot at once" in with_totals(5, 5)
    assert "both shoot at once" not in with_totals(6, 5)

"""No traps (issue 24 point 3): the bot never claims what is not so, never acts on a message the
user did not mean as an order, and leaves no button or message behind that lies."""

from __future__ import annotations

from engine.match import Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import Harness, plain
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


def test_an_order_typed_in_the_group_is_answered_privately_and_never_sealed(duel: Duel) -> None:
    h = duel.h
    duel.start()
    before = len(h.texts(duel.a))
    h.say(duel.alice, duel.g, "/order move 1 aim 0:0")
    typed = h.api.chat(duel.g).messages[-1]
    assert not typed.from_bot  # the bot may not delete it: no admin right
    (reply,) = h.texts(duel.a)[before:]
    assert "не запечатан" in plain(reply) and "/order" in plain(reply)
    assert "администратора" in plain(reply)
    assert duel.match().sealed == ()


def test_an_order_typed_in_the_group_is_deleted_when_the_bot_may(duel: Duel) -> None:
    from handlers.telegram.fake_api import BOT_ID

    h = duel.h
    duel.start()
    h.api.admins[duel.g] = {BOT_ID: "administrator"}
    h.say(duel.bob, duel.g, "/order@sekundant_bot move 1 aim 0:0")
    assert all("aim 0:0" not in m.text for m in h.api.chat(duel.g).messages)
    assert "deleted" in plain(h.last(duel.b).text)
    assert duel.match().sealed == ()


def test_an_order_typed_in_the_group_by_someone_unreachable_is_answered_there(
    duel: Duel,
) -> None:
    h = duel.h
    duel.start()
    h.api.started.discard(duel.a)  # Alice blocked the bot
    group_before = len(h.texts(duel.g))
    h.say(duel.alice, duel.g, "/order move 1 aim 0:0")
    (reply,) = h.texts(duel.g)[group_before:]
    assert duel.match().lang == "en"  # the group hears the match's language
    assert "Алиса: orders are sealed only in a private chat" in plain(reply)
    assert h.last(duel.g).buttons[0].get("url", "").endswith("start=play_m00001")


def _both_miss(duel: Duel) -> None:
    duel.alice_seals(0, -3, 3)
    duel.h.say(duel.bob, duel.b, "/order move 0 aim 5:5")


def _finish_with_a_draw(duel: Duel) -> None:
    duel.start()
    for _ in range(6):  # both always miss: a draw at the turn limit (P2)
        _both_miss(duel)
    assert duel.h.deps.repo.load("m00001").match.phase is Phase.FINISHED


def test_undoing_the_final_turn_withdraws_the_final_message(duel: Duel) -> None:
    h = duel.h
    _finish_with_a_draw(duel)
    summary = h.last(duel.g, with_buttons=True)
    result = plain(summary.text)
    h.press_text(duel.gm, summary, "Undo")
    h.press_text(duel.gm, summary, "Confirm")
    assert duel.match().phase is Phase.RUNNING
    shown = plain(summary.text)
    assert result.splitlines()[-1] not in shown  # the result line is gone…
    assert "withdrawn" in shown and "6" in shown  # …and the message says why
    assert not summary.buttons


def test_leave_in_a_running_match_points_to_forfeit(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.say(duel.alice, duel.a, "/leave")
    reply = plain(h.last(duel.a).text)
    assert "нет матча" not in reply and "/forfeit" in reply and "m00001" in reply
    h.say(duel.bob, duel.g, "/leave")
    reply = plain(h.last(duel.g).text)
    assert ": running)" not in reply and "/forfeit" in reply  # no raw phase name
    assert duel.match().seat("p2").status == "active"


def test_dossier_and_history_after_the_final_answer_about_that_match(duel: Duel) -> None:
    h = duel.h
    _finish_with_a_draw(duel)
    h.say(duel.alice, duel.g, "/dossier")
    assert "Такого матча здесь нет" not in plain(h.last(duel.g).text)
    assert h.api.documents(duel.a), "the dossier is sent privately"
    h.say(duel.alice, duel.g, "/history")
    assert "Turn 6" in plain(h.last(duel.g).text)
    h.say(duel.bob, duel.b, "/history")
    assert "Turn 6" in plain(h.last(duel.b).text)


def test_plans_text_is_shown_back_and_sealed_only_by_the_seal_button() -> None:
    from tests.bot.test_plans_ui import PlansDuel

    h = Harness()
    pd = PlansDuel(h)
    try:
        pd.start()
        pd.build_first_choices()
        h.say(pd.alice, pd.a, "а как угадывать навык?")  # a question, not a plan
        assert pd.match().sealed == ()
        asked = h.last(pd.a, with_buttons=True)
        assert "а как угадывать навык?" in plain(asked.text)
        assert [b["text"] for b in asked.buttons] == ["🔒 Запечатать", "✏️ Написать заново"]
        old_seal = asked.buttons[0]["callback_data"]
        h.press_text(pd.alice, asked, "✏️")
        assert pd.match().sealed == ()
        h.say(pd.alice, pd.a, "Финт в плечо, затем выпад в колено")
        h.click(pd.alice, asked, old_seal)  # the question's old 🔒: a newer text replaced it
        assert pd.match().sealed == ()
        assert "заменён" in h.api.alerts[-1][1]
        pd.seal_shown(pd.alice)
        sealed = h.deps.repo.load("m00001").orders["p1"]
        assert sealed.order["text"] == "Финт в плечо, затем выпад в колено"
    finally:
        h.close()


def test_rules_and_help_describe_the_matchs_own_configuration(duel: Duel) -> None:
    h = duel.h
    h.say(duel.gm, duel.g, "/duel@sekundant_bot")
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Pistol")
    lobby = h.last(duel.g, with_buttons=True)
    while duel.match().rules.config(duel.match().config).turn_limit != 10:
        h.press_text(duel.gm, lobby, "Turns")
    h.say(duel.gm, duel.g, "/rules")
    rules = plain(h.last(duel.g).text)
    assert "Turns in this match: 10" in rules and "6 turns" not in rules
    h.press(duel.alice, lobby, 0)  # Alice joins: her /help and /rules are about this match
    h.say(duel.alice, duel.a, "/rules")
    assert "Ходов в этом матче: 10" in plain(h.last(duel.a).text)
    h.say(duel.alice, duel.a, "/help")
    assert "Ходов в этом матче: 10" in plain(h.last(duel.a).text)


def test_pausing_a_match_without_a_deadline_freezes_no_deadline(duel: Duel) -> None:
    h = duel.h
    duel.start()
    assert duel.match().deadline is None
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "Pause")
    assert duel.match().paused
    said = " ".join(plain(t) for t in h.texts(duel.g)[-3:])
    assert "paused" in said and "frozen" not in said and "заморожен" not in said


def _builder_keys(duel: Duel, uid: int) -> list[FakeMessage]:
    """``uid``'s private messages that still show a turn's keyboard (builder, receipt)."""
    turn_kinds = ("v1:b:", "v1:s:", "v1:wd:")
    return [
        m
        for m in duel.h.api.chat(uid).messages
        if m.from_bot
        and any(str(b.get("callback_data", "")).startswith(turn_kinds) for b in m.buttons)
    ]


def test_a_removed_player_gets_one_line_and_no_live_buttons(duel: Duel) -> None:
    h = duel.h
    duel.start()
    builder = h.last(duel.b, with_buttons=True)
    old = builder.buttons[0]["callback_data"]
    before = len(h.texts(duel.b))
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "Remove")
    h.press_text(duel.gm, duel.status_msg(), "Bob")
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    told = [plain(t) for t in h.texts(duel.b)[before:]]
    assert sum("took you out of match m00001" in t for t in told) == 1, told
    assert not _builder_keys(duel, duel.b)  # the old builder is inert
    h.click(duel.bob, builder, old)  # a press that was already on its way
    assert "no longer" in h.api.alerts[-1][1] or "over" in h.api.alerts[-1][1]
    assert "not for you" not in h.api.alerts[-1][1].lower()


def test_a_replaced_player_gets_one_line_and_no_live_buttons(duel: Duel) -> None:
    h = duel.h
    duel.start()
    dave = h.user(444444444, "Dave", lang="en", username="dave")
    h.say(dave, duel.g, "I can take over")
    hello = h.api.chat(duel.g).messages[-1]
    builder = h.last(duel.b, with_buttons=True)
    old = builder.buttons[0]["callback_data"]
    h.say(duel.gm, duel.g, "/replace Bob", reply_to=hello)
    before = len(h.texts(duel.b))
    h.press(dave, h.last(duel.g, with_buttons=True), 0)
    assert duel.match().seat("p2").user_id == 444444444
    told = [plain(t) for t in h.texts(duel.b)[before:]]
    assert told == ["The GM gave your seat in match m00001 to Dave. Your buttons for this "
                    "match no longer work."]  # fmt: skip
    assert not _builder_keys(duel, duel.b)
    h.click(duel.bob, builder, old)
    assert h.api.alerts[-1][1] == "You are no longer in match m00001."


def test_players_of_a_match_the_gm_ends_are_told_and_keep_no_live_buttons(duel: Duel) -> None:
    h = duel.h
    duel.start()
    builder = h.last(duel.a, with_buttons=True)
    old = builder.buttons[0]["callback_data"]
    h.press_text(duel.gm, duel.status_msg(), "GM")
    h.press_text(duel.gm, duel.status_msg(), "End with a result")
    h.press_text(duel.gm, duel.status_msg(), "Draw")
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    assert h.deps.repo.load("m00001").match.phase is Phase.FINISHED
    assert sum("Мастер завершил матч m00001" in plain(t) for t in h.texts(duel.a)) == 1
    assert sum("The GM ended match m00001" in plain(t) for t in h.texts(duel.b)) == 1
    assert not _builder_keys(duel, duel.a) and not _builder_keys(duel, duel.b)
    h.click(duel.alice, builder, old)
    assert h.api.alerts[-1][1] == "Матч m00001 уже окончен."


def test_lobby_character_pickers_go_inert_at_the_start(duel: Duel) -> None:
    """A player who typed a character keeps the picker the join sent him: at the start it
    becomes one plain line without buttons (and so does one asked for again by /character),
    in the reader's language."""
    h = duel.h
    duel.lobby()
    picker = h.last(duel.b, with_buttons=True)
    h.say(duel.alice, duel.a, "/character")  # Alice asks for the picker again
    again = h.last(duel.a, with_buttons=True)
    assert picker.buttons and again.buttons
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    assert duel.match().phase is Phase.RUNNING
    assert not picker.buttons and "has started" in plain(picker.text)
    assert not again.buttons and "матч начался" in plain(again.text)

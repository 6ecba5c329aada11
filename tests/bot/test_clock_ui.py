"""The turn clock through the real Application: deadlines in each reader's language, resolution
at the deadline with default orders announced per player, exactly one reminder to the missing,
pause/resume, bounded extensions, missed-turn alerts, stale sweeps."""

from __future__ import annotations

import asyncio
import inspect

from engine import usecases
from handlers import lambda_sweeper
from handlers.telegram import app
from handlers.telegram.features import clock
from handlers.telegram.harness import plain
from tests.bot.conftest import Duel

HOUR = 3600.0


def quiet_defaults(duel: Duel) -> None:
    """A default order that shoots wide (so missed turns do not end the duel by a hit)."""
    m = duel.match()
    usecases.configure(
        duel.h.deps, m.id, m.gm_user_id, {"default_order": {"move": 0, "aim": [5, 5]}}
    )


def _timed_start(duel: Duel, options: str = "turn=1h") -> None:
    duel.lobby()
    quiet_defaults(duel)
    duel.h.say(duel.gm, duel.g, f"/clock {options}")
    duel.h.press_text(duel.gm, duel.lobby_msg, "Start")


def _gm_menu(duel: Duel) -> None:
    duel.h.press_text(duel.gm, duel.status_msg(), "GM")


def test_deadline_set_in_the_lobby_with_buttons_shown_in_each_players_language(
    duel: Duel,
) -> None:
    h = duel.h
    duel.lobby()
    assert "Turn deadline: none" in plain(duel.lobby_msg.text)
    h.press_text(duel.gm, duel.lobby_msg, "Deadline")  # none -> 10 min
    h.press_text(duel.gm, duel.lobby_msg, "Deadline")  # -> 1 h
    assert "Turn deadline: 1 h" in plain(duel.lobby_msg.text)
    h.press_text(duel.alice, duel.lobby_msg, "Deadline")  # not the GM: refused privately
    assert h.api.alerts[-1][0] == duel.a and h.api.alerts[-1][2]
    assert "Turn deadline: 1 h" in plain(duel.lobby_msg.text)
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    assert "Deadline in 1 h" in plain(duel.status_msg().text)  # the group: the match's language
    assert "До срока: 1 час" in plain(h.last(duel.a).text)  # Alice's builder, in Russian
    assert "Deadline in 1 h" in plain(h.last(duel.b).text)  # Bob's, in English
    h.now += 25 * 60
    duel.alice_seals(0, 0, 0)
    assert "До срока: 35 минут" in plain(h.last(duel.a).text)  # the receipt
    h.say(duel.bob, duel.b, "/status")
    assert "Deadline in 35 min" in plain(h.last(duel.b).text)


def test_resolution_at_the_deadline_announces_each_default_order(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel)
    duel.alice_seals(0, -3, 3)  # aimed off the silhouette: the duel goes on
    h.now += HOUR - 1
    assert h.sweep() == [] or duel.match().turn == 1  # only the reminder may be due
    assert duel.match().turn == 1
    h.now += 2
    results = h.sweep()
    assert [type(r).__name__ for r in results] == ["Resolution"]
    assert h.deps.repo.load("m00001").match.turn == 2
    group = [plain(t) for t in h.texts(duel.g)]
    # The notice heads the reveal (a quiet group: no message of its own).
    reveal = next(t for t in group if "deadline has passed" in t)
    notice, story = reveal.split("reveal", 1)
    assert "Bob <b>Smith</b> sealed no order — default order used" in notice
    assert "Алиса" not in notice  # she had sealed
    assert "Алиса" in story
    assert "default order was used" in h.last(duel.b).text or any(
        "default order was used" in t for t in h.texts(duel.b)
    )
    assert not any("по умолчанию" in t and "вовремя" in t for t in h.texts(duel.a))


def test_exactly_one_reminder_and_only_to_the_missing_player(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel)  # 1 h turn: the reminder is due at half the turn (30 min before)
    duel.alice_seals(0, 0, 0)
    alice_before = len(h.texts(duel.a))
    h.now += 29 * 60
    assert h.sweep() == []
    h.now += 2 * 60
    assert [type(r).__name__ for r in h.sweep()] == ["Reminder"]
    reminders = [t for t in h.texts(duel.b) if "not sealed your order yet" in t]
    assert len(reminders) == 1 and "Deadline in 29 min" in plain(reminders[0])
    assert len(h.texts(duel.a)) == alice_before  # Alice had sealed: no message at all
    h.now += 10 * 60
    assert h.sweep() == []
    assert len([t for t in h.texts(duel.b) if "not sealed your order yet" in t]) == 1


def test_a_stale_sweeper_firing_changes_nothing(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel)
    duel.alice_seals(0, -3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")  # turn 1 resolves: turn 2 opens, 1 h
    before = duel.match()
    group = len(h.texts(duel.g))
    h.now += HOUR / 4
    assert h.sweep() == []
    # A sweeper that read turn 1's deadline late fires for the match: nothing is due.
    assert usecases.tick(h.deps, before.id) is None
    after = duel.match()
    assert after.version == before.version and after.turn == 2
    assert len(h.texts(duel.g)) == group


def test_pause_and_resume_shift_the_deadline(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel)
    deadline = duel.match().deadline
    assert deadline is not None
    h.now += 10 * 60
    _gm_menu(duel)
    h.press_text(duel.gm, duel.status_msg(), "Pause")
    assert duel.match().paused and "paused the match" in h.texts(duel.g)[-1]
    assert "Paused" in plain(duel.status_msg().text)
    h.now += 5 * HOUR  # well past the old deadline: a paused turn does not resolve
    assert h.sweep() == [] and duel.match().turn == 1
    _gm_menu(duel)
    h.press_text(duel.gm, duel.status_msg(), "Resume")
    m = duel.match()
    assert not m.paused and m.deadline == deadline + 5 * HOUR
    assert "resumed the match" in plain(h.texts(duel.g)[-1]) and "50 min" in h.texts(duel.g)[-1]


def test_extension_within_caps_then_refused_with_the_reason(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel, "turn=1h per_turn=1")
    deadline = duel.match().deadline
    assert deadline is not None
    _gm_menu(duel)
    h.press_text(duel.gm, duel.status_msg(), "+6 h")
    assert duel.match().deadline == deadline + 6 * HOUR
    assert "extended this turn by 6 h" in plain(h.texts(duel.g)[-1])
    announced = len(h.texts(duel.g))
    _gm_menu(duel)
    h.press_text(duel.gm, duel.status_msg(), "+1 h")
    assert h.api.alerts[-1] == (
        duel.gm["id"],
        "This turn was already extended 1 times (the limit).",
        True,
    )
    assert duel.match().deadline == deadline + 6 * HOUR
    assert len(h.texts(duel.g)) == announced


def test_extension_buttons_respect_the_single_extension_cap(duel: Duel) -> None:
    _timed_start(duel, "turn=1h extension=6h")
    _gm_menu(duel)
    labels = [b["text"] for b in duel.status_msg().buttons]
    assert "⏱ +1 h" in labels and "⏱ +6 h" in labels and "⏱ +1 day" not in labels


def test_gm_is_alerted_after_consecutive_missed_turns(duel: Duel) -> None:
    h = duel.h
    _timed_start(duel, "turn=1h alert=2")
    for _ in range(2):
        duel.alice_seals(0, -3, 3)
        h.now += HOUR + 1
        h.sweep()
    alert = h.last(int(duel.gm["id"]), with_buttons=True)  # privately: a quiet group
    assert "Bob <b>Smith</b> has missed 2 turns in a row" in plain(alert.text)
    labels = [b["text"] for b in alert.buttons]
    assert any("Replace" in x for x in labels) and any("Remove" in x for x in labels)
    assert not any("Алиса" in plain(t) and "missed" in t for t in h.texts(duel.g))


def test_bad_clock_options_name_the_field_and_change_nothing(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    before = duel.match()
    h.say(duel.gm, duel.g, "/clock turn=soon")
    assert "turn" in h.texts(duel.g)[-1] and "30m, 6h, 2d" in h.texts(duel.g)[-1]
    h.say(duel.gm, duel.g, "/clock turn=45d")
    assert "turn — must be at most 30 days" in h.texts(duel.g)[-1]  # the typed key, no jargon
    h.say(duel.alice, duel.g, "/clock turn=1h")
    assert "Only the GM" in h.texts(duel.g)[-1]  # the group reads the match's language
    assert duel.match().clock == before.clock


def test_the_announcer_the_lambda_sweeper_calls_is_the_clocks(duel: Duel) -> None:
    """``handlers.lambda_sweeper`` calls ``app.announce_sweep``: it must announce like the
    local timer (here: the reminder DM)."""
    h = duel.h
    _timed_start(duel)
    h.now += 31 * 60
    results = usecases.sweep(h.deps)
    assert "announce_sweep" in inspect.getsource(lambda_sweeper)
    h.runner.run(app.announce_sweep(h.app, results))
    assert any("Вы ещё не запечатали приказ" in t for t in h.texts(duel.a))  # in Russian


def test_the_local_timer_sweeps_while_the_bot_runs(duel: Duel) -> None:
    """``sekundant run`` installs the timer: started in post_init, stopped in post_stop."""
    h = duel.h
    _timed_start(duel)
    h.now += 31 * 60
    clock.install_timer(h.app, interval=0.001)

    def reminded() -> int:
        return len([t for t in h.texts(duel.b) if "not sealed your order yet" in t])

    async def run() -> None:
        assert h.app.post_init is not None and h.app.post_stop is not None
        await h.app.post_init(h.app)
        for _ in range(1000):
            await asyncio.sleep(0.001)
            if reminded():
                break
        await h.app.post_stop(h.app)

    h.runner.run(run())
    assert reminded() == 1

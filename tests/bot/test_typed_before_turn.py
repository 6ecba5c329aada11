"""Typed commands for the current turn written before that turn opened belong to an earlier
turn: refused with a reason, nothing sealed. (A webhook redelivery of an update whose first
attempt resolved the turn and died does this: ``tests/serverless/test_webhook_lease.py``.)"""

from __future__ import annotations

from typing import Any

from handlers.telegram.harness import Harness, plain
from tests.bot.conftest import Duel
from tests.bot.test_plans_ui import PlansDuel


def say_dated(h: Harness, user: dict[str, Any], text: str, date: float) -> None:
    """``user`` writes ``text`` in private; Telegram dated the message ``date`` (whole
    seconds, rounded down; the fake API dates every message 0, "unknown")."""
    updates: list[dict[str, Any]] = []
    h.feed = updates.append  # type: ignore[method-assign]
    try:
        h.say(user, int(user["id"]), text)
    finally:
        del h.feed
    (update,) = updates
    update["message"]["date"] = int(date)
    h.feed(update)


def test_a_typed_order_written_before_the_turn_opened_is_refused(duel: Duel) -> None:
    h = duel.h
    duel.start()
    opened = duel.match().turn_opened_at
    assert opened is not None
    say_dated(h, duel.bob, "/order move 0 aim 5:5", opened - 1)
    assert duel.match().sealed == ()
    assert "before turn 1 began" in plain(h.last(duel.b).text)
    say_dated(h, duel.alice, "/order move 0 aim 5:5", opened - 1)
    assert "до начала хода 1" in plain(h.last(duel.a).text)  # Alice reads Russian
    assert duel.match().sealed == ()
    say_dated(h, duel.bob, "/order move 0 aim 5:5", opened + 1)  # written in this turn
    assert duel.match().sealed == ("p2",)


def test_the_second_the_turn_opened_in_counts_as_earlier(duel: Duel) -> None:
    """Telegram rounds dates down: a message dated the turn's second may have been written
    just before it opened - refused, the safe side (no human answers a reveal that fast)."""
    h = duel.h
    h.now += 0.5
    duel.start()
    opened = duel.match().turn_opened_at
    assert opened is not None and opened % 1 == 0.5
    say_dated(h, duel.bob, "/order move 0 aim 5:5", opened)
    assert duel.match().sealed == ()
    say_dated(h, duel.bob, "/order move 0 aim 5:5", opened + 0.5)
    assert duel.match().sealed == ("p2",)


def test_a_typed_plan_written_before_the_turn_opened_is_refused() -> None:
    h = Harness()
    try:
        pd = PlansDuel(h)
        pd.start()
        match = h.deps.repo.active_in_chat(pd.g)[0]
        assert match.turn_opened_at is not None
        plan = "/plan magical pyromancy precise soak:none guess:physical/fencing/strong"
        plan += " -- a burning sigil in the air"
        say_dated(h, pd.bob, plan, match.turn_opened_at - 5)
        assert "before turn 1 began" in plain(h.last(pd.b).text)
        assert h.deps.repo.load(match.id).match.sealed == ()
        say_dated(h, pd.bob, plan, match.turn_opened_at + 5)
        assert h.deps.repo.load(match.id).match.sealed == ("p2",)
    finally:
        h.close()


def test_a_typed_npc_order_written_before_the_turn_opened_is_refused() -> None:
    from tests.bot.test_dragons_ui import Battle

    h = Harness()
    try:
        battle = Battle(h)
        battle.start()
        opened = battle.match().turn_opened_at
        assert opened is not None
        say_dated(h, battle.gm, "/npcorder n1 level 0", opened - 3)
        assert "before turn 1 began" in plain(h.last(333).text)
        assert battle.match().sealed == ()
        say_dated(h, battle.gm, "/npcorder n1 level 0", opened + 3)
        assert battle.match().sealed == ("n1",)
    finally:
        h.close()

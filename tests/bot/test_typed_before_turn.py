"""Typed commands for the current turn written before that turn opened belong to an earlier
turn: refused with a reason, nothing sealed. (A webhook redelivery of an update whose first
attempt resolved the turn and died does this: ``tests/serverless/test_webhook_lease.py``.)

Telegram orders them, not the clock: a message written in a chat before the turn's first
message there (the builder) has a lower message id; one written after it is accepted, even in
the same second and whatever the clocks say. Without a builder message in that chat, the
dates decide, to the whole second."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import Harness, plain
from tests.bot.conftest import Duel
from tests.bot.test_plans_ui import PlansDuel


def written_now(h: Harness, user: dict[str, Any], text: str) -> Callable[[float], None]:
    """``user`` writes ``text`` in private now (it takes its message id now); the returned
    function delivers it later, dated ``date`` (whole seconds, as Telegram does)."""
    uid = int(user["id"])
    msg = FakeMessage(h.api.new_message_id(), uid, text, from_bot=False, user_id=uid)

    def deliver(date: float) -> None:
        h.api.chat(uid).messages.append(msg)
        body = h.api.message_json(msg)
        body["date"] = int(date)
        length = len(text.split(maxsplit=1)[0])
        body["entities"] = [{"offset": 0, "length": length, "type": "bot_command"}]
        h.feed({"update_id": h.api.new_message_id() + 10**8, "message": body})

    return deliver


def test_an_order_written_before_the_builder_is_refused_one_after_it_is_not(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    early_bob = written_now(h, duel.bob, "/order move 0 aim 5:5")  # typed before the start
    early_alice = written_now(h, duel.alice, "/order move 0 aim 5:5")
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    opened = duel.match().turn_opened_at
    assert opened is not None
    early_bob(opened + 5)  # delivered late, and dated late: still written before the turn
    assert duel.match().sealed == ()
    assert "before turn 1 began" in plain(h.last(duel.b).text)
    early_alice(opened)
    assert "до начала хода 1" in plain(h.last(duel.a).text)  # Alice reads Russian
    assert duel.match().sealed == ()
    late = written_now(h, duel.bob, "/order move 0 aim 5:5")  # after the builder
    late(opened - 3)  # a host clock ahead of Telegram's makes no difference
    assert duel.match().sealed == ("p2",)


def test_an_order_in_the_same_second_the_turn_opened_is_accepted(duel: Duel) -> None:
    """The reported dead end: an order ready before the turn, sent as it opened."""
    h = duel.h
    h.now += 0.5
    duel.start()
    opened = duel.match().turn_opened_at
    assert opened is not None and opened % 1 == 0.5
    written_now(h, duel.bob, "/order move 0 aim 5:5")(opened)
    assert duel.match().sealed == ("p2",)


def test_without_a_builder_in_the_chat_the_dates_decide_to_the_second(duel: Duel) -> None:
    h = duel.h
    h.now += 0.5
    duel.start()
    match = duel.match()
    opened = match.turn_opened_at
    assert opened is not None
    # As if no builder had reached anyone (e.g. unreachable players): no message to compare.
    _without_opened(h, match)
    written_now(h, duel.bob, "/order move 0 aim 5:5")(opened - 1)
    assert duel.match().sealed == ()
    assert "before turn 1 began" in plain(h.last(duel.b).text)
    written_now(h, duel.bob, "/order move 0 aim 5:5")(opened)  # the same second: accepted
    assert duel.match().sealed == ("p2",)


def _without_opened(h: Harness, match: Any) -> None:
    """Forget the turn's remembered messages (kept beside the document: ``stale.live``)."""
    from infra.memory import MemoryRepository

    repo = h.deps.repo
    assert isinstance(repo, MemoryRepository)
    repo.remembered.pop(match.id, None)


def test_a_typed_plan_written_before_the_turn_opened_is_refused() -> None:
    h = Harness()
    try:
        pd = PlansDuel(h)
        pd.lobby()
        plan = "/plan magical pyromancy precise soak:none guess:physical/fencing/strong"
        plan += " -- a burning sigil in the air"
        early = written_now(h, pd.bob, plan)
        h.press_text(pd.gm, pd.lobby_msg, "Start")
        match = h.deps.repo.active_in_chat(pd.g)[0]
        assert match.turn_opened_at is not None
        early(match.turn_opened_at + 5)
        assert "before turn 1 began" in plain(h.last(pd.b).text)
        assert h.deps.repo.load(match.id).match.sealed == ()
        written_now(h, pd.bob, plan)(match.turn_opened_at)
        assert h.deps.repo.load(match.id).match.sealed == ("p2",)
    finally:
        h.close()


def test_a_typed_npc_order_written_before_the_turn_opened_is_refused() -> None:
    from tests.bot.test_dragons_ui import Battle

    h = Harness()
    try:
        battle = Battle(h)
        lobby = battle.lobby()
        early = written_now(h, battle.gm, "/npcorder n1 level 0")
        h.press_text(battle.gm, lobby, "Start")
        opened = battle.match().turn_opened_at
        assert opened is not None
        early(opened + 3)
        assert "before turn 1 began" in plain(h.last(333).text)
        assert battle.match().sealed == ()
        written_now(h, battle.gm, "/npcorder n1 level 0")(opened)
        assert battle.match().sealed == ("n1",)
    finally:
        h.close()

"""Adversarial and confused-user input through the real PTB Application: every bad input gets a
specific reply and changes nothing; no input lets one user take what another holds, and no
button of one turn acts on another."""

from __future__ import annotations

from typing import Any

from handlers.telegram.harness import Harness, plain
from tests.bot.conftest import Duel

DEEP_JSON = '{"a":' + "[" * 1200 + "]" * 1200 + "}"  # ~2.4k characters: fits in a message


def _replies(h: Harness, user: dict[str, Any], chat: int, text: str) -> list[str]:
    """What the bot answers in ``chat`` when ``user`` writes ``text`` there."""
    before = len(h.texts(chat))
    h.say(user, chat, text)
    return [plain(t) for t in h.texts(chat)[before:]]


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

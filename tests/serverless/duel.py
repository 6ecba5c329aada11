"""A whole pistol duel played through the webhook, with the users of the shared fixtures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.match import Phase
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import GROUP_ID, Harness
from tests.serverless.webhook_harness import fixture

MAX_TURNS = 12
ORDER = "/order move 0 aim 0:1"


def fixture_users(h: Harness) -> tuple[dict[str, Any], dict[str, Any]]:
    """Alice (Russian) and Bob (HTML in his name), exactly as the fixtures show them."""
    alice = dict(fixture("telegram/private_start_deeplink.json")["message"]["from"])
    bob = dict(fixture("telegram/private_text_order.json")["message"]["from"])
    for user in (alice, bob):
        h.api.add_user(user)
    h.group(
        GROUP_ID, fixture("telegram/group_command_with_botname.json")["message"]["chat"]["title"]
    )
    return alice, bob


def with_kind(h: Harness, chat_id: int, kind: str) -> tuple[FakeMessage, int]:
    """The newest bot message in ``chat_id`` with a ``kind`` button, and that button's index."""
    for msg in reversed([m for m in h.api.chat(chat_id).messages if m.from_bot]):
        for i, b in enumerate(msg.buttons):
            if str(b.get("callback_data", "")).startswith(f"v1:{kind}:"):
                return msg, i
    raise LookupError(f"no {kind!r} button in chat {chat_id}")


def open_duel(
    h: Harness, before_start: Callable[[str, int], None] | None = None
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """/duel in the group, pistol, both join by deep link and pick a character, GM starts
    (``before_start(match_id, gm_id)`` runs just before). Returns the match id and users."""
    alice, bob = fixture_users(h)
    h.say(alice, GROUP_ID, "/duel@sekundant_bot")
    msg, i = with_kind(h, GROUP_ID, "new")
    h.press(alice, msg, i)
    lobby = h.last(GROUP_ID, with_buttons=True)
    for user in (alice, bob):
        h.press(user, lobby, 0)  # the join deep link -> /start join_<id> in private
        msg, i = with_kind(h, int(user["id"]), "chr")
        h.press(user, msg, i)
    if before_start is not None:
        (lobby_match,) = h.deps.repo.active_in_chat(GROUP_ID)
        before_start(lobby_match.id, int(alice["id"]))
    msg, i = with_kind(h, GROUP_ID, "start")
    h.press(alice, msg, i)
    (match,) = h.deps.repo.active_in_chat(GROUP_ID)
    assert match.phase is Phase.RUNNING, h.texts(GROUP_ID)[-3:]
    return match.id, alice, bob


def play_duel(h: Harness) -> str:
    """Both players seal typed orders turn after turn until the duel ends; the match id."""
    match_id, alice, bob = open_duel(h)
    for _ in range(MAX_TURNS):
        if h.deps.repo.load(match_id).match.phase is Phase.FINISHED:
            break
        for user in (alice, bob):
            h.say(user, int(user["id"]), ORDER)
    assert h.deps.repo.load(match_id).match.phase is Phase.FINISHED
    return match_id

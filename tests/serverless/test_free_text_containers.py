"""The plan's role-play text (C22) typed as a plain message reaches the plan built in another
Lambda container: the pending text step is in DynamoDB (the user's prefs), not in a process."""

from __future__ import annotations

from collections.abc import Callable

from engine.match import Phase
from handlers.runtime import Runtime
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from tests.serverless.duel import fixture_users, with_kind
from tests.serverless.webhook_harness import WebhookHarness
from tests.support.clock import FakeClock

TEXT = "Финт в плечо, затем выпад в колено"


def test_the_text_step_stored_by_one_container_is_taken_by_another(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    first, second = make_runtime(), make_runtime()
    h = WebhookHarness([first, second], fake_api, clock)
    alice, bob = fixture_users(h)
    h.say(alice, GROUP_ID, "/duel@sekundant_bot")
    h.press_text(alice, h.last(GROUP_ID, with_buttons=True), "Дуэль планов")
    lobby = h.last(GROUP_ID, with_buttons=True)
    for user in (alice, bob):
        h.press(user, lobby, 0)
        msg, i = with_kind(h, int(user["id"]), "chr")
        h.press(user, msg, i)
    h.press(alice, *with_kind(h, GROUP_ID, "start"))
    (match,) = h.deps.repo.active_in_chat(GROUP_ID)
    assert match.phase is Phase.RUNNING
    a = int(alice["id"])
    for _ in range(12):  # container 1: the builder, first choice of every step
        builder = h.last(a, with_buttons=True)
        if "✍️" in builder.buttons[0]["text"]:
            break
        h.press(alice, builder, 0)
    assert "text_step" in second.deps.repo.load_prefs(a)  # type: ignore[attr-defined]
    h.rt = second  # the next update lands in another container
    h.say(alice, a, TEXT)  # shown back with 🔒 Seal / ✏️ Rewrite (issue 24)…
    h.rt = first  # …and the draft is in the store too: the press lands in the first container
    h.press_text(alice, h.last(a, with_buttons=True), "🔒")
    sealed = h.deps.repo.load(match.id)
    assert sealed.match.sealed == ("p1",)
    assert sealed.orders["p1"].order["text"] == TEXT

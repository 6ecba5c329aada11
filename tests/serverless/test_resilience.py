"""What the functions do when their own code or their inputs go wrong: junk costs one read,
an unexpected error is retried then parked with an apology, matches that keep failing their
sweeps are parked without starving the others, and a late status edit never shows an older
turn than the group has seen."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from engine import usecases
from engine.match import Phase
from engine.usecases import Deps
from handlers import lambda_sweeper, lambda_webhook
from handlers.runtime import Runtime, cold_start
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from tests.serverless.conftest import WebhookHarness, api_event, fixture
from tests.serverless.duel import fixture_users, open_duel
from tests.serverless.webhook_harness import lambda_env
from tests.support.clock import FakeClock

# --------------------------------------------------------------------------- junk


def test_a_wrong_secret_costs_one_read_of_the_webhook_secret_per_container(
    aws: Callable[[str], Any],
) -> None:
    calls: list[str] = []

    class Counting:
        def __init__(self, service: str) -> None:
            self.inner = aws(service)
            self.service = service

        def __getattr__(self, name: str) -> Any:
            calls.append(f"{self.service}.{name}")
            return getattr(self.inner, name)

    env = lambda_env(aws.secret_arn)  # type: ignore[attr-defined]
    rt = cold_start(env, request=FakeBotAPI(), clients=Counting)
    update = fixture("telegram/group_command_with_botname.json")
    for _ in range(5):
        assert lambda_webhook.handle(api_event(update, "wrong"), rt)["statusCode"] == 401
    assert calls == ["secretsmanager.get_secret_value"]  # no token, no table, no wiring
    assert rt.wiring is not None  # the bot was never built
    rt.loop.close()


# --------------------------------------------------------------------------- unexpected errors


def test_an_unexpected_error_is_retried_then_parked_with_an_apology(
    harness: WebhookHarness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A broken build (an ImportError on the first /duel) answered 200 and the update was
    gone without a word. Now: 500 so Telegram re-sends it, up to 3 attempts; then the update
    is parked (logged with its error, kept on its record) and the chat gets an apology."""
    from engine import rulesets

    def broken() -> list[str]:
        raise ImportError("cannot import name 'pistol'")

    monkeypatch.setattr(rulesets, "available", broken)
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    answers = [lambda_webhook.handle(api_event(update), harness.rt)["statusCode"]]
    for _ in range(3):
        harness.clock.now += 60  # Telegram's retries come later
        answers.append(lambda_webhook.handle(api_event(update), harness.rt)["statusCode"])
    assert answers == [500, 500, 500, 200]
    assert "parked after 3 failed attempts; last error: ImportError" in caplog.text
    (apology,) = harness.texts(GROUP_ID)
    assert "internal error" in apology  # in the sender's language (English here)
    harness.clock.now += 60
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200  # done
    assert len(harness.texts(GROUP_ID)) == 1


def test_a_transient_failure_gets_more_attempts_than_a_bug(
    harness: WebhookHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine import rulesets
    from tests.serverless.faults import throttled

    def busy() -> list[str]:
        raise throttled("Query")

    fixture_users(harness)
    real = rulesets.available
    monkeypatch.setattr(rulesets, "available", busy)
    update = fixture("telegram/group_command_with_botname.json")
    for _ in range(lambda_webhook.MAX_UPDATE_ATTEMPTS + 2):
        assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 500
        harness.clock.now += 60
    monkeypatch.setattr(rulesets, "available", real)
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    assert len(harness.texts(GROUP_ID)) == 1  # processed at last: the picker, no apology
    assert harness.last(GROUP_ID).buttons


# --------------------------------------------------------------------------- sweeps


def _pistol_match(deps: Deps, chat_id: int, deadline: float) -> str:
    gm, p2 = 1000 + abs(chat_id) % 1000, 5000 + abs(chat_id) % 1000
    m = usecases.create_match(deps, chat_id, gm, "pistol")
    rules = m.rules
    preset = next(iter(rules.presets(rules.config(m.config)).values()))
    for uid in (gm, p2):
        joined = usecases.join(deps, m.id, uid, f"u{uid}")
        pid = next(s.pid for s in joined.seats if s.user_id == uid)
        usecases.set_character(deps, m.id, uid, pid, preset)
    started, _ = usecases.start(deps, m.id, gm)
    loaded = deps.repo.load(m.id).match
    from dataclasses import replace

    deps.repo.save(replace(loaded, deadline=deadline), expected_version=loaded.version)
    return started.id


def test_sixty_failing_matches_do_not_starve_five_healthy_ones(
    make_runtime: Callable[..., Runtime], clock: FakeClock
) -> None:
    from infra.memory import MemoryRepository

    repo = MemoryRepository()
    rt = cold_start(
        lambda_env("unused"),
        webhook=False,
        request=FakeBotAPI(),
        clients=lambda s: _Secrets(),
        clock=clock,
        repo=repo,
    )
    deps = rt.deps
    failing = [_pistol_match(deps, -2000 - i, clock.now - 600 + i) for i in range(60)]
    healthy = [_pistol_match(deps, -3000 - i, clock.now - 60 + i) for i in range(5)]
    real_load = repo.load

    def load(match_id: str) -> Any:
        if match_id in failing:
            raise KeyError("a damaged state the code cannot read")
        return real_load(match_id)

    repo.load = load  # type: ignore[method-assign]
    summary = lambda_sweeper.sweep(rt)  # ahead of them in the index: 60 that always fail
    assert summary["Resolution"] == 5 and summary["errors"] == 60
    for mid in healthy:
        assert real_load(mid).match.turn == 2
    lambda_sweeper.sweep(rt)
    third = lambda_sweeper.sweep(rt)
    assert third["Parked"] == 60  # the third failure in a row parks them
    assert repo.due(clock.now) == []  # out of the index: the next sweep has nothing to do
    assert lambda_sweeper.sweep(rt)["errors"] == 0
    parked = real_load(failing[0]).match
    assert parked.attention is not None and "KeyError" in parked.attention
    rt.run(rt.app.shutdown())
    rt.loop.close()


class _Secrets:
    def get_parameter(self, **kwargs: Any) -> dict[str, Any]:
        from tests.serverless.webhook_harness import TOKEN

        return {"Parameter": {"Value": TOKEN}}

    def get_secret_value(self, **kwargs: Any) -> dict[str, Any]:
        from tests.serverless.webhook_harness import SECRET

        return {"SecretString": SECRET}


# --------------------------------------------------------------------------- status order


def test_a_status_edit_that_lands_after_the_turn_resolved_is_closed_again(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    """Alice's seal edits the group's status; while that edit travels, Bob's order resolves
    the turn in another container, which edits the one status message to turn 2 (a quiet
    group). Alice's edit lands last: the group showed turn 1 as still open until she shows
    the latest state again."""
    a, b = make_runtime(), make_runtime()
    h = WebhookHarness([a, b], fake_api, clock)
    match_id, alice, bob = open_duel(h)
    status_id = int(h.deps.repo.load(match_id).match.ui["status"])
    h.held = []
    h.say(bob, int(bob["id"]), "/order move 0 aim 5:5")
    (bob_update,), h.held = h.held, None
    real = fake_api.do_request
    armed = [True]

    async def late(url: str, method: str, request_data: Any = None, *x: Any, **k: Any) -> Any:
        params = dict(request_data.parameters) if request_data else {}
        if armed[0] and url.endswith("/editMessageText") and params["message_id"] == status_id:
            armed[0] = False  # Alice's edit is on its way; Bob's whole update happens now
            done = threading.Thread(target=lambda_webhook.handle, args=(api_event(bob_update), b))
            done.start()
            done.join()
        return await real(url, method, request_data, *x, **k)

    fake_api.do_request = late  # type: ignore[method-assign]
    h.say(alice, int(alice["id"]), "/order move 0 aim 5:5")
    assert h.deps.repo.load(match_id).match.turn == 2
    status = next(m for m in fake_api.chat(GROUP_ID).messages if m.message_id == status_id)
    assert "ход 2" in status.text.lower() and "ход 1" not in status.text.lower(), status.text
    assert h.deps.repo.load(match_id).match.phase is Phase.RUNNING


# --------------------------------------------------------------------------- one match per chat


def test_two_pickers_pressed_at_once_create_one_lobby_and_both_show_it(
    harness: WebhookHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two /duel pickers in one group, pressed at the same instant: both presses pass the
    "no match here yet" check (the chat index is read before either creates). The chat's
    creation lock lets one create the lobby; the other press shows that lobby."""
    h = harness
    alice, _bob = fixture_users(h)
    h.say(alice, GROUP_ID, "/duel@sekundant_bot")
    h.say(alice, GROUP_ID, "/duel@sekundant_bot")
    first, second = [m for m in h.api.chat(GROUP_ID).messages if m.from_bot and m.buttons]
    repo: Any = h.deps.repo
    monkeypatch.setattr(repo, "active_in_chat", lambda chat_id: [])  # both see no match yet
    h.press(alice, first, 0)
    h.press(alice, second, 0)
    monkeypatch.undo()
    (match,) = h.deps.repo.active_in_chat(GROUP_ID)
    assert match.phase is Phase.LOBBY
    for picker in (first, second):
        shown = next(m for m in h.api.chat(GROUP_ID).messages if m.message_id == picker.message_id)
        assert match.id in shown.text  # the lobby, with its join button
        assert any("url" in b for b in shown.buttons)

"""The webhook's processing lease: an invocation that dies after claiming an update (Lambda
timeout, out of memory, a crash, a failed release) must not cost that update - Telegram's
redelivery is answered 503 while the lease may still be in use, and processed once it ran out.
And a redelivered typed order whose first attempt resolved the turn is not sealed again."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError

from engine.match import Phase
from handlers import lambda_webhook
from handlers.telegram.harness import GROUP_ID
from tests.serverless.conftest import WebhookHarness, api_event, fixture
from tests.serverless.duel import ORDER, fixture_users, open_duel
from tests.serverless.webhook_harness import writes_match
from tests.storage.aws import load_template

LEASE = lambda_webhook.FALLBACK_LEASE_SECONDS
MISS = "/order move 0 aim 5:5"  # wide of the mark: the duel goes on after the turn


class InvocationDied(BaseException):
    """Lambda stopping the invocation (timeout, out of memory): no ``except Exception`` in our
    code runs, so neither a release nor a confirm happens."""


class DiesOnce:
    """A DynamoDB client whose first ``method`` call stops the invocation (``method``
    ``"match write"``: the first write of a match item, an UpdateItem alone or a
    transaction)."""

    def __init__(self, inner: Any, method: str) -> None:
        self.inner = inner
        self.method = method
        self.died = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if self.died or name not in (self.method, "update_item", "transact_write_items"):
            return attr

        def die(**kwargs: Any) -> Any:
            if name != self.method and not (self.method == "match write" and writes_match(kwargs)):
                return attr(**kwargs)
            self.died = True
            raise InvocationDied

        return die


def _status(h: WebhookHarness, update: dict[str, Any]) -> int:
    h.feed(update)
    code: int = h.responses[-1]["statusCode"]
    return code


def _held(h: WebhookHarness, say: Any) -> dict[str, Any]:
    """The update a ``say`` produces, not delivered yet."""
    h.held = []
    say()
    (update,) = h.held
    h.held = None
    return update


def test_an_update_whose_invocation_died_is_processed_once_the_lease_runs_out(
    harness: WebhookHarness,
) -> None:
    match_id, alice, _bob = open_duel(harness)
    repo: Any = harness.deps.repo
    repo.client = DiesOnce(repo.client, "match write")  # stops at the seal's save
    update = _held(harness, lambda: harness.say(alice, int(alice["id"]), ORDER))
    with pytest.raises(InvocationDied):
        harness.feed(update)
    pid = harness.deps.repo.load(match_id).match.seat_of_user(int(alice["id"]))
    assert pid is not None and pid.pid not in harness.deps.repo.load(match_id).match.sealed
    # Telegram re-sends (its request failed with the invocation). The lease may still be in
    # use: retry later - not a 200 "duplicate", which would drop the order for good.
    harness.clock.now += LEASE - 1
    assert _status(harness, update) == 503
    assert pid.pid not in harness.deps.repo.load(match_id).match.sealed
    harness.clock.now += 1  # the lease ran out: that attempt is dead
    assert _status(harness, update) == 200
    assert pid.pid in harness.deps.repo.load(match_id).match.sealed
    calls = len(harness.api.calls)
    assert _status(harness, update) == 200  # done now: a duplicate
    assert len(harness.api.calls) == calls


def test_a_claim_never_confirmed_does_not_swallow_the_redelivery(
    harness: WebhookHarness,
) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    # The first attempt claimed the update, then vanished without a word.
    assert harness.deps.repo.claim_update(update["update_id"], harness.clock.now, LEASE).token
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 503
    assert harness.api.calls_of("sendMessage") == []
    harness.clock.now += LEASE
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    assert len(harness.api.calls_of("sendMessage")) == 1  # the ruleset picker


def test_a_failed_release_only_delays_the_redelivery(harness: WebhookHarness) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    harness.api.fail_next["sendMessage"] = [(502, {"description": "Bad Gateway"})]
    repo: Any = harness.deps.repo

    def release_fails(update_id: int, token: str) -> None:
        raise ClientError({"Error": {"Code": "InternalServerError", "Message": "x"}}, "Delete")

    repo.release_update = release_fails
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 500
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 503
    harness.clock.now += LEASE
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    sent = [m for m in harness.api.chat(GROUP_ID).messages if m.from_bot]
    assert len(sent) == 1  # the ruleset picker, once


def test_a_redelivered_typed_order_that_resolved_its_turn_is_not_sealed_again(
    harness: WebhookHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's typed order resolves turn 1, then the invocation dies before confirming it:
    the redelivery after the lease must not seal the same order into turn 2."""
    match_id, alice, bob = open_duel(harness)
    harness.say(alice, int(alice["id"]), MISS)
    update = _held(harness, lambda: harness.say(bob, int(bob["id"]), MISS))
    update["message"]["date"] = int(harness.clock.now)  # as Telegram dates it
    harness.clock.now += 0.4  # the invocation starts a moment later
    repo: Any = harness.deps.repo

    def dies(update_id: int, token: str, now: float) -> bool:
        raise InvocationDied

    monkeypatch.setattr(repo, "confirm_update", dies)
    with pytest.raises(InvocationDied):
        harness.feed(update)
    monkeypatch.undo()
    match = harness.deps.repo.load(match_id).match
    assert match.turn == 2 and match.phase is Phase.RUNNING and not match.sealed
    harness.clock.now += LEASE
    assert _status(harness, update) == 200
    match = harness.deps.repo.load(match_id).match
    assert match.turn == 2 and not match.sealed  # refused, nothing changed
    assert "turn 2" in harness.texts(int(bob["id"]))[-1]  # Bob (en) is told why


def test_the_lease_is_the_invocation_time_left_plus_a_margin() -> None:
    context = SimpleNamespace(get_remaining_time_in_millis=lambda: 12_345)
    assert lambda_webhook.lease_for(context) == 12.345 + lambda_webhook.LEASE_MARGIN_SECONDS
    assert lambda_webhook.lease_for(None) == lambda_webhook.FALLBACK_LEASE_SECONDS
    # The fallback outlasts any invocation of the webhook function.
    props = load_template()["Resources"]["WebhookFunction"]["Properties"]
    assert props["Timeout"] + lambda_webhook.LEASE_MARGIN_SECONDS <= LEASE


def test_a_worker_process_killed_between_claim_and_confirm_is_handled_once(
    tmp_path: Path,
) -> None:
    """A real container process claims Alice's typed order, seals it, and is killed (SIGKILL)
    before it confirms. Telegram's redelivery is held off (503) while the lease may be in use,
    then processed once: her order sealed once, not twice, and a later duplicate ignored."""
    from handlers.runtime import cold_start
    from handlers.telegram.fake_api import FakeBotAPI
    from infra.sqlite import SqliteRepository
    from tests.serverless import kill_worker
    from tests.serverless.webhook_harness import WEBHOOK_NOW, lambda_env
    from tests.support.clock import FakeClock

    path = tmp_path / "store.sqlite3"
    repo = SqliteRepository(path)
    clock, api = FakeClock(WEBHOOK_NOW), FakeBotAPI()
    rt = cold_start(
        lambda_env("webhook-secret"),
        request=api,
        clients=lambda s: kill_worker.Secrets(),
        clock=clock,
        repo=repo,
    )
    h = WebhookHarness([rt], api, clock)
    match_id, alice, bob = open_duel(h)
    update = _held(h, lambda: h.say(alice, int(alice["id"]), MISS))
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as a container is
    processed = ctx.Event()
    worker = ctx.Process(
        target=kill_worker.work, args=(str(path), update, [alice, bob], clock.now, processed)
    )
    worker.start()
    try:
        assert processed.wait(120), "the worker never got to its confirm"
    finally:
        os.kill(worker.pid or 0, signal.SIGKILL)
        worker.join()
    assert worker.exitcode == -signal.SIGKILL
    seat = h.deps.repo.load(match_id).match.seat_of_user(int(alice["id"]))
    assert seat is not None and h.deps.repo.load(match_id).match.sealed == (seat.pid,)
    assert _status(h, update) == 503  # its lease may still be in use
    clock.now += LEASE
    assert _status(h, update) == 200  # the lease ran out: processed again
    loaded = h.deps.repo.load(match_id)
    assert loaded.match.sealed == (seat.pid,) and list(loaded.orders) == [seat.pid]
    assert loaded.match.turn == 1  # sealed once: the turn waits for Bob
    calls = len(api.calls)
    assert _status(h, update) == 200  # a duplicate now
    assert len(api.calls) == calls
    h.close()
    repo.close()

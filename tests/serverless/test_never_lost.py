"""No order is answered 200 without being sealed (issue 28 point 1): a seal that loses every
write race (``TryAgainError``) answers 500 so Telegram redelivers it, never "please try again"
with a 200 that leaves the turn stalled; an update that cannot be a real one answers 200 once,
logged, instead of 500, 500, parked. ``handlers/lambda_webhook.py`` is the policy."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from engine import usecases
from engine.errors import ConflictError
from engine.match import Match
from handlers import lambda_webhook
from handlers.telegram.harness import GROUP_ID
from tests.serverless.conftest import WebhookHarness, api_event
from tests.serverless.duel import ORDER, open_duel
from tests.serverless.test_webhook import items

TRY_AGAIN = ("Too many things at once", "Слишком много")


def _losing(h: WebhookHarness, times: int) -> Callable[[], int]:
    """The store's next ``times`` match saves lose their race (other writers got there first);
    returns how many are left."""
    repo: Any = h.deps.repo
    real = repo.save
    left = [times]

    def save(match: Match, **kw: Any) -> Match:
        if left[0] > 0:
            left[0] -= 1
            raise ConflictError(match.id)
        return real(match, **kw)

    repo.save = save
    return lambda: left[0]


def test_a_seal_that_loses_every_race_answers_500_and_its_redelivery_seals_it(
    harness: WebhookHarness,
) -> None:
    h = harness
    match_id, alice, bob = open_duel(h)
    h.say(alice, int(alice["id"]), ORDER)
    h.held = []
    h.say(bob, int(bob["id"]), ORDER)
    (update,), h.held = h.held, None
    before = len(h.texts(int(bob["id"])))
    _losing(h, usecases.RETRIES)
    first = lambda_webhook.handle(api_event(update), h.rt)
    assert first["statusCode"] == 500  # Telegram redelivers it
    said = h.texts(int(bob["id"]))[before:]
    assert not any(t.startswith(TRY_AGAIN) for t in said), said  # nobody asked to retry by hand
    assert h.deps.repo.load(match_id).match.turn == 1  # nothing sealed
    again = lambda_webhook.handle(api_event(update), h.rt)  # Telegram's redelivery
    assert again["statusCode"] == 200
    assert h.deps.repo.load(match_id).match.turn == 2  # sealed, and the turn resolved
    assert [r.turn for r in h.deps.repo.history(match_id)] == [0, 1]


@pytest.mark.parametrize(
    "update",
    [
        {"message": {"message_id": 5, "date": 1764440000, "text": "/duel"}},
        {"message": {"message_id": 5, "date": 1764440000, "chat": {"type": "group"}}},
        {"edited_message": {"date": 1764440000, "chat": {"id": GROUP_ID, "type": "group"}}},
        {"callback_query": {"id": "1", "data": "v1:x", "chat_instance": "1"}},
        {"my_chat_member": {"chat": {"id": 5, "type": "private"}, "date": 1}},
    ],
    ids=[
        "message-without-chat",
        "chat-without-id",
        "message-without-id",
        "press-without-sender",
        "member-without-sender",
    ],
)
def test_an_update_that_cannot_be_real_answers_200_once_logged(
    harness: WebhookHarness,
    aws: Callable[[str], Any],
    caplog: pytest.LogCaptureFixture,
    update: dict[str, Any],
) -> None:
    update = {"update_id": 900_000_555, **update}
    with caplog.at_level(logging.WARNING, logger="sekundant.lambda"):
        answers = [lambda_webhook.handle(api_event(update), harness.rt)["statusCode"]]
    assert answers == [200]  # not 500, 500, then parked: Telegram does not send it again
    assert harness.api.calls == []
    assert any("cannot be a real one" in r.getMessage() for r in caplog.records)
    assert [i["PK"]["S"] for i in items(aws)] == ["UPDATE#900000555"]  # done: once
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200

"""The order page's entry points: a ``web_app`` button on the private turn message (never in
the group), the page's URL from the HTTP API a delivery came through, the Lambda entry."""

from __future__ import annotations

import base64
import json
from typing import Any

from handlers import lambda_webhook
from handlers.telegram.shared.page_button import PAGE_RULESETS
from handlers.webapp import lambda_entry, views
from tests.webapp.conftest import Page

BASE = "https://abc.execute-api.eu-west-1.amazonaws.com/app/"


def _web_apps(message: Any) -> list[str]:
    return [b["web_app"]["url"] for b in message.buttons if "web_app" in b]


def test_the_private_turn_message_opens_the_page_for_that_seat(page: Page) -> None:
    page.h.services.webapp_url = BASE
    page.duel.start()
    alice = page.h.last(page.duel.a, with_buttons=True)
    assert _web_apps(alice) == [f"{BASE}?m=m00001&p=p1"]
    assert alice.buttons[-1]["text"] == "📝 Страница приказа"
    assert _web_apps(page.h.last(page.duel.b, with_buttons=True)) == [f"{BASE}?m=m00001&p=p2"]
    group = page.h.api.chat(page.duel.g).messages
    assert not any(_web_apps(m) for m in group if m.buttons)
    page.duel.alice_seals(1, -1, 0)  # the chat's buttons kept their places
    assert page.h.deps.repo.load("m00001").orders["p1"].order == {"move": 1, "aim": [-1, 0]}


def test_without_a_page_url_no_button(page: Page) -> None:
    page.duel.start()
    assert _web_apps(page.h.last(page.duel.a, with_buttons=True)) == []


def test_every_ruleset_with_a_button_has_a_page() -> None:
    assert set(views.PAGES) == PAGE_RULESETS


def test_the_page_url_is_the_api_the_webhook_was_called_on() -> None:
    event = {"requestContext": {"domainName": "abc.execute-api.eu-west-1.amazonaws.com"}}
    assert lambda_webhook.page_url(event) == BASE
    assert lambda_webhook.page_url({"headers": {"host": "evil.example"}}) is None


def test_the_lambda_entry_serves_the_page_and_the_api(page: Page) -> None:
    page.duel.start()
    index = lambda_entry.handle(
        {"requestContext": {"http": {"method": "GET"}}, "rawPath": "/app/"}, page.webapp
    )
    assert index["statusCode"] == 200 and "app.js" in index["body"]
    assert "Content-Security-Policy" in index["headers"]
    body = base64.b64encode(json.dumps({"match": "m00001"}).encode()).decode()
    event = {
        "requestContext": {"http": {"method": "POST"}},
        "rawPath": "/api/view",
        "headers": {"authorization": f"tma {page.init(page.duel.alice)}"},
        "body": body,
        "isBase64Encoded": True,
    }
    answer = lambda_entry.handle(event, page.webapp)
    assert answer["statusCode"] == 200 and json.loads(answer["body"])["pid"] == "p1"
    event["headers"] = {}
    assert lambda_entry.handle(event, page.webapp)["statusCode"] == 401

"""``sekundant setup-webhook --stack NAME`` over moto (CloudFormation, SSM, Secrets Manager)
and the recording fake Bot API."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from handlers.cli import UsageError, main
from handlers.commands import setup_webhook
from handlers.telegram.fake_api import BOT_USERNAME, FakeBotAPI
from tests.serverless.conftest import SECRET, TOKEN, TOKEN_PARAMETER

URL = "https://abc123.execute-api.eu-west-1.amazonaws.com/webhook"


PAGE = "https://abc123.execute-api.eu-west-1.amazonaws.com/app/"


def create_stack(
    aws: Callable[[str], Any], username: str = BOT_USERNAME, *, page: bool = True
) -> None:
    outputs = {
        "WebhookUrl": URL,
        **({"WebAppUrl": PAGE, "DefaultLanguage": "en"} if page else {}),
        "WebhookSecretArn": aws.secret_arn,  # type: ignore[attr-defined]
        "BotTokenParameterName": TOKEN_PARAMETER,
        "BotUsername": username,
    }
    template = {
        "Resources": {"Bucket": {"Type": "AWS::S3::Bucket"}},
        "Outputs": {k: {"Value": v} for k, v in outputs.items()},
    }
    aws("cloudformation").create_stack(StackName="duels", TemplateBody=json.dumps(template))


def test_sets_the_webhook_with_secret_and_registers_commands(
    aws: Callable[[str], Any], fake_api: FakeBotAPI
) -> None:
    create_stack(aws)
    summary = setup_webhook.setup("duels", clients=aws, request=fake_api)
    (hook,) = fake_api.calls_of("setWebhook")
    assert hook.params["url"] == URL
    assert hook.params["secret_token"] == SECRET
    assert hook.params["allowed_updates"] == ["message", "callback_query", "my_chat_member"]
    assert hook.params["max_connections"] == 40
    menus = fake_api.calls_of("setMyCommands")
    scopes = {(c.params["scope"]["type"], c.params.get("language_code")) for c in menus}
    assert scopes == {
        (kind, lang)
        for kind in ("all_private_chats", "all_group_chats")
        for lang in ("ru", "en", None)
    }
    ru_private = next(
        c
        for c in menus
        if c.params.get("language_code") == "ru"
        and c.params["scope"]["type"] == "all_private_chats"
    )
    assert any(cmd["command"] == "start" for cmd in ru_private.params["commands"])
    assert fake_api.calls_of("getMe")  # the token was checked
    assert SECRET not in str(summary) and TOKEN not in str(summary)


def test_the_menu_button_opens_the_order_page_of_the_stack(
    aws: Callable[[str], Any], fake_api: FakeBotAPI
) -> None:
    create_stack(aws)
    summary = setup_webhook.setup("duels", clients=aws, request=fake_api)
    assert fake_api.menu_button == {"type": "web_app", "text": "Orders", "web_app": {"url": PAGE}}
    assert summary["menu_button"] == f"Orders -> {PAGE}"


def test_an_older_stack_without_the_page_keeps_its_menu_button(
    aws: Callable[[str], Any], fake_api: FakeBotAPI
) -> None:
    create_stack(aws, page=False)
    setup_webhook.setup("duels", clients=aws, request=fake_api)
    assert not fake_api.calls_of("setChatMenuButton")


def test_running_it_again_sets_the_same_values(
    aws: Callable[[str], Any], fake_api: FakeBotAPI
) -> None:
    create_stack(aws)
    setup_webhook.setup("duels", clients=aws, request=fake_api)
    first = [(c.method, repr(c.params)) for c in fake_api.calls]
    fake_api.calls.clear()
    setup_webhook.setup("duels", clients=aws, request=fake_api)
    assert [(c.method, repr(c.params)) for c in fake_api.calls] == first


def test_a_token_of_another_bot_is_refused_before_anything_is_set(
    aws: Callable[[str], Any], fake_api: FakeBotAPI
) -> None:
    create_stack(aws, username="other_bot")
    with pytest.raises(UsageError, match="belongs to @sekundant_bot"):
        setup_webhook.setup("duels", clients=aws, request=fake_api)
    assert not fake_api.calls_of("setWebhook")


def test_a_missing_stack_is_a_usage_error(aws: Callable[[str], Any]) -> None:
    with pytest.raises(UsageError, match="--stack"):
        setup_webhook.setup("nope", clients=aws, request=FakeBotAPI())


def test_the_command_line_rejects_bad_max_connections(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["setup-webhook", "--stack", "duels", "--max-connections", "500"])
    assert code == 2
    assert "--max-connections: expected 1-100" in capsys.readouterr().err

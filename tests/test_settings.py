"""Settings from the environment: defaults, parsing, and one clear error per bad value
(``docs/configuration.md``)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from infra.settings import ENV, Settings, SettingsError, load_settings

TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def test_no_variables_give_the_documented_defaults() -> None:
    assert load_settings({}, dotenv=False) == Settings()
    assert Settings().store == "sqlite"
    assert Settings().lang == "ru"
    assert Settings().api_base_url == "https://api.telegram.org"


def test_every_setting_has_exactly_one_environment_variable() -> None:
    assert sorted(f for f, _ in ENV.values()) == sorted(f.name for f in fields(Settings))


def test_values_are_parsed_into_their_types() -> None:
    got = load_settings(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_API_BASE_URL": "http://localhost:8081/",
            "TELEGRAM_BOT_USERNAME": "sekundant_bot",
            "SEKUNDANT_STORE": "dynamodb",
            "SEKUNDANT_DB": "/tmp/x.sqlite3",
            "SEKUNDANT_TABLE": "t1",
            "SEKUNDANT_LANG": "en",
            "SEKUNDANT_PACK_VERSION": "1",
            "UNRELATED": "ignored",
        },
        dotenv=False,
    )
    assert got == Settings(
        bot_token=TOKEN,
        api_base_url="http://localhost:8081",  # the trailing slash is dropped
        bot_username="sekundant_bot",
        store="dynamodb",
        db_path=Path("/tmp/x.sqlite3"),
        table="t1",
        lang="en",
        pack_version=1,
    )


def test_an_empty_variable_counts_as_unset() -> None:
    assert load_settings({"TELEGRAM_BOT_TOKEN": "", "SEKUNDANT_STORE": ""}, dotenv=False) == (
        Settings()
    )


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("TELEGRAM_BOT_TOKEN", "not-a-token", "BotFather"),
        ("TELEGRAM_BOT_TOKEN", "123456:short", "BotFather"),
        ("TELEGRAM_API_BASE_URL", "ftp://example.org", "http(s) URL"),
        ("SEKUNDANT_STORE", "postgres", "sqlite, dynamodb, memory"),
        ("SEKUNDANT_LANG", "de", "ru, en"),
        ("SEKUNDANT_PACK_VERSION", "3", "1, 2"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(name: str, value: str, says: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({name: value}, dotenv=False)
    message = str(caught.value)
    assert message.startswith(f"{name}: ")
    assert says in message


def test_a_malformed_token_is_not_echoed_in_the_error() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"TELEGRAM_BOT_TOKEN": "12345:secret-tail"}, dotenv=False)
    assert "secret-tail" not in str(caught.value)

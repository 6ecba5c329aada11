"""Settings from the environment (or a ``.env`` file), validated once, failing fast with a
clear message. Every setting is documented in ``docs/configuration.md``.

Plain dataclass and explicit checks, not pydantic: the Lambda webhook reads its settings on
every cold start, and importing pydantic costs about a quarter of the cold-start baseline
(``make bench``, lambda), a price a handful of strings does not justify.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Store = Literal["sqlite", "dynamodb", "memory"]
Lang = Literal["ru", "en"]
STORES: tuple[Store, ...] = ("sqlite", "dynamodb", "memory")
LANGS: tuple[Lang, ...] = ("ru", "en")


class SettingsError(Exception):
    """A missing or invalid setting; the message names it."""


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("sekundant", appauthor=False)) / "sekundant.sqlite3"


def _token(value: str) -> str:
    head, _, tail = value.partition(":")
    if not head.isdigit() or len(tail) < 20:
        raise ValueError("expected the token BotFather gave, like 123456:ABC-DEF...")
    return value


def _url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("expected an http(s) URL of a Bot API server")
    return value.rstrip("/")


def _page_url(value: str) -> str:
    if not value.startswith("https://"):
        raise ValueError("expected the https:// URL of the order page (Telegram opens only HTTPS)")
    return value if value.endswith("/") else value + "/"


def _one_of(*allowed: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError("expected one of " + ", ".join(allowed))
        return value

    return check


@dataclass(frozen=True)
class Settings:
    bot_token: str | None = None
    api_base_url: str = "https://api.telegram.org"
    bot_username: str | None = None
    store: Store = "sqlite"
    # None: the platform's data directory (:func:`default_db_path`), looked up only when the
    # SQLite store is opened (platformdirs is not imported on Lambda).
    db_path: Path | None = None
    table: str = "sekundant"
    lang: Lang = "ru"
    # The order page's public HTTPS URL (``https://host/app/``) for the chat's buttons; on
    # Lambda derived from the HTTP API when unset (docs/deploy.md).
    webapp_url: str | None = None
    # The docpack dictionary DynamoDB items are packed with (None: the newest); an older one
    # while containers that cannot read the newest may still run (docs/deploy.md).
    pack_version: int | None = None


# Environment variable -> (field, parser raising ValueError with what was expected).
ENV: Mapping[str, tuple[str, Callable[[str], Any]]] = {
    "TELEGRAM_BOT_TOKEN": ("bot_token", _token),
    "TELEGRAM_API_BASE_URL": ("api_base_url", _url),
    "TELEGRAM_BOT_USERNAME": ("bot_username", str),
    "SEKUNDANT_STORE": ("store", _one_of(*STORES)),
    "SEKUNDANT_DB": ("db_path", Path),
    "SEKUNDANT_TABLE": ("table", str),
    "SEKUNDANT_LANG": ("lang", _one_of(*LANGS)),
    "SEKUNDANT_WEBAPP_URL": ("webapp_url", _page_url),
    "SEKUNDANT_PACK_VERSION": ("pack_version", lambda v: int(_one_of("1", "2")(v))),
}


def load_settings(env: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
    """Read settings from ``env`` (default: the process environment plus ``.env``); an empty
    variable counts as unset. Raises :class:`SettingsError` naming the first bad one."""
    if env is None:
        if dotenv:
            from dotenv import load_dotenv

            load_dotenv(override=False)
        env = os.environ
    values: dict[str, Any] = {}
    for name, (field, parse) in ENV.items():
        raw = env.get(name, "")
        if raw == "":
            continue
        try:
            values[field] = parse(raw)
        except ValueError as exc:
            raise SettingsError(f"{name}: {exc}") from None
    return Settings(**values)

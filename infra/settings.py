"""Settings from the environment (or a ``.env`` file), validated once, failing fast with a
clear message. Every setting is documented in ``docs/configuration.md``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class SettingsError(Exception):
    """A missing or invalid setting; the message names it."""


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("sekundant", appauthor=False)) / "sekundant.sqlite3"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    bot_token: str | None = Field(default=None, alias="TELEGRAM_BOT_TOKEN")
    api_base_url: str = Field(default="https://api.telegram.org", alias="TELEGRAM_API_BASE_URL")
    bot_username: str | None = Field(default=None, alias="TELEGRAM_BOT_USERNAME")
    store: Literal["sqlite", "dynamodb", "memory"] = Field(
        default="sqlite", alias="SEKUNDANT_STORE"
    )
    # None: the platform's data directory (:func:`default_db_path`), looked up only when the
    # SQLite store is opened (platformdirs is not imported on Lambda).
    db_path: Path | None = Field(default=None, alias="SEKUNDANT_DB")
    table: str = Field(default="sekundant", alias="SEKUNDANT_TABLE")
    lang: Literal["ru", "en"] = Field(default="ru", alias="SEKUNDANT_LANG")

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        head, _, tail = value.partition(":")
        if not head.isdigit() or len(tail) < 20:
            raise ValueError("expected the token BotFather gave, like 123456:ABC-DEF...")
        return value

    @field_validator("api_base_url")
    @classmethod
    def _url_shape(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("expected an http(s) URL of a Bot API server")
        return value.rstrip("/")


def load_settings(env: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
    """Read settings from ``env`` (default: the process environment plus ``.env``)."""
    if env is None:
        if dotenv:
            from dotenv import load_dotenv

            load_dotenv(override=False)
        env = os.environ
    known = {f.alias for f in Settings.model_fields.values() if f.alias}
    values = {k: v for k, v in env.items() if k in known and v != ""}
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "settings"
        raise SettingsError(f"{name}: {err['msg']}") from None

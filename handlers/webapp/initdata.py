"""Telegram Mini App ``initData``: validate it exactly as Telegram documents
("Validating data received via the Mini App", core.telegram.org/bots/webapps), and sign it
(the tests' and the sandbox's stub ``window.Telegram.WebApp``).

- ``secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)``;
- the data-check-string: every received field except ``hash``, as ``key=value`` lines sorted
  by key, joined by ``\\n`` (values URL-decoded);
- valid when ``hex(HMAC_SHA256(key=secret_key, msg=data_check_string))`` equals ``hash``
  (compared in constant time) and ``auth_date`` is no older than :data:`MAX_AGE_SECONDS`
  (``SEKUNDANT_WEBAPP_MAX_AGE``, docs/bot.md "The order page").

The user id the API acts for comes only from the ``user`` field of data that passed this
check (docs/bot.md). Pure: no I/O, the clock is a parameter.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

# A page opened longer ago than this must be reopened from the chat (Telegram signs the data
# when it opens the page). One day: a player may keep the page open through a turn.
MAX_AGE_SECONDS = 24 * 3600
# A signature from the future (clock skew between Telegram and us) is accepted up to this.
FUTURE_SKEW_SECONDS = 60
MAX_LENGTH = 4096  # Telegram's initData is a few hundred bytes; longer is refused unread


class InitDataError(Exception):
    """The data is missing, malformed, forged or too old; ``reason`` names which (for logs
    and the error catalog ``webapp.err.<reason>``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class WebAppUser:
    """Who opened the page, from validated data only."""

    id: int
    first_name: str
    language_code: str | None
    auth_date: int


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: Mapping[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def _signature(fields: Mapping[str, str], bot_token: str) -> str:
    msg = data_check_string(fields).encode()
    return hmac.new(secret_key(bot_token), msg, hashlib.sha256).hexdigest()


def validate(
    init_data: str, bot_token: str, now: float, max_age: float = MAX_AGE_SECONDS
) -> WebAppUser:
    """The user of a genuine, fresh ``initData`` string; else :class:`InitDataError`."""
    if not init_data or not isinstance(init_data, str):
        raise InitDataError("missing")
    if len(init_data) > MAX_LENGTH:
        raise InitDataError("malformed")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a repeated key: which one was signed is ambiguous
        raise InitDataError("malformed")
    given = fields.get("hash", "")
    expected = _signature(fields, bot_token)
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise InitDataError("forged")
    return _user(fields, now, max_age)


def _user(fields: Mapping[str, str], now: float, max_age: float) -> WebAppUser:
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise InitDataError("malformed") from None
    if auth_date > now + FUTURE_SKEW_SECONDS:
        raise InitDataError("malformed")
    if now - auth_date > max_age:
        raise InitDataError("expired")
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise InitDataError("malformed") from None
    uid = user.get("id") if isinstance(user, dict) else None
    if not isinstance(uid, int) or isinstance(uid, bool) or uid <= 0:
        raise InitDataError("malformed")
    lang = user.get("language_code")
    name = user.get("first_name")
    return WebAppUser(
        id=uid,
        first_name=name if isinstance(name, str) else "",
        language_code=lang if isinstance(lang, str) else None,
        auth_date=auth_date,
    )


def sign(
    user: Mapping[str, object],
    bot_token: str,
    auth_date: int,
    *,
    query_id: str = "AAHsandbox",
    extra: Mapping[str, str] | None = None,
) -> str:
    """A genuine ``initData`` string for ``user`` (what Telegram would send): for the tests'
    stub ``window.Telegram.WebApp`` and the sandbox's desktop-browser link."""
    fields = {
        "query_id": query_id,
        "user": json.dumps(dict(user), separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(auth_date),
        **(extra or {}),
    }
    fields["hash"] = _signature(fields, bot_token)
    return urlencode(fields)

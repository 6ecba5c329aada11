"""``initData`` validation exactly as Telegram documents it (docs/bot.md "The order page"):
the key HMAC_SHA256("WebAppData", token), the sorted data-check-string without ``hash``, a
constant-time compare, ``auth_date`` no older than the configured age."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from handlers.webapp import initdata
from handlers.webapp.initdata import InitDataError, sign, validate

TOKEN = "7000000001:AAH-test-token-not-a-real-one-xxxx"
NOW = 1_800_000_000
ALICE = {"id": 111, "first_name": "Алиса", "language_code": "ru"}


def reason(data: str, token: str = TOKEN, now: float = NOW, **kw: float) -> str:
    with pytest.raises(InitDataError) as caught:
        validate(data, token, now, **kw)
    return caught.value.reason


def test_the_documented_algorithm_written_out_by_hand_is_accepted() -> None:
    user = json.dumps(ALICE, ensure_ascii=False)
    fields = {"auth_date": str(NOW), "query_id": "AAF", "user": user}
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    raw = "&".join(f"{k}={quote(v)}" for k, v in {**fields, "hash": digest}.items())
    found = validate(raw, TOKEN, NOW)
    assert (found.id, found.first_name, found.language_code) == (111, "Алиса", "ru")


def test_signed_data_round_trips() -> None:
    assert validate(sign(ALICE, TOKEN, NOW), TOKEN, NOW + 5).id == 111


@pytest.mark.parametrize("field", ["user", "auth_date", "query_id"])
def test_any_changed_field_is_forged(field: str) -> None:
    fields = dict(parse_qsl(sign(ALICE, TOKEN, NOW)))
    fields[field] = fields[field].replace("1", "2") + ("" if field != "query_id" else "x")
    assert reason(urlencode(fields)) == "forged"


def test_an_added_field_another_token_or_no_hash_is_forged() -> None:
    good = sign(ALICE, TOKEN, NOW)
    assert reason(good + "&start_param=m_x") == "forged"
    assert reason(good, token=TOKEN + "x") == "forged"
    assert reason("&".join(p for p in good.split("&") if not p.startswith("hash="))) == "forged"


def test_age_is_limited_and_the_limit_configurable() -> None:
    good = sign(ALICE, TOKEN, NOW)
    assert validate(good, TOKEN, NOW + initdata.MAX_AGE_SECONDS).id == 111
    assert reason(good, now=NOW + initdata.MAX_AGE_SECONDS + 1) == "expired"
    assert reason(good, now=NOW + 61, max_age=60) == "expired"
    assert reason(good, now=NOW - initdata.FUTURE_SKEW_SECONDS - 1) == "malformed"


def test_malformed_inputs_are_refused_with_their_reason() -> None:
    assert reason("") == "missing"
    assert reason("a" * (initdata.MAX_LENGTH + 1)) == "malformed"
    assert reason("no-equals-sign") == "malformed"
    signed_twice = sign(ALICE, TOKEN, NOW)
    assert reason(signed_twice + "&auth_date=1") == "malformed"  # a repeated key
    for user in ({"first_name": "x"}, {"id": "111"}, {"id": True}, {"id": -5}):
        assert reason(sign(user, TOKEN, NOW)) == "malformed"
    bad_date = sign(ALICE, TOKEN, NOW, extra={"auth_date": "yesterday"})
    assert reason(bad_date) == "malformed"


def test_the_hash_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(initdata.hmac, "compare_digest", recording)
    validate(sign(ALICE, TOKEN, NOW), TOKEN, NOW)
    assert len(seen) == 1

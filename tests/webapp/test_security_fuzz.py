"""The order page's API under attack (issue 25 point 3): bad, expired, replayed-after-expiry
and foreign ``initData``, other users' matches and seats, oversized and mistyped bodies. Each
is refused with one plain sentence, and nothing is stored or sent."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handlers.telegram.harness import TOKEN, Harness
from handlers.webapp import initdata
from handlers.webapp.api import MAX_BODY_BYTES
from tests.webapp.conftest import Page

_H = Harness()
PAGE = Page(_H)
PAGE.duel.start()
ALICE = PAGE.duel.alice
STRANGER = {"id": 444444444, "first_name": "Eve", "language_code": "en"}
GOOD_ORDER = {"move": 0, "aim": [0, 0]}


def _tampered(field: str, value: str) -> str:
    fields = dict(parse_qsl(PAGE.init(ALICE)))
    fields[field] = value
    return urlencode(fields)


def bad_inits() -> st.SearchStrategy[str]:
    """initData that must never act as Alice: forged, expired, garbage, another bot's."""
    return st.one_of(
        st.text(max_size=300),
        st.builds(lambda v: _tampered("user", v), st.text(max_size=80)),
        st.builds(lambda v: _tampered("hash", v), st.text("0123456789abcdef", max_size=64)),
        st.builds(
            lambda age: PAGE.init(ALICE, age=age),
            st.floats(initdata.MAX_AGE_SECONDS + 1, 1e9, allow_nan=False),
        ),
        st.just(PAGE.init(ALICE, token=TOKEN + "-another-bot")),
        st.builds(lambda extra: PAGE.init(ALICE) + "&" + extra, st.text(max_size=40)),
    )


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def seal_bodies() -> st.SearchStrategy[Any]:
    return st.one_of(
        JSONISH,
        st.binary(max_size=200),
        st.fixed_dictionaries(
            {"match": st.just("m00001"), "pid": st.just("p1"), "turn": st.just(1)},
            optional={"order": JSONISH, "key": JSONISH},
        ),
        st.just(b"{" * 5000),
        st.just(json.dumps({"match": "m00001", "pad": "x" * MAX_BODY_BYTES}).encode()),
    )


def _snapshot() -> tuple[Any, ...]:
    loaded = _H.deps.repo.load("m00001")
    return loaded.match.version, dict(loaded.orders), len(_H.api.calls)


def _refused(answer: Any) -> None:
    assert answer.status >= 400
    error = answer.json()["error"]
    assert isinstance(error, str) and error and "\n" not in error and "<" not in error
    assert "Traceback" not in error and "{" not in error


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(init=bad_inits(), body=seal_bodies(), path=st.sampled_from(["/api/seal", "/api/view"]))
def test_bad_initdata_is_refused_and_changes_nothing(init: str, body: Any, path: str) -> None:
    before = _snapshot()
    if not isinstance(body, bytes):
        body = {"match": "m00001", "pid": "p1", "turn": 1, "order": GOOD_ORDER, "key": "k" * 12}
    answer = PAGE.call(path, body, init=init)
    _refused(answer)
    assert answer.status == 401 or (answer.status == 413 and len(body) > MAX_BODY_BYTES)
    assert _snapshot() == before


@FUZZ
@given(body=seal_bodies(), who=st.sampled_from(["alice", "stranger", "gm"]))
def test_mistyped_oversized_and_foreign_bodies_are_refused(body: Any, who: str) -> None:
    user = {"alice": ALICE, "stranger": STRANGER, "gm": PAGE.duel.gm}[who]
    before = _snapshot()
    answer = PAGE.call("/api/seal", body, user)
    _refused(answer)
    assert _snapshot() == before


@FUZZ
@given(mid=st.text(max_size=50), pid=st.one_of(st.none(), st.text(max_size=12), JSONISH))
def test_other_matches_and_seats_are_refused(mid: str, pid: Any) -> None:
    before = _snapshot()
    if mid == "m00001" and pid in (None, "p1"):
        return  # Alice's own seat
    body = {"match": mid, "pid": pid, "turn": 1, "order": GOOD_ORDER, "key": "key-fuzz-1"}
    for path in ("/api/view", "/api/odds", "/api/seal"):
        _refused(PAGE.call(path, body, ALICE))
    assert _snapshot() == before

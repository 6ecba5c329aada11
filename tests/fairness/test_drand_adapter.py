"""The HTTPS adapter for drand quicknet, against a mock transport (no network): it waits at
most about one period for a round, asks the relays in turn, and checks what they answer."""

from __future__ import annotations

import httpx
import pytest

from engine.beacon import QUICKNET, round_time
from infra.beacon import CHAIN_HASH, DrandBeacon, beacon_from_env

ROUND = 5928395
SIGNATURE = (
    "a5d07c0071b4e386b3ae09206522253c68fefe8490ad59ecc44a7dd0d0745be9"
    "1da5779e2247a82403fbc0cb9a34cb61"
)
RANDOMNESS = "51722dab0761a1ba5b39f653fa87bef41b442d91fc926a4d727a6be87373fc58"


def _beacon(replies: list[httpx.Response], now: float, slept: list[float], asked: list[str]):  # type: ignore[no-untyped-def]
    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return replies.pop(0)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return DrandBeacon(
        urls=("https://a.example", "https://b.example"),
        clock=lambda: now,
        sleep=slept.append,
        get=client.get,
    )


def _ok(round_number: int = ROUND) -> httpx.Response:
    return httpx.Response(
        200, json={"round": round_number, "signature": SIGNATURE, "randomness": RANDOMNESS}
    )


def test_a_published_round_is_fetched_from_the_first_relay_that_answers() -> None:
    slept: list[float] = []
    asked: list[str] = []
    beacon = _beacon([httpx.Response(500), _ok()], round_time(QUICKNET, ROUND) + 10, slept, asked)
    got = beacon.fetch(ROUND)
    assert got is not None and got.randomness == RANDOMNESS and got.network == "quicknet"
    assert asked == [
        f"https://a.example/{CHAIN_HASH}/public/{ROUND}",
        f"https://b.example/{CHAIN_HASH}/public/{ROUND}",
    ]
    assert slept == []


def test_a_round_due_within_a_period_is_waited_for() -> None:
    slept: list[float] = []
    beacon = _beacon([_ok()], round_time(QUICKNET, ROUND) - 2, slept, [])
    assert beacon.fetch(ROUND) is not None
    assert slept and 2 <= slept[0] < 3


def test_a_round_far_ahead_or_unreachable_relays_give_none() -> None:
    asked: list[str] = []
    far = _beacon([], round_time(QUICKNET, ROUND) - 60, [], asked)
    assert far.fetch(ROUND) is None and asked == []  # no request, no minute-long wait
    down = _beacon(
        [httpx.Response(503), _ok(ROUND + 1)], round_time(QUICKNET, ROUND) + 5, [], asked
    )
    assert down.fetch(ROUND) is None  # a 503, then the wrong round: neither is taken


def test_the_beacon_is_chosen_by_the_environment() -> None:
    """Honest default (issue 26): a bot with a real token uses the public beacon unless
    ``none`` is asked for explicitly."""
    assert isinstance(beacon_from_env({"SEKUNDANT_BEACON": "drand"}), DrandBeacon)
    assert isinstance(beacon_from_env({}), DrandBeacon)
    assert isinstance(beacon_from_env({"SEKUNDANT_BEACON": ""}), DrandBeacon)
    assert beacon_from_env({"SEKUNDANT_BEACON": "none"}) is None
    assert beacon_from_env({"SEKUNDANT_BEACON": " None "}) is None


def test_the_relays_client_is_made_once_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client per fetch built a TLS context each time (~20 ms of CPU): the adapter makes
    one on its first fetch and keeps it (docs/deploy.md, "The beacon")."""
    made: list[object] = []
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return _ok(int(str(request.url).rsplit("/", 1)[-1]))

    real = httpx.Client

    def client(**kw: object) -> httpx.Client:
        made.append(kw)
        return real(transport=httpx.MockTransport(handler))

    def no_get(*_a: object, **_kw: object) -> None:
        raise AssertionError("httpx.get: a new client per fetch")

    monkeypatch.setattr(httpx, "Client", client)
    monkeypatch.setattr(httpx, "get", no_get)
    beacon = DrandBeacon(urls=("https://a.example",), clock=lambda: round_time(QUICKNET, ROUND))
    assert made == []  # nothing at construction (the cold start)
    assert beacon.fetch(ROUND) is not None
    assert beacon.fetch(ROUND) is not None
    assert len(made) == 1 and len(asked) == 2

"""Fingerprints bind against the operator (issue 26, docs/fairness.md "Order fingerprints").

The server draws the salts, so an operator colluding with a player can look for two orders
whose fingerprints share the prefix the group sees, then reveal whichever it likes after the
lock. That is a birthday search: about ``sqrt(pi/2 * 2^bits)`` hashes for ``bits`` shown.
Scaled down here (a 20-bit prefix, found in about a thousand hashes), the search works as
predicted, which puts the old 64-bit prefix at ~5e9 hashes (hours in Python, under a second
on a GPU) and the 128-bit one the group sees now at ~2e19 (out of reach)."""

from __future__ import annotations

import math
import secrets

from engine.match import order_fingerprint
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.fairness import commitment_text
from handlers.telegram.screens.labels import FP_LEN, short_fp


def birthday_search(prefix_hex: int, limit: int) -> tuple[int, tuple[str, str], tuple[str, str]]:
    """Hashes tried until two different (order, salt) pairs share ``prefix_hex`` digits."""
    seen: dict[str, tuple[str, str]] = {}
    for tries in range(1, limit + 1):
        call, salt = str(tries % 6 + 1), secrets.token_hex(8)
        fp = order_fingerprint("m1", 1, "p2", {"call": call}, salt)
        key = fp[:prefix_hex]
        if key in seen and seen[key][0] != call:
            return tries, seen[key], (call, salt)
        seen.setdefault(key, (call, salt))
    raise AssertionError(f"no collision in {limit} hashes")


def expected_work(bits: int) -> float:
    return math.sqrt(math.pi / 2 * 2**bits)


def test_a_birthday_search_on_a_short_prefix_succeeds_as_predicted() -> None:
    """Two different orders, one shown prefix: the reveal could be either (scaled down to 20
    bits; the limit is 40 times the expected work: a miss has a probability below 1e-400)."""
    bits = 20
    _, a, b = birthday_search(bits // 4, int(40 * expected_work(bits)))
    assert a[0] != b[0]
    fa = order_fingerprint("m1", 1, "p2", {"call": a[0]}, a[1])
    fb = order_fingerprint("m1", 1, "p2", {"call": b[0]}, b[1])
    assert fa[: bits // 4] == fb[: bits // 4] and fa != fb
    # The same search against the width the group used to see (16 hex, 64 bits):
    assert 1e9 < expected_work(64) < 1e10  # feasible: hours on one core, < 1 s on a GPU
    assert expected_work(128) > 1e19  # what the group sees now


def test_the_group_sees_at_least_128_bits_of_every_fingerprint_and_commitment() -> None:
    fp = order_fingerprint("m1", 1, "p1", {"call": 3}, "ab" * 8)
    assert FP_LEN * 4 >= 128 and len(short_fp(fp)) * 4 >= 128
    for lang in ("ru", "en"):
        tr = Tr(lang)
        closed = render.closed_status(tr, _match(), 1, {"p1": fp}).text
        assert fp[:32] in closed
        commitment = "cd" * 32
        assert commitment in commitment_text(tr, commitment)


def _match():  # type: ignore[no-untyped-def]
    from engine import usecases as uc
    from infra.memory import MemoryRepository
    from tests.support.clock import FakeClock

    deps = uc.Deps(MemoryRepository(), FakeClock(), uc.CountingEntropy())
    m = uc.create_match(deps, chat_id=-5, gm_user_id=9, ruleset_id="coin", config={"target": 9})
    uc.join(deps, m.id, 1, "Ann")
    return deps.repo.load(m.id).match

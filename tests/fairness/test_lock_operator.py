"""The lock-choosing operator (issue 26 point 2), seeded: the server runs the clock and holds
the seed, but the turn's lock is a group message whose Telegram ``date`` fixes the beacon round
(the first round published strictly after it; ``docs/fairness.md``, "The lock message").

The operator wants Bob (p2) to win the pistol initiative (P14: d6 each, Bob wins on a higher
roll: a fair 15/36 = 41.7 %). It may delay the lock message as long as it likes, watching every
round published meanwhile; it may claim a lock time earlier than the message's (backdate); it
may delete and re-post the lock message. Telegram is modelled as it behaves: a message's
``date`` is the second it was posted, whatever the operator wants.

The beacon here is a stand-in whose randomness is a hash of the round number: the statistic
does not depend on the BLS signatures, which ``test_beacon`` checks.
"""

from __future__ import annotations

import hashlib
import math
import random

from engine import lock_checks
from engine.beacon import BeaconRound, Network, mix, round_after, round_time
from engine.dice import CommittedDice, TurnLog

NET = Network("operator-sim", "00", genesis_time=1_700_000_000, period=3)
TRIALS = 3000
FAIR = 15 / 36
TOLERANCE = 0.03  # ~3.4 standard deviations at 3000 trials


def published(round_number: int) -> BeaconRound:
    randomness = hashlib.sha256(b"operator-sim" + round_number.to_bytes(8, "big")).hexdigest()
    return BeaconRound(NET.name, round_number, "", randomness)


def bob_wins(seed: bytes, round_number: int) -> bool:
    """P14 with the turn's dice key (seed mixed with the round): Bob rolls higher."""
    log = TurnLog(CommittedDice(mix(seed, published(round_number)), "m1", 1))
    alice = log.die(6, "initiative", "p1")
    bob = log.die(6, "initiative", "p2")
    return bob > alice


def telegram_date(posted_at: float) -> int:
    """The ``date`` Telegram gives a message posted at ``posted_at``: its second."""
    return math.floor(posted_at)


def last_published(now: float) -> int:
    """The newest round out at ``now`` (what the operator can see)."""
    return round_after(NET, now) - 1


def turn_doc(frozen: float, locked: float, target: int) -> dict[str, object]:
    return {
        "turn": 1,
        "orders": [{"pid": "p1", "sealed_at": frozen - 5}, {"pid": "p2", "sealed_at": frozen}],
        "frozen_at": frozen,
        "locked_at": locked,
        "lock_message": 42,
        "commitment_message": 40,
        "beacon_round": target,
        "beacon": {"network": NET.name, "round": target},
    }


def rejected(doc: dict[str, object]) -> bool:
    return bool(lock_checks.check([doc], lambda name: NET if name == NET.name else None))


def trials() -> list[tuple[bytes, float]]:
    rng = random.Random(2026)
    return [
        (hashlib.sha256(f"seed {i}".encode()).digest(), NET.genesis_time + 600 * i + rng.random())
        for i in range(1, TRIALS + 1)
    ]


def test_an_honest_lock_gives_the_fair_rate_and_verifies() -> None:
    wins = 0
    for seed, frozen in trials():
        date = telegram_date(frozen + 0.4)  # the lock message, right after the last seal
        target = round_after(NET, date)
        assert round_time(NET, target) > frozen  # published after every order was in
        assert not rejected(turn_doc(frozen, date, target))
        wins += bob_wins(seed, target)
    assert abs(wins / TRIALS - FAIR) < TOLERANCE


def test_delaying_the_lock_chooses_nothing() -> None:
    """The operator watches each round as it comes out and posts the lock message as soon as
    the newest round would have made Bob win (up to 6 periods late, within the bound): the
    round used is the one after the post, which nobody has seen yet. Bob's rate stays fair."""
    wins = 0
    for seed, frozen in trials():
        posted = frozen + 0.4
        for _ in range(6):
            if bob_wins(seed, last_published(posted)):
                break
            posted += NET.period
        date = telegram_date(posted)
        target = round_after(NET, date)
        assert round_time(NET, target) > posted  # not out when the lock was posted
        assert not rejected(turn_doc(frozen, date, target))
        wins += bob_wins(seed, target)
    assert abs(wins / TRIALS - FAIR) < TOLERANCE


def test_a_backdated_lock_is_rejected() -> None:
    """Claiming a lock time one or more periods earlier than the message's, to use a round
    already out (known to a colluding last sealer): every such dossier fails verification."""
    cheated = 0
    for seed, frozen in trials()[:500]:
        for back in range(1, 8):
            claimed = telegram_date(frozen + 0.4) - back * NET.period
            target = round_after(NET, claimed)
            if bob_wins(seed, target):
                cheated += 1
                assert rejected(turn_doc(frozen, claimed, target))
                break
    assert cheated > 400  # the backdating operator nearly always finds Bob a winning round


def test_reposting_the_lock_past_the_bound_is_rejected() -> None:
    """Deleting and re-posting the lock message until the round favours Bob: each try waits
    for the round after the previous message. Every dossier whose lock came later than the
    bound after the freeze fails; within the bound at most ``max_gap / period + 1`` rounds
    were possible, and each deleted message stays visible to the group (docs)."""
    bound = lock_checks.DEFAULT_BOUNDS.max_gap
    late = 0
    for seed, frozen in trials():
        posted = frozen + 0.4
        target = round_after(NET, telegram_date(posted))
        tries = 1
        while not bob_wins(seed, target) and tries < 40:
            posted = round_time(NET, target) + 0.5  # saw the round: delete, post again
            target = round_after(NET, telegram_date(posted))
            tries += 1
        doc = turn_doc(frozen, telegram_date(posted), target)
        if telegram_date(posted) - frozen > bound:
            late += 1
            assert rejected(doc)
        else:
            assert tries <= bound / NET.period + 2
    assert late > 0


def test_the_round_must_follow_the_lock_date() -> None:
    frozen = NET.genesis_time + 100.5
    date = telegram_date(frozen + 0.3)
    assert not rejected(turn_doc(frozen, date, round_after(NET, date)))
    assert rejected(turn_doc(frozen, date, round_after(NET, date) + 1))
    assert rejected(turn_doc(frozen, date + 0.5, round_after(NET, date)))  # not a Telegram date

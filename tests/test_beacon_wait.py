"""The beacon wait of a resolving seal is outside the conditional-write retry loop and within
its documented period (docs/fairness.md: the round is the first one after the lock, at most one
period, 3 s, away; the drand adapter adds 0.2 s for the relays). Measured with a fake clock:
the adapter's sleeps move it, no timed assertion.

Issue 28: the resolving invocation of a 4-player race took 7.5 s median, 11.4 s max, because
each lost race (``ConflictError``) waited for a new round again, and six of them ran out the
retries (``TryAgainError``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from engine import usecases
from engine.beacon import QUICKNET, round_time
from engine.errors import ConflictError
from engine.match import Match, Phase
from engine.usecases import CountingEntropy, Deps
from infra.later import MemoryLater
from infra.memory import MemoryRepository
from tests.support.clock import FakeClock
from tests.support.drand import SIGNATURE, relayed

RELAY_MARGIN = 0.2  # infra.beacon.DrandBeacon: relays serve a round a moment after its time


class Relays:
    """drand's HTTP relays, answering every published round (the fake clock decides which)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.asked: list[int] = []
        self.down = False

    def get(self, url: str, timeout: float) -> httpx.Response:
        number = int(url.rsplit("/", 1)[-1])
        self.asked.append(number)
        if self.down:
            return httpx.Response(503)
        return httpx.Response(200, json={"round": number, "signature": SIGNATURE})


class LosesRaces(MemoryRepository):
    """A store where the next ``n`` saves lose a race: another writer got there first (as
    three other players sealing at once do)."""

    def __init__(self) -> None:
        super().__init__()
        self.lose = 0

    def save(self, match: Match, **kw: Any) -> Match:
        if self.lose > 0:
            self.lose -= 1
            raise ConflictError(match.id)
        return super().save(match, **kw)


def _world() -> tuple[Deps, LosesRaces, FakeClock, list[float], Relays]:
    clock = FakeClock(1_764_440_000.5)
    relays = Relays(clock)
    beacon, slept = relayed(clock, relays.get)
    repo = LosesRaces()
    deps = Deps(repo=repo, clock=clock, entropy=CountingEntropy("w"), beacon=beacon)
    return deps, repo, clock, slept, relays


def _running(deps: Deps) -> Match:
    m = usecases.create_match(deps, -1, 1, "pistol")
    presets: Mapping[str, Any] = m.rules.presets(m.rules.config(m.config))
    for uid in (1, 2):
        usecases.join(deps, m.id, uid, f"u{uid}")
    for i, seat in enumerate(deps.repo.load(m.id).match.seats):
        assert seat.user_id is not None
        usecases.set_character(deps, m.id, seat.user_id, seat.pid, list(presets.values())[i % 2])
    started, _ = usecases.start(deps, m.id, 1)
    return started


ORDER = {"move": 0, "aim": "5:5"}


@pytest.mark.parametrize("lost", [0, 1, 3, 5])
def test_the_last_seal_waits_for_its_round_once_however_many_races_it_loses(lost: int) -> None:
    deps, repo, _clock, slept, relays = _world()
    m = _running(deps)
    usecases.seal_order(deps, m.id, 1, "p1", ORDER, turn=m.turn)
    slept.clear()
    relays.asked.clear()
    repo.lose = lost  # the resolving seal loses this many races before it gets through
    res = usecases.seal_order(deps, m.id, 2, "p2", ORDER, turn=m.turn)
    assert res.record is not None and res.record.beacon is not None  # resolved, with its round
    assert len(relays.asked) == 1  # one round fetched, once
    assert sum(slept) <= QUICKNET.period + RELAY_MARGIN  # one period at most
    assert res.match.turn == m.turn + 1 and res.match.phase is Phase.RUNNING


def test_races_lost_after_the_lock_do_not_move_its_round() -> None:
    """The lock is saved first and fixes the round; losing the resolving write afterwards (the
    status pointer moved meanwhile, say) resolves with that same round, no second wait."""
    deps, repo, _clock, slept, relays = _world()
    m = _running(deps)
    usecases.seal_order(deps, m.id, 1, "p1", ORDER, turn=m.turn)
    slept.clear()
    relays.asked.clear()
    calls = {"n": 0}
    locks: list[int | None] = []
    real_save = repo.save

    def save(match: Match, **kw: Any) -> Match:
        calls["n"] += 1
        if match.locked_at is not None and kw.get("record") is None:
            locks.append(match.beacon_round)
        if kw.get("record") is not None and calls["n"] < 5:  # the resolving write loses twice
            raise ConflictError(match.id)
        return real_save(match, **kw)

    repo.save = save  # type: ignore[method-assign]
    res = usecases.seal_order(deps, m.id, 2, "p2", ORDER, turn=m.turn)
    assert res.record is not None and res.record.beacon is not None
    assert locks == [res.record.beacon.round]  # the round the lock fixed
    assert relays.asked == [res.record.beacon.round]
    assert sum(slept) <= QUICKNET.period + RELAY_MARGIN


def test_with_a_later_nothing_waits_and_the_turn_resolves_when_its_round_is_due() -> None:
    """Serverless (docs/deploy.md, "The beacon wait"): the resolving seal saves the lock and
    hands the turn to ``Deps.later`` for its round's time plus the relays' margin; resolved
    then, without a sleep; a second job for it (SQS delivers at least once) does nothing."""
    deps, _repo, clock, slept, relays = _world()
    later = MemoryLater()
    deps.later = later
    m = _running(deps)
    usecases.seal_order(deps, m.id, 1, "p1", ORDER, turn=m.turn)
    slept.clear()
    relays.asked.clear()
    res = usecases.seal_order(deps, m.id, 2, "p2", ORDER, turn=m.turn)
    assert res.record is None and res.match.beacon_round is not None  # locked, not resolved
    assert slept == [] and relays.asked == []
    due = round_time(QUICKNET, res.match.beacon_round) + usecases.LATER_MARGIN
    assert [(at, job.match_id, job.turn) for at, job in later.jobs] == [(due, m.id, m.turn)]
    assert later.take(due - 0.01) == []
    clock.now = due
    (job,) = later.take(clock.now)
    done = usecases.resolve_locked(deps, job.match_id, job.turn, attempt=job.attempt)
    assert done is not None and done.record.beacon is not None
    assert done.record.beacon.round == res.match.beacon_round
    assert slept == [] and len(relays.asked) == 1
    assert usecases.resolve_locked(deps, job.match_id, job.turn, attempt=job.attempt) is None
    assert later.jobs == [] and len(relays.asked) == 1


def test_with_a_later_a_round_never_served_is_asked_for_a_bounded_number_of_times() -> None:
    deps, _repo, clock, slept, relays = _world()
    later = MemoryLater()
    deps.later = later
    m = _running(deps)
    usecases.seal_order(deps, m.id, 1, "p1", ORDER, turn=m.turn)
    slept.clear()  # the start's round (docs/deploy.md, "The beacon wait")
    relays.asked.clear()
    relays.down = True
    usecases.seal_order(deps, m.id, 2, "p2", ORDER, turn=m.turn)
    tries = 0
    while later.jobs:
        clock.now = max(at for at, _ in later.jobs)
        for job in later.take(clock.now):
            tries += 1
            assert (
                usecases.resolve_locked(deps, job.match_id, job.turn, attempt=job.attempt) is None
            )
    assert tries == usecases.LATER_ATTEMPTS
    assert len(relays.asked) == usecases.LATER_ATTEMPTS and slept == []
    assert deps.repo.load(m.id).match.locked_at is not None  # the sweeper's now

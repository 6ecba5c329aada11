"""Two players seal their last orders at the same instant: exactly one resolution, holding
both orders — never zero, never two, never a lost order.

The thread test forces the worst interleaving in every round (both load before either saves),
so its rounds differ only in the orders: a few per store suffice. The process test runs free,
so its outcome depends on scheduling: it keeps many rounds."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from engine import usecases
from engine.errors import ConflictError
from engine.match import Match
from engine.ports import Loaded, MatchRepository
from engine.usecases import SealResult
from infra.sqlite import SqliteRepository
from tests.storage.helpers import make_deps
from tests.storage.race import Contest, check_one_resolution, prepare, race_rulesets

FORCED_ROUNDS = 8  # every round is the same forced interleaving
FREE_ROUNDS = 50  # free-running processes: each round may interleave differently

pytestmark = pytest.mark.slow


class BothLoadFirst:
    """A repository proxy that holds each thread's first ``load`` until every player has
    loaded: both seals then start from the same version, the worst case, in every round
    (a free-running race depends on scheduling; the process test below runs one)."""

    def __init__(self, repo: MatchRepository, players: int) -> None:
        self._repo = repo
        self._barrier = threading.Barrier(players)
        self._seen: set[int] = set()
        self.conflicts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._repo, name)

    def load(self, match_id: str) -> Loaded:
        loaded = self._repo.load(match_id)
        me = threading.get_ident()
        if me not in self._seen:
            self._seen.add(me)
            self._barrier.wait(timeout=30)
        return loaded

    def save(self, match: Match, **kwargs: Any) -> Match:
        try:
            return self._repo.save(match, **kwargs)
        except ConflictError:
            self.conflicts += 1
            raise


def seal_together(repo: MatchRepository, contest: Contest) -> list[SealResult]:
    """One thread per player; both load the match before either saves."""
    spy = BothLoadFirst(repo, len(contest.moves))
    deps = make_deps(spy)
    barrier = threading.Barrier(len(contest.moves))
    results: list[SealResult] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def player(user: int, pid: str, raw: dict[str, object]) -> None:
        barrier.wait()
        try:
            res = usecases.seal_order(deps, contest.match.id, user, pid, raw)
        except BaseException as exc:  # reported below, in the test's thread
            with lock:
                errors.append(exc)
            return
        with lock:
            results.append(res)

    threads = [threading.Thread(target=player, args=move) for move in contest.moves.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert spy.conflicts == 1  # the race happened: one save lost and was retried
    return results


@pytest.mark.parametrize("ruleset_id", race_rulesets())
def test_two_threads_sealing_the_last_orders_resolve_the_turn_exactly_once(
    repo: MatchRepository, ruleset_id: str
) -> None:
    deps = make_deps(repo)
    for round_no in range(FORCED_ROUNDS):
        contest = prepare(deps, ruleset_id, round_no)
        results = seal_together(repo, contest)
        check_one_resolution(repo, contest, results)


def test_two_processes_sealing_the_last_orders_on_sqlite_resolve_exactly_once(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "race.sqlite3")
    repo = SqliteRepository(path)
    deps = make_deps(repo)
    ctx = multiprocessing.get_context("spawn")  # no fork of a process running threads
    barrier = ctx.Barrier(2)
    results_q = ctx.Queue()
    tasks = [ctx.Queue(), ctx.Queue()]
    workers = [
        ctx.Process(target=_work, args=(path, barrier, q, results_q), daemon=True) for q in tasks
    ]
    for w in workers:
        w.start()
    try:
        for _ in workers:
            assert results_q.get(timeout=120)[0] == "ready"
        for round_no in range(FREE_ROUNDS):
            contest = prepare(deps, "coin", round_no)
            for q, (user, pid, raw) in zip(tasks, contest.moves.values(), strict=True):
                q.put((contest.match.id, user, pid, raw))
            outcomes = [results_q.get(timeout=60) for _ in workers]
            errors = [detail for kind, detail in outcomes if kind != "ok"]
            assert not errors, errors[0]
            check_one_resolution(repo, contest, [detail for _, detail in outcomes])
    finally:
        for q in tasks:
            q.put(None)
        for w in workers:
            w.join(timeout=30)
        repo.close()


def _work(path: str, barrier: Any, tasks: Any, results: Any) -> None:
    from tests.storage.race_worker import work

    work(path, barrier, tasks, results)

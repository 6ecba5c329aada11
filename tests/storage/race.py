"""Shared pieces of the race tests: a match at the moment both players seal their last order,
and the checks that exactly one resolution happened and that it holds both orders."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine import match as lifecycle
from engine import rulesets, usecases
from engine.match import Match
from engine.ports import MatchRepository
from engine.usecases import Deps, SealResult
from tests.storage.helpers import CHAT, GM, P1, P2
from tests.support.coin import ENDLESS


def race_rulesets() -> list[str]:
    """The toy test ruleset, and pistol when it is present (the real first ruleset)."""
    return ["coin"] + (["pistol"] if "pistol" in rulesets.available() else [])


@dataclass(frozen=True)
class Contest:
    match: Match
    moves: dict[str, tuple[int, str, dict[str, Any]]]  # pid -> (user, pid, raw order)


def prepare(deps: Deps, ruleset_id: str, seed: int) -> Contest:
    """A started two-player match whose turn 1 waits for both players' orders."""
    rules = rulesets.get(ruleset_id)
    config = ENDLESS if ruleset_id == "coin" else None
    m = usecases.create_match(deps, CHAT, GM, ruleset_id, config=config)
    presets = list(rules.presets(rules.config({})).values())
    for i, uid in enumerate((P1, P2)):
        usecases.join(deps, m.id, uid, f"player{i + 1}")
        sheet = dict(presets[i % len(presets)]) if presets else {}
        usecases.set_character(deps, m.id, uid, f"p{i + 1}", sheet)
    m, _ = usecases.start(deps, m.id, GM)
    acting = sorted(lifecycle.acting(m))
    assert len(acting) >= 2, "the race needs two players who must both seal"
    state = rules.load_state(m.state or {})
    rng = random.Random(seed)
    users = {s.pid: s.user_id for s in m.seats}
    moves: dict[str, tuple[int, str, dict[str, Any]]] = {}
    for pid in acting:
        raw = rules.dump_order(rules.random_order(state, pid, rng))
        if ruleset_id == "coin":
            raw["note"] = f"{pid}-secret-{seed}"
        user = users[pid]
        assert user is not None
        moves[pid] = (user, pid, raw)
    return Contest(m, moves)


def check_one_resolution(
    repo: MatchRepository, contest: Contest, results: list[SealResult]
) -> None:
    """Never zero, never two resolutions, never a lost order."""
    m = contest.match
    resolving = [r for r in results if r.record is not None]
    assert len(resolving) == 1, f"{len(resolving)} resolutions of turn {m.turn}"
    turn_records = [r for r in repo.history(m.id) if r.turn == m.turn]
    assert len(turn_records) == 1
    record = turn_records[0]
    assert record == resolving[0].record
    revealed = {o.pid: o for o in record.orders}
    for result in results:
        sealed = result.order
        assert not revealed[sealed.pid].default, f"{sealed.pid}'s order was lost"
        assert revealed[sealed.pid].fingerprint == sealed.fingerprint
        assert dict(revealed[sealed.pid].order) == dict(sealed.order)
    assert set(revealed) == set(contest.moves)
    after = repo.load(m.id)
    assert after.match.turn == m.turn + 1
    assert after.orders == {}

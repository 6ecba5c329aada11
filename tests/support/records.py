"""Real turn records of each ruleset (a two-player match, turns forced by the GM), for the
record-size bench and the compact-storage tests."""

from __future__ import annotations

import itertools

from engine import usecases
from engine.match import Phase, TurnRecord
from engine.usecases import CountingEntropy, Deps
from infra.memory import MemoryRepository

RULESETS = ("pistol", "dragons", "plans")


def turn_records(ruleset: str, turns: int = 3) -> list[TurnRecord]:
    """Up to ``turns`` resolved turns of a fresh ``ruleset`` match (fewer if it ends)."""
    repo = MemoryRepository()
    clock = itertools.count(1_700_000_000)
    deps = Deps(repo=repo, clock=lambda: float(next(clock)), entropy=CountingEntropy(ruleset))
    m = usecases.create_match(deps, -1, 1, ruleset)
    presets = list(m.rules.presets(m.rules.config(m.config)).values())
    for uid in (1, 2):
        usecases.join(deps, m.id, uid, f"u{uid}")
    for i, seat in enumerate(repo.load(m.id).match.seats):
        assert seat.user_id is not None
        usecases.set_character(deps, m.id, seat.user_id, seat.pid, presets[i % len(presets)])
    m, _ = usecases.start(deps, m.id, 1)
    records = []
    for _ in range(turns):
        if m.phase is not Phase.RUNNING:
            break
        res = usecases.force_resolve(deps, m.id, 1, m.turn)
        records.append(res.record)
        m = res.match
    return records

"""``verify`` never fails an honest match (issue 26): random legal sequences of players'
seals and GM actions — replace, remove, undo, pause and resume, force, edit, veto, hand the GM
role, resolve from the server seed only — played through the use cases in every ruleset, with
the commitments posted as the bot posts them and a clock that moves, give a dossier that
verifies with no finding. An action the rules refuse (a Rejection) is skipped: it changes
nothing, as in the bot."""

from __future__ import annotations

import contextlib
import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import rulesets as registry
from engine import usecases as uc
from engine.dossier import build_dossier
from engine.errors import Rejection
from engine.match import Match, Phase
from engine.verify import check
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.support.clock import FakeClock
from tests.test_ruleset_conformance import entrants

RULESETS = [r for r in registry.available() if r != "coin"] + ["coin"]
ACTIONS = (
    "seal",
    "seal",
    "seal_all",
    "seal_all",
    "replace",
    "remove",
    "undo",
    "pause",
    "force",
    "edit",
    "veto",
    "hand_gm",
    "seed_only",
)
TICK = 7.0  # seconds between two actions: times are real (strictly increasing)


class Table:
    """One match and the people at it."""

    def __init__(self, rid: str, rng: random.Random) -> None:
        self.rules = registry.get(rid)
        self.clock = FakeClock(1_764_440_000.0)
        self.beacon = LocalBeacon()
        self.deps = uc.Deps(
            MemoryRepository(),
            self.clock,
            uc.SystemEntropy(),
            beacon=self.beacon,
            require_commitment_post=True,
        )
        self.rng = rng
        self.gm = 10
        self.users = itertools.count(100)
        self.messages = itertools.count(5000)
        n = self.rules.min_participants
        m = uc.create_match(self.deps, -100, self.gm, rid)
        self.mid = m.id
        self.post()
        for e in entrants(self.rules, n):
            user = next(self.users)
            uc.join(self.deps, self.mid, user, e.name)
            uc.set_character(self.deps, self.mid, user, e.pid, e.character)
        self.step()
        uc.start(self.deps, self.mid, self.gm)
        self.post()

    # ------------------------------------------------------------------ the world

    @property
    def match(self) -> Match:
        return self.deps.repo.load(self.mid).match

    def step(self) -> None:
        self.clock.advance(TICK)

    def post(self) -> None:
        """What the bot does whenever a turn opens: its commitment as a group message."""
        m = self.match
        if m.commitment is not None and m.commitment_posted_at is None:
            self.step()
            uc.commitment_posted(self.deps, self.mid, m.turn, m.commitment, next(self.messages))

    def holder(self, m: Match, pid: str) -> int:
        seat = m.seat(pid)
        return m.gm_user_id if seat.npc or seat.user_id is None else int(seat.user_id)

    def pending(self, m: Match) -> list[str]:
        from engine import match as lifecycle

        return sorted(lifecycle.acting(m) - set(m.sealed))

    def seats(self, m: Match, *, players: bool = False) -> list[str]:
        return [
            s.pid
            for s in m.seats
            if s.status == "active" and not (players and (s.npc or s.user_id is None))
        ]

    # ------------------------------------------------------------------ actions

    def seal(self, m: Match, pid: str) -> None:
        state = self.rules.load_state(m.state or {})
        raw = self.rules.dump_order(self.rules.random_order(state, pid, self.rng))
        uc.seal_order(self.deps, self.mid, self.holder(m, pid), pid, raw)

    def act(self, action: str, pick: int) -> None:
        m = self.match
        if m.phase is not Phase.RUNNING:
            return
        self.step()
        pending = self.pending(m)
        if action == "seal" and pending:
            self.seal(m, pending[pick % len(pending)])
        elif action == "seal_all":
            for pid in pending:
                if self.match.turn == m.turn:
                    self.seal(self.match, pid)
        elif action == "replace" and self.seats(m, players=True):
            pid = self.seats(m, players=True)[pick % len(self.seats(m, players=True))]
            user = next(self.users)
            uc.replace_player(self.deps, self.mid, self.gm, pid, user, f"New{user}")
        elif action == "remove" and self.seats(m):
            uc.forfeit(self.deps, self.mid, self.gm, self.seats(m)[pick % len(self.seats(m))])
        elif action == "undo":
            uc.undo(self.deps, self.mid, self.gm, "misclick", turn=m.turn)
        elif action == "pause":
            uc.pause(self.deps, self.mid, self.gm)
            self.step()
            uc.resume(self.deps, self.mid, self.gm)
        elif action == "force":
            uc.force_resolve(self.deps, self.mid, self.gm, turn=m.turn)
        elif action == "edit":
            self.edit(m, pick)
        elif action == "veto":
            self.veto(m, pick)
        elif action == "hand_gm":
            new = next(self.users)
            uc.hand_gm(self.deps, self.mid, self.gm, new)
            self.gm = new
        elif action == "seed_only":
            self.seed_only(m)

    def edit(self, m: Match, pick: int) -> None:
        pid = self.seats(m)[pick % len(self.seats(m))] if self.seats(m) else None
        if pid is None or m.state is None:
            return
        fields = self.rules.editable(self.rules.load_state(m.state), pid)
        if not fields:
            return
        name = sorted(fields)[pick % len(fields)]
        value = fields[name]
        uc.edit_state(self.deps, self.mid, self.gm, pid, name, value, "ruling")

    def veto(self, m: Match, pick: int) -> None:
        orders = self.deps.repo.load(self.mid).orders
        sealed = [p for p in m.sealed if p in orders]
        if sealed:
            pid = sealed[pick % len(sealed)]
            uc.veto_order(self.deps, self.mid, self.gm, pid, orders[pid].fingerprint, "no")

    def seed_only(self, m: Match) -> None:
        """The beacon goes silent at the lock: the GM resolves from the server seed only once
        ``beacon_patience`` has passed."""
        self.beacon.up = False
        try:
            try:
                uc.force_resolve(self.deps, self.mid, self.gm, turn=m.turn)
            except Rejection as exc:
                if exc.code != "beacon_pending":
                    raise
            self.clock.advance(self.deps.beacon_patience + 1)
            uc.force_resolve(self.deps, self.mid, self.gm, turn=m.turn)
        finally:
            self.beacon.up = True

    def dossier(self) -> dict[str, Any]:
        loaded = self.deps.repo.load(self.mid)
        return build_dossier(
            loaded.match,
            self.deps.repo.history(self.mid),
            list(loaded.orders.values()),
            generated_at=self.clock(),
        )


def play(rid: str, actions: list[tuple[str, int]], seed: int) -> dict[str, Any]:
    table = Table(rid, random.Random(seed))
    for action, pick in actions:
        with contextlib.suppress(Rejection):  # refused by the rules: nothing changed
            table.act(action, pick)
        table.post()
    return table.dossier()


@pytest.mark.parametrize("rid", RULESETS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    actions=st.lists(
        st.tuples(st.sampled_from(ACTIONS), st.integers(0, 7)), min_size=1, max_size=14
    ),
    seed=st.integers(0, 2**16),
)
def test_random_gm_actions_never_fail_an_honest_match(
    rid: str, actions: list[tuple[str, int]], seed: int
) -> None:
    dossier = play(rid, actions, seed)
    report = check(dossier)
    assert [str(f) for f in report.findings] == [], actions


@pytest.mark.parametrize("rid", RULESETS)
def test_a_replaced_player_keeps_the_orders_he_sealed(rid: str) -> None:
    """The false alarm of issue 26: after a replacement, the replaced player's earlier orders
    stay his (verify OK), in every ruleset."""
    steps = [("seal", 0), ("replace", 0), ("seal_all", 0), ("replace", 1), ("seal_all", 0)]
    dossier = play(rid, steps, 1)
    replaced = [a for a in dossier["interventions"] if a["action"] == "replace"]
    assert replaced
    by_old = [
        o
        for t in dossier["turns"]
        for o in t["orders"]
        if o["by_user"] in {a["old_user"] for a in replaced}
    ]
    assert by_old  # the replaced players did seal orders before they left
    assert [str(f) for f in check(dossier).findings] == []


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_markdown_dossier_credits_orders_to_who_sealed_them(lang: str) -> None:
    """Pistol, RU and EN (issue 26): after the GM replaces a player, the Markdown dossier
    names the replaced player on the orders he sealed, the newcomer on his own."""
    from handlers.telegram.i18n import Tr
    from handlers.telegram.screens import dossier_md

    steps = [("seal_all", 0), ("replace", 0), ("seal_all", 0)]
    for seed in range(40):
        dossier = play("pistol", steps, seed)
        if len(dossier["turns"]) >= 3 and dossier["interventions"]:
            break
    else:
        raise AssertionError("no pistol match lasted two turns")
    (entry,) = [a for a in dossier["interventions"] if a["action"] == "replace"]
    assert [str(f) for f in check(dossier).findings] == []
    md = dossier_md.render(dossier, Tr(lang))
    sections = md.split("\n## ")
    before = next(s for s in sections if s.startswith(("Turn 1", "Ход 1")))
    after = next(s for s in sections if s.startswith(("Turn 2", "Ход 2")))
    assert entry["old"] in before and entry["new"] not in before
    assert entry["new"] in after

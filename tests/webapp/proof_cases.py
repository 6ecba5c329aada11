"""The dossiers the proof page's verifier (webapp-verifier/, docs/fairness.md in JavaScript) is
checked on, with the verdict ``sekundant verify`` (``engine.verify``) gives each:

- honest matches of every ruleset with random players' seals and GM actions
  (``tests/fairness/test_gm_actions.play``: replace, remove, undo, pause, force, edit, veto,
  hand the GM role, server seed only);
- a pistol match played like ``tests/fairness/test_tampering._play`` (all sealed, forced,
  undone and replayed, a pause, a replacement, two GM rulings, the end), and every tampering of
  that suite applied to it (the few written for its toy ruleset's fields have a pistol
  counterpart here);
- the torsion variants of a real quicknet round (``tests/fairness/test_subgroup``).

Both verifiers must agree on every one: same verdict (verifies / does not)."""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

from engine import usecases as uc
from engine.dossier import build_dossier
from engine.errors import Rejection
from engine.verify import check
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.conftest import FakeClock
from tests.fairness import test_tampering as tampering
from tests.fairness.posting import post

GM, ANN, BOB, CARL = 100, 1, 2, 3
Dossier = dict[str, Any]

# Every shot misses (aim far off the silhouette, P9), the defaults too: nobody is hit before
# the turn limit ends the duel as a draw after turn 5 (P2).
CONFIG = {"turn_limit": 5, "default_order": {"move": 0, "aim": [5, 5]}}


def _order(move: int) -> dict[str, Any]:
    return {"move": move, "aim": [5, 5]}


def pistol_match(*, finish: bool = True) -> Dossier:
    """``test_tampering._play`` in pistol: turn 1 all sealed, turn 2 forced (Bob's default),
    turn 3 undone and played again, a pause, Bob's seat handed to Carl, two GM rulings,
    turn 5 the last (a draw at the turn limit)."""
    clock = FakeClock()
    deps = uc.Deps(
        repo=MemoryRepository(), clock=clock, entropy=uc.SystemEntropy(), beacon=LocalBeacon()
    )

    def tick() -> None:
        clock.advance(7)

    m = uc.create_match(deps, chat_id=-5, gm_user_id=GM, ruleset_id="pistol", config=CONFIG)
    mid = m.id
    post(deps, mid)
    uc.join(deps, mid, ANN, "Ann")
    uc.join(deps, mid, BOB, "Bob")
    uc.set_character(deps, mid, ANN, "p1", {"weapon": "revolver", "perks": ["thick_skinned"]})
    uc.set_character(deps, mid, BOB, "p2", {"weapon": "derringer", "perks": ["lucky"]})
    tick()
    uc.start(deps, mid, GM)
    post(deps, mid)
    for turn in (1, 2, 3):
        tick()
        uc.seal_order(deps, mid, ANN, "p1", _order(turn - 2))
        post(deps, mid)
        tick()
        if turn == 2:
            uc.force_resolve(deps, mid, GM, turn=2)
        else:
            uc.seal_order(deps, mid, BOB, "p2", _order(1))
        post(deps, mid)
    tick()
    uc.undo(deps, mid, GM, "misclick", turn=4)
    post(deps, mid)
    tick()
    uc.seal_order(deps, mid, ANN, "p1", _order(2))
    post(deps, mid)
    uc.seal_order(deps, mid, BOB, "p2", _order(-2))
    post(deps, mid)
    tick()
    uc.pause(deps, mid, GM)
    tick()
    uc.resume(deps, mid, GM)
    post(deps, mid)
    uc.replace_player(deps, mid, GM, "p2", CARL, "Carl")
    post(deps, mid)
    tick()
    uc.seal_order(deps, mid, ANN, "p1", _order(0))
    post(deps, mid)
    uc.seal_order(deps, mid, CARL, "p2", _order(-1))
    post(deps, mid)
    tick()
    uc.edit_state(deps, mid, GM, "p1", "shrugs_left", 3, "ruling")
    uc.edit_state(deps, mid, GM, "p2", "shrugs_left", 2, "ruling")
    tick()
    uc.seal_order(deps, mid, ANN, "p1", _order(1))
    post(deps, mid)
    if finish:
        uc.seal_order(deps, mid, CARL, "p2", _order(1))
        post(deps, mid)
    loaded = deps.repo.load(mid)
    return build_dossier(
        loaded.match, deps.repo.history(mid), list(loaded.orders.values()), generated_at=clock()
    )


def _sealed(d: Dossier, n: int, pid: str) -> dict[str, Any]:
    order: dict[str, Any] = next(o for o in d["turns"][n]["orders"] if o["pid"] == pid)
    return order


def _undone_order(d: Dossier) -> None:
    d["undone"][0]["orders"][0]["order"]["move"] = 2


def _relabel_default(d: Dossier) -> None:
    order = _sealed(d, 1, "p2")
    order.update(default=True, salt="", fingerprint="", by_user=None, seq=1 << 30)
    order["order"] = _order(0)


def _state_after(d: Dossier) -> None:
    d["turns"][5]["state_after"]["duelists"][1]["shrugs_left"] += 1


def _config(d: Dossier) -> None:
    d["match"]["config"]["turn_limit"] = 4


def _sealed_order_content(d: Dossier) -> None:
    _sealed(d, 5, "p2")["order"]["move"] = 2


def _default_content(d: Dossier) -> None:
    _sealed(d, 2, "p2")["order"]["move"] = 1


def _setup_roll(d: Dossier) -> None:
    d["turns"][0]["events"].append(
        {"kind": "roll", "actor": "p1", "sides": 6, "faces": [6], "purpose": "initiative"}
    )


def _hit_claimed(d: Dossier) -> None:
    """A miss rewritten as a hit on the head (the shot's dice kept)."""
    event = next(e for e in d["turns"][4]["events"] if e["kind"] == "miss")
    event.update(kind="hit", part="head", cell=[0, 1])


def _winner_claimed(d: Dossier) -> None:
    d["match"]["outcome"] = {"status": "win", "winners": ["p1"], "reason": "hit"}


# The tamperings written for test_tampering's toy ruleset's own fields, in pistol.
PISTOL_COUNTERPARTS: dict[str, Callable[[Dossier], None]] = {
    "undone turn's order": _undone_order,
    "sealed relabelled default": _relabel_default,
    "state after": _state_after,
    "configuration": _config,
    "sealed order": _sealed_order_content,
    "default order": _default_content,
    "setup roll": _setup_roll,
}
EXTRA: list[tuple[str, Callable[[Dossier], None]]] = [
    ("a miss claimed as a hit", _hit_claimed),
    ("a win claimed after a draw", _winner_claimed),
]


def tamperings() -> list[tuple[str, Callable[[Dossier], None]]]:
    """Every tampering of ``tests/fairness/test_tampering.py`` (pistol counterparts where it
    edits its toy ruleset's fields), then a few of pistol's own."""
    out = [(name, PISTOL_COUNTERPARTS.get(name, change)) for name, change, _ in tampering.CASES]
    return out + EXTRA


def python_verdict(dossier: Dossier) -> bool:
    """``sekundant verify``'s verdict: True when the dossier verifies. A dossier the rules
    refuse to replay (a Rejection raised through verify) does not verify."""
    try:
        return not check(dossier).findings
    except Rejection:
        return False


def honest(seed: int = 0, per_ruleset: int = 3) -> list[tuple[str, Dossier]]:
    """Honest matches of every ruleset with random seals and GM actions."""
    from tests.fairness.test_gm_actions import ACTIONS, play

    out = []
    for rid in ("pistol", "plans", "dragons"):
        for k in range(per_ruleset):
            rng = random.Random(seed * 1000 + k)
            actions = [(rng.choice(ACTIONS), rng.randint(0, 7)) for _ in range(12)]
            out.append((f"{rid} honest #{k}", play(rid, actions, seed * 1000 + k)))
    return out


@functools.cache
def all_cases() -> list[tuple[str, str, bool]]:
    """(name, dossier as JSON text, Python's verdict) for every case (built once a process)."""
    base = pistol_match()
    cases: list[tuple[str, Dossier]] = [("pistol match", base)]
    cases.append(("pistol match, running", pistol_match(finish=False)))
    cases += honest()
    for name, change in tamperings():
        bad = copy.deepcopy(base)
        change(bad)
        cases.append((f"tampered: {name}", bad))
    return [(name, json.dumps(d, ensure_ascii=False), python_verdict(d)) for name, d in cases]

"""The dossiers the proof page's verifier (webapp-verifier/, docs/fairness.md in JavaScript) is
checked on, with the verdict ``sekundant verify`` (``engine.verify``) gives each:

- honest matches of every ruleset with random players' seals and GM actions
  (``tests/fairness/test_gm_actions.play``: replace, remove, undo, pause, force, edit, veto,
  hand the GM role, server seed only);
- a pistol match played like ``tests/fairness/test_tampering._play`` (all sealed, forced,
  undone and replayed, a pause, a replacement, two GM rulings, the end), and every tampering of
  that suite applied to it (the few written for its toy ruleset's fields have a pistol
  counterpart here);
- a pistol match locked by group messages (as the bot locks) with every field changed in turn
  as ``tests/fairness/test_every_field.py`` changes them;
- the plans and dragons matches with an order dropped, a default order changed, a win
  claimed, a die turned over;
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
from engine.verify import NotADossierError, check
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.conftest import FakeClock
from tests.fairness import test_tampering as tampering
from tests.fairness.posting import ANN, BOB, GM, Script, play, post, posting

Dossier = dict[str, Any]

# Every shot misses (aim far off the silhouette, P9), the defaults too: nobody is hit before
# the turn limit ends the duel as a draw after turn 5 (P2).
CONFIG = {"turn_limit": 5, "default_order": {"move": 0, "aim": [5, 5]}}


def _order(move: int) -> dict[str, Any]:
    return {"move": move, "aim": [5, 5]}


PISTOL = Script(
    ann=(_order(-1), _order(0), _order(1)),
    bob=_order(1),
    replay=(_order(2), _order(-2)),
    handed=(_order(0), _order(-1)),
    last=(_order(1), _order(1)),
    ruling=("shrugs_left", 3, 2),
)
CHARACTERS = (
    {"weapon": "revolver", "perks": ["thick_skinned"]},
    {"weapon": "derringer", "perks": ["lucky"]},
)


def pistol_match(*, finish: bool = True) -> Dossier:
    """``test_tampering._play`` in pistol (``posting.Script``; turn 5 the last: a draw at the
    turn limit)."""
    clock = FakeClock()
    deps = uc.Deps(
        repo=MemoryRepository(), clock=clock, entropy=uc.SystemEntropy(), beacon=LocalBeacon()
    )
    m = uc.create_match(deps, chat_id=-5, gm_user_id=GM, ruleset_id="pistol", config=CONFIG)
    mid = m.id
    post(deps, mid)
    uc.join(deps, mid, ANN, "Ann")
    uc.join(deps, mid, BOB, "Bob")
    uc.set_character(deps, mid, ANN, "p1", CHARACTERS[0])
    uc.set_character(deps, mid, BOB, "p2", CHARACTERS[1])
    clock.advance(7)
    uc.start(deps, mid, GM)
    post(deps, mid)
    play(deps, mid, PISTOL, posting(deps), finish=finish)
    loaded = deps.repo.load(mid)
    return build_dossier(
        loaded.match, deps.repo.history(mid), list(loaded.orders.values()), generated_at=clock()
    )


def pistol_locked_match() -> Dossier:
    """``pistol_match`` played the bot's way of locking (``tests.fairness.posting``): each
    lock a group message whose date fixes the beacon round, each reveal carrying the next
    commitment."""
    from tests.fairness.posting import dossier_of, started

    deps, clock, bot, mid = started("pistol", CONFIG, CHARACTERS)
    play(deps, mid, PISTOL, bot.do)
    clock.advance(30)
    return dossier_of(deps, mid)


def field_changes(d: Dossier) -> list[tuple[str, Dossier]]:
    """Every field of ``d`` changed in turn, as ``tests/fairness/test_every_field.py`` changes
    them (the fields that bind nothing too: both verifiers must then agree it still holds)."""
    from tests.fairness.test_every_field import _cases, _set

    out = []
    for _, path, new in _cases(d):
        bad = copy.deepcopy(d)
        _set(bad, path, new)
        out.append((f"field {'/'.join(map(str, path))} = {new!r}", bad))
    return out


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
    """``sekundant verify``'s verdict: True when the dossier verifies; not a dossier at all
    (its ``format`` changed) does not."""
    try:
        return not check(dossier).findings
    except (Rejection, NotADossierError):
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


def _others_tampered(name: str, d: Dossier) -> list[tuple[str, Dossier]]:
    """A plans or dragons match with an order dropped, a default order changed, a win
    claimed, a die turned over."""
    out = []
    played = [k for k, t in enumerate(d["turns"]) if len(t["orders"]) > 1]
    if played:
        bad = copy.deepcopy(d)
        bad["turns"][played[0]]["orders"].pop()
        out.append((f"{name}: an order dropped", bad))
    bad = copy.deepcopy(d)
    bad["match"]["phase"] = "finished"
    bad["match"]["outcome"] = {"status": "win", "winners": ["p1"], "reason": "claimed"}
    bad.pop("current", None)
    out.append((f"{name}: a win claimed", bad))
    defaults = [o for t in d["turns"] for o in t["orders"] if o["default"]]
    if defaults:
        bad = copy.deepcopy(d)
        order = next(o for t in bad["turns"] for o in t["orders"] if o["default"])["order"]
        if "action" in order:  # plans: another action than the configured default's
            order["action"] = "strong" if order["action"] != "strong" else "precise"
        else:  # dragons: another Speed change
            order["n"] += 1
        out.append((f"{name}: a default order changed", bad))
    rolls = [(k, e) for k, t in enumerate(d["turns"]) for e in t["events"] if e["kind"] == "roll"]
    if rolls:
        bad = copy.deepcopy(d)
        k, event = rolls[-1]
        copy_event = next(e for e in bad["turns"][k]["events"] if e == event)
        copy_event["faces"] = [event["sides"] + 1 - f for f in event["faces"]]
        if copy_event["faces"] != event["faces"]:
            out.append((f"{name}: a die turned over", bad))
    return out


@functools.cache
def all_cases() -> list[tuple[str, str, bool]]:
    """(name, dossier as JSON text, Python's verdict) for every case (built once a process)."""
    base = pistol_match()
    cases: list[tuple[str, Dossier]] = [("pistol match", base)]
    cases.append(("pistol match, running", pistol_match(finish=False)))
    locked = pistol_locked_match()
    cases.append(("pistol match locked by messages", locked))
    cases += field_changes(locked)
    others = honest()
    cases += others
    for name, d in others:  # the other rulesets: who acted and the outcome are checked too
        if not name.startswith("pistol"):
            cases += _others_tampered(name, d)
    for name, change in tamperings():
        bad = copy.deepcopy(base)
        change(bad)
        cases.append((f"tampered: {name}", bad))
    return [(name, json.dumps(d, ensure_ascii=False), python_verdict(d)) for name, d in cases]

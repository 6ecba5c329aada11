"""Default and random plans of the ``plans`` ruleset (random plans: the simulator's hot path)."""

from __future__ import annotations

from math import floor
from typing import TYPE_CHECKING

from engine.rulesets.plans.config import ACTIONS, GROUPS
from engine.rulesets.plans.orders import Plan
from engine.rulesets.plans.tables import SHEET_INFOS, info_of, menu_of

if TYPE_CHECKING:
    import random

    from engine.rulesets.plans.state import PlansState

_GUESS_GROUPS: tuple[str | None, ...] = (*GROUPS, None)  # None: not guessed
_GUESS_ACTIONS: tuple[str | None, ...] = (*ACTIONS, None)
_new = tuple.__new__  # Plan(...) minus the named tuple's Python-level __new__


def default_order(state: PlansState, pid: str) -> Plan:
    """DEFAULT (config ``default_plan``): first group with reserve, best skill, defensive,
    soak with the largest reserve left, no guesses, restore by the C17 fallback."""
    cfg = state.config.default_plan
    me = state.fighters[state.seat(pid)]
    res = me.reserves
    if cfg.group == "first_with_reserve":
        g = next((k for k in range(3) if res[k] > 0), 0)
    else:
        g = max(range(3), key=lambda k: res[k])
    skill = max(me.sheet.skills, key=lambda s: s.level)  # first on ties
    soak = None
    if cfg.soak == "largest_reserve":
        after = [r - (1 if k == g and r > 0 else 0) for k, r in enumerate(res)]
        best = max(range(3), key=lambda k: after[k])
        soak = GROUPS[best] if after[best] > 0 else None
    return Plan(GROUPS[g], skill.id, cfg.action, soak=soak, auto=True)


def random_order(state: PlansState, pid: str, rng: random.Random) -> Plan:
    """A legal plan drawn near-uniformly: each part uniform over its legal choices (a
    second skill half of the time when one is possible; guesses may be left out).

    Hot path of the simulator: the legal choices come from menus precomputed per sheet
    and reserves (:mod:`.tables`); the draws are made in a fixed order (determinism)."""
    r = rng.random
    # Named tuples read by unpacking: a field by name is a generic attribute lookup.
    _, (a, b), _, _, _ = state
    if a[0] == pid:  # Fighter.pid
        _, _, _, sheet, reserves, _, _ = a
        their_sheet = b[3]  # Fighter.sheet
    else:
        _, _, _, sheet, reserves, _, _ = b
        their_sheet = a[3]
    info = SHEET_INFOS.get(id(sheet))  # info_of(), minus a call on the hot path
    if info is None or info.sheet is not sheet:
        info = info_of(sheet)
    their = SHEET_INFOS.get(id(their_sheet))
    if their is None or their.sheet is not their_sheet:
        their = info_of(their_sheet)
    menu = info.menus.get(reserves) or menu_of(info, reserves)
    # floor(x * n) is int(x * n) for x >= 0 (the same index), without int's slow type call.
    g = floor(r() * 3)
    k = floor(r() * info.n_skills)
    second_skill = second_group = None
    s_used = -1
    if r() < 0.5:
        options = menu.seconds[g][k]
        if options:
            second_skill, second_group, s_used = options[floor(r() * len(options))]
    restores = menu.restores[g + 1 if reserves[g] > 0 else 0][s_used + 1]
    guesses = their.guesses
    guess_skill = guesses[floor(r() * their.n_guesses)]
    guess_group = _GUESS_GROUPS[floor(r() * 4)]
    guess_action = _GUESS_ACTIONS[floor(r() * 6)]
    soaks = menu.soaks
    return _new(
        Plan,
        (
            GROUPS[g],
            info.skill_ids[k],
            ACTIONS[floor(r() * 5)],
            second_skill,
            second_group,
            soaks[floor(r() * menu.n_soaks)],
            restores[floor(r() * len(restores))],
            guess_group,
            guess_skill,
            guess_action,
            "",
            True,
        ),
    )

"""Exact chances of a ``dragons`` attack for the order page (D17-D24, docs/rules/dragons.md):
the attack's trait roll against its TN (``engine.savage.exact_trait_odds``) and the damage
(every die acing, +1d6 on a raise, decision 26) against the target's Toughness (decision 27).

The position is the attacker's after the chosen movement and the target's where it is now
(``attack_check``, as the chat builder reads it: the target's own move is secret). Gang-up
(decision 23) depends on where everyone ends the turn and is left out. Pure, exact fractions:
the chance that a sum of acing dice reaches ``k`` needs only the values below ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from engine.rulesets.dragons.geometry import attack_check
from engine.rulesets.dragons.state import DragonsState
from engine.savage import (
    RAISE_STEP,
    UNSKILLED,
    UNSKILLED_PENALTY,
    exact_trait_odds,
    multi_action_penalty,
    wound_penalty,
)


@cache
def _acing_pmf(sides: int, top: int) -> tuple[Fraction, ...]:
    """``P(X = v)`` for ``v = 0..top`` of one acing die (a maximum face rolls again)."""
    out = [Fraction(0)] * (top + 1)
    for v in range(1, top + 1):
        j, r = divmod(v, sides)
        if r != 0:
            out[v] = Fraction(1, sides) ** (j + 1)
    return tuple(out)


def p_sum_at_least(dice: tuple[int, ...], flat: int, k: int) -> Fraction:
    """Exact ``P(flat + sum of acing dice >= k)``."""
    need = k - flat
    if need <= len(dice):  # every die shows at least 1
        return Fraction(1)
    top = need - 1  # P(sum <= top), then its complement
    dist = [Fraction(0)] * (top + 1)
    dist[0] = Fraction(1)
    for sides in dice:
        pmf = _acing_pmf(sides, top)
        new = [Fraction(0)] * (top + 1)
        for total, p in enumerate(dist):
            if p:
                for v in range(1, top - total + 1):
                    if pmf[v]:
                        new[total + v] += p * pmf[v]
        dist = new
    return 1 - sum(dist, Fraction(0))


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """One attack's geometry and, when possible, its exact chances: ``hit`` (the roll
    succeeds), ``raise_`` (with a raise), ``shaken`` (the damage at least Shakes: reaches
    the effective Toughness), ``wound`` (at least one Wound)."""

    possible: bool
    reason: str | None
    range: int
    band: str | None
    tn: int
    modifier: int
    hit: Fraction = Fraction(0)
    raise_: Fraction = Fraction(0)
    shaken: Fraction = Fraction(0)
    wound: Fraction = Fraction(0)


def attack_odds(
    state: DragonsState,
    pid: str,
    weapon: str,
    target: str,
    move: tuple[str, int] = ("level", 0),
    actions: int = 1,
) -> AttackOdds:
    """The attack of ``pid`` with ``weapon`` on ``target`` after ``move``, as one of
    ``actions`` actions (D3's multi-action penalty), its chances exact."""
    cfg = state.config
    check = attack_check(state, pid, weapon, target, move)
    me = state.dragon(pid)
    stats = state.stats[pid]
    w = stats.weapon(weapon)
    if not check.possible or w is None:
        return AttackOdds(False, check.reason, check.range, check.band, check.tn, 0)
    die = stats.fighting if w.melee else stats.shooting
    modifier = (
        wound_penalty(me.wounds, cfg.wound_penalty_cap)
        + multi_action_penalty(actions, cfg.multi_action_penalty)
        + (0 if w.melee else check.penalty)
    )
    if die is None:
        die, modifier = UNSKILLED, modifier + UNSKILLED_PENALTY
    modifier += die.bonus
    hit, raised, _ = exact_trait_odds(
        die.sides, modifier, wild_card=me.wild_card, tn=check.tn, wild_die=cfg.wild_die
    )
    victim = state.stats[target]
    toughness = victim.toughness - min(max(w.ap, 0), victim.armor)
    dice, flat = w.damage.dice, w.damage.flat
    if w.damage.strength:
        dice, flat = (stats.strength.sides, *dice), flat + stats.strength.bonus
    shaken_by = state.dragon(target).shaken  # Shaken on Shaken is a Wound (decision 10)
    plain_hit = hit - raised

    def reach(k: int) -> Fraction:
        return plain_hit * p_sum_at_least(dice, flat, k) + raised * p_sum_at_least(
            (*dice, 6), flat, k
        )

    shaken = reach(toughness)
    wound = shaken if shaken_by else reach(toughness + RAISE_STEP)
    return AttackOdds(
        True, None, check.range, check.band, check.tn, modifier, hit, raised, shaken, wound
    )

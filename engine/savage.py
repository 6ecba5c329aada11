"""Savage Worlds core mechanics, pure and reusable (spec: ``docs/rules/savage-worlds.md``).

Everything here rolls through a :class:`~engine.dice.TurnLog`, so every face (aces included)
is recorded. Rolls are returned as data (dice, labelled modifiers, TN, result) so the edge can
render them in a play-by-post reveal. Decision numbers ("decision 18") refer to section 15 of
the spec; the edition switch is section 1.2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import itemgetter
from typing import Any, Literal, NamedTuple

from engine.dice import TurnLog
from engine.errors import Rejection

Edition = Literal["SWADE", "SWD2011", "SWD2015"]
EDITIONS: tuple[Edition, ...] = ("SWADE", "SWD2011", "SWD2015")
TRAIT_SIDES = (4, 6, 8, 10, 12)
STANDARD_TN = 4
RAISE_STEP = 4


# --------------------------------------------------------------------------- editions (1.2)


@dataclass(frozen=True, slots=True)
class EditionRules:
    """The details that differ between editions (section 1.2, decision 1)."""

    shaken_success_acts: bool  # SWADE / SWD2015: a Spirit success lets the character act
    benny_damage_reroll: bool  # SWADE only
    critfail_reroll: bool  # decision 17: SWADE never, SWD allowed
    action_cap: int | None  # SWADE 3; SWD no fixed cap (the dragon rules cap at 3 anyway)
    extreme_range: bool  # SWADE has the Extreme band (-8, up to 4x Long)
    full_soak_clears_shaken: bool  # SWADE: a full Soak also removes an earlier Shaken


_EDITION_RULES: dict[str, EditionRules] = {
    "SWADE": EditionRules(True, True, False, 3, True, True),
    "SWD2011": EditionRules(False, False, True, None, False, False),
    "SWD2015": EditionRules(True, False, True, None, False, False),
}


def edition_rules(edition: Edition) -> EditionRules:
    """The rule details of ``edition``."""
    return _EDITION_RULES[edition]


# --------------------------------------------------------------------------- dice notation

_DIE_RE = re.compile(r"^d(4|6|8|10|12)([+-]\d{1,2})?$")
_DAMAGE_TERM_RE = re.compile(r"^(\d{0,2})d(4|6|8|10|12)$")


@dataclass(frozen=True, slots=True)
class Die:
    """A trait die: ``sides`` in 4..12 and a flat bonus (``d12+2``; 2.1)."""

    sides: int
    bonus: int = 0

    def __str__(self) -> str:
        return f"d{self.sides}{self.bonus:+d}" if self.bonus else f"d{self.sides}"


def parse_die(text: str, *, field: str = "die") -> Die:
    """Parse ``d4``..``d12`` with an optional ``+N``/``-N``; raises ``Rejection("bad_die")``."""
    m = _DIE_RE.match(text.strip().lower())
    if m is None:
        raise Rejection("bad_die", field=field, value=text, expected="d4, d6, d8, d10, d12 (+N)")
    return Die(int(m.group(1)), int(m.group(2) or 0))


@dataclass(frozen=True, slots=True)
class DamageSpec:
    """Damage dice: fixed dice (``2d6+1``) or ``str+d8`` (Strength die + weapon dice, 6.4)."""

    dice: tuple[int, ...]
    flat: int = 0
    strength: bool = False

    def __str__(self) -> str:
        parts = ["str"] if self.strength else []
        counts: dict[int, int] = {}
        for s in self.dice:
            counts[s] = counts.get(s, 0) + 1
        parts += [f"{n}d{s}" if n > 1 else f"d{s}" for s, n in counts.items()]
        text = "+".join(parts)
        return f"{text}{self.flat:+d}" if self.flat else text


def parse_damage(text: str, *, field: str = "damage") -> DamageSpec:
    """Parse ``2d6``, ``3d6+1``, ``str+d8``, ``str``; raises ``Rejection("bad_damage")``."""
    raw = text.strip().lower().replace(" ", "")
    bad = Rejection("bad_damage", field=field, value=text, expected="e.g. 2d6, 3d6+1, str+d8")
    dice: list[int] = []
    flat = 0
    strength = False
    for term in re.split(r"(?=[+-])", raw):
        if not term:
            continue
        negative = term.startswith("-")
        body = term.lstrip("+-")
        m = _DAMAGE_TERM_RE.match(body)
        if body == "str" and not negative and not strength:
            strength = True
        elif m is not None and not negative:
            dice += [int(m.group(2))] * int(m.group(1) or 1)
        elif body.isdigit() and len(body) <= 2:
            flat += -int(body) if negative else int(body)
        else:
            raise bad
    if not (dice or strength) or len(dice) > 10:
        raise bad
    return DamageSpec(tuple(dice), flat, strength)


# --------------------------------------------------------------------------- trait rolls (2)

Modifier = tuple[str, int]


class TraitRoll(NamedTuple):
    """One trait roll as data: faces of the trait die and the Wild Die, modifiers, result.

    Immutable. A named tuple rather than a frozen dataclass (like :class:`~engine.events.Event`):
    the simulator makes millions and construction is several times faster."""

    trait: str
    die: Die
    unskilled: bool
    trait_faces: tuple[int, ...]
    wild_faces: tuple[int, ...]  # empty for an Extra
    modifiers: tuple[Modifier, ...]
    tn: int
    kept: int
    total: int
    crit: bool
    confirm: int | None = None  # an Extra's crit confirmation d6 (decision 16)

    @property
    def success(self) -> bool:
        return not self.crit and self.total >= self.tn

    @property
    def raises(self) -> int:
        """Raises of a success (decision 34: only counted when the roll succeeds)."""
        return (self.total - self.tn) // RAISE_STEP if self.success else 0

    @property
    def result(self) -> str:
        if self.crit:
            return "crit_fail"
        if not self.success:
            return "fail"
        return "raise" if self.raises else "success"

    def to_data(self) -> dict[str, Any]:
        """JSON-ready details for an event (D36: dice, aces, Wild Die, modifiers, result)."""
        trait, die, unskilled, trait_faces, wild_faces, mods, tn, kept, total, crit, confirm = self
        # success / raises / result as in the properties, computed once (hot path).
        raises = (total - tn) // RAISE_STEP if not crit and total >= tn else 0
        if crit:
            result = "crit_fail"
        elif total < tn:
            result = "fail"
        else:
            result = "raise" if raises else "success"
        return {
            "trait": trait,
            "die": _DIE_TEXT[die.sides] if not die.bonus else str(die),
            "unskilled": unskilled,
            "trait_faces": list(trait_faces),
            "wild_faces": list(wild_faces),
            "modifiers": list(map(list, mods)),
            "tn": tn,
            "kept": kept,
            "total": total,
            "result": result,
            "raises": raises,
            "confirm": confirm,
        }


_DIE_TEXT = {sides: f"d{sides}" for sides in TRAIT_SIDES}
_new_tuple = tuple.__new__


UNSKILLED = Die(4)
UNSKILLED_PENALTY = -2


def trait_roll(
    log: TurnLog,
    actor: str | None,
    trait: str,
    die: Die | None,
    *,
    wild_card: bool,
    modifiers: Sequence[Modifier] = (),
    tn: int = STANDARD_TN,
    wild_die: int = 6,
    crit_matters: bool = False,
    confirm_extra_crit: bool = True,
) -> TraitRoll:
    """Roll a trait (2.7): the trait die with aces, a Wild Die for a Wild Card, keep the higher,
    add the modifiers once. ``die=None`` is unskilled: d4 at -2 (the Wild Die still rolls).

    Critical failure: a Wild Card's trait die and Wild Die both show a natural 1 (2.5). An
    Extra critically fails only when ``crit_matters`` and (decision 16) a confirmation d6 also
    shows 1; with ``confirm_extra_crit`` off, any 1 on a roll where it matters is a crit.
    """
    return roll_trait_data(
        log, actor, trait, die, wild_card, modifiers, tn, wild_die, crit_matters,
        confirm_extra_crit,
    )[0]  # fmt: skip


def roll_trait_data(
    log: TurnLog,
    actor: str | None,
    trait: str,
    die: Die | None,
    wild_card: bool,
    modifiers: Sequence[Modifier],
    tn: int,
    wild_die: int,
    crit_matters: bool,
    confirm_extra_crit: bool,
) -> tuple[TraitRoll, dict[str, Any]]:
    """:func:`trait_roll` with every argument positional (the hot path of rulesets: a call
    with keywords costs more), and the roll's :meth:`TraitRoll.to_data`, built together (a
    ruleset records nearly every roll in an event)."""
    if die is None:
        used = UNSKILLED
        mods = (("unskilled", UNSKILLED_PENALTY), *filter(_value, modifiers))
    elif die.bonus:
        used = die
        mods = (("die_bonus", die.bonus), *filter(_value, modifiers))
    else:
        used = die
        mods = tuple(filter(_value, modifiers))  # modifiers of 0 are not shown
    trait_faces = log.ace_faces(used.sides, trait, actor)
    kept = sum(trait_faces)
    crit = False
    confirm: int | None = None
    if wild_card:
        try:
            wild_purpose = _WILD_PURPOSE[trait]
        except KeyError:
            wild_purpose = f"{trait}:wild"
        wild_faces = log.ace_faces(wild_die, wild_purpose, actor)
        wild_kept = sum(wild_faces)
        kept = wild_kept if wild_kept > kept else kept  # the higher (no max call: hot path)
        crit = trait_faces[0] == 1 and wild_faces[0] == 1
        wild_tuple = tuple(wild_faces)
    else:
        wild_faces = []
        wild_tuple = ()
        if crit_matters and trait_faces[0] == 1:
            if confirm_extra_crit:
                confirm = log.die(6, f"{trait}:confirm", actor)
                crit = confirm == 1
            else:
                crit = True
    total = kept
    for _, v in mods:
        total += v
    # TraitRoll(...) minus the named tuple's Python-level __new__ (same value; hot path).
    fields = (trait, used, die is None, tuple(trait_faces), wild_tuple, mods, tn, kept,
              total, crit, confirm)  # fmt: skip
    # to_data(), from the values at hand.
    if crit:
        raises, result = 0, "crit_fail"
    elif total < tn:
        raises, result = 0, "fail"
    else:
        raises = (total - tn) // RAISE_STEP
        result = "raise" if raises else "success"
    data = {
        "trait": trait,
        "die": _DIE_TEXT[used.sides] if not used.bonus else str(used),
        "unskilled": die is None,
        # The faces' lists as ace_faces returned them (the roll events' own: event data is
        # immutable, so events may share them; no copy per roll).
        "trait_faces": trait_faces,
        "wild_faces": wild_faces,
        "modifiers": list(map(list, mods)),
        "tn": tn,
        "kept": kept,
        "total": total,
        "result": result,
        "raises": raises,
        "confirm": confirm,
    }
    return _new_tuple(TraitRoll, fields), data


_value = itemgetter(1)  # a modifier's value: modifiers of 0 are dropped


# The Wild Die's purpose for the usual traits, built once (hot path).
_WILD_PURPOSE = {t: f"{t}:wild" for t in ("piloting", "fighting", "shooting", "spirit", "arcane")}


# --------------------------------------------------------------------------- exact odds (2.6)


def p_ace_at_least(sides: int, k: int) -> Fraction:
    """Exact P(total of one acing d``sides`` >= k)."""
    prob = Fraction(1)
    while k > sides:
        # Only a maximum face keeps going; its chance multiplies in.
        prob /= sides
        k -= sides
    if k <= 1:
        return prob
    return prob * Fraction(sides - k + 1, sides)


def exact_trait_odds(
    sides: int, modifier: int, *, wild_card: bool, tn: int = STANDARD_TN, wild_die: int = 6
) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P(success), P(at least one raise), P(Wild Card crit fail)) of a trait roll."""

    def p_kept_at_least(k: int) -> Fraction:
        miss = 1 - p_ace_at_least(sides, k)
        if wild_card:
            miss *= 1 - p_ace_at_least(wild_die, k)
        return 1 - miss

    crit = Fraction(1, sides * wild_die) if wild_card else Fraction(0)

    def p_total_at_least(target: int) -> Fraction:
        k = target - modifier
        p = p_kept_at_least(k)
        # A crit fail (both dice 1, kept 1) is a failure even when 1 + modifier would pass.
        return p - crit if k <= 1 else p

    return p_total_at_least(tn), p_total_at_least(tn + RAISE_STEP), crit


# --------------------------------------------------------------------------- opposed rolls (3)


@dataclass(frozen=True, slots=True)
class Opposed:
    """An opposed roll (section 3, decision 18)."""

    initiator: TraitRoll
    defender: TraitRoll
    initiator_wins: bool
    defender_wins: bool  # strictly: total >= 4 and above the initiator's (symmetric contests)
    raises: int  # the winner's raises over the loser's total

    def to_data(self) -> dict[str, Any]:
        winner = "initiator" if self.initiator_wins else "defender" if self.defender_wins else None
        return {
            "initiator": self.initiator.to_data(),
            "defender": self.defender.to_data(),
            "winner": winner,
            "raises": self.raises,
        }


def opposed(initiator: TraitRoll, defender: TraitRoll, *, minimum: int = STANDARD_TN) -> Opposed:
    """Decision 18: the initiator wins iff its total is >= 4 and strictly above the defender's;
    ties go to the defender. A crit fail counts as total 0 (and the crit-failing initiator
    loses). The defender "wins" outright (for symmetric contests such as tailing) only with
    >= 4 and strictly more."""
    a = 0 if initiator.crit else initiator.total
    d = 0 if defender.crit else defender.total
    a_wins = not initiator.crit and a >= minimum and a > d
    d_wins = not defender.crit and d >= minimum and d > a
    raises = (a - d) // RAISE_STEP if a_wins else (d - a) // RAISE_STEP if d_wins else 0
    return Opposed(initiator, defender, a_wins, d_wins, raises)


# --------------------------------------------------------------------------- penalties (4, 7.3)


def multi_action_penalty(actions: int, per_action: int = 2) -> int:
    """Decision 4: -2 for every declared action beyond the first, applied to all of them."""
    return -per_action * max(0, actions - 1)


def wound_penalty(wounds: int, cap: int = 3) -> int:
    """7.3 / decision 11: -1 per Wound, at most -3."""
    return -min(max(wounds, 0), cap)


def parry(fighting: Die | None, base: int = 2) -> int:
    """Decision 25: 2 + half the Fighting die + floor(half its bonus); 2 without Fighting."""
    if fighting is None:
        return base
    return base + fighting.sides // 2 + fighting.bonus // 2


def gang_up(extra_attackers: int, defender_allies: int, cap: int = 4) -> int:
    """6.2 / decision 23: +1 per other adjacent foe of the defender, minus its adjacent
    allies, between 0 and ``cap``."""
    bonus = extra_attackers - defender_allies
    bonus = cap if bonus > cap else bonus  # comparisons, not min/max calls: per melee attack
    return bonus if bonus > 0 else 0


RangeBand = tuple[str, int]


def range_band(
    distance: int,
    bands: Sequence[int],
    *,
    penalties: Sequence[int] = (0, -2, -4),
    extreme: bool = False,
    extreme_penalty: int = -8,
    extreme_factor: int = 4,
) -> RangeBand | None:
    """6.3 / decision 21: the band of ``distance`` for weapon bands (short, medium, long) and
    its penalty; a distance exactly at a band limit is in the nearer band. Beyond Long: None,
    unless the Extreme band (SWADE, up to 4x Long) is enabled."""
    short, medium, long_ = bands
    if distance <= short:
        return ("short", penalties[0])
    if distance <= medium:
        return ("medium", penalties[1])
    if distance <= long_:
        return ("long", penalties[2])
    if extreme and distance <= long_ * extreme_factor:
        return ("extreme", extreme_penalty)
    return None


# --------------------------------------------------------------------------- damage (6.4, 7)


class DamageRoll(NamedTuple):
    """A damage roll: every die with its faces (all ace), flat bonus, total. No Wild Die.
    A named tuple (immutable, cheap to build: the simulator makes many)."""

    dice: tuple[tuple[int, tuple[int, ...]], ...]  # (sides, faces)
    raise_die: tuple[int, ...]  # faces of the +1d6 raise bonus, empty without a raise
    flat: int
    total: int

    def to_data(self) -> dict[str, Any]:
        return {
            "dice": [{"sides": s, "faces": [*f]} for s, f in self.dice],
            "raise_die": [*self.raise_die],
            "flat": self.flat,
            "total": self.total,
        }


def damage_roll(
    log: TurnLog,
    actor: str | None,
    dice: Sequence[int],
    *,
    flat: int = 0,
    raise_bonus: bool = False,
    bonus_sides: int = 6,
) -> DamageRoll:
    """Decision 26: roll every damage die with aces, +1d6 (acing) for a raise on the attack."""
    ace = log.ace_faces
    rolled = []
    total = flat
    for s in dice:
        faces = ace(s, "damage", actor)
        total += sum(faces)
        rolled.append((s, tuple(faces)))
    bonus: tuple[int, ...] = ()
    if raise_bonus:
        bonus = tuple(ace(bonus_sides, "damage:raise", actor))
        total += sum(bonus)
    return _new_tuple(DamageRoll, (tuple(rolled), bonus, flat, total))


class DamageEffect(NamedTuple):
    """What a damage total does to a target (7.1). A named tuple (immutable, cheap)."""

    excess: int  # damage minus effective Toughness
    wounds: int
    shaken: bool  # the target is Shaken after the hit

    @property
    def hit(self) -> bool:
        return self.excess >= 0


def damage_effect(
    damage: int,
    toughness: int,
    *,
    armor: int = 0,
    ap: int = 0,
    already_shaken: bool = False,
    wound_cap: int | None = None,
) -> DamageEffect:
    """7.5 steps 2-4 / decision 27: AP lowers only the armour part of Toughness. Success =
    Shaken; each raise a Wound (and Shaken); Shaken on Shaken = 1 Wound (decision 10)."""
    effective = toughness - min(max(ap, 0), armor)
    excess = damage - effective
    if excess < 0:
        return _new_tuple(DamageEffect, (excess, 0, already_shaken))
    wounds = excess // RAISE_STEP
    if wounds == 0 and already_shaken:
        wounds = 1
    if wound_cap is not None:
        wounds = min(wounds, wound_cap)
    return _new_tuple(DamageEffect, (excess, wounds, True))


def soaked_wounds(roll: TraitRoll) -> int:
    """Section 9: Wounds a Soak roll cancels (success + raises), never negative (a crit fail
    must not add a Wound)."""
    return 1 + roll.raises if roll.success else 0


# --------------------------------------------------------------------------- Shaken (8)


def shaken_recovery(roll: TraitRoll, edition: Edition) -> tuple[bool, bool]:
    """Decision 8: (Shaken removed, may act this turn) after the Spirit roll.

    SWADE and SWD2015: success removes Shaken and the character acts. SWD2011: success removes
    Shaken but only free actions are allowed this turn; a raise is needed to act.
    """
    if not roll.success:
        return False, False
    if edition_rules(edition).shaken_success_acts:
        return True, True
    return True, roll.raises > 0

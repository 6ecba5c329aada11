"""Lookups precomputed once per match for the hot path (resolution and random plans).

A config and the two sheets never change during a duel, so everything derived from them is
built once and memoised by object identity (the memo keeps the object alive, so its ``id`` is
not reused while cached; a hit is checked with ``is``). Hashing a config or a sheet by value
on every turn would cost more than the lookups save.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.rulesets.plans.config import ACTIONS, GROUP_INDEX, GROUPS, PlansConfig
from engine.rulesets.plans.sheet import Sheet

# One modifier step after the raw successes (C13): (step name, "add" | "mul", amount,
# whether the step records the guessing difference).
Op = tuple[str, str, int, bool]


@dataclass(frozen=True, slots=True)
class Rules:
    """The constants of a config, in the shapes the resolution uses. Slotted classes here
    (not named tuples): their attribute reads are specialised by the interpreter."""

    target: int
    sides: int
    hit: tuple[int, ...]  # hit[face] = 1 when the face succeeds (C3)
    pipes: dict[str, tuple[tuple[Op, ...], ...]]  # action -> [d if d > 0 else 0] -> steps
    empty_pool: int  # C8
    precise: int  # C11
    dice_mode: bool  # C14: lethality as dice (else flat)
    strong_rerolls: int
    first_failed: bool
    tie_actions: frozenset[str]  # C16
    tie_effects: bool
    soak_mode: int  # C15: 0 plan, 1 auto, 2 never
    temporary: bool  # C15 toughness pool
    restore_amount: int  # C17
    fallback: bool
    incapacitation: bool  # C6/C18: else first blood
    wound_limit: int
    turn_cap: int  # C21
    guess_named: bool  # C8 guess compares the named group
    guess_either: bool  # C12 skill guess matches the second skill too
    restore_key: tuple[int, bool]  # what of the config a C17 restore depends on
    # Filled by the resolution: C13 (action, d, raw) -> (steps, successes).
    steps: dict[tuple[Any, ...], tuple[list[dict[str, Any]], int]]


def _pipeline(cfg: PlansConfig, action: str, d: int) -> tuple[Op, ...]:
    """C12, C13: the steps for ``action`` with guessing difference ``d`` (0 when <= 0)."""
    ops: list[Op] = []
    for mod in cfg.modifier_order:
        if mod == "cunning":
            if action == "cunning" and cfg.cunning_auto_successes:
                ops.append(("cunning", "add", cfg.cunning_auto_successes, False))
        elif mod == "guess":
            if d == 1:
                ops.append(("guess", "add", cfg.guess_bonus_d1, True))
            elif d > 1:
                # DEFAULT: no stacking of the +1 at d = 2 or 3.
                if cfg.guess_bonuses_stack:
                    ops.append(("guess", "add", cfg.guess_bonus_d1, True))
                mul = cfg.guess_multiplier_d2 if d == 2 else cfg.guess_multiplier_d3
                ops.append(("guess", "mul", mul, True))
        elif action == "defensive":
            ops.append(("defensive", "mul", cfg.defensive_multiplier, False))
    return tuple(ops)


def _build_rules(cfg: PlansConfig) -> Rules:
    target, sides = cfg.success_target, cfg.dice_sides
    return Rules(
        target=target,
        sides=sides,
        hit=tuple(1 if f >= target else 0 for f in range(sides + 1)),
        pipes={a: tuple(_pipeline(cfg, a, d) for d in range(4)) for a in ACTIONS},
        empty_pool=cfg.empty_group_damage_pool,
        precise=cfg.precise_lethality_bonus,
        dice_mode=cfg.lethality_mode == "dice",
        strong_rerolls=cfg.strong_rerolls,
        first_failed=cfg.strong_reroll_target == "first_failed",
        tie_actions=frozenset(cfg.tie_damage_actions),
        tie_effects=cfg.tie_action_effects,
        soak_mode={"plan": 0, "auto": 1, "never": 2}[cfg.soak_choice],
        temporary=cfg.toughness_pool == "temporary",
        restore_amount=cfg.restore_amount,
        fallback=cfg.restore_fallback == "largest_missing",
        incapacitation=cfg.end_condition == "incapacitation",
        wound_limit=cfg.wound_limit,
        turn_cap=cfg.turn_cap,
        guess_named=cfg.guess_group_compares == "named",
        guess_either=cfg.skill_guess_matches == "either",
        restore_key=(cfg.restore_amount, cfg.restore_fallback == "largest_missing"),
        steps={},
    )


_RULES: dict[int, tuple[PlansConfig, Rules]] = {}


def rules_of(cfg: PlansConfig) -> Rules:
    """The memoised :class:`Rules` of ``cfg``."""
    hit = _RULES.get(id(cfg))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    if len(_RULES) > 256:
        _RULES.clear()
    rules = _build_rules(cfg)
    _RULES[id(cfg)] = (cfg, rules)
    return rules


@dataclass(frozen=True, slots=True)
class Menu:
    """The legal choices of a sheet with given reserves, for random plans."""

    seconds: tuple[tuple[tuple[tuple[str, str, int], ...], ...], ...]  # [group][skill] -> options
    soaks: tuple[str | None, ...]
    n_soaks: int
    # [paid group + 1][second group + 1] -> groups that may be restored (-1: none used)
    restores: tuple[tuple[tuple[str | None, ...], ...], ...]


@dataclass(frozen=True, slots=True)
class SheetInfo:
    """A sheet's lookups: skill levels by id, skill ids in sheet order (and as guesses: then
    None, "not guessed"), menus by reserves."""

    sheet: Sheet
    attrs: tuple[int, ...]
    levels: dict[str | None, int]
    skill_ids: tuple[str, ...]
    guesses: tuple[str | None, ...]
    n_skills: int
    n_guesses: int
    lethality: int
    menus: dict[tuple[int, ...], Menu]
    # C17 restores: (config's restore amount and fallback, reserves, used group, used second
    # group, chosen group) -> (reserves after, restored group or None, amount, fallback used)
    restores: dict[tuple[Any, ...], tuple[tuple[int, ...], str | None, int, bool]]
    # C17 + C19: (restore key..., pid, wounds, bled) -> (reserves after, the status event)
    statuses: dict[tuple[Any, ...], tuple[tuple[int, ...], Any]]


_SHEETS: dict[int, SheetInfo] = {}
SHEET_INFOS = _SHEETS  # read-only for callers: look up by id(sheet), check .sheet is sheet


def info_of(sheet: Sheet) -> SheetInfo:
    """The memoised :class:`SheetInfo` of ``sheet``."""
    info = _SHEETS.get(id(sheet))
    if info is not None and info.sheet is sheet:
        return info
    if len(_SHEETS) > 1024:
        _SHEETS.clear()
    levels: dict[str | None, int] = {}
    for s in sheet.skills:
        levels.setdefault(s.id, s.level)  # the first skill of an id, as Sheet.skill finds it
    ids = tuple(s.id for s in sheet.skills)
    info = SheetInfo(
        sheet,
        sheet.attrs,
        levels,
        ids,
        (*ids, None),
        len(ids),
        len(ids) + 1,
        sheet.lethality,
        {},
        {},
        {},
    )
    _SHEETS[id(sheet)] = info
    return info


def menu_of(info: SheetInfo, reserves: tuple[int, ...]) -> Menu:
    """The memoised legal choices of a sheet with ``reserves`` (a handful per duel)."""
    menu = info.menus.get(reserves)
    if menu is not None:
        return menu
    sheet = info.sheet
    seconds = tuple(
        tuple(
            tuple(
                (s.id, GROUPS[pg], pg)
                for pg in range(3)
                if pg != g and reserves[pg] > 0  # C10: another group, with reserve
                for s in sheet.skills
                if s.id != skill.id and pg in s.groups
            )
            for skill in sheet.skills
        )
        for g in range(3)
    )
    soaks = (None, *(GROUPS[k] for k in range(3) if reserves[k] > 0))
    restores = tuple(
        tuple((None, *(GROUPS[k] for k in range(3) if k not in (ug, us))) for us in (-1, 0, 1, 2))
        for ug in (-1, 0, 1, 2)
    )
    menu = Menu(seconds, soaks, len(soaks), restores)
    info.menus[reserves] = menu
    return menu


def restore_of(
    info: SheetInfo, key: tuple[Any, ...]
) -> tuple[tuple[int, ...], str | None, int, bool]:
    """C17 (capped by C5): restore one unused group's reserve; when the plan names none, or
    one that was used, DEFAULT the group with the largest missing reserve. ``key`` is
    ``(restore_key, r0, r1, r2, used group, used second group, chosen group name)``, -1 for
    an unused slot. Memoised per sheet (a duel meets the same few cases again and again)."""
    hit = info.restores.get(key)
    if hit is not None:
        return hit
    (amount, fallback_on), r0, r1, r2, used_g, used_s, choice = key
    res = [r0, r1, r2]
    attrs = info.attrs
    g = -1
    fallback = False
    if choice is not None and GROUP_INDEX[choice] not in (used_g, used_s):
        g = GROUP_INDEX[choice]
    elif fallback_on:
        fallback = True
        best = 0
        for k in (0, 1, 2):
            missing = attrs[3 * k + 2] - res[k]
            if missing > best and k not in (used_g, used_s):
                g, best = k, missing
    if g < 0:
        out: tuple[tuple[int, ...], str | None, int, bool] = ((r0, r1, r2), None, 0, fallback)
    else:
        before = res[g]
        res[g] = min(attrs[3 * g + 2], before + amount)  # C5 cap
        out = ((res[0], res[1], res[2]), GROUPS[g], res[g] - before, fallback)
    if len(info.restores) > 4096:
        info.restores.clear()
    info.restores[key] = out
    return out

"""The ``pistol`` state: the precomputed rules, the duelists, the outcome judged (P2, P16, P18)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from engine.ruleset import RUNNING, Outcome
from engine.rulesets.pistol.orders import PistolOrder

if TYPE_CHECKING:
    from engine.rulesets.pistol.config import PistolConfig
    from engine.rulesets.pistol.resolve import _Live
    from engine.rulesets.pistol.sheet import CharacterSpec


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Rules:
    """The config with lookups precomputed for resolution (built once per match)."""

    config: PistolConfig
    cells: Mapping[tuple[int, int], str]
    lethality: Mapping[str, str]
    initiative_die: int
    move_penalty: int
    tie_rerolls: int  # P14
    turn_limit: int
    # Every legal order, for a uniform ``random_order`` with one draw; shared between matches.
    legal: tuple[PistolOrder, ...] = field(compare=False, repr=False)
    legal_count: int = field(default=0, compare=False, repr=False)  # len(legal), no call

    @classmethod
    def build(cls, config: PistolConfig) -> Rules:
        legal = _legal_orders(config.move_max, config.aim_min, config.aim_max)
        return cls(
            config=config,
            cells={cell: part for part, cs in config.silhouette.items() for cell in cs},
            lethality={str(k): str(v) for k, v in config.lethality.items()},
            initiative_die=config.initiative_die,
            move_penalty=config.initiative_move_penalty,
            tie_rerolls=config.initiative_tie_rerolls,
            turn_limit=config.turn_limit,
            legal=legal,
            legal_count=len(legal),
        )


@lru_cache(maxsize=16)
def _legal_orders(move_max: int, aim_min: int, aim_max: int) -> tuple[PistolOrder, ...]:
    aims = range(aim_min, aim_max + 1)
    return tuple(
        PistolOrder(m, a, b) for m in range(-move_max, move_max + 1) for a in aims for b in aims
    )


@dataclass(frozen=True, slots=True)
class Duelist:
    """One duelist. ``zone``/``speed``/perk sets are derived from config + sheet at setup."""

    pid: str
    weapon: str
    perks: tuple[str, ...]
    zone: int
    speed: int
    player_rolls: bool
    shrug_parts: frozenset[str]
    never_lethal: frozenset[str]
    shrugs_left: int
    status: str = "standing"  # standing | wounded | dead
    part: str | None = None  # where the ending hit landed


class PistolState(NamedTuple):
    """``turn`` is the turn about to be played (1-based); a duel ends after a hit (P16) or
    when ``turn`` passes the limit (P2). Immutable (a named tuple: cheap to build each turn)."""

    rules: Rules
    duelists: tuple[Duelist, ...]
    turn: int
    # Derived (see ``_state``): kept so that ``outcome`` and ``acting`` are plain field reads.
    result: Outcome
    acting: frozenset[str]  # every duelist while the duel runs, nobody once it is over


_NOBODY: frozenset[str] = frozenset()
# Hot paths read PistolState fields by index: by name, a named tuple's field is a generic
# attribute lookup that Python 3.11 does not specialise, by index a plain subscript.
_RESULT: Final = 3
_DRAW = Outcome("draw", (), "turn_limit")  # P2
_MUTUAL = Outcome("mutual", (), "mutual_hit")  # P18


def _state(
    rules: Rules, duelists: tuple[Duelist, ...], turn: int, pids: frozenset[str] | None = None
) -> PistolState:
    """A state with its outcome judged: a hit ends the duel (P16), both hit is a mutual hit
    (P18), no hit after the last turn is a draw (P2)."""
    standing = tuple([d.pid for d in duelists if d.status == "standing"])
    if len(standing) == len(duelists):
        result = _DRAW if turn > rules.turn_limit else RUNNING
    elif not standing:
        result = _MUTUAL
    else:
        result = _win(standing)
    if result.status != "running":
        pids = _NOBODY
    elif not pids:
        pids = frozenset(d.pid for d in duelists)
    return _new(PistolState, (rules, duelists, turn, result, pids))


@lru_cache(maxsize=256)
def _win(winners: tuple[str, ...]) -> Outcome:
    """A win (P16), shared: an outcome is immutable and few duelists play many matches."""
    return Outcome("win", winners, "hit")


def _updated(duelists: tuple[Duelist, ...], changed: Mapping[str, _Live]) -> tuple[Duelist, ...]:
    """The duelists with the fields a turn changed."""
    out = []
    for d in duelists:
        live = changed.get(d.pid)
        if live is not None:  # positional: dataclasses.replace is slow on this path
            d = Duelist(  # noqa: PLW2901
                d.pid,
                d.weapon,
                d.perks,
                d.zone,
                d.speed,
                d.player_rolls,
                d.shrug_parts,
                d.never_lethal,
                live.shrugs_left,
                live.status,
                live.part,
            )
        out.append(d)
    return tuple(out)


# Builds a named tuple's value without its Python-level __new__ (hot path; same value).
_new = tuple.__new__


def _duelist(config: PistolConfig, pid: str, sheet: CharacterSpec, **live: Any) -> Duelist:
    weapon = config.weapons[sheet.weapon]
    perks = [config.perks[p] for p in sheet.perks]
    return Duelist(
        pid=pid,
        weapon=sheet.weapon,
        perks=sheet.perks,
        # P17 steady_hand: zone side reduced, minimum 1.
        zone=max(1, weapon.zone + sum(p.zone_delta for p in perks)),
        speed=weapon.speed + sum(p.speed_delta for p in perks),
        player_rolls=weapon.player_rolls and not config.bot_rolls_all,
        shrug_parts=frozenset(part for p in perks for part in p.shrug_parts),
        never_lethal=frozenset(part for p in perks for part in p.never_lethal_parts),
        shrugs_left=live.get("shrugs_left", sum(p.shrug_count for p in perks)),
        status=live.get("status", "standing"),
        part=live.get("part"),
    )

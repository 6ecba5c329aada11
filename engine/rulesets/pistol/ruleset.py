"""Ruleset ``pistol``: the silhouette duel ("battleship"), rules P1-P20 of
``docs/rules/pistol.md``.

Two duelists seal a move and an aim corner each turn; the bot rolls initiative (P14), then each
shot's two hit dice (P9), finds the landing cell on the target's silhouette (P5) and applies the
hit (P11, P16-P19). Every DEFAULT of the rules doc is a field of :class:`PistolConfig`.

Hot-path note: the simulator plays tens of thousands of matches a second through this module, so
configuration and characters are parsed (pydantic) once in :meth:`PistolRuleset.setup`; a turn
works on small slotted dataclasses and precomputed lookups in :class:`Rules`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field, replace
from functools import lru_cache
from math import floor
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.events import Event
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed

Part = Literal["head", "torso", "arm", "leg"]
Lethality = Literal["always", "roll", "never"]
PARTS: tuple[str, ...] = ("head", "torso", "arm", "leg")

# --------------------------------------------------------------------------- configuration


class WeaponSpec(BaseModel):
    """A weapon (P12): the aim zone side N (hit dice are dN) and the initiative modifier."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    zone: int = Field(ge=1, le=20)
    speed: int = Field(ge=-10, le=10)
    # P13: lets the shooter pick the cell inside the zone instead of rolling; only honoured
    # when the match config turns ``bot_rolls_all`` off.
    player_rolls: bool = False


class PerkSpec(BaseModel):
    """A perk as data (P17): which hits it shrugs off, which it keeps from being lethal, and how
    it changes the duelist's weapon."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    shrug_parts: tuple[Part, ...] = ()  # hits on these parts are shrugged off ...
    shrug_count: int = Field(default=0, ge=0)  # ... this many times per duel
    never_lethal_parts: tuple[Part, ...] = ()  # hits here wound but never kill
    zone_delta: int = 0  # added to the weapon's zone side (result at least 1)
    speed_delta: int = 0  # added to the weapon's speed


class OrderSpec(BaseModel):
    """An order as configuration data (the default order for a missing duelist)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    move: int
    aim: tuple[int, int]


class CharacterSpec(BaseModel):
    """A duelist's sheet: a weapon id and perk ids, checked against the config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weapon: str
    perks: tuple[str, ...] = ()


def _default_weapons() -> dict[str, WeaponSpec]:
    # P12 DEFAULT table.
    return {
        "derringer": WeaponSpec(name="derringer", zone=4, speed=2),
        "pistol": WeaponSpec(name="pistol", zone=3, speed=1),
        "revolver": WeaponSpec(name="revolver", zone=3, speed=1),
        "rifle": WeaponSpec(name="rifle", zone=3, speed=0),
        "dueling_pistol": WeaponSpec(name="dueling pistol (matched pair)", zone=2, speed=0),
    }


def _default_perks() -> dict[str, PerkSpec]:
    # P17 DEFAULT perks.
    return {
        "thick_skinned": PerkSpec(name="thick-skinned", shrug_parts=("arm", "leg"), shrug_count=1),
        "lucky": PerkSpec(name="lucky", never_lethal_parts=("torso",)),
        "steady_hand": PerkSpec(name="steady hand", zone_delta=-1),
    }


def _default_silhouette() -> dict[Part, tuple[tuple[int, int], ...]]:
    # P5: the cells of the silhouette, target-relative (P3, P4).
    return {
        "head": ((0, 1),),
        "torso": ((0, 0), (0, -1)),
        "arm": ((-1, 0), (1, 0)),
        "leg": ((-1, -2), (1, -2)),
    }


def _default_lethality() -> dict[Part, Lethality]:
    # P11: head always lethal, torso by a roll, arm and leg never.
    return {"head": "always", "torso": "roll", "arm": "never", "leg": "never"}


def _default_presets() -> dict[str, CharacterSpec]:
    return {
        "marksman": CharacterSpec(weapon="rifle", perks=("steady_hand",)),
        "gunslinger": CharacterSpec(weapon="revolver", perks=("lucky",)),
        "brawler": CharacterSpec(weapon="pistol", perks=("thick_skinned",)),
        "cardsharp": CharacterSpec(weapon="derringer", perks=("lucky",)),
        "gentleman": CharacterSpec(weapon="dueling_pistol", perks=()),
    }


class PistolConfig(BaseModel):
    """Match configuration; every default is a DEFAULT (or a rule) of the rules doc."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn_limit: int = Field(default=6, ge=1, le=100)  # P2
    move_max: int = Field(default=2, ge=0, le=10)  # P6: move in [-move_max, move_max]
    aim_min: int = Field(default=-5, ge=-50, le=50)  # P8 DEFAULT aim window (A and B)
    aim_max: int = Field(default=5, ge=-50, le=50)  # P8
    silhouette: dict[Part, tuple[tuple[int, int], ...]] = Field(
        default_factory=_default_silhouette
    )  # P5
    lethality: dict[Part, Lethality] = Field(default_factory=_default_lethality)  # P11
    lethal_roll_sides: int = Field(default=100, ge=2, le=1000)  # P11: torso roll dS ...
    lethal_roll_max: int = Field(default=50, ge=0, le=1000)  # ... lethal when <= this (50%)
    weapons: dict[str, WeaponSpec] = Field(default_factory=_default_weapons)  # P12
    bot_rolls_all: bool = True  # P13 DEFAULT: the bot rolls every die
    initiative_die: int = Field(default=6, ge=1, le=100)  # P14 DEFAULT d6 ...
    initiative_move_penalty: int = Field(default=1, ge=0, le=10)  # ... - |move| x this
    # P14 DEFAULT: equal totals shoot simultaneously (0); N: roll both again at most N times.
    initiative_tie_rerolls: int = Field(default=0, ge=0, le=20)
    perks: dict[str, PerkSpec] = Field(default_factory=_default_perks)  # P17
    max_perks: int | None = Field(default=None, ge=0)  # no limit in the source
    default_order: OrderSpec = OrderSpec(move=0, aim=(0, 0))  # stay, aim at the torso 0:0
    presets: dict[str, CharacterSpec] = Field(default_factory=_default_presets)

    @model_validator(mode="after")
    def _consistent(self) -> PistolConfig:
        if self.aim_min > self.aim_max:
            raise ValueError("aim_min must not be above aim_max")
        if not self.weapons:
            raise ValueError("weapons must not be empty")
        missing = [p for p in PARTS if p in self.silhouette and p not in self.lethality]
        if missing:
            raise ValueError(f"lethality missing for {', '.join(missing)}")
        seen: set[tuple[int, int]] = set()
        for cells in self.silhouette.values():
            for cell in cells:
                if cell in seen:
                    raise ValueError(f"silhouette cell {cell} belongs to two parts")
                seen.add(cell)
        d = self.default_order
        if abs(d.move) > self.move_max or not all(self.aim_min <= v <= self.aim_max for v in d.aim):
            raise ValueError("default_order is outside the move range or aim window")
        return self


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


class _Parsed:
    """A parsed config and, once a state used it, its :class:`Rules`."""

    __slots__ = ("config", "rules")

    def __init__(self, config: PistolConfig) -> None:
        self.config = config
        self.rules: Rules | None = None


# Recently parsed configs, newest first: (private copy of the raw config, parsed).
_PARSED: list[tuple[dict[str, Any], _Parsed]] = []
_PARSED_MAX = 16
# Recently loaded states, newest first: (private copy of the raw state, state).
_LOADED: list[tuple[Any, PistolState]] = []

_EDIT_STATUSES = ("standing", "wounded", "dead")
_EDIT_MAX_SHRUGS = 99  # an input sanity bound for GM rulings, not a rule


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

# Markers a CountingLog records instead of full events (kind, plus the count_detail field).
_MARK_INITIATIVE: Final = Event("initiative")
_MARK_MISS: Final = Event("miss")
_MARK_NO_SHOT: Final = Event("no_shot")
_MARK_DEATH: Final = Event("death")
_MARK_WOUND: Final = Event("wound")
_MARK_OUTCOME: Final = Event("outcome")


class _HitMarks(dict[str, Event]):
    """hit markers by part (a configured silhouette may name its own parts)."""

    def __missing__(self, part: str) -> Event:
        mark = self[part] = Event("hit", None, {"part": part})
        return mark


_MARK_HIT: Final = _HitMarks()


class _Live:
    """A duelist's changing fields while one turn resolves (mutable, local to resolve)."""

    __slots__ = ("part", "shrugs_left", "status")

    def __init__(self, shrugs_left: int, status: str, part: str | None) -> None:
        self.shrugs_left = shrugs_left
        self.status = status
        self.part = part


@dataclass(frozen=True, slots=True)
class PistolOrder:
    """P6: a move and the top-left aim corner (A, B); ``pick`` is the P13 extension."""

    move: int
    aim_x: int
    aim_y: int
    pick: tuple[int, int] | None = None
    # [A, B] as shot events record it, built once per order: events share it (read-only).
    aim: list[int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "aim", [self.aim_x, self.aim_y])


def _initiative(rules: Rules, log: TurnLog, pid: str, move: int, speed: int) -> int:
    """P14: roll one duelist's initiative again (a tie reroll) and record it; the total."""
    roll = log.die(rules.initiative_die, "initiative", pid)
    total = roll + speed - abs(move) * rules.move_penalty
    log.emit("initiative", pid, move=move, roll=roll, speed=speed, total=total)
    return total


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


# --------------------------------------------------------------------------- parsing helpers


def _int_field(raw: Mapping[str, Any], field: str, expected: str = "integer") -> int:
    if field not in raw:
        raise Rejection("invalid_field", what="order", field=field, expected="required")
    value = raw[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejection("invalid_field", what="order", field=field, expected=expected)
    return value


def _pair(raw: Mapping[str, Any], field: str) -> tuple[int, int]:
    value = raw[field]
    if isinstance(value, str) and ":" in value:  # "A:B", the way the rules write cells
        try:
            a, b = (int(v) for v in value.split(":"))
        except ValueError:
            pass
        else:
            return a, b
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return int(value[0]), int(value[1])
    raise Rejection(
        "invalid_field", what="order", field=field, expected="two integers [A, B] or 'A:B'"
    )


def _choices(keys: Iterable[str]) -> str:
    return ", ".join(sorted(keys))


# --------------------------------------------------------------------------- the ruleset


class PistolRuleset(Ruleset[PistolConfig, PistolState, PistolOrder]):
    """P1-P20."""

    id: ClassVar[str] = "pistol"
    version: ClassVar[str] = "1"
    config_model: ClassVar[type[BaseModel]] = PistolConfig
    character_model: ClassVar[type[BaseModel]] = CharacterSpec
    min_participants: ClassVar[int] = 2  # P1
    max_participants: ClassVar[int] = 2
    count_detail: ClassVar[Mapping[str, str]] = {"hit": "part"}  # hit:head, hit:torso… (P11)
    count_always: ClassVar[tuple[str, ...]] = (
        *(f"hit:{part}" for part in PARTS),
        *("hit", "miss", "death", "wound"),
    )

    # --- configuration ---

    def config(self, raw: Mapping[str, Any] | None = None) -> PistolConfig:
        """As :meth:`Ruleset.config`, remembered: the bot parses the same few configs (a match's
        options, the full config in its state) several times an update, ~0.1 ms each."""
        return self._parsed(raw or {}).config

    def _rules(self, raw: Mapping[str, Any]) -> Rules:
        entry = self._parsed(raw)
        if entry.rules is None:
            entry.rules = Rules.build(entry.config)
        return entry.rules

    def _parsed(self, raw: Mapping[str, Any]) -> _Parsed:
        """The parsed config of ``raw``. Looked up by equality (a few µs even for a
        full config, cheaper than hashing its JSON): equal raw values validate to the same config
        (pydantic's lax mode treats 1, 1.0 and True alike), and a config is frozen, so sharing
        one is safe. The key is a private copy: a caller may change its dict afterwards."""
        for key, parsed in _PARSED:
            if key == raw:
                return parsed
        config = parse_model(PistolConfig, dict(raw), what="config")
        assert isinstance(config, PistolConfig)
        parsed = _Parsed(config)
        _PARSED.insert(0, (deepcopy(dict(raw)), parsed))
        del _PARSED[_PARSED_MAX:]  # threads racing here at worst parse a config twice
        return parsed

    # --- characters ---

    def check_character(self, config: PistolConfig, raw: Mapping[str, Any]) -> CharacterSpec:
        """Parse a sheet and check its weapon and perks exist in this match's config."""
        sheet = parse_model(CharacterSpec, raw, what="character")
        if sheet.weapon not in config.weapons:
            raise Rejection("unknown_weapon", weapon=sheet.weapon, allowed=_choices(config.weapons))
        for perk in sheet.perks:
            if perk not in config.perks:
                raise Rejection("unknown_perk", perk=perk, allowed=_choices(config.perks))
        if len(set(sheet.perks)) != len(sheet.perks):
            raise Rejection("duplicate_perk", perks=", ".join(sheet.perks))
        if config.max_perks is not None and len(sheet.perks) > config.max_perks:
            raise Rejection("too_many_perks", max=config.max_perks, got=len(sheet.perks))
        return sheet

    def presets(self, config: PistolConfig) -> Mapping[str, Mapping[str, Any]]:
        """Config presets whose weapon and perks exist in this config."""
        out: dict[str, Mapping[str, Any]] = {}
        for name, sheet in config.presets.items():
            if sheet.weapon in config.weapons and all(p in config.perks for p in sheet.perks):
                out[name] = sheet.model_dump(mode="json")
        return out

    # --- the turn ---

    def setup(self, config: PistolConfig, entrants: Sequence[Entrant], log: TurnLog) -> PistolState:
        if len(entrants) != 2:
            raise Rejection("wrong_participant_count", need=2, have=len(entrants))
        duelists = tuple(
            _duelist(config, e.pid, self.check_character(config, e.character)) for e in entrants
        )
        return _state(Rules.build(config), duelists, 1)

    # ``acting`` and ``outcome`` are called every simulated turn: the state holds both (see
    # ``_state``), so each is a field read done in C (an itemgetter), not a Python call.
    if TYPE_CHECKING:

        def acting(self, state: PistolState) -> frozenset[str]: ...

        def outcome(self, state: PistolState) -> Outcome: ...

    else:
        acting = staticmethod(itemgetter(4))  # state.acting
        outcome = staticmethod(itemgetter(_RESULT))  # state.result

    def parse_order(self, state: PistolState, pid: str, raw: Mapping[str, Any]) -> PistolOrder:
        if not isinstance(raw, Mapping):
            raise Rejection("invalid_field", what="order", field="order", expected="an object")
        extra = sorted(set(raw) - {"move", "aim", "pick"})
        if extra:
            raise Rejection("invalid_field", what="order", field=extra[0], expected="no such field")
        move = _int_field(raw, "move")
        if "aim" not in raw:
            raise Rejection("invalid_field", what="order", field="aim", expected="required")
        a, b = _pair(raw, "aim")
        pick = _pair(raw, "pick") if raw.get("pick") is not None else None
        return PistolOrder(move, a, b, pick)

    def validate(self, state: PistolState, pid: str, order: PistolOrder) -> Rejection | None:
        cfg = state.rules.config
        if not -cfg.move_max <= order.move <= cfg.move_max:
            return Rejection(
                "move_out_of_range", min=-cfg.move_max, max=cfg.move_max, got=order.move
            )
        for corner, value in (("A", order.aim_x), ("B", order.aim_y)):
            if not cfg.aim_min <= value <= cfg.aim_max:  # P8
                return Rejection(
                    "aim_out_of_window",
                    field=f"aim.{corner}",
                    min=cfg.aim_min,
                    max=cfg.aim_max,
                    got=value,
                )
        if order.pick is not None:
            duelist = self._duelist(state, pid)
            if not duelist.player_rolls:  # P13: off by default
                return Rejection("pick_not_allowed", weapon=duelist.weapon)
            for value in order.pick:
                if not 1 <= value <= duelist.zone:
                    return Rejection("pick_out_of_zone", min=1, max=duelist.zone, got=value)
        return None

    def dump_order(self, order: PistolOrder) -> dict[str, Any]:
        out: dict[str, Any] = {"move": order.move, "aim": [order.aim_x, order.aim_y]}
        if order.pick is not None:
            out["pick"] = list(order.pick)
        return out

    def default_order(self, state: PistolState, pid: str) -> PistolOrder:
        d = state.rules.config.default_order
        return PistolOrder(d.move, d.aim[0], d.aim[1])

    def random_order(self, state: PistolState, pid: str, rng: random.Random) -> PistolOrder:
        """Uniform over legal (move, A, B); never a P13 pick."""
        rules = state[0]  # state.rules, by index (see _RESULT)
        return rules.legal[floor(rng.random() * rules.legal_count)]

    def resolve(
        self, state: PistolState, orders: Mapping[str, Sealed[PistolOrder]], log: TurnLog
    ) -> PistolState:
        """P9-P19 for one turn. Rolls, in this order: initiative for each duelist in seat
        order (P14), then each shot's hit_x and hit_y dice in shot order, each followed by a
        lethality roll when it hits a torso (P11).

        Written for speed (the simulator's hot path): locals instead of attribute chains,
        events built with ``_new`` (the named tuple's value without its Python ``__new__``),
        and methods called as ``obj.method(...)``, which Python 3.11 specialises
        (``events.append`` is done inline), never through a bound method kept in a local."""
        rules, duelists, turn, result, pids = state  # one unpack; pids: state.acting
        if result.status != "running":  # = result.finished, minus a property call
            raise Rejection("not_running")
        d0, d1 = duelists  # P1: exactly two duelists
        p0 = d0.pid
        p1 = d1.pid
        try:  # the usual case: both orders sealed, and nobody else's
            if len(orders) != 2:
                raise KeyError
            o0 = orders[p0][0]  # [0]: Sealed.order
            o1 = orders[p1][0]
        except KeyError:  # a missing order (the deadline default) or a stranger's
            o0, o1 = self._orders(state, orders, p0, p1)
        events = log.events

        # P14: initiative = d6 + weapon speed - |own move|; higher shoots first.
        m0, m1 = o0.move, o1.move
        memo = log.memo  # equal events are shared (TurnLog.shared): the key holds every value
        counting = log.counting  # the simulator's CountingLog: kind markers, no full events
        r0 = log.die(rules.initiative_die, "initiative", p0)
        s0 = d0.speed
        t0 = r0 + s0 - (m0 if m0 >= 0 else -m0) * rules.move_penalty  # abs(m0), without a call
        if counting:
            events.append(_MARK_INITIATIVE)
        else:
            try:  # a subscript (no method call): the key is nearly always there
                event = memo[key := ("initiative", p0, m0, r0, s0, t0)]
            except KeyError:
                data: dict[str, Any] = {"move": m0, "roll": r0, "speed": s0, "total": t0}
                event = log.shared(key, _new(Event, ("initiative", p0, data)))
            events.append(event)
        r1 = log.die(rules.initiative_die, "initiative", p1)
        s1 = d1.speed
        t1 = r1 + s1 - (m1 if m1 >= 0 else -m1) * rules.move_penalty
        if counting:
            events.append(_MARK_INITIATIVE)
        else:
            try:
                event = memo[key := ("initiative", p1, m1, r1, s1, t1)]
            except KeyError:
                data = {"move": m1, "roll": r1, "speed": s1, "total": t1}
                event = log.shared(key, _new(Event, ("initiative", p1, data)))
            events.append(event)
        if t0 == t1 and rules.tie_rerolls:  # P14 (config): equal totals may be rolled again
            for _ in range(rules.tie_rerolls):
                t0 = _initiative(rules, log, p0, m0, s0)
                t1 = _initiative(rules, log, p1, m1, s1)
                if t0 != t1:
                    break
        simultaneous = t0 == t1  # P14: equal values shoot simultaneously
        # The higher total shoots first (seat order when equal). Set up as the second shot:
        # each pass of the loop below swaps shooter and target first (no tuples built).
        if t0 >= t1:
            shooter, target = d1, d0
            so, to = o1, o0
        else:
            shooter, target = d0, d1
            so, to = o0, o1

        cells = rules.cells
        changed: dict[str, _Live] | None = None  # only duelists hit this turn
        over = False
        for _ in (1, 2):  # two shots, one each
            shooter, target = target, shooter
            so, to = to, so
            shift = -to.move  # P10: E = -(target's move)
            if over:  # P15/P19: the hit that ended the duel stops the later shot
                if counting:
                    events.append(_MARK_NO_SHOT)
                    continue
                events.append(_new(Event, ("no_shot", shooter.pid, {"reason": "duel_over"})))
                continue
            n = shooter.zone
            if shooter.player_rolls and so.pick is not None:  # P13 extension, off by default
                f, h = so.pick
            else:
                f = log.die(n, "hit_x", shooter.pid)
                h = log.die(n, "hit_y", shooter.pid)
            ax = so.aim_x
            ay = so.aim_y
            c = ax + shift + f - 1  # P9: C = A + E + (F - 1)
            r = ay - h + 1  # P9: D = B - (H - 1)
            part = cells.get((c, r))  # P11: the hit location is the cell's part (P5)
            if counting:
                if part is None:
                    events.append(_MARK_MISS)
                    continue
                events.append(_MARK_HIT[part])
            else:
                data = {
                    "target": target.pid,
                    "aim": so.aim,
                    "shift": shift,
                    "zone": n,
                    "dice": [f, h],
                    "cell": [c, r],
                }
                if part is None:
                    events.append(_new(Event, ("miss", shooter.pid, data)))
                    continue
                data["part"] = part
                events.append(_new(Event, ("hit", shooter.pid, data)))
            if changed is None:
                changed = {}
            live = changed.get(target.pid)
            if live is None:
                live = changed[target.pid] = _Live(target.shrugs_left, target.status, target.part)
            # P15: simultaneous shots are all resolved, whatever the first one did.
            if self._apply_hit(rules, target, shooter.pid, part, live, log) and not simultaneous:
                over = True
        played = turn
        turn += 1
        if changed is None:  # the common case: nobody hit, only the turn counter moves (P2)
            if turn <= rules.turn_limit:
                return _new(PistolState, (rules, duelists, turn, RUNNING, pids))
            after = _state(rules, duelists, turn, pids)
        else:
            after = _state(rules, _updated(duelists, changed), turn, pids)
        result = after[_RESULT]
        if result.status != "running":  # P20: the outcome with the turn counter (turn k of N)
            if counting:
                events.append(_MARK_OUTCOME)
                return after
            status, winners, reason = result.status, result.winners, result.reason
            end = ("outcome", status, winners, reason, played, rules.turn_limit)
            try:  # shared like initiative events: few values recur
                event = memo[end]
            except KeyError:
                data = {
                    "status": status,
                    "winners": list(winners),
                    "reason": reason,
                    "turn": played,
                    "turn_limit": rules.turn_limit,
                }
                event = log.shared(end, _new(Event, ("outcome", None, data)))
            events.append(event)
        return after

    def _orders(
        self, state: PistolState, orders: Mapping[str, Sealed[PistolOrder]], p0: str, p1: str
    ) -> tuple[PistolOrder, PistolOrder]:
        """Both duelists' orders, the default for a missing one; refuses a stranger's."""
        for pid in orders:
            if pid not in (p0, p1):
                raise Rejection("no_such_participant", pid=pid)
        s0, s1 = orders.get(p0), orders.get(p1)
        return (
            s0.order if s0 is not None else self.default_order(state, p0),
            s1.order if s1 is not None else self.default_order(state, p1),
        )

    @staticmethod
    def _apply_hit(
        rules: Rules, target: Duelist, shooter: str, part: str, live: _Live, log: TurnLog
    ) -> bool:
        """Apply a hit on ``part`` of ``target``, updating ``live`` in place. Returns True
        when the hit ends the duel (P16)."""
        if part in target.shrug_parts and live.shrugs_left > 0:
            # P17 thick_skinned: shrugged off, no wound, the duel goes on.
            live.shrugs_left -= 1
            log.emit("perk", target.pid, effect="shrug", part=part, by=shooter)
            return False
        mode = rules.lethality[part]
        lethal = mode == "always"
        if mode != "never" and part in target.never_lethal:
            # P17 (lucky: torso): a hit here wounds but never kills, whether the part is
            # lethal by a roll (no roll then) or always.
            lethal = False
            log.emit("perk", target.pid, effect="not_lethal", part=part, by=shooter)
        elif mode == "roll":
            cfg = rules.config
            roll = log.die(cfg.lethal_roll_sides, "lethality", target.pid)
            lethal = roll <= cfg.lethal_roll_max  # P11: 50% by default
        if live.status != "dead":  # P18: both take their wounds; death is not undone
            live.status = "dead" if lethal else "wounded"
            live.part = part
        kind = "death" if lethal else "wound"
        if log.counting:
            log.events.append(_MARK_DEATH if lethal else _MARK_WOUND)
            return True
        event = log.memo.get(key := (kind, target.pid, part, shooter))  # shared, as initiative
        if event is None:
            data = {"part": part, "by": shooter}
            event = log.shared(key, _new(Event, (kind, target.pid, data)))
        log.events.append(event)
        return True

    # --- views and serialization ---

    def view(self, state: PistolState, pid: str | None = None) -> dict[str, Any]:
        """Public: the turn counter, each duelist's weapon, zone, perks and condition, and the
        silhouette (orders never live in the state)."""
        cfg = state.rules.config
        return {
            "turn": state.turn,
            "turn_limit": cfg.turn_limit,
            "duelists": [
                {
                    "pid": d.pid,
                    "weapon": d.weapon,
                    "zone": d.zone,
                    "speed": d.speed,
                    "perks": list(d.perks),
                    "shrugs_left": d.shrugs_left,
                    "status": d.status,
                    "part": d.part,
                }
                for d in state.duelists
            ],
            "silhouette": {p: [list(c) for c in cs] for p, cs in cfg.silhouette.items()},
            "aim_window": [cfg.aim_min, cfg.aim_max],
            "move_max": cfg.move_max,
        }

    def dump_state(self, state: PistolState) -> dict[str, Any]:
        return {
            "turn": state.turn,
            "config": state.rules.config.model_dump(mode="json"),
            "duelists": [
                {
                    "pid": d.pid,
                    "weapon": d.weapon,
                    "perks": list(d.perks),
                    "shrugs_left": d.shrugs_left,
                    "status": d.status,
                    "part": d.part,
                }
                for d in state.duelists
            ],
        }

    def load_state(self, raw: Mapping[str, Any]) -> PistolState:
        """The state of ``raw``, remembered like configs (see :meth:`_parsed`): the bot loads
        the same state several times an update (who acts, the zone, the seal), and a state is
        immutable, so sharing one is safe."""
        for key, state in _LOADED:
            if key == raw:
                return state
        state = self._load_state(raw)
        try:
            key = json.loads(json.dumps(raw))  # a private copy (as from the store: lists)
        except (TypeError, ValueError):
            return state
        _LOADED.insert(0, (key, state))
        del _LOADED[_PARSED_MAX:]
        return state

    def _load_state(self, raw: Mapping[str, Any]) -> PistolState:
        rules = self._rules(raw.get("config") or {})
        config = rules.config
        duelists = tuple(
            _duelist(
                config,
                str(d["pid"]),
                CharacterSpec(weapon=d["weapon"], perks=tuple(d.get("perks", ()))),
                shrugs_left=int(d["shrugs_left"]),
                status=str(d["status"]),
                part=d.get("part"),
            )
            for d in raw["duelists"]
        )
        return _state(rules, duelists, int(raw["turn"]))

    def turn_of(self, state: PistolState) -> int:
        return state.turn

    # --- GM rulings (engine.gm.edit: a public, audited change the rules do not cover) ---

    def editable(self, state: PistolState, pid: str) -> Mapping[str, Any]:
        d = self._duelist(state, pid)
        return {"status": d.status, "shrugs_left": d.shrugs_left}

    def edit(self, state: PistolState, pid: str, field: str, value: Any) -> PistolState:
        """Set a duelist's ``status`` (standing/wounded/dead) or ``shrugs_left``. A ruling that
        would end the duel is refused: the GM ends the match with a result instead."""
        d = self._duelist(state, pid)
        if field == "status":
            if value not in _EDIT_STATUSES:
                raise Rejection(
                    "edit_bad_value", field=field, expected=", ".join(_EDIT_STATUSES), got=value
                )
            changed = replace(d, status=value, part=None if value == "standing" else d.part)
        elif field == "shrugs_left":
            if type(value) is not int or not 0 <= value <= _EDIT_MAX_SHRUGS:
                raise Rejection(
                    "edit_bad_value",
                    field=field,
                    expected=f"0…{_EDIT_MAX_SHRUGS}",
                    got=value,
                )
            changed = replace(d, shrugs_left=value)
        else:
            raise Rejection("edit_unknown_field", field=field, allowed="status, shrugs_left")
        duelists = tuple(changed if x.pid == pid else x for x in state.duelists)
        edited = _state(state.rules, duelists, state.turn, state.acting)
        if edited.result.finished:
            raise Rejection("edit_ends_duel")
        return edited

    # --- helpers ---

    @staticmethod
    def _duelist(state: PistolState, pid: str) -> Duelist:
        for d in state.duelists:
            if d.pid == pid:
                return d
        raise Rejection("no_such_participant", pid=pid)


def render_grid(
    config: PistolConfig, marks: Mapping[tuple[int, int], str] | None = None
) -> list[str]:
    """The silhouette grid over the aim window as text rows (top row first), with x labels on
    the last row and y labels on the left: ``H`` head, ``T`` torso, ``A`` arm, ``L`` leg, ``.``
    empty; ``marks`` overrides cells (e.g. ``X`` where a shot landed). For docs and the bot."""
    letter = {"head": "H", "torso": "T", "arm": "A", "leg": "L"}
    cells = {cell: letter[part] for part, cs in config.silhouette.items() for cell in cs}
    cells.update(marks or {})
    xs = range(config.aim_min, config.aim_max + 1)
    rows = []
    for y in range(config.aim_max, config.aim_min - 1, -1):
        rows.append(f"{y:>3} " + " ".join(f"{cells.get((x, y), '.'):>2}" for x in xs))
    rows.append("    " + " ".join(f"{x:>2}" for x in xs))
    return rows


RULESET = PistolRuleset()

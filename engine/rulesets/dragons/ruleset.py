"""Ruleset ``dragons``: a dragon dogfight on Savage Worlds.

Spec: ``docs/rules/dragons.md``, rule ids D1-D36; base mechanics in
:mod:`engine.savage`; decisions of ``savage-worlds-core.md`` section 15 quoted as "decision N".

A battle: any number of dragons on sides, Wild Cards or Extras, some GM-run (NPCs). A dragon's
position is (Speed, Altitude) only (D5-D6). Each turn every dragon seals one movement order and
up to three actions; resolution runs activations in initiative order (D7-D10), applying every
result at once (decision 9). Every DEFAULT of the rules is a field of :class:`DragonsConfig`.

The state is immutable (frozen dataclasses); :meth:`DragonsRuleset.resolve` works on mutable
per-turn copies (:class:`_Live`) and freezes them at the end.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.events import Event
from engine.ruleset import RUNNING, UNSEALED_SEQ, Entrant, Outcome, Ruleset, Sealed
from engine.savage import (
    DamageSpec,
    Die,
    Edition,
    TraitRoll,
    damage_effect,
    damage_roll,
    edition_rules,
    gang_up,
    multi_action_penalty,
    opposed,
    parry,
    parse_damage,
    parse_die,
    roll_trait_data,
    shaken_recovery,
    wound_penalty,
)

MoveKind = Literal["level", "climb", "dive"]
MOVE_KINDS: tuple[str, ...] = ("level", "climb", "dive")
ACTION_TYPES: tuple[str, ...] = ("attack", "tail", "force", "break", "power")
FORCE_CHOICES: tuple[str, ...] = ("up", "down")
FORCE_RAISE_CHOICES: tuple[str, ...] = ("climb", "dive")
IN = "in"
# D29: the Piloting rolls of the manoeuvres (D25 tailing, D27 forcing, D28 breaking the tail),
# the initiator's and the defender's ("_defence"); see DragonsConfig.manoeuvre_rolls.
ManoeuvreRoll = Literal["tail", "tail_defence", "force", "force_defence", "break", "break_defence"]
MANOEUVRE_ROLLS: tuple[ManoeuvreRoll, ...] = (
    "tail", "tail_defence", "force", "force_defence", "break", "break_defence"
)  # fmt: skip


# --------------------------------------------------------------------------- configuration


class DragonsConfig(BaseModel):
    """Every DEFAULT of the dragon rules (and the section-15 decisions they use) as data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    edition: Edition = "SWADE"  # decision 1
    lowest_start_altitude: int = 10  # D5
    max_actions: int = Field(3, ge=1, le=5)  # D3
    multi_action_penalty: int = Field(2, ge=0, le=10)  # D3 / decision 4
    level_speed_up: int = Field(2, ge=0, le=10)  # D11
    level_slow_down: int = Field(1, ge=0, le=10)  # D11
    climb_speed_cost: int = Field(3, ge=1, le=10)  # D12
    dive_speed_gain: int = Field(2, ge=0, le=10)  # D13
    max_altitude_change: int = Field(10, ge=1, le=50)  # largest climb/dive an order may ask
    refuse_impossible_climb: bool = True  # D14 DEFAULT: refused at validation
    level_capped_by_top_speed: bool = True  # D15 DEFAULT
    range_per_speed: int = 10  # D19
    range_per_altitude: int = 50  # D19
    range_same_position: int = 5  # D19
    range_on_tail: int = 5  # D19 / D26
    band_penalties: tuple[int, int, int] = (0, -2, -4)  # D20
    default_breath_bands: tuple[int, int, int] = (25, 50, 100)  # D20 DEFAULT (presets)
    extreme_range: bool = False  # decision 21 (SWADE only when enabled)
    melee_requires_range_5: bool = False  # D21 DEFAULT: same Altitude is enough
    gang_up: bool = True  # decision 23
    gang_up_cap: int = 4  # decision 23
    target_number: int = 4  # D20
    wound_speed_loss: tuple[int, int] = (2, 3)  # D24: at the 1st and the 2nd wound
    cumulative_speed_loss: bool = True  # D24 DEFAULT / decision 12
    wound_penalty_cap: int = 3  # decision 11
    break_at_two_wounds: int = Field(2, ge=0, le=6)  # D24: weapon damaged on d6 <= this
    break_at_three_wounds: int = Field(4, ge=0, le=6)  # D24
    altitude_loss_at_three_wounds: int = 1  # D24
    out_at_wounds: int = 4  # D24
    terrain: Literal["blue", "ground"] = "blue"  # D24: the Blue (death) or over ground (GM)
    fall_speed_step: int = Field(5, ge=1)  # D30: +1 Altitude lost per 5 Speed
    fall_out_depth: int = 10  # D31
    # D31 DEFAULT: with every dragon in the battle falling there is no steady dragon to
    # measure from. "last_steady": measure from the Altitude where the last steady dragon
    # was when it stopped flying steady (started falling or left); "none": nobody is
    # removed (falls can then go on for ever).
    all_falling_floor: Literal["last_steady", "none"] = "last_steady"
    fall_first_penalty: int = 0  # D32 DEFAULT / decision 29: the first roll is at -0
    force_penalty: int = 2  # D27 / decision 19
    break_tail_penalty: int = 2  # D28 / decision 19
    forced_speed_up: int = 2  # D27 DEFAULT
    forced_slow_down: int = 1  # D27 DEFAULT
    forced_climb: int = 1  # D27 DEFAULT
    forced_dive: int = 1  # D27 DEFAULT
    dangerous_crit_altitude_loss: int = 0  # decision 32 (off)
    # D29 DEFAULT: a critical failure on a manoeuvre's Piloting roll starts Falling; off: a
    # crit there is only a lost contest.
    manoeuvre_crit_falls: bool = True
    # D29 DEFAULT: which rolls are "a manoeuvre": the Piloting rolls of tailing, forcing and
    # breaking the tail, both sides of each contest (a target that also attempted the tail
    # rolls "tail"). Not in it: attacks, Spirit, powers (no manoeuvre); the D33 dangerous
    # roll (its failure, a crit included, already falls) and the D32 roll (already falling).
    manoeuvre_rolls: tuple[ManoeuvreRoll, ...] = MANOEUVRE_ROLLS
    # D25-D26 DEFAULT: a new tail that would close a circle of three or more tails (a on b,
    # b on c, c now on a) ends the tail on the new pursuer ("newest_stands", as D25 does for
    # two dragons); "allowed" keeps the circle, which then never moves (nobody in it has a
    # victim that sends a movement, D26).
    tail_circles: Literal["newest_stands", "allowed"] = "newest_stands"
    extra_crit_confirm: bool = True  # decision 16
    consumed_attacks_nearest: bool = True  # D34: the dragon gives its own orders
    default_speed_delta: int = 0  # default order: level flight, Speed unchanged, no action
    turn_limit: int | None = Field(None, ge=1)  # D35 DEFAULT: none (the GM may set one)
    wild_die: int = 6  # 2.3


# --------------------------------------------------------------------------- characters (D1)


class WeaponSpec(BaseModel):
    """A dragon weapon. Ranged weapons have bands in D19 units (D20); melee damage may use the
    dragon's Strength (``str+d8``, decision 26)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,19}$")
    melee: bool = False
    damage: str
    ap: int = Field(0, ge=0, le=20)
    range: tuple[int, int, int] | None = None


class CharacterSpec(BaseModel):
    """A pilot on a dragon (D1). The pilot rolls every trait (decision 2); the dragon supplies
    Top Speed, Toughness (armour included), Strength and weapons. A missing skill is unskilled.
    ``speed``/``altitude`` are the starting position (Altitude is relative, D5)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("", max_length=40)
    wild_card: bool = True
    piloting: str | None = "d6"
    fighting: str | None = "d6"
    shooting: str | None = "d6"
    spirit: str = "d6"
    arcane: str | None = None
    top_speed: int = Field(10, ge=1, le=60)
    toughness: int = Field(10, ge=1, le=40)
    armor: int = Field(0, ge=0, le=20)
    strength: str = "d10"
    weapons: tuple[WeaponSpec, ...] = Field(min_length=1, max_length=6)
    speed: int = Field(5, ge=0, le=60)
    altitude: int = Field(10, ge=-1000, le=1000)


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    melee: bool
    damage: DamageSpec
    ap: int
    bands: tuple[int, int, int] | None


@dataclass(frozen=True, slots=True)
class Stats:
    """A parsed stat block (what resolution needs), with the sheet it came from."""

    spec: CharacterSpec
    piloting: Die | None
    fighting: Die | None
    shooting: Die | None
    spirit: Die
    arcane: Die | None
    strength: Die
    weapons: tuple[Weapon, ...]
    parry: int
    # The sheet's numbers resolution reads every turn, as plain slots: a pydantic model's
    # attributes go through its __getattr__ hook, several times slower.
    top_speed: int
    toughness: int
    armor: int
    # Random orders ask every turn what the weapons reach (all of them working): whether one
    # is melee, and the longest Long band of a ranged one (-1: none).
    melee: bool
    long_band: int

    def weapon(self, name: str) -> Weapon | None:
        for w in self.weapons:
            if w.name == name:
                return w
        return None


def build_stats(spec: CharacterSpec) -> Stats:
    """Parse a sheet; raises :class:`Rejection` with the field and what was expected."""

    def die(name: str, value: str | None) -> Die | None:
        return None if value is None else parse_die(value, field=name)

    if spec.armor > spec.toughness:
        raise Rejection("armor_exceeds_toughness", armor=spec.armor, toughness=spec.toughness)
    if spec.speed > spec.top_speed:
        raise Rejection("speed_above_top_speed", speed=spec.speed, top_speed=spec.top_speed)
    weapons: list[Weapon] = []
    for i, w in enumerate(spec.weapons):
        where = f"weapons.{i}"
        if any(w.name == other.name for other in spec.weapons[:i]):
            raise Rejection("duplicate_weapon", field=f"{where}.name", weapon=w.name)
        dmg = parse_damage(w.damage, field=f"{where}.damage")
        if w.melee:
            weapons.append(Weapon(w.name, True, dmg, w.ap, None))
            continue
        if dmg.strength:
            raise Rejection("ranged_damage_uses_strength", field=f"{where}.damage", weapon=w.name)
        if w.range is None:
            raise Rejection("ranged_weapon_needs_range", field=f"{where}.range", weapon=w.name)
        s, m, lg = w.range
        if not 0 < s <= m <= lg:
            raise Rejection(
                "bad_range_bands", field=f"{where}.range", expected="0 < short <= medium <= long"
            )
        weapons.append(Weapon(w.name, False, dmg, w.ap, w.range))
    fighting = die("fighting", spec.fighting)
    return Stats(
        spec=spec,
        piloting=die("piloting", spec.piloting),
        fighting=fighting,
        shooting=die("shooting", spec.shooting),
        spirit=parse_die(spec.spirit, field="spirit"),
        arcane=die("arcane", spec.arcane),
        strength=parse_die(spec.strength, field="strength"),
        weapons=tuple(weapons),
        parry=parry(fighting),  # D21 / decision 25
        top_speed=spec.top_speed,
        toughness=spec.toughness,
        armor=spec.armor,
        melee=any(w.melee for w in weapons),
        long_band=max((w.bands[2] for w in weapons if w.bands is not None), default=-1),
    )


def presets(config: DragonsConfig) -> dict[str, dict[str, Any]]:
    """D2 DEFAULT: a young dragon and a war dragon, each with a pilot (every number editable),
    and a nameless raider (an Extra) for GM crowds."""
    bands = list(config.default_breath_bands)
    return {
        "young": {
            "name": "Young dragon",
            "wild_card": True,
            "piloting": "d8",
            "fighting": "d6",
            "shooting": "d8",
            "spirit": "d6",
            "top_speed": 10,
            "toughness": 9,
            "armor": 2,
            "strength": "d10",
            "weapons": [
                {"name": "breath", "damage": "2d8", "range": bands},
                {"name": "claws", "melee": True, "damage": "str+d6"},
            ],
            "speed": 6,
            "altitude": 10,
        },
        "war": {
            "name": "War dragon",
            "wild_card": True,
            "piloting": "d6",
            "fighting": "d8",
            "shooting": "d8",
            "spirit": "d8",
            "top_speed": 8,
            "toughness": 12,
            "armor": 4,
            "strength": "d12",
            "weapons": [
                {"name": "breath", "damage": "3d6", "ap": 2, "range": bands},
                {"name": "bite", "melee": True, "damage": "str+d8", "ap": 2},
            ],
            "speed": 5,
            "altitude": 10,
        },
        "raider": {
            "name": "Raider",
            "wild_card": False,
            "piloting": "d6",
            "fighting": "d6",
            "shooting": "d6",
            "spirit": "d6",
            "top_speed": 10,
            "toughness": 8,
            "armor": 1,
            "strength": "d8",
            "weapons": [
                {"name": "breath", "damage": "2d6", "range": bands},
                {"name": "claws", "melee": True, "damage": "str+d4"},
            ],
            "speed": 6,
            "altitude": 10,
        },
    }


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Dragon:
    """A participant's dynamic state. ``index`` is the GM's listing order (D8 among NPCs);
    ``tail_of`` names the victim this dragon is pursuing (D25-D26); ``status`` is ``in`` or
    how it left (``left``, ``out``, ``dead``, ``fell``)."""

    pid: str
    side: str
    name: str
    npc: bool
    index: int
    wild_card: bool
    speed: int
    altitude: int
    wounds: int = 0
    shaken: bool = False
    falling: bool = False
    fall_turns: int = 0
    status: str = IN
    tail_of: str | None = None
    broken: tuple[str, ...] = ()
    consumed: bool = False

    @property
    def in_battle(self) -> bool:
        return self.status == IN

    @property
    def team(self) -> str:
        """The side that counts for friend/foe and victory; a consumed dragon is its own
        side, hostile to all (D34)."""
        return f"dragon:{self.pid}" if self.consumed else self.side


@dataclass(frozen=True, slots=True)
class DragonsState:
    config: DragonsConfig
    stats: Mapping[str, Stats]
    dragons: tuple[Dragon, ...]
    turn: int = 1
    # D31 DEFAULT (``all_falling_floor``): while every dragon in the battle is falling, the
    # Altitude D31 measures from (where the last steady dragon was); None while one is steady.
    floor: int | None = None

    def dragon(self, pid: str) -> Dragon:
        for d in self.dragons:
            if d.pid == pid:
                return d
        raise Rejection("no_such_participant", pid=pid)


# --------------------------------------------------------------------------- orders


@dataclass(frozen=True, slots=True)
class Action:
    """One action (D3). ``type``: attack (weapon, target), tail (target), force (choice: up or
    down; raise_choice: climb or dive), break (target: optional pursuer), power (text)."""

    type: str
    weapon: str | None = None
    target: str | None = None
    choice: str | None = None
    raise_choice: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class DragonOrder:
    """One movement (level with a Speed change ``n``; climb/dive ``n`` units) with an optional
    aerobatics name (D33), and up to three actions (D3)."""

    move: str = "level"
    n: int = 0
    aerobatics: str | None = None
    actions: tuple[Action, ...] = ()


_ORDER_KEYS = frozenset({"move", "n", "aerobatics", "actions"})
_ACTION_KEYS = frozenset({"type", "weapon", "target", "choice", "raise_choice", "text"})


def _bad(field_name: str, expected: str) -> Rejection:
    return Rejection("invalid_field", what="order", field=field_name, expected=expected)


def _str_field(raw: Mapping[str, Any], key: str, where: str, *, required: bool) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise _bad(f"{where}.{key}", "required")
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 60:
        raise _bad(f"{where}.{key}", "a non-empty text up to 60 characters")
    return value.strip()


def parse_order_dict(config: DragonsConfig, raw: Mapping[str, Any]) -> DragonOrder:
    """Parse an order's JSON form (shape only; :meth:`DragonsRuleset.validate` checks it
    against the battle)."""
    if not isinstance(raw, Mapping):
        raise _bad("order", "an object")
    for key in raw:
        if key not in _ORDER_KEYS:
            raise _bad(str(key), "no such field")
    move = raw.get("move", "level")
    if move not in MOVE_KINDS:
        raise _bad("move", "level, climb or dive")
    n = raw.get("n", 0)
    if not isinstance(n, int) or isinstance(n, bool):
        raise _bad("n", "an integer")
    if move == "level" and not -config.level_slow_down <= n <= config.level_speed_up:
        # D11: level flight changes Speed by -1..+2.
        raise Rejection(
            "bad_speed_change", value=n, min=-config.level_slow_down, max=config.level_speed_up
        )
    if move != "level" and not 1 <= n <= config.max_altitude_change:
        raise Rejection("bad_altitude_change", value=n, min=1, max=config.max_altitude_change)
    aero = raw.get("aerobatics")
    if aero is not None and (not isinstance(aero, str) or not aero.strip() or len(aero) > 60):
        raise _bad("aerobatics", "a manoeuvre name up to 60 characters, or null")
    raw_actions = raw.get("actions", [])
    if not isinstance(raw_actions, list | tuple):
        raise _bad("actions", "a list")
    limit = min(config.max_actions, edition_rules(config.edition).action_cap or config.max_actions)
    if len(raw_actions) > limit:
        raise Rejection("too_many_actions", count=len(raw_actions), limit=limit)  # D3
    actions: list[Action] = []
    for i, a in enumerate(raw_actions):
        where = f"actions.{i}"
        if not isinstance(a, Mapping):
            raise _bad(where, "an object")
        for key in a:
            if key not in _ACTION_KEYS:
                raise _bad(f"{where}.{key}", "no such field")
        kind = a.get("type")
        if kind not in ACTION_TYPES:
            raise _bad(f"{where}.type", "attack, tail, force, break or power")
        if kind == "attack":
            actions.append(
                Action(
                    "attack",
                    weapon=_str_field(a, "weapon", where, required=True),
                    target=_str_field(a, "target", where, required=True),
                )
            )
        elif kind == "tail":
            actions.append(Action("tail", target=_str_field(a, "target", where, required=True)))
        elif kind == "force":
            choice = a.get("choice")
            if choice not in FORCE_CHOICES:
                raise _bad(f"{where}.choice", "up or down")
            raise_choice = a.get("raise_choice")
            if raise_choice is not None and raise_choice not in FORCE_RAISE_CHOICES:
                raise _bad(f"{where}.raise_choice", "climb, dive or null")
            actions.append(Action("force", choice=choice, raise_choice=raise_choice))
        elif kind == "break":
            actions.append(Action("break", target=_str_field(a, "target", where, required=False)))
        else:
            text = a.get("text", "")
            if not isinstance(text, str) or len(text) > 200:
                raise _bad(f"{where}.text", "a text up to 200 characters")
            actions.append(Action("power", text=text.strip()))
    return DragonOrder(move, n, aero.strip() if aero else None, tuple(actions))


def dump_order_dict(order: DragonOrder) -> dict[str, Any]:
    """The JSON form of an order (inverse of :func:`parse_order_dict`)."""
    actions: list[dict[str, Any]] = []
    for a in order.actions:
        if a.type == "attack":
            actions.append({"type": "attack", "weapon": a.weapon, "target": a.target})
        elif a.type == "tail":
            actions.append({"type": "tail", "target": a.target})
        elif a.type == "force":
            actions.append({"type": "force", "choice": a.choice, "raise_choice": a.raise_choice})
        elif a.type == "break":
            actions.append({"type": "break", "target": a.target})
        else:
            actions.append({"type": "power", "text": a.text})
    return {"move": order.move, "n": order.n, "aerobatics": order.aerobatics, "actions": actions}


# --------------------------------------------------------------------------- pure geometry


class _Positioned(Protocol):
    @property
    def speed(self) -> int: ...
    @property
    def altitude(self) -> int: ...


class _Attacker(_Positioned, Protocol):
    @property
    def pid(self) -> str: ...
    @property
    def tail_of(self) -> str | None: ...
    @property
    def broken(self) -> tuple[str, ...]: ...


def distance(config: DragonsConfig, a: _Positioned, b: _Positioned) -> int:
    """D19: Range = 10 x |Speed difference| + 50 x |Altitude difference|; 5 when equal."""
    if a.speed == b.speed and a.altitude == b.altitude:
        return config.range_same_position
    return config.range_per_speed * abs(a.speed - b.speed) + config.range_per_altitude * abs(
        a.altitude - b.altitude
    )


def fall_loss(config: DragonsConfig, speed: int) -> int:
    """D30: 1 Altitude at Speed 0-5, 2 at 6-10, 3 at 11-15, and so on."""
    return max(1, -(-speed // config.fall_speed_step))


def movement_result(
    config: DragonsConfig, stats: Stats, dragon: Dragon, move: str, n: int
) -> tuple[int, int, Rejection | None, bool]:
    """Speed and Altitude after a movement (D11-D15), the reason it is illegal (or None), and
    whether it is a dangerous dive (D15, D33). Pure: used by validation and the order builder."""
    top = stats.spec.top_speed
    if move == "level":
        speed = dragon.speed + n
        if n > 0 and config.level_capped_by_top_speed and speed > max(top, dragon.speed):
            return (
                speed,
                dragon.altitude,
                Rejection("above_top_speed", speed=speed, top_speed=top),
                False,
            )  # D15 DEFAULT
        if speed < 0:
            return speed, dragon.altitude, Rejection("speed_below_zero", speed=speed), False  # D14
        return speed, dragon.altitude, None, False
    if move == "climb":
        speed = dragon.speed - config.climb_speed_cost * n  # D12
        if speed < 0 and config.refuse_impossible_climb:  # D14 DEFAULT
            return (
                speed,
                dragon.altitude + n,
                Rejection(
                    "climb_too_steep",
                    climb=n,
                    speed=dragon.speed,
                    cost=config.climb_speed_cost * n,
                    max_climb=dragon.speed // config.climb_speed_cost,
                ),
                False,
            )
        return max(speed, 0), dragon.altitude + n, None, False
    speed = dragon.speed + config.dive_speed_gain * n  # D13
    return speed, dragon.altitude - n, None, speed > top  # D15 -> D33


@dataclass(frozen=True, slots=True)
class MoveOption:
    """One movement choice for the order builder."""

    move: str
    n: int
    speed: int
    altitude: int
    legal: bool
    reason: Rejection | None
    dangerous: bool


def movement_options(state: DragonsState, pid: str, *, max_steps: int = 4) -> list[MoveOption]:
    """Every movement a dragon may choose now (level -1..+2, climb and dive 1..``max_steps``)
    with the resulting Speed/Altitude, or the reason it is illegal (D11-D16)."""
    cfg = state.config
    dragon = state.dragon(pid)
    stats = state.stats[pid]
    out: list[MoveOption] = []
    candidates = [("level", k) for k in range(-cfg.level_slow_down, cfg.level_speed_up + 1)]
    steps = min(max_steps, cfg.max_altitude_change)
    candidates += [(m, k) for m in ("climb", "dive") for k in range(1, steps + 1)]
    for move, n in candidates:
        speed, alt, reason, dangerous = movement_result(cfg, stats, dragon, move, n)
        if reason is None and dragon.tail_of is not None and (move, n) != ("level", 0):
            reason = Rejection("pursuer_copies_victim", victim=dragon.tail_of)  # D26
        if reason is None and dragon.shaken and move != "level":
            # D16: allowed (recovery may come first), but shown as a warning-free option;
            # the resolution turns it into level flight if still Shaken.
            pass
        out.append(MoveOption(move, n, speed, alt, reason is None, reason, dangerous))
    return out


@dataclass(frozen=True, slots=True)
class AttackCheck:
    """Whether an attack is possible from a position, and at what range band (D18-D21)."""

    possible: bool
    reason: str | None
    range: int
    band: str | None
    penalty: int
    tn: int


def attack_check(
    state: DragonsState,
    pid: str,
    weapon: str,
    target: str,
    move: tuple[str, int] = ("level", 0),
) -> AttackCheck:
    """Is ``pid``'s attack with ``weapon`` on ``target`` possible after ``move`` (the target
    where it is now)? For the order builder; resolution re-checks at the moment (D10)."""
    cfg = state.config
    attacker = state.dragon(pid)
    victim = state.dragon(target)
    stats = state.stats[pid]
    w = stats.weapon(weapon)
    if attacker.tail_of is None:
        speed, alt, _, _ = movement_result(cfg, stats, attacker, *move)
        attacker = replace(attacker, speed=max(speed, 0), altitude=alt)
    rng = distance(cfg, attacker, victim)
    if w is None:
        return AttackCheck(False, "no_such_weapon", rng, None, 0, cfg.target_number)
    reason, rng, band, penalty, tn = _attack_geometry(
        _params(cfg), state.stats, attacker, victim, w
    )
    return AttackCheck(reason is None, reason, rng, band, penalty, tn)


def _attack_geometry(
    cfg: _Params,
    stats: Mapping[str, Stats],
    attacker: _Attacker,
    victim: _Attacker,
    weapon: Weapon,
) -> tuple[str | None, int, str | None, int, int]:
    """(reason it is impossible or None, range, band, band penalty, TN) — D18-D21, D26.
    ``cfg`` is the config's :class:`_Params` (plain slots: read on every attack)."""
    if attacker.speed == victim.speed and attacker.altitude == victim.altitude:  # distance()
        rng = cfg.range_same_position
    else:
        rng = cfg.range_per_speed * abs(
            attacker.speed - victim.speed
        ) + cfg.range_per_altitude * abs(attacker.altitude - victim.altitude)
    if weapon.name in attacker.broken:
        return "weapon_broken", rng, None, 0, cfg.target_number  # D24
    if victim.tail_of == attacker.pid:
        return "cannot_attack_pursuer", rng, None, 0, cfg.target_number  # D26
    if weapon.melee:
        tn = stats[victim.pid].parry  # D21
        if attacker.altitude != victim.altitude:
            return "not_same_altitude", rng, None, 0, tn
        if cfg.melee_requires_range_5 and rng != cfg.range_same_position:
            return "not_adjacent", rng, None, 0, tn
        return None, rng, None, 0, tn
    on_tail = attacker.tail_of == victim.pid and attacker.altitude == victim.altitude
    if on_tail:
        rng = cfg.range_on_tail  # D19: a pursuer always fires at Range 5
    elif attacker.altitude <= victim.altitude:
        return "not_above_or_on_tail", rng, None, 0, cfg.target_number  # D18
    assert weapon.bands is not None
    # range_band (6.3 / decision 21), inlined: a call with keywords per attack costs more.
    short, medium, long_ = weapon.bands
    penalties = cfg.band_penalties
    if rng <= short:
        return None, rng, "short", penalties[0], cfg.target_number
    if rng <= medium:
        return None, rng, "medium", penalties[1], cfg.target_number
    if rng <= long_:
        return None, rng, "long", penalties[2], cfg.target_number
    if cfg.reach_factor > 1 and rng <= long_ * cfg.reach_factor:
        return None, rng, "extreme", EXTREME_PENALTY, cfg.target_number
    return "out_of_range", rng, None, 0, cfg.target_number  # D20


def nearest_target(state: DragonsState, pid: str) -> str | None:
    """D34 DEFAULT "nearest": the smallest D19 Range, ties by initiative order."""
    return _nearest(state.config, state.dragon(pid), state.dragons)


class _Ranked(_Attacker, Protocol):
    @property
    def status(self) -> str: ...
    @property
    def npc(self) -> bool: ...
    @property
    def wild_card(self) -> bool: ...
    @property
    def index(self) -> int: ...
    @property
    def consumed(self) -> bool: ...


def _nearest(cfg: DragonsConfig, me: _Ranked, dragons: Sequence[_Ranked]) -> str | None:
    """:func:`nearest_target` on any dragon records (also the mutable ones of a resolution):
    the initiative order without sealing times breaks ties."""
    alive = [d for d in dragons if d.status == IN]
    ranked = sorted(alive, key=lambda d: (-d.speed, -d.altitude, seal_rank(d, UNSEALED_SEQ)))
    order = {d.pid: i for i, d in enumerate(ranked)}
    others = [d for d in alive if d.pid != me.pid]
    if not others:
        return None
    return min(others, key=lambda d: (distance(cfg, me, d), order[d.pid])).pid


def seal_rank(dragon: _Ranked, seq: int) -> tuple[int, int, int]:
    """D8: players by sealing time; Extras and GM characters (a consumed dragon is one, D34)
    count as sealing last, among themselves in the GM's listing order (D8 DEFAULT)."""
    if dragon.npc or not dragon.wild_card or dragon.consumed:
        return (1, dragon.index, 0)
    return (0, seq, dragon.index)


def initiative(state: DragonsState, orders: Mapping[str, Sealed[DragonOrder]]) -> list[str]:
    """D7-D8: higher Speed first, then higher Altitude, then earlier sealing."""

    def key(d: Dragon) -> tuple[int, int, tuple[int, int, int]]:
        sealed = orders.get(d.pid)
        seq = sealed.seq if sealed is not None else UNSEALED_SEQ
        return (-d.speed, -d.altitude, seal_rank(d, seq))

    return [d.pid for d in sorted((d for d in state.dragons if d.in_battle), key=key)]


# --------------------------------------------------------------------------- typed syntax

_WORDS: dict[str, str] = {
    "level": "level", "lvl": "level", "l": "level", "уровень": "level", "ровно": "level",
    "climb": "climb", "up": "climb", "набор": "climb", "вверх": "climb",
    "dive": "dive", "down": "dive", "снижение": "dive", "пике": "dive", "вниз": "dive",
    "aero": "aero", "aerobatics": "aero", "трюк": "aero", "пилотаж": "aero",
    "attack": "attack", "atk": "attack", "a": "attack", "атака": "attack", "атаковать": "attack",
    "tail": "tail", "хвост": "tail",
    "force": "force", "принуждение": "force", "принудить": "force",
    "break": "break", "отрыв": "break", "сброс": "break",
    "power": "power", "сила": "power",
}  # fmt: skip
_FORCE_WORDS: dict[str, str] = {
    "up": "up", "faster": "up", "быстрее": "up", "down": "down", "slower": "down",
    "медленнее": "down", "climb": "climb", "вверх": "climb", "dive": "dive", "вниз": "dive",
}  # fmt: skip


def parse_typed(text: str) -> dict[str, Any]:
    """Parse the typed order syntax into an order dict (shape checked later by
    :meth:`DragonsRuleset.parse_order`), e.g. ``/order level +2; attack breath n1; tail p3``.

    Commands, separated by ``;`` or new lines: ``level [±N]``, ``climb N``, ``dive N``,
    ``aero NAME``, ``attack WEAPON TARGET``, ``tail TARGET``, ``force up|down [climb|dive]``,
    ``break [TARGET]``, ``power TEXT``; Russian keywords work too. Raises :class:`Rejection`.
    """
    body = text.strip()
    if body.startswith("/"):
        head, _, body = body.partition(" ")
        if head.split("@")[0].lower() not in ("/order", "/приказ", "/o"):
            raise Rejection("typed_unknown_command", word=head)
    order: dict[str, Any] = {"move": "level", "n": 0, "aerobatics": None, "actions": []}
    moved = False
    for part in body.replace("\n", ";").split(";"):
        words = part.split()
        if not words:
            continue
        command = _WORDS.get(words[0].lower())
        args = words[1:]
        if command is None:
            raise Rejection(
                "typed_unknown_word",
                word=words[0],
                expected="level, climb, dive, aero, attack, tail, force, break, power",
            )
        if command in MOVE_KINDS:
            if moved:
                raise Rejection("typed_two_movements", word=words[0])
            moved = True
            order["move"] = command
            default = "0" if command == "level" else None
            value = args[0] if args else default
            if value is None:
                raise Rejection("typed_missing_argument", command=command, expected="N")
            try:
                order["n"] = int(value)
            except ValueError:
                raise Rejection("typed_bad_number", command=command, word=value) from None
            if len(args) > 1:
                raise Rejection("typed_extra_words", command=command, words=" ".join(args[1:]))
        elif command == "aero":
            order["aerobatics"] = " ".join(args) or "aerobatics"
        elif command == "attack":
            if len(args) != 2:
                raise Rejection("typed_missing_argument", command=command, expected="WEAPON TARGET")
            order["actions"].append({"type": "attack", "weapon": args[0], "target": args[1]})
        elif command == "tail":
            if len(args) != 1:
                raise Rejection("typed_missing_argument", command=command, expected="TARGET")
            order["actions"].append({"type": "tail", "target": args[0]})
        elif command == "force":
            picks = [_FORCE_WORDS.get(a.lower()) for a in args]
            if not 1 <= len(picks) <= 2 or picks[0] not in FORCE_CHOICES:
                raise Rejection(
                    "typed_missing_argument", command=command, expected="up|down [climb|dive]"
                )
            raise_pick = picks[1] if len(picks) == 2 else None
            if len(picks) == 2 and raise_pick not in FORCE_RAISE_CHOICES:
                raise Rejection("typed_bad_word", command=command, word=args[1])
            order["actions"].append(
                {"type": "force", "choice": picks[0], "raise_choice": raise_pick}
            )
        elif command == "break":
            if len(args) > 1:
                raise Rejection("typed_extra_words", command=command, words=" ".join(args[1:]))
            order["actions"].append({"type": "break", "target": args[0] if args else None})
        else:
            order["actions"].append({"type": "power", "text": " ".join(args)})
    return order


# --------------------------------------------------------------------------- sky chart (D36)


def sky_chart(state: DragonsState) -> str:
    """A monospace chart of Altitude (rows, high first) against Speed (columns) for every dragon
    still in the battle (D36). Only occupied values are shown, so distances are not to scale;
    the legend gives the exact numbers."""
    shown = [d for d in state.dragons if d.in_battle]
    if not shown:
        return "(no dragons in the battle)"
    letters = {d.pid: chr(ord("A") + i % 26) for i, d in enumerate(state.dragons)}
    speeds = sorted({d.speed for d in shown})
    alts = sorted({d.altitude for d in shown}, reverse=True)
    cells: dict[tuple[int, int], str] = {}
    for d in shown:
        cells[(d.altitude, d.speed)] = cells.get((d.altitude, d.speed), "") + letters[d.pid]
    width = max(3, *(len(c) + 1 for c in cells.values()), *(len(str(s)) + 1 for s in speeds))
    label = max(len(str(a)) for a in alts)
    lines = [f"{'H':>{label}} │" + "".join(f"{'':>{width}}" for _ in speeds)]
    for a in alts:
        row = "".join(f"{cells.get((a, s), '·'):>{width}}" for s in speeds)
        lines.append(f"{a:>{label}} │{row}")
    lines.append(" " * label + " └" + "─" * (width * len(speeds)))
    lines.append(" " * label + "  " + "".join(f"{s:>{width}}" for s in speeds) + "  S")
    for d in shown:
        marks = [f"W{d.wounds}"] if d.wounds else []
        if d.shaken:
            marks.append("shaken")
        if d.falling:
            marks.append("falling")
        if d.tail_of:
            marks.append(f"tail→{letters.get(d.tail_of, '?')}")
        if d.consumed:
            marks.append("dragon")
        extra = f" {' '.join(marks)}" if marks else ""
        lines.append(f"{letters[d.pid]} {d.pid} [{d.side}] S{d.speed} H{d.altitude}{extra}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- resolution


class _Live(Dragon):
    """A mutable copy of a :class:`Dragon` for one resolution (made by :func:`_live`). Same
    slots as its base (it adds none), so :meth:`freeze` turns the copy itself into the frozen
    record by swapping its class: no second copy per dragon per turn."""

    __slots__ = ()
    # The frozen dataclass's __setattr__ raises; plain slot stores for the copy.
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__

    if TYPE_CHECKING:  # the fields, writable here (read-only on Dragon)
        pid: str
        side: str
        name: str
        npc: bool
        index: int
        wild_card: bool
        speed: int
        altitude: int
        wounds: int
        shaken: bool
        falling: bool
        fall_turns: int
        status: str
        tail_of: str | None
        broken: tuple[str, ...]
        consumed: bool

    def freeze(self) -> Dragon:
        """This copy as a frozen :class:`Dragon` (equal to one built field by field); the copy
        must not be used as a live one afterwards."""
        self.__class__ = Dragon  # type: ignore[assignment]
        return self


_new_object = object.__new__


def _live(d: Dragon) -> _Live:
    """A live copy of ``d``. A function rather than ``_Live(d)``: calling a class runs
    ``__new__`` and ``__init__`` by the generic (slower) call path; four per turn."""
    live: _Live = _new_object(_Live)
    live.pid = d.pid
    live.side = d.side
    live.name = d.name
    live.npc = d.npc
    live.index = d.index
    live.wild_card = d.wild_card
    live.speed = d.speed
    live.altitude = d.altitude
    live.wounds = d.wounds
    live.shaken = d.shaken
    live.falling = d.falling
    live.fall_turns = d.fall_turns
    live.status = d.status
    live.tail_of = d.tail_of
    live.broken = d.broken
    live.consumed = d.consumed
    return live


# What a failed trait roll's data says (TraitRoll.result: not a success).
_FAILED = ("fail", "crit_fail")

# Event(kind, actor, data) minus the named tuple's Python-level __new__ (same value), for the
# events every activation emits: the simulator builds millions.
_event = tuple.__new__


# The slot setters of :class:`DragonsState` (C-level member descriptors), for _new_state.
_STATE_SET = tuple(getattr(DragonsState, name).__set__ for name in DragonsState.__slots__)


def _new_state(
    config: DragonsConfig,
    stats: Mapping[str, Stats],
    dragons: tuple[Dragon, ...],
    turn: int,
    floor: int | None,
) -> DragonsState:
    """``DragonsState(...)`` without the frozen dataclass's ``__init__`` (one Python frame
    and five ``object.__setattr__`` calls less): the same value; one per resolution."""
    state: DragonsState = object.__new__(DragonsState)
    set_config, set_stats, set_dragons, set_turn, set_floor = _STATE_SET
    set_config(state, config)
    set_stats(state, stats)
    set_dragons(state, dragons)
    set_turn(state, turn)
    set_floor(state, floor)
    return state


class _Params:
    """What a resolution derives from a config, built once per config (see :func:`_params`).
    Hot config fields are copied as plain slots: a pydantic model's attributes are several
    times slower to read."""

    __slots__ = (
        "action_mods",
        "band_penalties",
        "climb_speed_cost",
        "config",
        "dive_speed_gain",
        "extra_crit_confirm",
        "fall_first_penalty",
        "fall_speed_step",
        "gang_up",
        "gang_up_cap",
        "level_capped_by_top_speed",
        "max_actions",
        "melee_requires_range_5",
        "moves",
        "penalties",
        "range_on_tail",
        "range_per_altitude",
        "range_per_speed",
        "range_same_position",
        "reach_factor",
        "target_number",
        "wild_die",
    )

    def __init__(self, cfg: DragonsConfig) -> None:
        self.config = cfg
        # Config fields read in the loops of random orders and on every attack or movement.
        self.max_actions = cfg.max_actions
        self.melee_requires_range_5 = cfg.melee_requires_range_5
        self.range_on_tail = cfg.range_on_tail
        self.range_per_speed = cfg.range_per_speed
        self.range_per_altitude = cfg.range_per_altitude
        self.range_same_position = cfg.range_same_position
        self.target_number = cfg.target_number
        self.band_penalties = cfg.band_penalties
        self.gang_up = cfg.gang_up
        self.gang_up_cap = cfg.gang_up_cap
        self.level_capped_by_top_speed = cfg.level_capped_by_top_speed
        self.climb_speed_cost = cfg.climb_speed_cost
        self.dive_speed_gain = cfg.dive_speed_gain
        self.fall_speed_step = cfg.fall_speed_step
        self.fall_first_penalty = cfg.fall_first_penalty
        self.wild_die = cfg.wild_die
        self.extra_crit_confirm = cfg.extra_crit_confirm
        # Ranged reach: x4 Long with the Extreme band (decision 21, SWADE only).
        extreme = cfg.extreme_range and edition_rules(cfg.edition).extreme_range
        self.reach_factor = EXTREME_FACTOR if extreme else 1
        # Legal movements of random orders by (Speed, Top Speed): asked for again and again.
        self.moves: dict[tuple[int, int], list[_MoveRow]] = {}
        # Decision 11 wound penalties by Wounds (rolls ask for them often).
        cap = cfg.wound_penalty_cap
        self.penalties = [
            (("wounds", wound_penalty(w, cap)),) for w in range(cfg.out_at_wounds + 1)
        ]
        # The modifiers of every action (decisions 4 and 11) by Wounds and declared actions.
        per = cfg.multi_action_penalty
        self.action_mods = [
            [(*pen, ("multi_action", multi_action_penalty(k, per))) for k in range(6)]
            for pen in self.penalties
        ]

    def legal_moves(self, speed: int, top: int) -> list[_MoveRow]:
        """:func:`_legal_moves`, memoised; the caller must not modify the list."""
        rows = self.moves.get((speed, top))
        if rows is None:
            rows = self.moves[(speed, top)] = _legal_moves(self.config, speed, top)
        return rows


# The Extreme band (decision 21): up to 4x Long, at -8 (range_band's defaults).
EXTREME_FACTOR = 4
EXTREME_PENALTY = -8

# The derived values of the last config seen: a config change (or another thread) only costs
# a recomputation.
_PARAMS: list[_Params | None] = [None]


def _params(cfg: DragonsConfig) -> _Params:
    params = _PARAMS[0]
    if params is None or params.config is not cfg:
        params = _PARAMS[0] = _Params(cfg)
    return params


class _Turn:
    """One resolution: activations in initiative order (D10), effects applied at once."""

    __slots__ = (
        "action_mods",
        "activated",
        "cfg",
        "confirm",
        "events",
        "floor",
        "forced",
        "live",
        "lives",
        "log",
        "memo",
        "orders",
        "params",
        "penalties",
        "ranks",
        "spent",
        "state",
        "stats",
        "tails",
        "tn",
        "wild_die",
    )

    def __init__(
        self,
        state: DragonsState,
        orders: Mapping[str, Sealed[DragonOrder]],
        log: TurnLog,
    ) -> None:
        cfg = state.config
        self.cfg = cfg
        self.state = state
        self.stats = state.stats
        self.orders = orders
        self.log = log
        self.events = log.events
        self.memo = log.memo  # equal events are one shared object (TurnLog.shared)
        self.forced: dict[str, tuple[str, int]] = {}
        self.spent: set[tuple[str, int]] = set()
        self.activated: set[str] = set()
        self.floor = state.floor  # D31 DEFAULT, see check_too_low
        live: dict[str, _Live] = {}
        ranks: dict[str, tuple[int, int, int]] = {}
        get = orders.get
        tails = False
        for d in state.dragons:
            live[d.pid] = _live(d)
            if d.tail_of is not None:
                tails = True
            # seal_rank (D8), inlined: one per dragon per turn.
            if d.npc or not d.wild_card or d.consumed:
                ranks[d.pid] = (1, d.index, 0)
            else:
                sealed = get(d.pid)
                # sealed[1] is sealed.seq (a named tuple's field by index: a plain subscript)
                ranks[d.pid] = (0, sealed[1] if sealed is not None else UNSEALED_SEQ, d.index)
        self.live = live
        self.lives = list(live.values())  # in state order; iterated often
        # False while no dragon is on a tail (the usual case): movement skips the pursuers'
        # loop (D26). Set again by every new tail.
        self.tails = tails
        self.ranks = ranks
        params = self.params = _params(cfg)
        self.penalties = params.penalties
        self.action_mods = params.action_mods
        self.tn = params.target_number
        self.wild_die = params.wild_die
        self.confirm = params.extra_crit_confirm

    # --- helpers

    def emit(self, kind: str, actor: str | None = None, **data: Any) -> None:
        """:meth:`TurnLog.emit` without the named tuple's Python-level ``__new__``."""
        self.events.append(_event(Event, (kind, actor, data)))

    def order_of(self, pid: str) -> DragonOrder:
        sealed = self.orders.get(pid)
        if sealed is None:
            return DragonOrder("level", self.cfg.default_speed_delta)
        return sealed.order

    def penalty(self, d: _Live) -> Sequence[tuple[str, int]]:
        wounds = d.wounds
        if 0 <= wounds < len(self.penalties):
            return self.penalties[wounds]
        return (("wounds", wound_penalty(wounds, self.cfg.wound_penalty_cap)),)  # decision 11

    def roll(
        self, d: _Live, trait: str, die: Die | None, mods: Sequence[tuple[str, int]], tn: int
    ) -> TraitRoll:
        """A trait roll of ``d`` (no crit confirmation: only powers need it)."""
        return roll_trait_data(
            self.log, d.pid, trait, die, d.wild_card, mods, tn, self.wild_die, False, self.confirm
        )[0]

    def clear_tails(self, d: _Live, reason: str) -> None:
        """A dragon that falls or leaves ends every tail it is part of."""
        if d.tail_of is not None:
            self.emit("tail_broken", d.pid, victim=d.tail_of, reason=reason)
            d.tail_of = None
        for other in self.lives:
            if other.tail_of == d.pid:
                self.emit("tail_broken", other.pid, victim=d.pid, reason=reason)
                other.tail_of = None

    def last_steady(self, d: _Live) -> None:
        """D31 DEFAULT (``all_falling_floor``): ``d``, steady and in the battle, is about to
        fall or leave; if no other dragon in the battle is steady, where it is becomes the
        Altitude D31 measures from while every dragon falls."""
        for other in self.lives:
            if other is not d and other.status == IN and not other.falling:
                return
        self.floor = d.altitude

    def start_fall(self, d: _Live, reason: str) -> None:
        """D29: the dragon starts Falling."""
        if d.falling or d.status != IN:
            return
        self.last_steady(d)
        d.falling = True
        d.fall_turns = 0
        self.emit("fall", d.pid, reason=reason, speed=d.speed, altitude=d.altitude)
        self.clear_tails(d, "fall")

    def leave(self, d: _Live, status: str, reason: str, fate: str) -> None:
        if not d.falling and d.status == IN:
            self.last_steady(d)
        d.status = status
        d.falling = False
        self.emit("out", d.pid, reason=reason, status=status, fate=fate)
        self.clear_tails(d, "out")

    def check_too_low(self) -> None:
        """D31: a falling dragon 10 or more below the lowest dragon that is not falling: an
        Extra dies, a Wild Card leaves (it recovers later and flies home). DEFAULT
        (``all_falling_floor``): when every dragon in the battle falls, measure from where the
        last steady one was (:meth:`last_steady`), so the falls end: they only speed up."""
        lowest: int | None = None
        highest_falling: int | None = None
        for d in self.lives:
            if d.status == IN:
                if d.falling:
                    if highest_falling is None or d.altitude > highest_falling:
                        highest_falling = d.altitude
                elif lowest is None or d.altitude < lowest:
                    lowest = d.altitude
        if highest_falling is None:
            return  # nobody falling: the usual case
        if lowest is None:  # every dragon in the battle falls
            if self.cfg.all_falling_floor == "none":
                return
            if self.floor is None:
                # A state with no memory of its last steady dragon (built by hand or saved
                # before the DEFAULT existed): the best placed of the falling ones stands in.
                self.floor = highest_falling
            lowest = self.floor
        floor = lowest - self.cfg.fall_out_depth
        for d in self.lives:
            if d.status == IN and d.falling and d.altitude <= floor:
                if d.wild_card:
                    self.leave(d, "left", "fell_too_far", "returns_later")
                else:
                    self.leave(d, "dead", "fell_too_far", "dead")

    # --- the turn

    def run(self) -> None:
        # D7-D8 as :func:`initiative`, on the live copies (same order: state order, stable sort).
        ranks = self.ranks
        ranked = [d for d in self.lives if d.status == IN]
        ranked.sort(key=lambda d: (-d.speed, -d.altitude, ranks[d.pid]))
        order: list[str] = []
        positions: dict[str, list[int]] = {}
        for d in ranked:
            order.append(d.pid)
            positions[d.pid] = [d.speed, d.altitude]
        turn = self.state.turn
        events = self.events
        data = {"turn": turn, "order": order, "positions": positions}
        events.append(_event(Event, ("initiative", None, data)))
        activated = self.activated
        for d in ranked:
            if d.status == IN:
                self.activate(d)
            activated.add(d.pid)
        self.check_too_low()
        dragons = []
        for d in self.lives:
            dragons.append(
                {
                    "pid": d.pid,
                    "side": d.side,
                    "speed": d.speed,
                    "altitude": d.altitude,
                    "wounds": d.wounds,
                    "shaken": d.shaken,
                    "falling": d.falling,
                    "tail_of": d.tail_of,
                    "status": d.status,
                    "broken": [*d.broken],
                    "consumed": d.consumed,
                }
            )
        events.append(_event(Event, ("status", None, {"turn": turn, "dragons": dragons})))
        if self.floor is not None:
            for d in self.lives:
                if d.status == IN and not d.falling:
                    self.floor = None  # D31 measures from the steady dragons again
                    break

    def activate(self, d: _Live) -> None:
        pid = d.pid
        events = self.events
        key = ("activation", pid, d.speed, d.altitude)
        event = self.memo.get(key)
        if event is None:
            data = {"speed": d.speed, "altitude": d.altitude}
            event = self.log.shared(key, _event(Event, ("activation", pid, data)))
        events.append(event)
        if d.falling:
            self.fall_turn(d)
            return
        if d.consumed and self.cfg.consumed_attacks_nearest:
            order = self.consumed_order(d)
        else:
            sealed = self.orders.get(pid)
            # sealed[0] is sealed.order: a named tuple's field by index is a plain subscript
            order = sealed[0] if sealed is not None else self.order_of(pid)
        may_act = True
        if d.shaken:
            # Decision 8: Spirit at the start of the activation, before movement.
            roll, rolled = roll_trait_data(
                self.log, pid, "spirit", self.stats[pid].spirit, d.wild_card, self.penalty(d),
                self.tn, self.wild_die, False, self.confirm,
            )  # fmt: skip
            recovered, may_act = shaken_recovery(roll, self.cfg.edition)
            if recovered:
                d.shaken = False
            info = {"roll": rolled, "recovered": recovered, "may_act": may_act}
            events.append(_event(Event, ("recover", pid, info)))
        if d.tail_of is None:
            forced = self.forced.get(pid) if self.forced else None  # rarely any (D27)
            if forced is None:
                self.move(d, order.move, order.n, order.aerobatics, False)
            else:
                self.move(d, forced[0], forced[1], None, True)
        actions = order.actions
        if not actions:
            return
        if d.status != IN or d.falling or d.shaken or not may_act:
            reason = "shaken" if d.shaken or not may_act else "falling" if d.falling else "out"
            self.emit("actions_void", pid, reason=reason, count=len(actions))
            return
        mods: Sequence[tuple[str, int]]
        if d.wounds < len(self.action_mods) and len(actions) < 6:
            mods = self.action_mods[d.wounds][len(actions)]
        else:
            mods = (*self.penalty(d), ("multi_action", multi_action_penalty(
                len(actions), self.cfg.multi_action_penalty)))  # fmt: skip
        spent = self.spent
        consumed = d.consumed
        for i, action in enumerate(actions):
            if spent and (pid, i) in spent:
                continue
            if d.status != IN or d.falling or d.shaken or d.consumed is not consumed:
                # e.g. a power's crit earlier this activation: the pilot consumed (D34), its
                # orders end there
                self.emit("impossible", pid, action=i, type=action.type, reason="disabled")
                continue
            kind = action.type
            if kind == "attack":
                self.attack(d, i, action, mods)
            elif kind == "tail":
                self.tail(d, i, action, mods)
            elif kind == "force":
                self.force(d, i, action, mods)
            elif kind == "break":
                self.break_tail(d, i, action, mods)
            else:
                self.power(d, i, action, mods)

    def impossible(self, d: _Live, i: int, action: Action, reason: str, **data: Any) -> None:
        # Decision 6: the declared action still counted for the multi-action penalty.
        info = {"action": i, "type": action.type, "reason": reason, **data}
        self.events.append(_event(Event, ("impossible", d.pid, info)))

    # --- movement (D11-D16, D26, D33)

    def move(self, d: _Live, move: str, n: int, aero: str | None, forced: bool) -> None:
        converted = False
        if d.shaken and move != "level":
            move, n, converted = "level", 0, True  # D16 / decision 7
        speed_from, altitude_from = d.speed, d.altitude
        self.apply_move(d, move, n)
        pid = d.pid
        data = {
            "move": move,
            "n": n,
            "aerobatics": aero,
            "forced": forced,
            "converted": converted,
            "speed_from": speed_from,
            "altitude_from": altitude_from,
            "speed": d.speed,
            "altitude": d.altitude,
        }
        self.events.append(_event(Event, ("move", pid, data)))
        moved: list[_Live] | None = None
        if self.tails:
            if move == "level":
                # D26: pursuers copy the movement made, e.g. a forced "speed up" (D27) that
                # stopped at the victim's Top Speed (D15) is +1, not the +2 asked.
                n = d.speed - speed_from
            # D26: pursuers copy the movement, and so do their own pursuers (a chain of tails
            # moves as one). A tail has one victim, so the chain is a tree rooted at d.
            leaders = [d]
            for leader in leaders:  # grows while iterated
                lead = leader.pid
                for p in self.lives:
                    if p.tail_of == lead and p.status == IN and self.copy_move(p, leader, move, n):
                        leaders.append(p)
            if len(leaders) > 1:
                moved = leaders[1:]
        # after_move, inlined for the usual case: Speed left and no dangerous manoeuvre.
        if d.speed <= 0 or aero or (move == "dive" and d.speed > self.stats[pid].top_speed):
            self.after_move(d, move, aero)
        if moved is not None:
            for p in moved:
                if p.status == IN and not p.falling:
                    self.after_move(p, move, aero)

    def apply_move(self, d: _Live, move: str, n: int) -> None:
        # Comparisons rather than min/max calls: one movement per activation.
        if move == "level":
            speed = d.speed + n
            if n > 0 and self.params.level_capped_by_top_speed:
                # A forced "speed up" stops at Top Speed (or the Speed it had above it).
                top = self.stats[d.pid].top_speed
                if speed > top:
                    speed = top if top > d.speed else d.speed
            d.speed = speed if speed > 0 else 0
        elif move == "climb":
            speed = d.speed - self.params.climb_speed_cost * n  # D12
            d.speed = speed if speed > 0 else 0  # D14
            d.altitude += n
        else:
            d.speed += self.params.dive_speed_gain * n  # D13
            d.altitude -= n

    def copy_move(self, p: _Live, victim: _Live, move: str, n: int) -> bool:
        """D26: the pursuer copies the victim's movement; a manoeuvre it cannot make breaks the
        tail (D28 DEFAULT) and it keeps its position."""
        reason: str | None = None
        if p.shaken and move != "level":
            reason = "shaken"  # D16: a Shaken pursuer cannot change Altitude
        else:
            _, _, why, _ = movement_result(self.cfg, self.stats[p.pid], p, move, n)
            if why is not None:
                reason = why.code
        if reason is not None:
            self.emit("tail_broken", p.pid, victim=victim.pid, reason=reason)
            p.tail_of = None
            return False
        before = (p.speed, p.altitude)
        self.apply_move(p, move, n)
        self.emit(
            "move",
            p.pid,
            move=move,
            n=n,
            copied_from=victim.pid,
            speed_from=before[0],
            altitude_from=before[1],
            speed=p.speed,
            altitude=p.altitude,
        )
        return True

    def after_move(self, d: _Live, move: str, aero: str | None) -> None:
        if d.speed <= 0:
            self.start_fall(d, "speed_zero")  # D14
            return
        over_top = move == "dive" and d.speed > self.stats[d.pid].top_speed
        if not aero and not over_top:
            return
        reasons = [r for r, on in (("aerobatics", aero), ("over_top_speed", over_top)) if on]
        # D33 / decision 5: a free Piloting roll, wound penalties only. Decision 16: a crit
        # matters (an Extra's 1 is confirmed) only with the decision 32 option.
        crit_matters = self.cfg.dangerous_crit_altitude_loss != 0
        roll, rolled = roll_trait_data(
            self.log, d.pid, "piloting", self.stats[d.pid].piloting, d.wild_card,
            self.penalty(d), self.tn, self.wild_die, crit_matters, self.confirm,
        )  # fmt: skip
        data = {"reasons": reasons, "aerobatics": aero, "roll": rolled}
        self.events.append(_event(Event, ("dangerous", d.pid, data)))
        if roll.crit or roll.total < roll.tn:  # not roll.success
            if roll.crit and self.cfg.dangerous_crit_altitude_loss:
                d.altitude -= self.cfg.dangerous_crit_altitude_loss  # decision 32 (option)
            self.start_fall(d, "dangerous")

    # --- falling (D29-D32)

    def fall_turn(self, d: _Live) -> None:
        params = self.params
        loss = -(-d.speed // params.fall_speed_step)  # fall_loss (D30), inlined: no max call
        loss = loss if loss > 1 else 1
        d.altitude -= loss
        d.speed += params.dive_speed_gain * loss
        data = {"lost": loss, "speed": d.speed, "altitude": d.altitude}
        self.events.append(_event(Event, ("falling", d.pid, data)))
        self.check_too_low()
        if d.status != IN:
            return
        penalty = -(d.fall_turns + params.fall_first_penalty)  # D32 / decision 29
        rolled = roll_trait_data(
            self.log, d.pid, "piloting", self.stats[d.pid].piloting, d.wild_card,
            (*self.penalty(d), ("falling", penalty)), self.tn, self.wild_die, False, self.confirm,
        )[1]  # fmt: skip
        success = rolled["result"] not in _FAILED  # roll.success
        info = {"roll": rolled, "success": success}
        self.events.append(_event(Event, ("regain", d.pid, info)))
        if success:
            d.falling = False
            d.fall_turns = 0
        else:
            d.fall_turns += 1

    # --- attacks and damage (D17-D24)

    def attack(self, d: _Live, i: int, a: Action, mods: Sequence[tuple[str, int]]) -> None:
        pid = d.pid
        stats = self.stats[pid]
        t = self.live.get(a.target or "")
        weapon = stats.weapon(a.weapon or "")
        if t is None or t.status != IN or weapon is None:
            self.impossible(d, i, a, "target_gone" if weapon else "no_such_weapon")
            return
        reason, rng, band, penalty, tn = _attack_geometry(self.params, self.stats, d, t, weapon)
        if reason is not None:
            self.impossible(d, i, a, reason, target=t.pid, weapon=weapon.name, range=rng)
            return
        if weapon.melee:
            if self.params.gang_up:
                mods = (*mods, ("gang_up", self.gang_up(d, t)))
            trait, die = "fighting", stats.fighting
        else:
            mods = (*mods, ("range", penalty))
            trait, die = "shooting", stats.shooting
        rolled = roll_trait_data(
            self.log, pid, trait, die, d.wild_card, mods, tn, self.wild_die, False, self.confirm
        )[1]
        data = {
            "target": t.pid,
            "weapon": weapon.name,
            "melee": weapon.melee,
            "range": rng,
            "band": band,
            "roll": rolled,
        }
        events = self.events
        events.append(_event(Event, ("attack", pid, data)))
        # The result from the roll's data: a named tuple's field by name (roll.total) is a
        # generic attribute lookup, a dict's by key a plain subscript.
        if rolled["result"] in _FAILED:  # not roll.success
            key: tuple[Any, ...] = ("miss", pid, t.pid, weapon.name)
            event = self.memo.get(key)
            if event is None:
                data = {"target": t.pid, "weapon": weapon.name}
                event = self.log.shared(key, _event(Event, ("miss", pid, data)))
            events.append(event)
            return
        raises: int = rolled["raises"]  # roll.raises
        key = ("hit", pid, t.pid, weapon.name, raises)
        event = self.memo.get(key)
        if event is None:
            data = {"target": t.pid, "weapon": weapon.name, "raises": raises}
            event = self.log.shared(key, _event(Event, ("hit", pid, data)))
        events.append(event)
        self.damage(d, t, weapon, raises > 0)

    def gang_up(self, d: _Live, t: _Live) -> int:
        """Decision 23: other foes of the target adjacent to it (same Altitude, Range 5), minus
        the target's allies there."""
        foes = allies = 0
        skip = (d.pid, t.pid)
        team = f"dragon:{t.pid}" if t.consumed else t.side  # t.team
        for o in self.lives:
            if o.pid in skip or o.status != IN or o.falling:
                continue
            if o.altitude != t.altitude or o.speed != t.speed:
                continue
            if (o.team if o.consumed else o.side) == team:
                allies += 1
            else:
                foes += 1
        return gang_up(foes, allies, self.params.gang_up_cap)

    def damage(self, d: _Live, t: _Live, weapon: Weapon, raised: bool) -> None:
        """D22 / decision 26: Strength die + weapon dice (melee) or fixed dice, all acing,
        +1d6 on a raise; compared with Toughness, AP lowering only armour (decision 27)."""
        spec = weapon.damage
        dice = spec.dice
        flat = spec.flat
        if spec.strength:
            strength = self.stats[d.pid].strength
            dice = (strength.sides, *dice)
            flat += strength.bonus
        dmg = damage_roll(self.log, d.pid, dice, flat=flat, raise_bonus=raised)
        tstats = self.stats[t.pid]
        toughness, armor, ap = tstats.toughness, tstats.armor, weapon.ap
        eff = damage_effect(dmg.total, toughness, armor=armor, ap=ap, already_shaken=t.shaken)
        data = {
            "target": t.pid,
            "weapon": weapon.name,
            "roll": dmg.to_data(),
            "toughness": toughness,
            "armor": armor,
            "ap": ap,
            "excess": eff.excess,
            "wounds": eff.wounds,
        }
        events = self.events
        events.append(_event(Event, ("damage", d.pid, data)))
        if eff.excess < 0:  # not eff.hit
            return
        if not t.shaken:
            events.append(_event(Event, ("shaken", t.pid, {"by": d.pid})))
        t.shaken = True
        if eff.wounds:
            self.wound(t, eff.wounds, by=d.pid)

    def wound(self, t: _Live, wounds: int, *, by: str | None) -> None:
        """D24: the dragon wound table (replacing the base wound effects)."""
        old = t.wounds
        new = old + wounds
        t.wounds = min(new, self.cfg.out_at_wounds)
        self.emit("wound", t.pid, by=by, wounds=wounds, total=new)
        fate = "dead" if self.cfg.terrain == "blue" else "gm"
        if not t.wild_card:
            # D24 / decision 14: an Extra leaves at 1 wound, falls (dead in the Blue) at 2.
            if new >= 2:
                self.leave(t, "dead" if fate == "dead" else "fell", "extra_falls", fate)
            else:
                self.leave(t, "left", "extra_retreats", "retreats")
            return
        if new >= self.cfg.out_at_wounds:
            self.leave(t, "out", "incapacitated", fate)  # D24: 4+ wounds
            return
        loss = 0
        for level in range(old + 1, new + 1):  # decision 12: every threshold, in order
            if level in (1, 2):
                step = self.cfg.wound_speed_loss[level - 1]
                loss = loss + step if self.cfg.cumulative_speed_loss else step
            if level == 2:
                self.breakage(t, self.cfg.break_at_two_wounds)
            if level == 3:
                if loss:
                    self.lose_speed(t, loss)
                    loss = 0
                t.altitude -= self.cfg.altitude_loss_at_three_wounds
                self.start_fall(t, "third_wound")
                self.breakage(t, self.cfg.break_at_three_wounds)
                self.spirit_or_consumed(t, "third_wound")
        if loss:
            self.lose_speed(t, loss)

    def lose_speed(self, t: _Live, loss: int) -> None:
        t.speed = max(t.speed - loss, 0)
        self.emit("speed_loss", t.pid, lost=loss, speed=t.speed)
        if t.speed == 0:
            self.start_fall(t, "speed_zero")  # D14

    def breakage(self, t: _Live, threshold: int) -> None:
        """D24 / decision 28: a plain d6 per working weapon; at or under ``threshold`` it is
        damaged for the rest of the battle."""
        for w in self.stats[t.pid].weapons:
            if w.name in t.broken:
                continue
            face = self.log.die(6, f"breakage:{w.name}", t.pid)
            if face <= threshold:
                t.broken = (*t.broken, w.name)
                self.emit("weapon_broken", t.pid, weapon=w.name, face=face)

    def spirit_or_consumed(self, t: _Live, reason: str) -> None:
        """D34 / decision 31: Spirit at TN 4 with wound penalties; failure: the dragon takes
        over (the GM controls it; it attacks the nearest target)."""
        roll = self.roll(t, "spirit", self.stats[t.pid].spirit, self.penalty(t), self.tn)
        self.emit("spirit", t.pid, reason=reason, roll=roll.to_data(), success=roll.success)
        if not roll.success and not t.consumed:
            t.consumed = True
            self.clear_tails(t, "takeover")
            self.emit("takeover", t.pid, reason=reason)

    def consumed_order(self, d: _Live) -> DragonOrder:
        """D34: a consumed dragon flies level and attacks the nearest dragon with the first
        weapon that can reach it."""
        target = _nearest(self.cfg, d, self.lives)
        actions: tuple[Action, ...] = ()
        if target is not None:
            t = self.live[target]
            for w in self.stats[d.pid].weapons:
                if _attack_geometry(self.params, self.stats, d, t, w)[0] is None:
                    actions = (Action("attack", weapon=w.name, target=target),)
                    break
        self.emit("consumed_orders", d.pid, target=target, actions=len(actions))
        return DragonOrder("level", 0, None, actions)

    # --- tailing (D25-D28)

    def tail(self, d: _Live, i: int, a: Action, mods: Sequence[tuple[str, int]]) -> None:
        t = self.live.get(a.target or "")
        if t is None or t.status != IN or t.falling:
            self.impossible(d, i, a, "target_gone")
            return
        if d.tail_of == t.pid:
            self.impossible(d, i, a, "already_on_tail", target=t.pid)
            return
        if (d.speed, d.altitude) != (t.speed, t.altitude):
            self.impossible(d, i, a, "not_same_position", target=t.pid)  # D25
            return
        # D25: if the target also attempts it this turn, one contest decides both.
        mutual = None
        if not t.shaken and t.pid not in self.activated:
            their = self.order_of(t.pid).actions
            mutual = next(
                (j for j, x in enumerate(their) if x.type == "tail" and x.target == d.pid), None
            )
        dmods = self.penalty(t)
        if mutual is not None:
            self.spent.add((t.pid, mutual))
            n_actions = len(self.order_of(t.pid).actions)
            dmods = [*dmods, ("multi_action", multi_action_penalty(
                n_actions, self.cfg.multi_action_penalty))]  # fmt: skip
        mine = self.roll(d, "piloting", self.stats[d.pid].piloting, mods, self.tn)
        theirs = self.roll(t, "piloting", self.stats[t.pid].piloting, dmods, self.tn)
        res = opposed(mine, theirs)
        contest = res.to_data()
        if res.initiator_wins:
            self.emit("tail", d.pid, victim=t.pid, mutual=mutual is not None, contest=contest)
            self.set_tail(d, t)
        elif res.defender_wins and mutual is not None:
            self.emit("tail", t.pid, victim=d.pid, mutual=True, contest=contest)
            self.set_tail(t, d)
        else:
            self.emit("evade", t.pid, pursuer=d.pid, contest=contest)
        if mine.crit or theirs.crit:
            # D25: a target that attempted the tail too rolled for its own attempt.
            kind: ManoeuvreRoll = "tail" if mutual is not None else "tail_defence"
            self.manoeuvre_crit(d, mine, "tail", t, theirs, kind)

    def set_tail(self, pursuer: _Live, victim: _Live) -> None:
        """``pursuer`` is now on ``victim``'s tail (D25). The winner ends up right behind the
        loser, so the loser is no longer behind the winner: a victim that was on its new
        pursuer's tail is off it. DEFAULT (``tail_circles``): the same along a chain of tails,
        so tails never close a circle, whose movement D26 leaves undefined (nobody in it has
        a victim that moves by its own order)."""
        pursuer.tail_of = victim.pid
        self.tails = True
        v = victim
        # At most one step per dragon: a circle kept by the "allowed" option is not walked
        # for ever.
        for _ in self.lives:
            ahead = v.tail_of
            if ahead is None:
                return
            if ahead == pursuer.pid:
                if v is victim or self.cfg.tail_circles == "newest_stands":
                    v.tail_of = None
                    self.emit("tail_broken", v.pid, victim=pursuer.pid, reason="circle")
                return
            v = self.live[ahead]

    def force(self, d: _Live, i: int, a: Action, mods: Sequence[tuple[str, int]]) -> None:
        victim = self.live.get(d.tail_of or "")
        if victim is None or victim.status != IN:
            self.impossible(d, i, a, "not_on_tail")
            return
        if self.ranks[d.pid] >= self.ranks[victim.pid]:
            self.impossible(d, i, a, "sealed_after_victim", victim=victim.pid)  # D27
            return
        if victim.pid in self.activated:
            self.impossible(d, i, a, "victim_already_moved", victim=victim.pid)
            return
        if victim.tail_of is not None:
            # DEFAULT (D26, D27): a victim on a tail of its own moves as its victim moves, so
            # no change can be forced on it; no roll is made.
            self.impossible(d, i, a, "victim_on_tail", victim=victim.pid)
            return
        mine = self.roll(d, "piloting", self.stats[d.pid].piloting,
                         (*mods, ("force", -self.cfg.force_penalty)), self.tn)  # fmt: skip
        theirs = self.roll(victim, "piloting", self.stats[victim.pid].piloting,
                           self.penalty(victim), self.tn)  # fmt: skip
        res = opposed(mine, theirs)
        if not res.initiator_wins:
            self.emit("force_failed", d.pid, victim=victim.pid, contest=res.to_data())
            if mine.crit or theirs.crit:
                self.manoeuvre_crit(d, mine, "force", victim, theirs, "force_defence")
            return
        choice = a.raise_choice if res.raises >= 1 and a.raise_choice else a.choice or "up"
        move = {
            "up": ("level", self.cfg.forced_speed_up),
            "down": ("level", -self.cfg.forced_slow_down),
            "climb": ("climb", self.cfg.forced_climb),
            "dive": ("dive", self.cfg.forced_dive),
        }[choice]
        self.forced[victim.pid] = move
        self.emit(
            "force", d.pid, victim=victim.pid, choice=choice, move=list(move),
            contest=res.to_data(),
        )  # fmt: skip
        if theirs.crit:  # the pursuer won: its roll was no crit
            self.manoeuvre_crit(d, mine, "force", victim, theirs, "force_defence")

    def break_tail(self, d: _Live, i: int, a: Action, mods: Sequence[tuple[str, int]]) -> None:
        pursuers = [p for p in self.lives if p.tail_of == d.pid and p.status == IN]
        if a.target is not None:
            pursuers = [p for p in pursuers if p.pid == a.target]
        if not pursuers:
            self.impossible(d, i, a, "no_pursuer")
            return
        p = pursuers[0]
        mods = (*mods, ("break_tail", -self.cfg.break_tail_penalty))
        mine = self.roll(d, "piloting", self.stats[d.pid].piloting, mods, self.tn)
        theirs = self.roll(p, "piloting", self.stats[p.pid].piloting, self.penalty(p), self.tn)
        res = opposed(mine, theirs)
        if res.initiator_wins:
            p.tail_of = None
            self.emit("tail_broken", p.pid, victim=d.pid, reason="contest",
                          contest=res.to_data())  # fmt: skip
        else:
            self.emit("break_failed", d.pid, pursuer=p.pid, contest=res.to_data())
        if mine.crit or theirs.crit:
            self.manoeuvre_crit(d, mine, "break", p, theirs, "break_defence")

    def manoeuvre_crit(
        self,
        d: _Live,
        mine: TraitRoll,
        my_kind: ManoeuvreRoll,
        t: _Live,
        theirs: TraitRoll,
        kind: ManoeuvreRoll,
    ) -> None:
        """D29: a critical failure on a manoeuvre (a roll of ``manoeuvre_rolls``) starts
        Falling, for the initiator ``d`` and the defender ``t`` alike (an Extra's 1 is no crit
        here, decision 16)."""
        cfg = self.cfg
        if cfg.manoeuvre_crit_falls:
            if mine.crit and my_kind in cfg.manoeuvre_rolls:
                self.start_fall(d, "manoeuvre_crit")
            if theirs.crit and kind in cfg.manoeuvre_rolls:
                self.start_fall(t, "manoeuvre_crit")

    # --- powers (D34a)

    def power(self, d: _Live, i: int, a: Action, mods: Sequence[tuple[str, int]]) -> None:
        arcane = self.stats[d.pid].arcane
        if arcane is None:
            self.impossible(d, i, a, "no_arcane_skill")
            return
        roll = roll_trait_data(self.log, d.pid, "arcane", arcane, d.wild_card, mods, self.tn,
                               self.wild_die, True, self.confirm)[0]  # fmt: skip
        self.emit("power", d.pid, text=a.text, roll=roll.to_data(), success=roll.success)
        if roll.crit:
            self.spirit_or_consumed(d, "power_crit")  # D34


# (move, n, Speed after, Altitude change) of a movement.
_MoveRow = tuple[str, int, int, int]


def _legal_moves(cfg: DragonsConfig, speed: int, top: int) -> list[_MoveRow]:
    """Every legal movement of a dragon at ``speed`` that is not on a tail, with at most 3
    units of climb or dive (the same rules as :func:`movement_result`, without building
    rejections)."""
    out: list[_MoveRow] = []
    for k in range(-cfg.level_slow_down, cfg.level_speed_up + 1):
        after = speed + k
        if after < 0 or (k > 0 and cfg.level_capped_by_top_speed and after > max(top, speed)):
            continue
        out.append(("level", k, after, 0))
    for k in range(1, min(3, cfg.max_altitude_change) + 1):
        after = speed - cfg.climb_speed_cost * k
        if after < 0 and cfg.refuse_impossible_climb:
            break
        out.append(("climb", k, max(after, 0), k))
    for k in range(1, min(3, cfg.max_altitude_change) + 1):
        out.append(("dive", k, speed + cfg.dive_speed_gain * k, -k))
    return out


# A candidate action of a random order: the fields of :class:`Action` in order (an Action is
# only built for the few that are chosen).
_Candidate = tuple[str, str | None, str | None, str | None, str | None, str]


def _actions_from(
    params: _Params,
    weapons: Sequence[Weapon],
    speed: int,
    altitude: int,
    tail_of: str | None,
    foes: Sequence[Dragon],
) -> list[_Candidate]:
    """Attacks and tail attempts that look possible from (``speed``, ``altitude``): the D18-D21
    geometry of :func:`_attack_geometry`, inlined because random play calls it a lot.
    ``weapons`` are the working ones."""
    out: list[_Candidate] = []
    factor = params.reach_factor
    adjacent_only = params.melee_requires_range_5
    for foe in foes:
        same_alt = altitude == foe.altitude
        same_speed = speed == foe.speed
        on_tail = same_alt and tail_of == foe.pid
        above = altitude > foe.altitude
        # The Range only matters to a ranged weapon, from above or on the tail (D18-D19).
        if on_tail:
            rng = params.range_on_tail
        elif above:
            rng = params.range_per_speed * abs(speed - foe.speed) + params.range_per_altitude * (
                altitude - foe.altitude
            )
        else:
            rng = 0  # not read
        for w in weapons:
            if w.melee:
                if same_alt and (same_speed or not adjacent_only):
                    out.append(("attack", w.name, foe.pid, None, None, ""))
            elif (above or on_tail) and w.bands is not None and rng <= w.bands[2] * factor:
                out.append(("attack", w.name, foe.pid, None, None, ""))
        if same_alt and same_speed and tail_of != foe.pid and not foe.falling:
            out.append(("tail", None, foe.pid, None, None, ""))
    return out


# Random orders by their fields: equal orders are one object (immutable), so the simulator's
# sealed-order cache hits and no Action or DragonOrder is built for an order seen before.
# Bounded: cleared when full.
_ORDERS: dict[tuple[Any, ...], DragonOrder] = {}
_LEVEL = DragonOrder("level", 0)
# The actions of those orders by their fields (fewer than the orders; bounded the same way).
_ACTIONS: dict[_Candidate, Action] = {}


def _action(fields: _Candidate) -> Action:
    if len(_ACTIONS) >= 4096:
        _ACTIONS.clear()
    action = _ACTIONS[fields] = Action(*fields)
    return action


class _OrderContext:
    """What the random orders of one state share: every acting dragon asks on the same
    state, one after another."""

    __slots__ = ("alive", "by_pid", "params", "state", "teams")

    def __init__(self, state: DragonsState) -> None:
        self.state = state
        self.params = _params(state.config)
        by_pid: dict[str, Dragon] = {}
        alive: list[tuple[Dragon, str]] = []
        teams: dict[str, str] = {}
        for d in state.dragons:
            by_pid[d.pid] = d
            if d.status == IN:
                team = f"dragon:{d.pid}" if d.consumed else d.side  # Dragon.team (D34)
                alive.append((d, team))
                teams[d.pid] = team
        self.by_pid = by_pid
        self.alive = alive  # the dragons in the battle with their teams, in state order
        self.teams = teams


# The context of the last state asked about (one entry, swapped whole: thread-safe enough,
# a miss only costs a recomputation).
_CONTEXT: list[_OrderContext | None] = [None]


# --------------------------------------------------------------------------- the ruleset


class DragonsRuleset(Ruleset[DragonsConfig, DragonsState, DragonOrder]):
    """The dragon dogfight (D1-D36)."""

    id = "dragons"
    # Replays (engine/verify.py) run the recorded version: "2" added the D31 floor to the
    # state and the D25-D26, D29, D31 DEFAULTs to the config, so "1" turns no longer replay.
    version = "2"
    config_model = DragonsConfig
    character_model = CharacterSpec
    min_participants = 2
    max_participants = 12
    # Simulator keys: event kinds (hit, shaken, wound, fall, tail, takeover, out, ...) plus
    # why dragons fell and left.
    count_detail: ClassVar[Mapping[str, str]] = {"fall": "reason", "out": "reason"}

    # --- configuration and characters

    def check_character(self, config: DragonsConfig, raw: Mapping[str, Any]) -> CharacterSpec:
        spec = parse_model(CharacterSpec, raw, what="character")
        build_stats(spec)
        return spec

    def presets(self, config: DragonsConfig) -> Mapping[str, Mapping[str, Any]]:
        return presets(config)

    # --- the turn

    def setup(
        self, config: DragonsConfig, entrants: Sequence[Entrant], log: TurnLog
    ) -> DragonsState:
        specs = [self.check_character(config, e.character) for e in entrants]
        sides = {e.side or e.pid for e in entrants}
        if len(sides) < 2:  # D35: with one side the battle would be over before turn 1
            raise Rejection("one_side", side=next(iter(sides), ""))
        lowest = min(s.altitude for s in specs)
        shift = config.lowest_start_altitude - lowest  # D5: the lowest dragon starts at 10
        dragons = tuple(
            Dragon(
                pid=e.pid,
                side=e.side or e.pid,
                name=e.name or s.name,
                npc=e.npc,
                index=i,
                wild_card=s.wild_card,
                speed=s.speed,
                altitude=s.altitude + shift,
            )
            for i, (e, s) in enumerate(zip(entrants, specs, strict=True))
        )
        stats = {e.pid: build_stats(s) for e, s in zip(entrants, specs, strict=True)}
        log.emit("battle", None, positions={d.pid: [d.speed, d.altitude] for d in dragons})
        return DragonsState(config, stats, dragons)

    def acting(self, state: DragonsState) -> frozenset[str]:
        # D34: a consumed dragon receives no orders from its pilot's player.
        own_orders = not state.config.consumed_attacks_nearest
        return frozenset(
            [d.pid for d in state.dragons if d.status == IN and (own_orders or not d.consumed)]
        )

    def controller(self, state: DragonsState, pid: str) -> Literal["gm", "player"]:
        # D34: once the dragon has consumed its pilot, its orders come from the GM.
        d = next((d for d in state.dragons if d.pid == pid), None)
        return "gm" if d is not None and d.consumed else "player"

    def parse_order(self, state: DragonsState, pid: str, raw: Mapping[str, Any]) -> DragonOrder:
        return parse_order_dict(state.config, raw)

    def validate(self, state: DragonsState, pid: str, order: DragonOrder) -> Rejection | None:
        cfg = state.config
        try:
            me = state.dragon(pid)
        except Rejection as exc:
            return exc
        if not me.in_battle:
            return Rejection("not_in_battle", pid=pid)
        stats = state.stats[pid]
        if me.tail_of is not None:
            if (order.move, order.n) != ("level", 0) or order.aerobatics:
                return Rejection("pursuer_copies_victim", victim=me.tail_of)  # D26
        elif not me.falling:  # D32: a falling dragon's movement is void anyway
            reason = movement_result(cfg, stats, me, order.move, order.n)[2]
            if reason is not None:
                return reason
        weapons_used: set[str] = set()
        will_tail = me.tail_of is not None
        for i, a in enumerate(order.actions):
            where = f"actions.{i}"
            if a.type in ("attack", "tail"):
                target = next((d for d in state.dragons if d.pid == a.target), None)
                if target is None:
                    return Rejection("no_such_target", field=where, target=a.target)
                if target.pid == pid:
                    return Rejection("cannot_target_self", field=where)
                if not target.in_battle:
                    return Rejection("target_not_in_battle", field=where, target=target.pid)
                if target.team == me.team:
                    return Rejection("target_is_ally", field=where, target=target.pid)
            if a.type == "attack":
                weapon = stats.weapon(a.weapon or "")
                if weapon is None:
                    names = ", ".join(w.name for w in stats.weapons)
                    return Rejection("no_such_weapon", field=where, weapon=a.weapon, choices=names)
                if weapon.name in me.broken:
                    return Rejection("weapon_broken", field=where, weapon=weapon.name)  # D24
                if weapon.name in weapons_used:
                    return Rejection("weapon_used_twice", field=where, weapon=weapon.name)  # D17
                weapons_used.add(weapon.name)
                if state.dragon(a.target or "").tail_of == pid:
                    return Rejection("cannot_attack_pursuer", field=where, target=a.target)  # D26
            elif a.type == "tail":
                if me.tail_of == a.target:
                    return Rejection("already_on_tail", field=where, target=a.target)
                will_tail = True
            elif a.type == "force":
                if not will_tail:
                    return Rejection("not_on_tail", field=where)  # D27
            elif a.type == "break":
                pursuers = [d.pid for d in state.dragons if d.tail_of == pid and d.in_battle]
                if not pursuers:
                    return Rejection("no_pursuer", field=where)  # D28
                if a.target is not None and a.target not in pursuers:
                    return Rejection("not_your_pursuer", field=where, target=a.target)
            elif a.type == "power" and stats.arcane is None:
                return Rejection("no_arcane_skill", field=where)  # D34a
        return None

    def dump_order(self, order: DragonOrder) -> dict[str, Any]:
        return dump_order_dict(order)

    def default_order(self, state: DragonsState, pid: str) -> DragonOrder:
        """Level flight, no action (DEFAULT), Speed change from config; a pursuer or a dragon
        that could not make the change keeps its Speed."""
        cfg = state.config
        me = state.dragon(pid)
        delta = cfg.default_speed_delta
        if (
            me.tail_of is not None
            or movement_result(cfg, state.stats[pid], me, "level", delta)[2] is not None
        ):
            delta = 0
        return DragonOrder("level", delta)

    def random_order(self, state: DragonsState, pid: str, rng: random.Random) -> DragonOrder:
        """A random legal order: a legal movement (with at most 3 units of climb or dive),
        preferring one after which an attack or a tail attempt is possible, so random battles
        end: from a uniformly drawn movement on, in the list order (level -1..+2, climb 1..3,
        dive 1..3) and round to the start, the first such one; the drawn one if none is. Then
        an occasional aerobatics and 1-3 actions drawn from those that look possible after
        the movement."""
        ctx = _CONTEXT[0]
        if ctx is None or ctx.state is not state:
            ctx = _CONTEXT[0] = _OrderContext(state)
        me = ctx.by_pid.get(pid)
        if me is None:
            raise Rejection("no_such_participant", pid=pid)
        params = ctx.params
        if me.status != IN or me.falling:
            if params.config.default_speed_delta == 0:
                return _LEVEL  # default_order's value when the Speed change is 0
            return self.default_order(state, pid)
        stats = state.stats[pid]
        team = ctx.teams[pid]
        foes: list[Dragon] = []
        pursued = False
        for d, their_team in ctx.alive:
            if d.tail_of == pid:
                pursued = True  # D26: its pursuer cannot be attacked
            elif their_team != team:
                foes.append(d)
        tail_of = me.tail_of
        moves: list[_MoveRow]
        if tail_of is not None:
            moves = [("level", 0, me.speed, 0)]  # D26
        else:
            top = stats.top_speed
            found = params.moves.get((me.speed, top))
            moves = found if found is not None else params.legal_moves(me.speed, top)
        random_ = rng.random
        broken = me.broken
        weapons = [w for w in stats.weapons if w.name not in broken] if broken else stats.weapons
        altitude = me.altitude
        count = len(moves)
        start = int(random_() * count)
        move, n, speed, climbed = moves[start]
        if count == 1:  # e.g. a pursuer (D26)
            candidates = _actions_from(params, weapons, speed, altitude + climbed, tail_of, foes)
        else:
            # From the drawn movement on (cyclically), the first after which something can be
            # attacked (or tailed), so random battles end; the drawn one if there is none.
            # The test is _actions_from's (a dragon with more than one movement is on no
            # tail), without building lists: only the chosen movement's actions are built.
            factor = params.reach_factor
            if broken:
                melee = False
                reach = -1  # the longest Long band of a working ranged weapon; -1: none
                for w in weapons:
                    if w.bands is None:
                        melee = melee or w.melee
                    elif w.bands[2] * factor > reach:
                        reach = w.bands[2] * factor
            else:  # every weapon works: the sheet's figures
                melee = stats.melee
                reach = stats.long_band * factor if stats.long_band >= 0 else -1
            melee_anywhere = melee and not params.melee_requires_range_5
            per_speed, per_altitude = params.range_per_speed, params.range_per_altitude
            candidates = []
            for i in range(start, start + count):
                row = moves[i - count] if i >= count else moves[i]
                row_speed = row[2]
                row_altitude = altitude + row[3]
                for foe in foes:
                    if row_altitude == foe.altitude:
                        if melee_anywhere or (
                            row_speed == foe.speed and (melee or not foe.falling)
                        ):
                            break
                    elif row_altitude > foe.altitude and reach >= 0:
                        gap = per_speed * abs(row_speed - foe.speed) + per_altitude * (
                            row_altitude - foe.altitude
                        )
                        if gap <= reach:
                            break
                else:
                    continue  # nothing from this movement
                move, n, speed, climbed = row
                candidates = _actions_from(
                    params, weapons, speed, altitude + climbed, tail_of, foes
                )
                break
        aero = "loop" if tail_of is None and random_() < 0.05 else None
        if tail_of is not None:
            choice = FORCE_CHOICES[int(random_() * 2)]
            raise_choice = FORCE_RAISE_CHOICES[int(random_() * 2)]
            candidates.append(("force", None, None, choice, raise_choice, ""))
        if pursued:
            candidates.append(("break", None, None, None, None, ""))
        if stats.arcane is not None and random_() < 0.1:
            candidates.append(("power", None, None, None, None, "power"))
        key: tuple[Any, ...]
        if not candidates:
            key = (move, n, aero)
        else:
            count = int(random_() * params.max_actions) + 1
            chosen: list[_Candidate] = []
            used: list[str | None] = []
            # Uniform draws without replacement (the same as shuffling and taking from the
            # front, without drawing for the candidates never reached); one weapon per order
            # (D17).
            while candidates and len(chosen) < count:
                c = candidates.pop(int(random_() * len(candidates)))
                if c[0] == "attack":
                    if c[1] in used:
                        continue
                    used.append(c[1])
                chosen.append(c)
            key = (move, n, aero, *chosen)
        order = _ORDERS.get(key)
        if order is None:
            if len(_ORDERS) >= 4096:
                _ORDERS.clear()
            actions = tuple([_ACTIONS.get(c) or _action(c) for c in key[3:]])
            order = _ORDERS[key] = DragonOrder(move, n, aero, actions)
        return order

    def resolve(
        self,
        state: DragonsState,
        orders: Mapping[str, Sealed[DragonOrder]],
        log: TurnLog,
    ) -> DragonsState:
        turn = _Turn(state, orders, log)
        turn.run()
        # ``turn.live`` holds the dragons in state order.
        dragons = tuple([d.freeze() for d in turn.lives])
        return _new_state(state.config, state.stats, dragons, state.turn + 1, turn.floor)

    def outcome(self, state: DragonsState) -> Outcome:
        """D35: over when at most one side has dragons still in the battle (or at the GM's turn
        limit, a draw)."""
        # The teams in the battle, up to the second one (no set built: asked every turn).
        team: str | None = None
        for d in state.dragons:
            if d.status == IN:
                theirs = f"dragon:{d.pid}" if d.consumed else d.side  # d.team
                if team is None:
                    team = theirs
                elif theirs != team:
                    limit = state.config.turn_limit
                    if limit is not None and state.turn > limit:
                        return Outcome("draw", reason="turn_limit")
                    return RUNNING
        if team is None:
            return Outcome("draw", reason="no_one_left")
        winners = tuple(d.pid for d in state.dragons if d.side == team and not d.consumed)
        if not winners:
            return Outcome("draw", reason="dragon_remains")
        return Outcome("win", winners, reason="last_side")

    # --- views and serialization

    def view(self, state: DragonsState, pid: str | None = None) -> dict[str, Any]:
        return {
            "turn": state.turn,
            "dragons": [
                {
                    **_dump_dragon(d),
                    "top_speed": state.stats[d.pid].spec.top_speed,
                    "parry": state.stats[d.pid].parry,
                    "weapons": [w.name for w in state.stats[d.pid].weapons],
                }
                for d in state.dragons
            ],
            "chart": sky_chart(state),
        }

    def dump_state(self, state: DragonsState) -> dict[str, Any]:
        return {
            "turn": state.turn,
            "config": state.config.model_dump(mode="json"),
            "characters": {pid: s.spec.model_dump(mode="json") for pid, s in state.stats.items()},
            "dragons": [_dump_dragon(d) for d in state.dragons],
            "floor": state.floor,
        }

    def load_state(self, raw: Mapping[str, Any]) -> DragonsState:
        config = DragonsConfig.model_validate(raw["config"])
        stats = {
            pid: build_stats(CharacterSpec.model_validate(c))
            for pid, c in raw["characters"].items()
        }
        dragons = tuple(Dragon(**{**d, "broken": tuple(d["broken"])}) for d in raw["dragons"])
        floor = raw.get("floor")  # absent from states saved before D31's DEFAULT
        return DragonsState(config, stats, dragons, int(raw["turn"]), floor)

    def turn_of(self, state: DragonsState) -> int:
        return state.turn


def _dump_dragon(d: Dragon) -> dict[str, Any]:
    return {
        "pid": d.pid,
        "side": d.side,
        "name": d.name,
        "npc": d.npc,
        "index": d.index,
        "wild_card": d.wild_card,
        "speed": d.speed,
        "altitude": d.altitude,
        "wounds": d.wounds,
        "shaken": d.shaken,
        "falling": d.falling,
        "fall_turns": d.fall_turns,
        "status": d.status,
        "tail_of": d.tail_of,
        "broken": list(d.broken),
        "consumed": d.consumed,
    }


RULESET = DragonsRuleset()

__all__ = [
    "RULESET",
    "Action",
    "AttackCheck",
    "CharacterSpec",
    "Dragon",
    "DragonOrder",
    "DragonsConfig",
    "DragonsRuleset",
    "DragonsState",
    "MoveOption",
    "attack_check",
    "distance",
    "initiative",
    "movement_options",
    "nearest_target",
    "parse_typed",
    "sky_chart",
]

"""Pure geometry of the dragons' sky (D5-D10): distance, range bands, movements, attack checks,
initiative, and the parameters a resolution derives from a config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from engine.errors import Rejection
from engine.ruleset import UNSEALED_SEQ, Sealed
from engine.rulesets.dragons.config import IN
from engine.savage import (
    edition_rules,
    multi_action_penalty,
    wound_penalty,
)

if TYPE_CHECKING:
    from engine.rulesets.dragons.config import DragonsConfig
    from engine.rulesets.dragons.orders import DragonOrder
    from engine.rulesets.dragons.sheet import Stats, Weapon
    from engine.rulesets.dragons.state import Dragon, DragonsState


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

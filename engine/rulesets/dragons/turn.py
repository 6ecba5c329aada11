"""One ``dragons`` resolution's state and the helpers every step of it uses (events, rolls,
penalties, tails, falls); :mod:`.combat` and :mod:`.resolve` build the turn on it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.events import Event
from engine.ruleset import UNSEALED_SEQ, Sealed
from engine.rulesets.dragons.config import IN
from engine.rulesets.dragons.geometry import _params
from engine.rulesets.dragons.orders import DragonOrder
from engine.rulesets.dragons.state import Dragon, DragonsState
from engine.savage import (
    Die,
    TraitRoll,
    roll_trait_data,
    wound_penalty,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from engine.dice import TurnLog
    from engine.rulesets.dragons.config import DragonsConfig
    from engine.rulesets.dragons.orders import Action
    from engine.rulesets.dragons.sheet import Stats


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


class _TurnBase:
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

    def impossible(self, d: _Live, i: int, action: Action, reason: str, **data: Any) -> None:
        # Decision 6: the declared action still counted for the multi-action penalty.
        info = {"action": i, "type": action.type, "reason": reason, **data}
        self.events.append(_event(Event, ("impossible", d.pid, info)))

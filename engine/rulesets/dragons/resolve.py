"""One ``dragons`` turn: activations in initiative order (D10), every result applied at once
(decision 9). The simulator's hot path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.events import Event
from engine.ruleset import UNSEALED_SEQ, Sealed
from engine.rulesets.dragons.config import IN
from engine.rulesets.dragons.geometry import _attack_geometry, _nearest, _params, movement_result
from engine.rulesets.dragons.orders import Action, DragonOrder
from engine.rulesets.dragons.state import Dragon, DragonsState
from engine.savage import (
    Die,
    TraitRoll,
    damage_effect,
    damage_roll,
    gang_up,
    multi_action_penalty,
    opposed,
    roll_trait_data,
    shaken_recovery,
    wound_penalty,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from engine.dice import TurnLog
    from engine.rulesets.dragons.config import DragonsConfig, ManoeuvreRoll
    from engine.rulesets.dragons.sheet import Stats, Weapon


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


def resolve_turn(
    state: DragonsState,
    orders: Mapping[str, Sealed[DragonOrder]],
    log: TurnLog,
) -> DragonsState:
    turn = _Turn(state, orders, log)
    turn.run()
    # ``turn.live`` holds the dragons in state order.
    dragons = tuple([d.freeze() for d in turn.lives])
    return _new_state(state.config, state.stats, dragons, state.turn + 1, turn.floor)

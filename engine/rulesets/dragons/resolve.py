"""One ``dragons`` turn: activations in initiative order (D10), every result applied at once
(decision 9). The simulator's hot path."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.dice import TurnLog
from engine.events import Event
from engine.ruleset import Sealed
from engine.rulesets.dragons.combat import _Combat
from engine.rulesets.dragons.config import IN
from engine.rulesets.dragons.geometry import movement_result
from engine.rulesets.dragons.orders import DragonOrder
from engine.rulesets.dragons.state import DragonsState
from engine.rulesets.dragons.turn import _FAILED, _event, _Live, _new_state
from engine.savage import (
    multi_action_penalty,
    roll_trait_data,
    shaken_recovery,
)


class _Turn(_Combat):
    """One resolution: activations in initiative order (D10), effects applied at once."""

    __slots__ = ()

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

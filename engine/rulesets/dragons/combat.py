"""``dragons`` combat (D17-D28, D34a): attacks, damage and wounds, tailing, forcing and breaking
the tail, powers; a layer of the turn (:class:`.resolve._Turn`). Hot path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.events import Event
from engine.rulesets.dragons.config import IN, ManoeuvreRoll
from engine.rulesets.dragons.geometry import _attack_geometry, _nearest
from engine.rulesets.dragons.orders import Action, DragonOrder
from engine.rulesets.dragons.sheet import Weapon
from engine.rulesets.dragons.turn import _FAILED, _event, _Live, _TurnBase
from engine.savage import (
    TraitRoll,
    damage_effect,
    damage_roll,
    gang_up,
    multi_action_penalty,
    opposed,
    roll_trait_data,
)


class _Combat(_TurnBase):
    __slots__ = ()

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

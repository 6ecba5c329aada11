"""The ``dragons`` Ruleset: D1-D36 wired together (parsing, validation, view, dump/load)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed
from engine.rulesets.dragons.choices import (
    _ACTIONS,
    _CONTEXT,
    _LEVEL,
    _ORDERS,
    _action,
    _actions_from,
    _OrderContext,
)
from engine.rulesets.dragons.config import FORCE_CHOICES, FORCE_RAISE_CHOICES, IN, DragonsConfig
from engine.rulesets.dragons.geometry import movement_result
from engine.rulesets.dragons.orders import DragonOrder, dump_order_dict, parse_order_dict
from engine.rulesets.dragons.resolve import _new_state, _Turn
from engine.rulesets.dragons.sheet import CharacterSpec, build_stats, presets
from engine.rulesets.dragons.state import Dragon, DragonsState, _dump_dragon
from engine.rulesets.dragons.view import sky_chart

if TYPE_CHECKING:
    from engine.rulesets.dragons.choices import _Candidate
    from engine.rulesets.dragons.geometry import _MoveRow


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


RULESET = DragonsRuleset()

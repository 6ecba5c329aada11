"""The ``pistol`` Ruleset: P1-P20 wired together (config and state caches, GM edits)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from copy import deepcopy
from dataclasses import replace
from math import floor
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model
from engine.events import Event
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed
from engine.rulesets.pistol.config import PARTS, PistolConfig
from engine.rulesets.pistol.orders import PistolOrder, _choices, _int_field, _pair
from engine.rulesets.pistol.resolve import (
    _MARK_DEATH,
    _MARK_HIT,
    _MARK_INITIATIVE,
    _MARK_MISS,
    _MARK_NO_SHOT,
    _MARK_OUTCOME,
    _MARK_WOUND,
    _initiative,
    _Live,
)
from engine.rulesets.pistol.sheet import CharacterSpec
from engine.rulesets.pistol.state import (
    _RESULT,
    PistolState,
    Rules,
    _duelist,
    _new,
    _state,
    _updated,
)

if TYPE_CHECKING:
    from engine.rulesets.pistol.state import Duelist


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


RULESET = PistolRuleset()

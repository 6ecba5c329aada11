"""The ``pistol`` Ruleset: P1-P20 wired together (config and state caches, GM edits)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from copy import deepcopy
from dataclasses import replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from engine.errors import Rejection, parse_model
from engine.ruleset import Entrant, Outcome, Ruleset
from engine.rulesets.pistol import choices, orders, resolve, view
from engine.rulesets.pistol.config import PARTS, PistolConfig
from engine.rulesets.pistol.orders import (
    PistolOrder,
    _choices,
)
from engine.rulesets.pistol.sheet import CharacterSpec
from engine.rulesets.pistol.state import (
    _RESULT,
    PistolState,
    Rules,
    _duelist,
    _state,
)

if TYPE_CHECKING:
    from engine.dice import TurnLog


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

    parse_order = staticmethod(orders.parse_order)
    validate = staticmethod(orders.validate)
    dump_order = staticmethod(orders.dump_order)
    default_order = staticmethod(choices.default_order)
    random_order = staticmethod(choices.random_order)
    resolve = staticmethod(resolve.resolve_turn)

    # --- views and serialization ---

    view = staticmethod(view.view)

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

    _duelist = staticmethod(orders.duelist_of)


RULESET = PistolRuleset()

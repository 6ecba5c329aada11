"""The ``dragons`` Ruleset: D1-D36 wired together (parsing, validation, view, dump/load)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from engine.errors import Rejection, parse_model
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset
from engine.rulesets.dragons.config import IN, DragonsConfig
from engine.rulesets.dragons.orders import DragonOrder, dump_order_dict, parse_order_dict
from engine.rulesets.dragons.sheet import CharacterSpec, build_stats, presets
from engine.rulesets.dragons.state import Dragon, DragonsState

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from engine.dice import TurnLog


# --------------------------------------------------------------------------- the ruleset

from engine.rulesets.dragons import choices, orders, resolve, state, view


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

    validate = staticmethod(orders.validate)

    def dump_order(self, order: DragonOrder) -> dict[str, Any]:
        return dump_order_dict(order)

    default_order = staticmethod(choices.default_order)
    random_order = staticmethod(choices.random_order)
    resolve = staticmethod(resolve.resolve_turn)

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

    view = staticmethod(view.view)
    dump_state = staticmethod(state.dump_state)
    load_state = staticmethod(state.load_state)

    def turn_of(self, state: DragonsState) -> int:
        return state.turn


RULESET = DragonsRuleset()

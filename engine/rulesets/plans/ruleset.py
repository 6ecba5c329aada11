"""The ``plans`` ruleset (``docs/rules/plans.md``, C1-C22) behind the Ruleset interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from engine.dice import TurnLog
from engine.errors import Rejection
from engine.ruleset import Entrant, Outcome, Ruleset, Sealed
from engine.rulesets.plans import choices, view
from engine.rulesets.plans.choices import _new
from engine.rulesets.plans.config import (
    ACCURACY,
    PlansConfig,
)
from engine.rulesets.plans.orders import Plan, check_plan, dump_plan, parse_plan
from engine.rulesets.plans.preview import PlanPreview, preview_plan
from engine.rulesets.plans.resolve import RUNNING, outcome, resolve_turn
from engine.rulesets.plans.sheet import PRESETS, CharacterModel, Sheet, check_sheet
from engine.rulesets.plans.state import Fighter, PlansState, dump_state, load_state


class PlansRuleset(Ruleset[PlansConfig, PlansState, Plan]):
    """Secret-plan duel: magic and fencing with d10 success pools, for two duelists."""

    id: ClassVar[str] = "plans"
    version: ClassVar[str] = "1.0"
    config_model: ClassVar[type[BaseModel]] = PlansConfig
    character_model: ClassVar[type[BaseModel]] = CharacterModel
    # Simulator keys beyond the event kinds (damage, healed, soaked, tie, group_empty…):
    # tie:damage / tie:quiet (C16).
    count_detail: ClassVar[Mapping[str, str]] = {"tie": "result"}

    # --- characters -------------------------------------------------------------------------

    def check_character(self, config: PlansConfig, raw: Mapping[str, Any]) -> BaseModel:
        check_sheet(config, raw)
        return CharacterModel.model_validate(raw)

    def presets(self, config: PlansConfig) -> Mapping[str, Mapping[str, Any]]:
        return PRESETS

    def gm_reviews_orders(self, config: PlansConfig) -> bool:
        return config.gm_sees_plans  # C22: the GM may veto only what he may read

    # --- setup (C4, C5) ---------------------------------------------------------------------

    def setup(self, config: PlansConfig, entrants: Sequence[Entrant], log: TurnLog) -> PlansState:
        if len(entrants) != 2:
            raise Rejection("wrong_participants", need=2, have=len(entrants))
        # Two duelists, written out: the simulator sets up every match afresh (C4 rolls dice).
        ea, eb = entrants
        sa, sb = check_sheet(config, ea.character), check_sheet(config, eb.character)
        pa, pb = ea.pid, eb.pid
        xa, xb = sa.attrs, sb.attrs
        # C5: temporary reserves start at the permanent values.
        fa = _new(
            Fighter, (pa, ea.name or sa.name or pa, ea.side, sa, (xa[2], xa[5], xa[8]), 0, False)
        )
        fb = _new(
            Fighter, (pb, eb.name or sb.name or pb, eb.side, sb, (xb[2], xb[5], xb[8]), 0, False)
        )
        # C4: d10 + dexterity + artistry + reaction (the accuracies); ties are rolled again
        # (then seat order).
        ba, bb = xa[0] + xa[3] + xa[6], xb[0] + xb[3] + xb[6]
        sides = config.dice_sides
        rerolls = -1
        for _ in range(config.initiative_rerolls + 1):
            da, db = log.die(sides, "initiative", pa), log.die(sides, "initiative", pb)
            ta, tb = da + ba, db + bb
            rerolls += 1
            if ta != tb:
                break
        first = pa if ta >= tb else pb
        log.emit(
            "initiative",
            None,
            scores={
                pa: {"die": da, "bonus": ba, "total": ta},
                pb: {"die": db, "bonus": bb, "total": tb},
            },
            bonus_attributes=list(ACCURACY),
            rerolls=rerolls,
            attacker=first,
        )
        return _new(PlansState, (config, (fa, fb), 1, first, ((pa, ta), (pb, tb))))

    def acting(self, state: PlansState) -> frozenset[str]:
        if outcome(state) is not RUNNING:  # the only running outcome (no .finished call)
            return frozenset()
        _, (a, b), _, _, _ = state  # unpacked: a named tuple's field by name is slow
        pa, pb = a[0], b[0]  # Fighter.pid
        last = _ACTING[0]  # the same two duelists every turn of a match: one frozenset
        if last[0] is pa and last[1] is pb:
            return last[2]
        both = frozenset((pa, pb))
        _ACTING[0] = (pa, pb, both)
        return both

    # --- orders -----------------------------------------------------------------------------

    def parse_order(self, state: PlansState, pid: str, raw: Mapping[str, Any]) -> Plan:
        return parse_plan(raw)

    def validate(self, state: PlansState, pid: str, order: Plan) -> Rejection | None:
        try:
            i = state.seat(pid)
        except KeyError:
            return Rejection("no_such_participant", pid=pid)
        me, them = state.fighters[i], state.fighters[1 - i]
        return check_plan(state.config, me.sheet, me.reserves, them.sheet, order)

    def dump_order(self, order: Plan) -> dict[str, Any]:
        return dump_plan(order)

    default_order = staticmethod(choices.default_order)
    random_order = staticmethod(choices.random_order)

    # --- resolution -------------------------------------------------------------------------

    def resolve(
        self, state: PlansState, orders: Mapping[str, Sealed[Plan]], log: TurnLog
    ) -> PlansState:
        _, (a, b), _, _, _ = state  # by position: a named tuple's field by name is slow
        ida, idb = a[0], b[0]  # Fighter.pid
        sa, sb = orders.get(ida), orders.get(idb)
        if sa is not None:
            pa, _, da = sa  # Sealed: order, seq, default
        else:
            pa, da = self.default_order(state, ida), True
        if sb is not None:
            pb, _, db = sb
        else:
            pb, db = self.default_order(state, idb), True
        return resolve_turn(state, (pa, pb), (da, db), log)

    def outcome(self, state: PlansState) -> Outcome:
        return outcome(state)

    # --- views and serialization ------------------------------------------------------------

    view = staticmethod(view.view)

    def dump_state(self, state: PlansState) -> dict[str, Any]:
        return dump_state(state)

    def load_state(self, raw: Mapping[str, Any]) -> PlansState:
        return load_state(raw)

    def turn_of(self, state: PlansState) -> int:
        return state.turn

    # --- the order builder ------------------------------------------------------------------

    def preview(self, state: PlansState, pid: str, order: Plan, guess_diff: int = 0) -> PlanPreview:
        """Pool and exact success chances of ``order`` for the confirmation screen."""
        me = state.fighters[state.seat(pid)]
        return preview_plan(state.config, me.sheet, me.reserves, order, guess_diff)

    def sheet(self, state: PlansState, pid: str) -> Sheet:
        return state.fighters[state.seat(pid)].sheet


# The last acting set (both pids and the frozenset), swapped in one store.
_ACTING: list[tuple[str, str, frozenset[str]]] = [("", "", frozenset())]


RULESET = PlansRuleset()

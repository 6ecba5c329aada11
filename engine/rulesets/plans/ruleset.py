"""The ``plans`` ruleset (``shared/rules/plan-duel.md``, C1-C22) behind the Ruleset interface."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from math import floor
from typing import Any, ClassVar

from pydantic import BaseModel

from engine.dice import TurnLog
from engine.errors import Rejection
from engine.ruleset import Entrant, Outcome, Ruleset, Sealed
from engine.rulesets.plans.config import (
    ACCURACY,
    ACTIONS,
    GROUPS,
    PlansConfig,
)
from engine.rulesets.plans.plan import Plan, check_plan, dump_plan, parse_plan
from engine.rulesets.plans.preview import PlanPreview, preview_plan
from engine.rulesets.plans.resolve import RUNNING, fighter_view, outcome, resolve_turn
from engine.rulesets.plans.sheet import PRESETS, CharacterModel, Sheet, check_sheet
from engine.rulesets.plans.state import Fighter, PlansState, dump_state, load_state
from engine.rulesets.plans.tables import SHEET_INFOS, info_of, menu_of


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
        sheets = [check_sheet(config, e.character) for e in entrants]
        fighters = tuple(
            # C5: temporary reserves start at the permanent values.
            Fighter(
                e.pid, e.name or s.name or e.pid, e.side, s, (s.attrs[2], s.attrs[5], s.attrs[8])
            )
            for e, s in zip(entrants, sheets, strict=True)
        )
        # C4: d10 + dexterity + artistry + reaction; ties are rolled again (then seat order).
        bonus = [sum(s.attrs[3 * g] for g in range(3)) for s in sheets]
        rounds = []
        for _ in range(config.initiative_rerolls + 1):
            dice = [log.die(config.dice_sides, "initiative", f.pid) for f in fighters]
            totals = [d + b for d, b in zip(dice, bonus, strict=True)]
            rounds.append(dice)
            if totals[0] != totals[1]:
                break
        first = 0 if totals[0] >= totals[1] else 1
        log.emit(
            "initiative",
            None,
            scores={
                f.pid: {"die": dice[i], "bonus": bonus[i], "total": totals[i]}
                for i, f in enumerate(fighters)
            },
            bonus_attributes=list(ACCURACY),
            rerolls=len(rounds) - 1,
            attacker=fighters[first].pid,
        )
        return PlansState(
            config=config,
            fighters=fighters,
            turn=1,
            attacker=fighters[first].pid,
            initiative=tuple((f.pid, totals[i]) for i, f in enumerate(fighters)),
        )

    def acting(self, state: PlansState) -> frozenset[str]:
        if outcome(state) is not RUNNING:  # the only running outcome (no .finished call)
            return frozenset()
        a, b = state.fighters
        return frozenset((a.pid, b.pid))

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

    def default_order(self, state: PlansState, pid: str) -> Plan:
        """DEFAULT (config ``default_plan``): first group with reserve, best skill, defensive,
        soak with the largest reserve left, no guesses, restore by the C17 fallback."""
        cfg = state.config.default_plan
        me = state.fighters[state.seat(pid)]
        res = me.reserves
        if cfg.group == "first_with_reserve":
            g = next((k for k in range(3) if res[k] > 0), 0)
        else:
            g = max(range(3), key=lambda k: res[k])
        skill = max(me.sheet.skills, key=lambda s: s.level)  # first on ties
        soak = None
        if cfg.soak == "largest_reserve":
            after = [r - (1 if k == g and r > 0 else 0) for k, r in enumerate(res)]
            best = max(range(3), key=lambda k: after[k])
            soak = GROUPS[best] if after[best] > 0 else None
        return Plan(GROUPS[g], skill.id, cfg.action, soak=soak, auto=True)

    def random_order(self, state: PlansState, pid: str, rng: random.Random) -> Plan:
        """A legal plan drawn near-uniformly: each part uniform over its legal choices (a
        second skill half of the time when one is possible; guesses may be left out).

        Hot path of the simulator: the legal choices come from menus precomputed per sheet
        and reserves (:mod:`.tables`); the draws are made in a fixed order (determinism)."""
        r = rng.random
        a, b = state.fighters
        me, them = (a, b) if a.pid == pid else (b, a)
        sheet = me.sheet
        info = SHEET_INFOS.get(id(sheet))  # info_of(), minus a call on the hot path
        if info is None or info.sheet is not sheet:
            info = info_of(sheet)
        sheet = them.sheet
        their = SHEET_INFOS.get(id(sheet))
        if their is None or their.sheet is not sheet:
            their = info_of(sheet)
        reserves = me.reserves
        menu = info.menus.get(reserves) or menu_of(info, reserves)
        # floor(x * n) is int(x * n) for x >= 0 (the same index), without int's slow type call.
        g = floor(r() * 3)
        k = floor(r() * info.n_skills)
        second_skill = second_group = None
        s_used = -1
        if r() < 0.5:
            options = menu.seconds[g][k]
            if options:
                second_skill, second_group, s_used = options[floor(r() * len(options))]
        restores = menu.restores[g + 1 if reserves[g] > 0 else 0][s_used + 1]
        guesses = their.guesses
        guess_skill = guesses[floor(r() * their.n_guesses)]
        guess_group = _GUESS_GROUPS[floor(r() * 4)]
        guess_action = _GUESS_ACTIONS[floor(r() * 6)]
        soaks = menu.soaks
        return _new(
            Plan,
            (
                GROUPS[g],
                info.skill_ids[k],
                ACTIONS[floor(r() * 5)],
                second_skill,
                second_group,
                soaks[floor(r() * menu.n_soaks)],
                restores[floor(r() * len(restores))],
                guess_group,
                guess_skill,
                guess_action,
                "",
                True,
            ),
        )

    # --- resolution -------------------------------------------------------------------------

    def resolve(
        self, state: PlansState, orders: Mapping[str, Sealed[Plan]], log: TurnLog
    ) -> PlansState:
        a, b = state.fighters
        sa, sb = orders.get(a.pid), orders.get(b.pid)
        pa = sa.order if sa is not None else self.default_order(state, a.pid)
        pb = sb.order if sb is not None else self.default_order(state, b.pid)
        defaults = (sa is None or sa.default, sb is None or sb.default)
        return resolve_turn(state, (pa, pb), defaults, log)

    def outcome(self, state: PlansState) -> Outcome:
        return outcome(state)

    # --- views and serialization ------------------------------------------------------------

    def view(self, state: PlansState, pid: str | None = None) -> dict[str, Any]:
        cfg = state.config
        return {
            "turn": state.turn,
            "turn_cap": cfg.turn_cap,
            "attacker": state.attacker,
            "defender": state.defender,
            "end_condition": cfg.end_condition,
            "wound_limit": cfg.wound_limit,
            "initiative": dict(state.initiative),
            "fighters": [fighter_view(f) for f in state.fighters],
            "you": pid,
        }

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


_GUESS_GROUPS: tuple[str | None, ...] = (*GROUPS, None)  # None: not guessed
_GUESS_ACTIONS: tuple[str | None, ...] = (*ACTIONS, None)
_new = tuple.__new__  # Plan(...) minus the named tuple's Python-level __new__


RULESET = PlansRuleset()

"""Resolution of one turn (C8-C19): costs, guesses, action checks with their modifiers in order,
damage, toughness, healing, restoring, and the end condition. Pure given the dice.

Events, in order (all JSON-ready; the bot renders the reveal from them, C20):
``turn``; per duelist ``plan`` (role, default flag, the plan); ``spend`` / ``group_empty``
(C8, C10); ``guess`` (which parts were right, count, d); ``roll`` purpose ``action`` and
``action`` (pool parts, raw successes, each modifier step in the order applied, total);
``contest`` and, on a tie, ``tie``; per damage check ``roll`` purpose ``damage`` (+ ``reroll``
for strong), ``damage_check``, then ``healed`` or ``no_damage`` or (``spend`` + ``roll``
purpose ``toughness`` + ``soaked``) and ``damage``; per duelist ``restore`` and ``status``;
``end`` when the duel is over.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.dice import TurnLog
from engine.ruleset import Outcome
from engine.rulesets.plans.config import GROUP_INDEX, GROUPS, PlansConfig
from engine.rulesets.plans.plan import Plan, dump_plan
from engine.rulesets.plans.state import Fighter, PlansState

RUNNING = Outcome("running")


def outcome(state: PlansState) -> Outcome:
    """C6/C18/C21: incapacitation (wounds >= limit) or first blood; both at once is a draw."""
    cfg = state.config
    if cfg.end_condition == "incapacitation":
        down = [f.wounds >= cfg.wound_limit for f in state.fighters]
        reason = "incapacitation"
    else:
        down = [f.bled for f in state.fighters]
        reason = "first_blood"
    if all(down):
        return Outcome("draw", (), f"both_{reason}")
    if any(down):
        return Outcome(
            "win", tuple(f.pid for f, d in zip(state.fighters, down, strict=True) if not d), reason
        )
    if state.turn > cfg.turn_cap:
        return Outcome("draw", (), "turn_cap")
    return RUNNING


def _reserves_json(reserves: list[int]) -> dict[str, int]:
    return {"physical": reserves[0], "magical": reserves[1], "mental": reserves[2]}


def _count(faces: tuple[int, ...] | list[int], target: int) -> int:
    n = 0
    for f in faces:
        if f >= target:
            n += 1
    return n


class _Turn:
    """Mutable scratch space of one resolution (never escapes :func:`resolve_turn`)."""

    __slots__ = (
        "cfg",
        "fighters",
        "hurt",
        "log",
        "paid",
        "pids",
        "plans",
        "reserves",
        "second_ok",
        "wounds",
    )

    def __init__(self, state: PlansState, plans: tuple[Plan, Plan], log: TurnLog) -> None:
        self.cfg: PlansConfig = state.config
        self.fighters = state.fighters
        self.pids = (state.fighters[0].pid, state.fighters[1].pid)
        self.plans = plans
        self.log = log
        self.reserves = [list(f.reserves) for f in state.fighters]
        self.wounds = [f.wounds for f in state.fighters]
        self.paid = [False, False]
        self.second_ok = [False, False]
        self.hurt = [False, False]  # damage stuck this turn (C6 first blood)

    # C8, C10 -----------------------------------------------------------------------------
    def pay(self, i: int) -> None:
        plan, res, pid, log = self.plans[i], self.reserves[i], self.pids[i], self.log
        g = GROUP_INDEX[plan.group]
        if res[g] > 0:
            res[g] -= 1
            self.paid[i] = True
            log.emit("spend", pid, group=plan.group, purpose="group", reserve=res[g])
        else:
            # C8: nothing spent, the group adds nothing, damage pool 1, counts as no group.
            log.emit("group_empty", pid, group=plan.group)
        if plan.second_group is not None:
            pay = GROUP_INDEX[plan.second_group]
            if res[pay] > 0:  # C10: not allowed at 0 (validated; a bot plan may still carry it)
                res[pay] -= 1
                self.second_ok[i] = True
                log.emit(
                    "spend", pid, group=plan.second_group, purpose="second_skill", reserve=res[pay]
                )

    # C12 ---------------------------------------------------------------------------------
    def guessed(self, i: int) -> tuple[dict[str, bool | None], int]:
        mine, theirs = self.plans[i], self.plans[1 - i]
        cfg = self.cfg
        group: bool | None = None
        skill: bool | None = None
        action: bool | None = None
        if mine.guess_group is not None:
            named = cfg.guess_group_compares == "named" or self.paid[1 - i]
            group = named and mine.guess_group == theirs.group
        if mine.guess_skill is not None:
            skill = mine.guess_skill == theirs.skill or (
                cfg.skill_guess_matches == "either"
                and self.second_ok[1 - i]
                and mine.guess_skill == theirs.second_skill
            )
        if mine.guess_action is not None:
            action = mine.guess_action == theirs.action
        right = (group is True) + (skill is True) + (action is True)
        return {"group": group, "skill": skill, "action": action}, right

    # C9, C13 -----------------------------------------------------------------------------
    def action_check(self, i: int, d: int) -> int:
        cfg, plan, pid = self.cfg, self.plans[i], self.pids[i]
        sheet = self.fighters[i].sheet
        g = GROUP_INDEX[plan.group]
        accuracy = sheet.attrs[3 * g] if self.paid[i] else 0
        primary = sheet.skill(plan.skill)
        skill = primary.level if primary is not None else 0
        second = 0
        if self.second_ok[i] and plan.second_skill is not None:
            s2 = sheet.skill(plan.second_skill)
            second = s2.level if s2 is not None else 0
        pool = accuracy + skill + second
        roll = self.log.pool(pool, cfg.dice_sides, "action", pid)
        raw = _count(roll.faces, cfg.success_target)
        value = raw
        steps: list[dict[str, Any]] = []
        for mod in cfg.modifier_order:
            if mod == "cunning":
                if plan.action == "cunning" and cfg.cunning_auto_successes:
                    value += cfg.cunning_auto_successes
                    steps.append(
                        {"step": "cunning", "add": cfg.cunning_auto_successes, "total": value}
                    )
            elif mod == "guess":
                value = _guess_step(cfg, d, value, steps)
            elif plan.action == "defensive":
                value *= cfg.defensive_multiplier
                steps.append({"step": "defensive", "mul": cfg.defensive_multiplier, "total": value})
        self.log.emit(
            "action",
            pid,
            pool=pool,
            parts={"accuracy": accuracy, "skill": skill, "second": second},
            raw=raw,
            steps=steps,
            successes=value,
        )
        return value

    # C14, C15, C11 -----------------------------------------------------------------------
    def damage_check(self, i: int, effects: bool) -> None:
        cfg, plan, pid, log = self.cfg, self.plans[i], self.pids[i], self.log
        j = 1 - i
        if effects and plan.action == "defensive":
            log.emit("no_damage", pid, reason="defensive")
            return
        sheet = self.fighters[i].sheet
        g = GROUP_INDEX[plan.group]
        impact = sheet.attrs[3 * g + 1] if self.paid[i] else cfg.empty_group_damage_pool
        precise = cfg.precise_lethality_bonus if effects and plan.action == "precise" else 0
        lethality = sheet.lethality + precise
        dice_leth = lethality if cfg.lethality_mode == "dice" else 0
        pool = impact + dice_leth
        target, sides = cfg.success_target, cfg.dice_sides
        faces = list(log.pool(pool, sides, "damage", pid).faces)
        if effects and plan.action == "strong":
            for _ in range(cfg.strong_rerolls):
                idx = _reroll_index(faces, target, cfg.strong_reroll_target)
                if idx < 0:
                    break
                new = log.die(sides, "reroll", pid)
                log.emit("reroll", pid, index=idx, old=faces[idx], new=new)
                faces[idx] = new
        successes = _count(faces, target)
        hits = successes + (lethality if cfg.lethality_mode == "flat" and successes else 0)
        healing = effects and plan.action == "healing"
        log.emit(
            "damage_check",
            pid,
            target=self.pids[j],
            pool=pool,
            parts={"impact": impact, "lethality": sheet.lethality, "precise": precise},
            faces=faces,
            successes=successes,
            hits=hits,
            effect="heal" if healing else "wound",
        )
        if healing:
            healed = min(hits, self.wounds[i])
            if healed:
                self.wounds[i] -= healed
                log.emit("healed", pid, amount=healed, wounds=self.wounds[i])
            return
        if hits <= 0:
            return
        soaked = self.soak(j, hits)
        dealt = hits - soaked
        if dealt > 0:
            self.wounds[j] += dealt
            self.hurt[j] = True
            log.emit(
                "damage",
                self.pids[j],
                by=pid,
                hits=hits,
                soaked=soaked,
                wounds=dealt,
                wounds_after=self.wounds[j],
            )

    def soak(self, j: int, hits: int) -> int:
        """C15: the loser's toughness check with the reserve chosen in advance."""
        cfg, res = self.cfg, self.reserves[j]
        if cfg.soak_choice == "never":
            return 0
        if cfg.soak_choice == "plan":
            choice = self.plans[j].soak
            g = GROUP_INDEX[choice] if choice is not None else -1
        else:
            g = max(range(3), key=lambda k: res[k])
        if g < 0 or res[g] <= 0:
            return 0
        res[g] -= 1
        pid = self.pids[j]
        self.log.emit("spend", pid, group=GROUPS[g], purpose="soak", reserve=res[g])
        pool = (
            res[g] if cfg.toughness_pool == "temporary" else self.fighters[j].sheet.attrs[3 * g + 2]
        )
        roll = self.log.pool(pool, cfg.dice_sides, "toughness", pid)
        soaked = min(_count(roll.faces, cfg.success_target), hits)
        self.log.emit("soaked", pid, group=GROUPS[g], pool=pool, hits=hits, soaked=soaked)
        return soaked

    # C17 ---------------------------------------------------------------------------------
    def restore(self, i: int) -> None:
        cfg, plan, res = self.cfg, self.plans[i], self.reserves[i]
        sheet = self.fighters[i].sheet
        used = set()
        if self.paid[i]:
            used.add(GROUP_INDEX[plan.group])
        if self.second_ok[i] and plan.second_group is not None:
            used.add(GROUP_INDEX[plan.second_group])
        g = -1
        fallback = False
        if plan.restore is not None and GROUP_INDEX[plan.restore] not in used:
            g = GROUP_INDEX[plan.restore]
        elif cfg.restore_fallback == "largest_missing":
            fallback = True
            best = 0
            for k in range(3):
                missing = sheet.attrs[3 * k + 2] - res[k]
                if k not in used and missing > best:
                    g, best = k, missing
        if g < 0:
            self.log.emit(
                "restore", self.pids[i], group=None, amount=0, reserve=None, fallback=fallback
            )
            return
        before = res[g]
        res[g] = min(sheet.attrs[3 * g + 2], before + cfg.restore_amount)  # C5 cap
        self.log.emit(
            "restore",
            self.pids[i],
            group=GROUPS[g],
            amount=res[g] - before,
            reserve=res[g],
            fallback=fallback,
        )


def _guess_step(cfg: PlansConfig, d: int, value: int, steps: list[dict[str, Any]]) -> int:
    """C12: d = 1 adds, d = 2/3 multiply (DEFAULT: no stacking of the +1)."""
    if d <= 0:
        return value
    if d == 1:
        value += cfg.guess_bonus_d1
        steps.append({"step": "guess", "diff": d, "add": cfg.guess_bonus_d1, "total": value})
        return value
    mul = cfg.guess_multiplier_d2 if d == 2 else cfg.guess_multiplier_d3
    if cfg.guess_bonuses_stack:
        value += cfg.guess_bonus_d1
        steps.append({"step": "guess", "diff": d, "add": cfg.guess_bonus_d1, "total": value})
    value *= mul
    steps.append({"step": "guess", "diff": d, "mul": mul, "total": value})
    return value


def _reroll_index(faces: list[int], target: int, how: str) -> int:
    """C11 strong: which damage die to reroll (DEFAULT the lowest failed); -1 if none failed."""
    idx = -1
    for k, f in enumerate(faces):
        if f < target and (idx < 0 or (how == "lowest_failed" and f < faces[idx])):
            idx = k
            if how == "first_failed":
                break
    return idx


def resolve_turn(
    state: PlansState, plans: tuple[Plan, Plan], defaults: tuple[bool, bool], log: TurnLog
) -> PlansState:
    """Resolve one turn with both plans (in seat order); return the next state."""
    cfg = state.config
    t = _Turn(state, plans, log)
    pids = t.pids
    attacker = state.attacker
    log.emit("turn", None, turn=state.turn, attacker=attacker, defender=state.defender)
    for i in (0, 1):
        log.emit(
            "plan",
            pids[i],
            role="attacker" if pids[i] == attacker else "defender",
            default=defaults[i],
            plan=dump_plan(plans[i]),
        )
    t.pay(0)
    t.pay(1)
    g0, right0 = t.guessed(0)
    g1, right1 = t.guessed(1)
    log.emit("guess", pids[0], guessed=g0, right=right0, diff=right0 - right1)
    log.emit("guess", pids[1], guessed=g1, right=right1, diff=right1 - right0)
    s0 = t.action_check(0, right0 - right1)
    s1 = t.action_check(1, right1 - right0)
    # Attacker first wherever order is visible (rolls, events); it changes no number (C4).
    first = 0 if pids[0] == attacker else 1
    if s0 != s1:
        w = 0 if s0 > s1 else 1
        log.emit(
            "contest", None, successes={pids[0]: s0, pids[1]: s1}, winner=pids[w], loser=pids[1 - w]
        )
        t.damage_check(w, True)
    else:
        by = [pids[i] for i in (0, 1) if plans[i].action in cfg.tie_damage_actions]
        log.emit("contest", None, successes={pids[0]: s0, pids[1]: s1}, winner=None, loser=None)
        log.emit("tie", None, damage=bool(by), by=by)
        if by:  # C16: both make damage checks; DEFAULT no action effects
            t.damage_check(first, cfg.tie_action_effects)
            t.damage_check(1 - first, cfg.tie_action_effects)
    fighters = []
    for i in (0, 1):
        t.restore(i)
        f = state.fighters[i]
        wounds = t.wounds[i]
        nf = replace(f, reserves=tuple(t.reserves[i]), wounds=wounds, bled=f.bled or t.hurt[i])
        fighters.append(nf)
        log.emit(
            "status", f.pid, wounds=wounds, reserves=_reserves_json(t.reserves[i]), bled=nf.bled
        )
    new = PlansState(
        config=cfg,
        fighters=(fighters[0], fighters[1]),
        turn=state.turn + 1,
        attacker=state.defender,
        initiative=state.initiative,
    )
    result = outcome(new)
    if result.finished:
        log.emit(
            "end", None, status=result.status, winners=list(result.winners), reason=result.reason
        )
    return new


def fighter_view(f: Fighter) -> dict[str, Any]:
    return {
        "pid": f.pid,
        "name": f.name,
        "side": f.side,
        "sheet": f.sheet.to_json(),
        "reserves": f.reserves_json(),
        "wounds": f.wounds,
        "bled": f.bled,
    }

"""Resolution of one turn (C8-C19): costs, guesses, action checks with their modifiers in order,
damage, toughness, healing, restoring, and the end condition. Pure given the dice.

Events, in order (all JSON-ready; the bot renders the reveal from them, C20):

- ``reveal``: turn, attacker/defender (C4), both plans with default flags (C7, C22);
- per duelist whose group had no reserve left, ``group_empty`` (C8);
- per duelist, ``roll`` (purpose ``action``) then ``action``: what was spent (C8, C10), whether
  the group was paid, the pool's parts, which guessed parts were right, the count and d (C12),
  raw successes and every modifier step in the order applied (C13), the final successes;
- ``contest`` (both totals, winner/loser or a tie) and on a tie ``tie`` (C16);
- per damage check: ``roll`` (purpose ``damage``, + ``reroll`` for strong), ``damage_check``
  (pool parts, faces after the reroll, successes, effect), then ``healed`` (C11), or
  ``no_damage`` (defensive), or ``roll`` (``toughness``) + ``soaked`` (C15) and ``damage``;
- per duelist ``status``: the restore (C17), wounds and the three reserves after the turn (C19);
- ``end`` when the duel is over (C6, C18, C21).

Hot path of the simulator: plain loops and local names on purpose.
"""

from __future__ import annotations

from typing import Any

from engine.dice import TurnLog
from engine.events import Event
from engine.ruleset import Outcome
from engine.rulesets.plans.config import GROUP_INDEX, GROUPS, PlansConfig
from engine.rulesets.plans.plan import Plan, dump_plan
from engine.rulesets.plans.state import Fighter, PlansState

RUNNING = Outcome("running")


def outcome(state: PlansState) -> Outcome:
    """C6/C18/C21: incapacitation (wounds >= limit) or first blood; both at once is a draw."""
    cfg = state.config
    a, b = state.fighters
    if cfg.end_condition == "incapacitation":
        limit = cfg.wound_limit
        da, db = a.wounds >= limit, b.wounds >= limit
        reason = "incapacitation"
    else:
        da, db = a.bled, b.bled
        reason = "first_blood"
    if da or db:
        if da and db:
            return Outcome("draw", (), "both_" + reason)
        return Outcome("win", (b.pid if da else a.pid,), reason)
    if state.turn > cfg.turn_cap:
        return Outcome("draw", (), "turn_cap")
    return RUNNING


def roll_pool(log: TurnLog, count: int, sides: int, purpose: str, actor: str) -> list[int]:
    """Roll a success pool through ``log``, recorded exactly as :meth:`TurnLog.pool` records it
    (same faces in the same order, same event), minus the intermediate ``Roll`` object: this
    is the simulator's hottest call (tested against ``TurnLog.pool``)."""
    face = log.source.face
    faces = [face(sides) for _ in range(count)]
    log.events.append(
        Event("roll", actor, {"sides": sides, "faces": faces, "purpose": purpose, "mode": "pool"})
    )
    return faces


def _count(faces: Any, target: int) -> int:
    n = 0
    for f in faces:
        if f >= target:
            n += 1
    return n


class _Turn:
    """Mutable scratch space of one resolution (never escapes :func:`resolve_turn`)."""

    __slots__ = (
        "cfg", "events", "fighters", "hurt", "log", "paid", "pids", "plans", "reserves",
        "second_ok", "wounds",
    )  # fmt: skip

    def __init__(self, state: PlansState, plans: tuple[Plan, Plan], log: TurnLog) -> None:
        a, b = state.fighters
        self.cfg: PlansConfig = state.config
        self.fighters = (a, b)
        self.pids = (a.pid, b.pid)
        self.plans = plans
        self.log = log
        self.events = log.events
        self.reserves = [list(a.reserves), list(b.reserves)]
        self.wounds = [a.wounds, b.wounds]
        self.paid = [False, False]
        self.second_ok = [False, False]
        self.hurt = [False, False]  # damage stuck this turn (C6 first blood)

    def pay(self, i: int) -> list[list[Any]]:
        """C8, C10: pay the group and the second skill; returns what was spent."""
        plan, res = self.plans[i], self.reserves[i]
        spent: list[list[Any]] = []
        g = GROUP_INDEX[plan.group]
        if res[g] > 0:
            res[g] -= 1
            self.paid[i] = True
            spent.append([plan.group, "group", res[g]])
        else:
            # C8: nothing spent, the group adds nothing, damage pool 1, counts as no group.
            self.events.append(Event("group_empty", self.pids[i], {"group": plan.group}))
        if plan.second_group is not None:
            pay = GROUP_INDEX[plan.second_group]
            if res[pay] > 0:  # C10: not allowed at 0 (validated; a bot plan may still carry it)
                res[pay] -= 1
                self.second_ok[i] = True
                spent.append([plan.second_group, "second_skill", res[pay]])
        return spent

    def guessed(self, i: int) -> tuple[dict[str, bool | None], int]:
        """C12: which of the opponent's parts ``i`` guessed (None: not guessed)."""
        mine, theirs = self.plans[i], self.plans[1 - i]
        cfg = self.cfg
        group: bool | None = None
        skill: bool | None = None
        action: bool | None = None
        right = 0
        if mine.guess_group is not None:
            # C8 DEFAULT: compared with the named group even when it was not paid for.
            group = mine.guess_group == theirs.group and (
                cfg.guess_group_compares == "named" or self.paid[1 - i]
            )
            right += group
        if mine.guess_skill is not None:
            skill = mine.guess_skill == theirs.skill or (
                cfg.skill_guess_matches == "either"
                and self.second_ok[1 - i]
                and mine.guess_skill == theirs.second_skill
            )
            right += skill
        if mine.guess_action is not None:
            action = mine.guess_action == theirs.action
            right += action
        return {"group": group, "skill": skill, "action": action}, right

    def action_check(
        self, i: int, spent: list[list[Any]], guessed: dict[str, bool | None], right: int, d: int
    ) -> int:
        """C9, C13: roll the action pool and apply the modifiers in the configured order."""
        cfg, plan, pid = self.cfg, self.plans[i], self.pids[i]
        sheet = self.fighters[i].sheet
        paid = self.paid[i]
        accuracy = sheet.attrs[3 * GROUP_INDEX[plan.group]] if paid else 0
        primary = sheet.skill(plan.skill)
        skill = primary.level if primary is not None else 0
        second = 0
        if self.second_ok[i] and plan.second_skill is not None:
            s2 = sheet.skill(plan.second_skill)
            second = s2.level if s2 is not None else 0
        pool = accuracy + skill + second
        raw = _count(roll_pool(self.log, pool, cfg.dice_sides, "action", pid), cfg.success_target)
        value = raw
        steps: list[dict[str, Any]] = []
        action = plan.action
        for mod in cfg.modifier_order:
            if mod == "cunning":
                if action == "cunning" and cfg.cunning_auto_successes:
                    value += cfg.cunning_auto_successes
                    steps.append(
                        {"step": "cunning", "add": cfg.cunning_auto_successes, "total": value}
                    )
            elif mod == "guess":
                if d > 0:
                    value = _guess_step(cfg, d, value, steps)
            elif action == "defensive":
                value *= cfg.defensive_multiplier
                steps.append({"step": "defensive", "mul": cfg.defensive_multiplier, "total": value})
        self.events.append(
            Event(
                "action",
                pid,
                {
                    "spent": spent,
                    "group_paid": paid,
                    "pool": pool,
                    "parts": {"accuracy": accuracy, "skill": skill, "second": second},
                    "guessed": guessed,
                    "right": right,
                    "diff": d,
                    "raw": raw,
                    "steps": steps,
                    "successes": value,
                },
            )
        )
        return value

    def damage_check(self, i: int, effects: bool) -> None:
        """C14 (+ C11 effects unless a C16 tie): roll damage against the other duelist."""
        cfg, plan, pid, events = self.cfg, self.plans[i], self.pids[i], self.events
        j = 1 - i
        action = plan.action if effects else ""
        if action == "defensive":
            events.append(Event("no_damage", pid, {"reason": "defensive"}))
            return
        sheet = self.fighters[i].sheet
        impact = (
            sheet.attrs[3 * GROUP_INDEX[plan.group] + 1]
            if self.paid[i]
            else cfg.empty_group_damage_pool
        )
        precise = cfg.precise_lethality_bonus if action == "precise" else 0
        lethality = sheet.lethality + precise
        dice_mode = cfg.lethality_mode == "dice"
        pool = impact + lethality if dice_mode else impact
        target, sides = cfg.success_target, cfg.dice_sides
        faces = roll_pool(self.log, pool, sides, "damage", pid)[:]  # the event keeps the roll
        rerolls: list[dict[str, int]] = []
        if action == "strong":
            for _ in range(cfg.strong_rerolls):
                idx = _reroll_index(faces, target, cfg.strong_reroll_target)
                if idx < 0:
                    break
                new = self.log.die(sides, "reroll", pid)
                rerolls.append({"index": idx, "old": faces[idx], "new": new})
                faces[idx] = new
        successes = _count(faces, target)
        hits = successes if dice_mode or not successes else successes + lethality
        healing = action == "healing"
        events.append(
            Event(
                "damage_check",
                pid,
                {
                    "target": self.pids[j],
                    "pool": pool,
                    "parts": {"impact": impact, "lethality": sheet.lethality, "precise": precise},
                    "rerolls": rerolls,
                    "faces": faces,
                    "successes": successes,
                    "hits": hits,
                    "effect": "heal" if healing else "wound",
                },
            )
        )
        if healing:
            healed = min(hits, self.wounds[i])
            if healed:
                self.wounds[i] -= healed
                events.append(Event("healed", pid, {"amount": healed, "wounds": self.wounds[i]}))
            return
        if hits <= 0:
            return
        dealt = hits - self.soak(j, hits)
        if dealt > 0:
            self.wounds[j] += dealt
            self.hurt[j] = True
            events.append(
                Event(
                    "damage",
                    self.pids[j],
                    {"by": pid, "hits": hits, "wounds": dealt, "wounds_after": self.wounds[j]},
                )
            )

    def soak(self, j: int, hits: int) -> int:
        """C15: the loser's toughness check with the reserve chosen in advance."""
        cfg, res = self.cfg, self.reserves[j]
        choice = cfg.soak_choice
        if choice == "plan":
            group = self.plans[j].soak
            if group is None:
                return 0
            g = GROUP_INDEX[group]
        elif choice == "auto":
            g = max(range(3), key=res.__getitem__)
        else:
            return 0
        if res[g] <= 0:
            return 0
        res[g] -= 1
        pid = self.pids[j]
        if cfg.toughness_pool == "temporary":
            pool = res[g]
        else:
            pool = self.fighters[j].sheet.attrs[3 * g + 2]
        faces = roll_pool(self.log, pool, cfg.dice_sides, "toughness", pid)
        soaked = min(_count(faces, cfg.success_target), hits)
        self.events.append(
            Event(
                "soaked",
                pid,
                {
                    "group": GROUPS[g],
                    "reserve": res[g],
                    "pool": pool,
                    "hits": hits,
                    "soaked": soaked,
                },
            )
        )
        return soaked

    def restore(self, i: int) -> dict[str, Any]:
        """C17: restore one unused group's reserve (capped by C5); DEFAULT fallback."""
        cfg, plan, res = self.cfg, self.plans[i], self.reserves[i]
        attrs = self.fighters[i].sheet.attrs
        used_g = GROUP_INDEX[plan.group] if self.paid[i] else -1
        used_s = (
            GROUP_INDEX[plan.second_group]
            if self.second_ok[i] and plan.second_group is not None
            else -1
        )
        g = -1
        fallback = False
        if plan.restore is not None and GROUP_INDEX[plan.restore] not in (used_g, used_s):
            g = GROUP_INDEX[plan.restore]
        elif cfg.restore_fallback == "largest_missing":
            fallback = True
            best = 0
            for k in (0, 1, 2):
                missing = attrs[3 * k + 2] - res[k]
                if missing > best and k not in (used_g, used_s):
                    g, best = k, missing
        if g < 0:
            return {"group": None, "amount": 0, "fallback": fallback}
        before = res[g]
        res[g] = min(attrs[3 * g + 2], before + cfg.restore_amount)  # C5 cap
        return {"group": GROUPS[g], "amount": res[g] - before, "fallback": fallback}


def _guess_step(cfg: PlansConfig, d: int, value: int, steps: list[dict[str, Any]]) -> int:
    """C12: d = 1 adds, d = 2/3 multiply (DEFAULT: no stacking of the +1)."""
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
        if f < target:
            if how == "first_failed":
                return k
            if idx < 0 or f < faces[idx]:
                idx = k
    return idx


def resolve_turn(
    state: PlansState, plans: tuple[Plan, Plan], defaults: tuple[bool, bool], log: TurnLog
) -> PlansState:
    """Resolve one turn with both plans (in seat order); return the next state."""
    cfg = state.config
    t = _Turn(state, plans, log)
    events = log.events
    p0, p1 = pids = t.pids
    attacker = state.attacker
    defender = p1 if attacker == p0 else p0
    events.append(
        Event(
            "reveal",
            None,
            {
                "turn": state.turn,
                "attacker": attacker,
                "defender": defender,
                "plans": {p0: dump_plan(plans[0]), p1: dump_plan(plans[1])},
                "defaults": {p0: defaults[0], p1: defaults[1]},
            },
        )
    )
    spent0 = t.pay(0)
    spent1 = t.pay(1)
    g0, right0 = t.guessed(0)
    g1, right1 = t.guessed(1)
    s0 = t.action_check(0, spent0, g0, right0, right0 - right1)
    s1 = t.action_check(1, spent1, g1, right1, right1 - right0)
    if s0 != s1:
        w = 0 if s0 > s1 else 1
        events.append(
            Event(
                "contest",
                None,
                {
                    "successes": {p0: s0, p1: s1},
                    "tie": False,
                    "winner": pids[w],
                    "loser": pids[1 - w],
                },
            )
        )
        t.damage_check(w, True)
    else:
        by = [pids[i] for i in (0, 1) if plans[i].action in cfg.tie_damage_actions]
        events.append(
            Event(
                "contest",
                None,
                {"successes": {p0: s0, p1: s1}, "tie": True, "winner": None, "loser": None},
            )
        )
        quiet = "damage" if by else "quiet"
        events.append(Event("tie", None, {"damage": bool(by), "by": by, "result": quiet}))
        if by:  # C16: both make damage checks (attacker first); DEFAULT no action effects
            first = 0 if p0 == attacker else 1
            t.damage_check(first, cfg.tie_action_effects)
            t.damage_check(1 - first, cfg.tie_action_effects)
    a, b = state.fighters
    fighters = []
    for i, f in ((0, a), (1, b)):
        restored = t.restore(i)
        res = t.reserves[i]
        nf = Fighter(f.pid, f.name, f.side, f.sheet, tuple(res), t.wounds[i], f.bled or t.hurt[i])
        fighters.append(nf)
        events.append(
            Event(
                "status",
                f.pid,
                {
                    "restore": restored,
                    "wounds": nf.wounds,
                    "reserves": {"physical": res[0], "magical": res[1], "mental": res[2]},
                    "bled": nf.bled,
                },
            )
        )
    new = PlansState(cfg, (fighters[0], fighters[1]), state.turn + 1, defender, state.initiative)
    result = outcome(new)
    if result is not RUNNING:
        events.append(
            Event(
                "end",
                None,
                {"status": result.status, "winners": list(result.winners), "reason": result.reason},
            )
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

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
from engine.rulesets.plans.config import GROUP_INDEX, GROUPS
from engine.rulesets.plans.plan import Plan, dump_plan
from engine.rulesets.plans.state import Fighter, PlansState
from engine.rulesets.plans.tables import info_of, restore_of, rules_of

RUNNING = Outcome("running")


# The last resolution's (state, outcome): one tuple swapped in one store, so reads are safe.
_LAST: list[tuple[PlansState | None, Outcome]] = [(None, RUNNING)]


def outcome(state: PlansState) -> Outcome:
    """C6/C18/C21: incapacitation (wounds >= limit) or first blood; both at once is a draw.

    The state a resolution just returned hits a one-entry memo (it is asked again at once by
    ``acting`` and the simulator)."""
    last = _LAST[0]
    if last[0] is state:
        return last[1]
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


_new = tuple.__new__  # Event(...) etc. minus the named tuple's Python-level __new__


def resolve_turn(
    state: PlansState, plans: tuple[Plan, Plan], defaults: tuple[bool, bool], log: TurnLog
) -> PlansState:
    """Resolve one turn with both plans (in seat order); return the next state.

    One flat function on purpose (the simulator's hot path): per-duelist values live in
    two-element lists indexed by seat, the config's constants come precomputed from
    :func:`rules_of`, the sheets' lookups from :func:`info_of`."""
    cfg = state.config
    rules = rules_of(cfg)
    target, sides = rules.target, rules.sides
    hit = rules.hit.__getitem__  # hit(face) = 1 when the face succeeds (C3)
    a, b = fighters = state.fighters
    infos = (info_of(a.sheet), info_of(b.sheet))
    p0, p1 = pids = (a.pid, b.pid)
    events = log.events
    add = events.append
    rand = log._random  # a plain RandomDice: faces inlined, as TurnLog.die does
    face = log.source.face
    attacker = state.attacker
    defender = p1 if attacker == p0 else p0
    add(
        _new(
            Event,
            (
                "reveal",
                None,
                {
                    "turn": state.turn,
                    "attacker": attacker,
                    "defender": defender,
                    "plans": {p0: dump_plan(plans[0]), p1: dump_plan(plans[1])},
                    "defaults": {p0: defaults[0], p1: defaults[1]},
                },
            ),
        )
    )

    # C8, C10: pay the group and the second skill.
    reserves = (list(a.reserves), list(b.reserves))
    groups = [0, 0]
    paid = [False, False]
    second_ok = [False, False]
    used_g = [-1, -1]  # C17: the groups used this turn (-1: none)
    used_s = [-1, -1]
    spent: tuple[list[list[Any]], list[list[Any]]] = ([], [])
    for i in (0, 1):
        plan, res = plans[i], reserves[i]
        g = groups[i] = GROUP_INDEX[plan.group]
        if res[g] > 0:
            res[g] -= 1
            paid[i] = True
            used_g[i] = g
            spent[i].append([plan.group, "group", res[g]])
        else:
            # C8: nothing spent, the group adds nothing, damage pool 1, counts as no group.
            add(_new(Event, ("group_empty", pids[i], {"group": plan.group})))
        if plan.second_group is not None:
            pay = GROUP_INDEX[plan.second_group]
            if res[pay] > 0:  # C10: not allowed at 0 (validated; a bot plan may still carry it)
                res[pay] -= 1
                second_ok[i] = True
                used_s[i] = pay
                spent[i].append([plan.second_group, "second_skill", res[pay]])

    # C12: which of the opponent's parts each guessed (None: not guessed).
    right = [0, 0]
    guessed: list[dict[str, bool | None]] = [{}, {}]
    for i in (0, 1):
        mine, theirs = plans[i], plans[1 - i]
        group: bool | None = None
        skill: bool | None = None
        action: bool | None = None
        n = 0
        if mine.guess_group is not None:
            # C8 DEFAULT: compared with the named group even when it was not paid for.
            group = mine.guess_group == theirs.group and (rules.guess_named or paid[1 - i])
            n += group
        if mine.guess_skill is not None:
            skill = mine.guess_skill == theirs.skill or (
                rules.guess_either and second_ok[1 - i] and mine.guess_skill == theirs.second_skill
            )
            n += skill
        if mine.guess_action is not None:
            action = mine.guess_action == theirs.action
            n += action
        right[i] = n
        guessed[i] = {"group": group, "skill": skill, "action": action}

    # C9, C13: the action checks, modifiers in the configured order.
    scores = [0, 0]
    for i in (0, 1):
        plan, pid, info = plans[i], pids[i], infos[i]
        paid_i = paid[i]
        accuracy = info.attrs[3 * groups[i]] if paid_i else 0
        levels = info.levels
        level = levels.get(plan.skill, 0)
        second = levels.get(plan.second_skill, 0) if second_ok[i] else 0
        pool = accuracy + level + second
        if rand is not None:
            faces = [int(rand() * sides) + 1 for _ in range(pool)]
        else:
            faces = [face(sides) for _ in range(pool)]
        add(
            _new(
                Event,
                (
                    "roll",
                    pid,
                    {"sides": sides, "faces": faces, "purpose": "action", "mode": "pool"},
                ),
            )
        )
        raw = value = sum(map(hit, faces))
        d = right[i] - right[1 - i]
        steps: list[dict[str, Any]] = []
        for name, op, amount, with_diff in rules.pipes[plan.action][d if d > 0 else 0]:
            value = value + amount if op == "add" else value * amount
            steps.append(
                {"step": name, "diff": d, op: amount, "total": value}
                if with_diff
                else {"step": name, op: amount, "total": value}
            )
        scores[i] = value
        add(
            _new(
                Event,
                (
                    "action",
                    pid,
                    {
                        "spent": spent[i],
                        "group_paid": paid_i,
                        "pool": pool,
                        "parts": {"accuracy": accuracy, "skill": level, "second": second},
                        "guessed": guessed[i],
                        "right": right[i],
                        "diff": d,
                        "raw": raw,
                        "steps": steps,
                        "successes": value,
                    },
                ),
            )
        )

    # C14, C16: who makes damage checks, and with or without the C11 action effects.
    s0, s1 = scores
    checks: tuple[tuple[int, bool], ...]
    if s0 != s1:
        w = 0 if s0 > s1 else 1
        add(
            _new(
                Event,
                (
                    "contest",
                    None,
                    {
                        "successes": {p0: s0, p1: s1},
                        "tie": False,
                        "winner": pids[w],
                        "loser": pids[1 - w],
                    },
                ),
            )
        )
        checks = ((w, True),)
    else:
        tie_actions = rules.tie_actions
        by = [pids[i] for i in (0, 1) if plans[i].action in tie_actions]
        add(
            _new(
                Event,
                (
                    "contest",
                    None,
                    {"successes": {p0: s0, p1: s1}, "tie": True, "winner": None, "loser": None},
                ),
            )
        )
        quiet = "damage" if by else "quiet"
        add(_new(Event, ("tie", None, {"damage": bool(by), "by": by, "result": quiet})))
        if by:  # C16: both make damage checks (attacker first); DEFAULT no action effects
            first = 0 if p0 == attacker else 1
            checks = ((first, rules.tie_effects), (1 - first, rules.tie_effects))
        else:
            checks = ()

    wounds = [a.wounds, b.wounds]
    hurt = [False, False]  # damage stuck this turn (C6 first blood)
    for i, effects in checks:
        plan, pid = plans[i], pids[i]
        j = 1 - i
        action_name = plan.action if effects else ""
        if action_name == "defensive":
            add(_new(Event, ("no_damage", pid, {"reason": "defensive"})))
            continue
        info = infos[i]
        impact = info.attrs[3 * groups[i] + 1] if paid[i] else rules.empty_pool
        precise = rules.precise if action_name == "precise" else 0
        lethality = info.lethality + precise
        dice_mode = rules.dice_mode
        pool = impact + lethality if dice_mode else impact
        if rand is not None:
            rolled = [int(rand() * sides) + 1 for _ in range(pool)]
        else:
            rolled = [face(sides) for _ in range(pool)]
        add(
            _new(
                Event,
                (
                    "roll",
                    pid,
                    {"sides": sides, "faces": rolled, "purpose": "damage", "mode": "pool"},
                ),
            )
        )
        faces = rolled[:]  # the roll event keeps the faces as rolled
        rerolls: list[dict[str, int]] = []
        if action_name == "strong":
            how = "first_failed" if rules.first_failed else "lowest_failed"
            for _ in range(rules.strong_rerolls):
                idx = _reroll_index(faces, target, how)
                if idx < 0:
                    break
                again = log.die(sides, "reroll", pid)
                rerolls.append({"index": idx, "old": faces[idx], "new": again})
                faces[idx] = again
        successes = sum(map(hit, faces))
        hits = successes if dice_mode or not successes else successes + lethality
        healing = action_name == "healing"
        add(
            _new(
                Event,
                (
                    "damage_check",
                    pid,
                    {
                        "target": pids[j],
                        "pool": pool,
                        "parts": {
                            "impact": impact,
                            "lethality": info.lethality,
                            "precise": precise,
                        },
                        "rerolls": rerolls,
                        "faces": faces,
                        "successes": successes,
                        "hits": hits,
                        "effect": "heal" if healing else "wound",
                    },
                ),
            )
        )
        if healing:  # C11
            healed = min(hits, wounds[i])
            if healed:
                wounds[i] -= healed
                add(_new(Event, ("healed", pid, {"amount": healed, "wounds": wounds[i]})))
            continue
        if hits <= 0:
            continue
        # C15: the loser's toughness check with the reserve chosen in advance.
        soaked = 0
        res = reserves[j]
        mode = rules.soak_mode
        sg = -1
        if mode == 0:
            soak = plans[j].soak
            if soak is not None:
                sg = GROUP_INDEX[soak]
        elif mode == 1:
            sg = max(range(3), key=res.__getitem__)
        if sg >= 0 and res[sg] > 0:
            res[sg] -= 1
            tpool = res[sg] if rules.temporary else infos[j].attrs[3 * sg + 2]
            if rand is not None:
                tfaces = [int(rand() * sides) + 1 for _ in range(tpool)]
            else:
                tfaces = [face(sides) for _ in range(tpool)]
            add(
                _new(
                    Event,
                    (
                        "roll",
                        pids[j],
                        {"sides": sides, "faces": tfaces, "purpose": "toughness", "mode": "pool"},
                    ),
                )
            )
            soaked = min(sum(map(hit, tfaces)), hits)
            add(
                _new(
                    Event,
                    (
                        "soaked",
                        pids[j],
                        {
                            "group": GROUPS[sg],
                            "reserve": res[sg],
                            "pool": tpool,
                            "hits": hits,
                            "soaked": soaked,
                        },
                    ),
                )
            )
        dealt = hits - soaked
        if dealt > 0:
            wounds[j] += dealt
            hurt[j] = True
            add(
                _new(
                    Event,
                    (
                        "damage",
                        pids[j],
                        {"by": pid, "hits": hits, "wounds": dealt, "wounds_after": wounds[j]},
                    ),
                )
            )

    # C17 restore (capped by C5; DEFAULT fallback), C19 status.
    new_fighters: list[Fighter] = []
    restore_key = rules.restore_key
    for i in (0, 1):
        f, plan, res = fighters[i], plans[i], reserves[i]
        key = (restore_key, res[0], res[1], res[2], used_g[i], used_s[i], plan.restore)
        after, group_name, amount, fallback = infos[i].restores.get(key) or restore_of(
            infos[i], key
        )
        bled = f.bled or hurt[i]
        new_fighters.append(_new(Fighter, (f.pid, f.name, f.side, f.sheet, after, wounds[i], bled)))
        add(
            _new(
                Event,
                (
                    "status",
                    f.pid,
                    {
                        "restore": {"group": group_name, "amount": amount, "fallback": fallback},
                        "wounds": wounds[i],
                        "reserves": {"physical": after[0], "magical": after[1], "mental": after[2]},
                        "bled": bled,
                    },
                ),
            )
        )
    new = _new(
        PlansState,
        (cfg, (new_fighters[0], new_fighters[1]), state.turn + 1, defender, state.initiative),
    )
    result = outcome(new)
    _LAST[0] = (new, result)
    if result is not RUNNING:
        add(
            _new(
                Event,
                (
                    "end",
                    None,
                    {
                        "status": result.status,
                        "winners": list(result.winners),
                        "reason": result.reason,
                    },
                ),
            )
        )
    return new


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

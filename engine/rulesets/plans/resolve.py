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
from engine.rulesets.plans.orders import Plan, dump_plan
from engine.rulesets.plans.state import Fighter, PlansState
from engine.rulesets.plans.tables import Rules, SheetInfo, info_of, restore_of, rules_of

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
    a, b = state.fighters
    return _judge(
        rules_of(state.config), a.pid, a.wounds, a.bled, b.pid, b.wounds, b.bled, state.turn
    )


def _judge(
    rules: Rules, pa: str, wa: int, ba: bool, pb: str, wb: int, bb: bool, turn: int
) -> Outcome:
    """:func:`outcome` from the values it depends on (the resolution has them at hand)."""
    if rules.incapacitation:
        limit = rules.wound_limit
        da, db = wa >= limit, wb >= limit
        reason = "incapacitation"
    else:
        da, db = ba, bb
        reason = "first_blood"
    if da or db:
        if da and db:
            return Outcome("draw", (), "both_" + reason)
        return Outcome("win", (pb if da else pa,), reason)
    if turn > rules.turn_cap:
        return Outcome("draw", (), "turn_cap")
    return RUNNING


_new = tuple.__new__  # Event(...) etc. minus the named tuple's Python-level __new__

# Markers a CountingLog records instead of full events (kind, plus the count_detail field).
_MARK_REVEAL = Event("reveal")
_MARK_ACTION = Event("action")
_MARK_CONTEST = Event("contest")
_MARK_TIE_DAMAGE = Event("tie", None, {"result": "damage"})
_MARK_TIE_QUIET = Event("tie", None, {"result": "quiet"})
_MARK_DAMAGE_CHECK = Event("damage_check")

# Field positions of the named tuples read on the hot path. A named tuple's field read by name
# is a generic attribute lookup in Python 3.11 (not specialised); a plain tuple's by index, or
# an unpacking, is not. Derived from ``_fields`` so a reordering cannot break them.
_PLAN = {name: k for k, name in enumerate(Plan._fields)}
_GROUP, _SKILL, _ACTION = _PLAN["group"], _PLAN["skill"], _PLAN["action"]
_SECOND_SKILL, _SECOND_GROUP = _PLAN["second_skill"], _PLAN["second_group"]
_SOAK, _RESTORE = _PLAN["soak"], _PLAN["restore"]
_GUESS_GROUP, _GUESS_SKILL, _GUESS_ACTION = (
    _PLAN["guess_group"],
    _PLAN["guess_skill"],
    _PLAN["guess_action"],
)
assert Fighter._fields == ("pid", "name", "side", "sheet", "reserves", "wounds", "bled")
assert PlansState._fields == ("config", "fighters", "turn", "attacker", "initiative")


def resolve_turn(
    state: PlansState, plans: tuple[Plan, Plan], defaults: tuple[bool, bool], log: TurnLog
) -> PlansState:
    """Resolve one turn with both plans (in seat order); return the next state.

    One flat function on purpose (the simulator's hot path): per-duelist values live in
    two-element lists indexed by seat, the config's constants come precomputed from
    :func:`rules_of`, the sheets' lookups from :func:`info_of`, named tuples are read by
    position (see ``_PLAN``). Events are immutable values, so an event fully determined by a
    few numbers (contest, soaked, damage) is built once per log and shared (``log.memo``; keys
    hold the kind and every value the event is built from); status events with the C17
    restore are memoised per sheet (``info.statuses``)."""
    cfg, (a, b), turn, attacker, initiative = state
    rules = rules_of(cfg)
    target, sides = rules.target, rules.sides
    hit = rules.hit.__getitem__  # hit(face) = 1 when the face succeeds (C3)
    memo = log.memo  # equal events are one shared object (TurnLog.shared)
    pid_a, name_a, side_a, sheet_a, res_a, wounds_a, bled_a = a
    pid_b, name_b, side_b, sheet_b, res_b, wounds_b, bled_b = b
    infos = (info_of(sheet_a), info_of(sheet_b))
    pids = (pid_a, pid_b)
    pa, pb = plans
    ps: tuple[tuple[Any, ...], ...] = (tuple(pa), tuple(pb))  # plain tuples: by _GROUP etc.
    events = log.events
    add = events.append
    pool_faces = log.pool_faces  # d10 pools, recorded as roll events (C3)
    defender = pid_b if attacker == pid_a else pid_a
    counting = log.counting  # the simulator's CountingLog: kind markers, no full events
    if counting:
        add(_MARK_REVEAL)
    else:
        add(
            _new(
                Event,
                (
                    "reveal",
                    None,
                    {
                        "turn": turn,
                        "attacker": attacker,
                        "defender": defender,
                        "plans": {pid_a: dump_plan(pa), pid_b: dump_plan(pb)},
                        "defaults": {pid_a: defaults[0], pid_b: defaults[1]},
                    },
                ),
            )
        )

    # C8, C10: pay the group and the second skill.
    key: tuple[Any, ...]  # memo keys (of log.memo, rules.steps, info.statuses)
    reserves = (list(res_a), list(res_b))
    groups = [0, 0]
    paid = [False, False]
    second_ok = [False, False]
    used_g = [-1, -1]  # C17: the groups used this turn (-1: none)
    used_s = [-1, -1]
    spent: tuple[list[list[Any]], list[list[Any]]] = ([], [])
    for i in (0, 1):
        plan, res = ps[i], reserves[i]
        group = plan[_GROUP]
        g = groups[i] = _GROUP_INDEX[group]
        if res[g] > 0:
            res[g] -= 1
            paid[i] = True
            used_g[i] = g
            spent[i].append([group, "group", res[g]])
        else:
            # C8: nothing spent, the group adds nothing, damage pool 1, counts as no group.
            key = ("group_empty", pids[i], group)
            add(
                memo.get(key)
                or log.shared(key, _new(Event, ("group_empty", pids[i], {"group": group})))
            )
        second_group = plan[_SECOND_GROUP]
        if second_group is not None:
            pay = _GROUP_INDEX[second_group]
            if res[pay] > 0:  # C10: not allowed at 0 (validated; a bot plan may still carry it)
                res[pay] -= 1
                second_ok[i] = True
                used_s[i] = pay
                spent[i].append([second_group, "second_skill", res[pay]])

    # C12: which of the opponent's parts each guessed (None: not guessed).
    right = [0, 0]
    guessed = [_NOT_GUESSED, _NOT_GUESSED]
    for i in (0, 1):
        guess_group, guess_skill, guess_action = ps[i][_GUESS_GROUP : _GUESS_ACTION + 1]
        if guess_group is None and guess_skill is None and guess_action is None:
            continue
        theirs = ps[1 - i]
        group_ok: bool | None = None
        skill_ok: bool | None = None
        action_ok: bool | None = None
        if guess_group is not None:
            # C8 DEFAULT: compared with the named group even when it was not paid for.
            group_ok = guess_group == theirs[_GROUP] and (rules.guess_named or paid[1 - i])
        if guess_skill is not None:
            skill_ok = guess_skill == theirs[_SKILL] or (
                rules.guess_either and second_ok[1 - i] and guess_skill == theirs[_SECOND_SKILL]
            )
        if guess_action is not None:
            action_ok = guess_action == theirs[_ACTION]
        right[i] = (group_ok is True) + (skill_ok is True) + (action_ok is True)
        guessed[i] = _GUESSED[group_ok, skill_ok, action_ok]

    # C9, C13: the action checks, modifiers in the configured order.
    scores = [0, 0]
    for i in (0, 1):
        plan, pid, info = ps[i], pids[i], infos[i]
        paid_i = paid[i]
        accuracy = info.attrs[3 * groups[i]] if paid_i else 0
        levels = info.levels
        level = levels.get(plan[_SKILL], 0)
        second = levels.get(plan[_SECOND_SKILL], 0) if second_ok[i] else 0
        pool = accuracy + level + second
        faces = pool_faces(pool, sides, "action", pid)
        raw = sum(map(hit, faces))
        d = right[i] - right[1 - i]
        key = (plan[_ACTION], d if d > 0 else 0, raw)
        steps, value = rules.steps.get(key) or _steps(rules, key)
        scores[i] = value
        if counting:
            add(_MARK_ACTION)
            continue
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
    key = ("contest", pid_a, pid_b, s0, s1)
    contest = _MARK_CONTEST if counting else memo.get(key)
    if contest is None:
        w = 0 if s0 > s1 else 1
        contest = log.shared(
            key,
            _new(
                Event,
                (
                    "contest",
                    None,
                    {
                        "successes": {pid_a: s0, pid_b: s1},
                        "tie": s0 == s1,
                        "winner": pids[w] if s0 != s1 else None,
                        "loser": pids[1 - w] if s0 != s1 else None,
                    },
                ),
            ),
        )
    add(contest)
    if s0 != s1:
        checks = _WINNER if s0 > s1 else _LOSER
    else:
        tie_actions = rules.tie_actions
        by = [pids[i] for i in (0, 1) if ps[i][_ACTION] in tie_actions]
        key = ("tie", *by)
        tie = (_MARK_TIE_DAMAGE if by else _MARK_TIE_QUIET) if counting else memo.get(key)
        if tie is None:
            quiet = "damage" if by else "quiet"
            tie = log.shared(
                key, _new(Event, ("tie", None, {"damage": bool(by), "by": by, "result": quiet}))
            )
        add(tie)
        if by:  # C16: both make damage checks (attacker first); DEFAULT no action effects
            first = 0 if pid_a == attacker else 1
            checks = ((first, rules.tie_effects), (1 - first, rules.tie_effects))
        else:
            checks = ()

    wounds = [wounds_a, wounds_b]
    hurt = [False, False]  # damage stuck this turn (C6 first blood)
    for i, effects in checks:
        plan, pid = ps[i], pids[i]
        j = 1 - i
        action_name = plan[_ACTION] if effects else ""
        if action_name == "defensive":
            key = ("no_damage", pid)
            add(
                memo.get(key)
                or log.shared(key, _new(Event, ("no_damage", pid, {"reason": "defensive"})))
            )
            continue
        info = infos[i]
        impact = info.attrs[3 * groups[i] + 1] if paid[i] else rules.empty_pool
        precise = rules.precise if action_name == "precise" else 0
        lethality = info.lethality + precise
        dice_mode = rules.dice_mode
        pool = impact + lethality if dice_mode else impact
        rolled = pool_faces(pool, sides, "damage", pid)
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
        if counting:
            add(_MARK_DAMAGE_CHECK)
        else:
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
            soak = ps[j][_SOAK]
            if soak is not None:
                sg = _GROUP_INDEX[soak]
        elif mode == 1:
            sg = max(range(3), key=res.__getitem__)
        if sg >= 0 and res[sg] > 0:
            res[sg] -= 1
            tpool = res[sg] if rules.temporary else infos[j].attrs[3 * sg + 2]
            tfaces = pool_faces(tpool, sides, "toughness", pids[j])
            soaked = min(sum(map(hit, tfaces)), hits)
            key = ("soaked", pids[j], sg, res[sg], tpool, hits, soaked)
            add(
                memo.get(key)
                or log.shared(
                    key,
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
                    ),
                )
            )
        dealt = hits - soaked
        if dealt > 0:
            wounds[j] += dealt
            hurt[j] = True
            key = ("damage", pids[j], pid, hits, dealt, wounds[j])
            add(
                memo.get(key)
                or log.shared(
                    key,
                    _new(
                        Event,
                        (
                            "damage",
                            pids[j],
                            {"by": pid, "hits": hits, "wounds": dealt, "wounds_after": wounds[j]},
                        ),
                    ),
                )
            )

    # C17 restore (capped by C5; DEFAULT fallback), C19 status: both memoised per sheet.
    restore_key = rules.restore_key
    wa, wb = wounds
    bled_a = bled_a or hurt[0]
    bled_b = bled_b or hurt[1]
    res = reserves[0]
    key = (
        restore_key,
        res[0],
        res[1],
        res[2],
        used_g[0],
        used_s[0],
        pa[_RESTORE],
        pid_a,
        wa,
        bled_a,
    )
    after_a, status = infos[0].statuses.get(key) or _status(infos[0], key)
    add(status)
    res = reserves[1]
    key = (
        restore_key,
        res[0],
        res[1],
        res[2],
        used_g[1],
        used_s[1],
        pb[_RESTORE],
        pid_b,
        wb,
        bled_b,
    )
    after_b, status = infos[1].statuses.get(key) or _status(infos[1], key)
    add(status)
    new = _new(
        PlansState,
        (
            cfg,
            (
                _new(Fighter, (pid_a, name_a, side_a, sheet_a, after_a, wa, bled_a)),
                _new(Fighter, (pid_b, name_b, side_b, sheet_b, after_b, wb, bled_b)),
            ),
            turn + 1,
            defender,
            initiative,
        ),
    )
    result = _judge(rules, pid_a, wa, bled_a, pid_b, wb, bled_b, turn + 1)
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


# The checks of a contest with a winner: seat 0 or 1, with the C11 action effects.
_WINNER: tuple[tuple[int, bool], ...] = ((0, True),)
_LOSER: tuple[tuple[int, bool], ...] = ((1, True),)
_GROUP_INDEX = GROUP_INDEX
# C12 "guessed" data: one shared dict per combination (events are immutable values).
_GUESSED: dict[tuple[bool | None, bool | None, bool | None], dict[str, bool | None]] = {
    (g, s, a): {"group": g, "skill": s, "action": a}
    for g in (None, False, True)
    for s in (None, False, True)
    for a in (None, False, True)
}
_NOT_GUESSED = _GUESSED[None, None, None]
_MEMO_MAX = 1 << 14


def _steps(rules: Rules, key: tuple[Any, ...]) -> tuple[list[dict[str, Any]], int]:
    """C12, C13: the modifier steps of ``action`` with guessing difference ``d`` (clamped at
    0) after ``raw`` successes, and the final successes; memoised in ``rules.steps``."""
    action, d, raw = key
    value = raw
    steps: list[dict[str, Any]] = []
    for name, op, amount, with_diff in rules.pipes[action][d]:
        value = value + amount if op == "add" else value * amount
        steps.append(
            {"step": name, "diff": d, op: amount, "total": value}
            if with_diff
            else {"step": name, op: amount, "total": value}
        )
    if len(rules.steps) >= _MEMO_MAX:
        rules.steps.clear()
    out = rules.steps[key] = (steps, value)
    return out


def _status(info: SheetInfo, key: tuple[Any, ...]) -> tuple[tuple[int, ...], Event]:
    """C17, C19: the reserves after the restore and the ``status`` event, for ``key`` =
    (restore key, r0, r1, r2, used group, used second group, chosen group, pid, wounds,
    bled); memoised per sheet in ``info.statuses``."""
    pid, wounds, bled = key[7:]
    after, group_name, amount, fallback = restore_of(info, key[:7])
    status = _new(
        Event,
        (
            "status",
            pid,
            {
                "restore": {"group": group_name, "amount": amount, "fallback": fallback},
                "wounds": wounds,
                "reserves": {"physical": after[0], "magical": after[1], "mental": after[2]},
                "bled": bled,
            },
        ),
    )
    if len(info.statuses) >= _MEMO_MAX:
        info.statuses.clear()
    out = info.statuses[key] = (after, status)
    return out


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

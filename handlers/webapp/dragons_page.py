"""The dragons page (docs/rules/dragons.md D3-D28): the sky (Altitude against Speed, as the
reveal picture draws it), the reader's dragon movable to each legal movement, the actions it
may declare, and for every attack the exact chance to hit and to wound (``engine.rulesets.
dragons.odds``); an action that cannot succeed from there is named with the reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.dragons.geometry import movement_options
from engine.rulesets.dragons.odds import attack_odds
from engine.rulesets.dragons.orders import parse_order_dict
from engine.rulesets.dragons.state import DragonsState
from handlers.telegram.i18n import Tr
from handlers.telegram.ui.dragons.common import reason_text, weapon_name
from handlers.telegram.ui.dragons.reveal import DragonsReveal
from handlers.webapp.text import frac, plain


def _move_label(tr: Tr, move: str, n: int) -> str:
    if move == "level":
        return tr("dr.mv.level0") if n == 0 else tr("dr.mv.level", n=f"{n:+d}")
    return tr(f"dr.mv.{move}", n=n)


def _names(match: Match) -> dict[str, str]:
    return {s.pid: s.name for s in match.seats}


def dragons_page(match: Match, state: DragonsState, pid: str, tr: Tr) -> dict[str, Any]:
    """The sky and the legal movements; the actions come with :func:`dragons_odds` (they
    depend on the movement chosen)."""
    me = state.dragon(pid)
    names = _names(match)
    dragons = [
        {
            "pid": d.pid,
            "name": names.get(d.pid, d.name),
            "speed": d.speed,
            "altitude": d.altitude,
            "me": d.pid == pid,
            "ally": d.team == me.team and d.pid != pid,
            "wounds": d.wounds,
            "shaken": d.shaken,
            "tail_of": d.tail_of,
        }
        for d in state.dragons
        if d.in_battle
    ]
    moves = [
        {
            "move": o.move,
            "n": o.n,
            "label": _move_label(tr, o.move, o.n),
            "speed": o.speed,
            "altitude": o.altitude,
            "legal": o.legal,
            "dangerous": o.dangerous,
            "reason": None if o.reason is None else plain(reason_text(tr, o.reason.code)),
        }
        for o in movement_options(state, pid)
    ]
    return {
        "me": {"pid": pid, "speed": me.speed, "altitude": me.altitude, "tail_of": me.tail_of},
        "dragons": dragons,
        "moves": moves,
        "max_actions": state.config.max_actions,
        "pursued": me.tail_of is not None,
    }


def _candidates(state: DragonsState, pid: str) -> list[dict[str, Any]]:
    """Every action the page offers: attacks with each weapon on each foe, getting on a foe's
    tail, forcing (D27) and breaking a tail (D28). Powers are typed in the chat (their text)."""
    me = state.dragon(pid)
    foes = [d for d in state.dragons if d.in_battle and d.team != me.team]
    out: list[dict[str, Any]] = []
    for w in state.stats[pid].weapons:
        out += [{"type": "attack", "weapon": w.name, "target": d.pid} for d in foes]
    out += [{"type": "tail", "target": d.pid} for d in foes]
    out += [
        {"type": "force", "choice": "up", "raise_choice": "climb"},
        {"type": "force", "choice": "down", "raise_choice": "dive"},
        {"type": "break", "target": None},
    ]
    return out


def _refusal(state: DragonsState, pid: str, order: Mapping[str, Any], tr: Tr) -> str | None:
    from handlers.telegram.plain import rejection_text

    try:
        parsed = parse_order_dict(state.config, order)
    except Rejection as exc:
        return plain(rejection_text(tr, exc))
    from engine.rulesets.dragons.orders import validate

    refused = validate(state, pid, parsed)
    return None if refused is None else plain(rejection_text(tr, refused))


def dragons_odds(
    match: Match, state: DragonsState, pid: str, order: Mapping[str, Any], tr: Tr
) -> dict[str, Any]:
    """For the draft ``order`` (a movement and the actions chosen so far): whether it is
    legal, and every candidate action with its legality, its reason, and for an attack its
    range band and exact chances as one more (or, if chosen, one of the) declared actions."""
    move = (str(order.get("move", "level")), order.get("n", 0))
    n = move[1] if isinstance(move[1], int) and not isinstance(move[1], bool) else 0
    raw = order.get("actions")
    chosen: list[Any] = raw if isinstance(raw, list) else []
    base = {"move": move[0], "n": n, "actions": chosen}
    names = _names(match)
    out = []
    for action in _candidates(state, pid):
        picked = action in chosen
        count = len(chosen) if picked else len(chosen) + 1
        trial = base if picked else {**base, "actions": [*chosen, action]}
        refused = _refusal(state, pid, trial, tr) if not picked else None
        item: dict[str, Any] = {
            "action": action,
            "label": plain(DragonsReveal.action_text(tr, action, names)),
            "chosen": picked,
            "reason": refused,
        }
        if action["type"] == "attack":
            odds = attack_odds(state, pid, action["weapon"], action["target"], (move[0], n), count)
            item["weapon"] = plain(weapon_name(tr, action["weapon"]))
            item["range"] = odds.range
            item["band"] = None if odds.band is None else tr(f"dr.band.{odds.band}")
            if not odds.possible and item["reason"] is None:
                item["reason"] = plain(reason_text(tr, odds.reason or "impossible"))
            if odds.possible:
                item["odds"] = {
                    "hit": frac(odds.hit),
                    "raise": frac(odds.raise_),
                    "shaken": frac(odds.shaken),
                    "wound": frac(odds.wound),
                    "tn": odds.tn,
                    "modifier": odds.modifier,
                }
        out.append(item)
    return {"order": _refusal(state, pid, base, tr), "actions": out}

"""The plans page (docs/rules/plans.md C7-C17): the plan as one form, with the exact chances
the chat builder's confirmation shows (``PlansRuleset.preview``, C8-C14)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.plans.config import ACTIONS, GROUPS
from engine.rulesets.plans.orders import parse_plan
from engine.rulesets.plans.preview import preview_plan
from handlers.telegram.i18n import Tr
from handlers.telegram.ui.plans.common import action_name, group_name, skill_name
from handlers.webapp.text import frac, plain


def _skills(tr: Tr, sheet: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": sid, "label": plain(skill_name(tr, sid)), "level": s["level"], "groups": s["groups"]}
        for sid, s in sheet["skills"].items()
    ]


def plans_page(match: Match, state: Any, pid: str, tr: Tr) -> dict[str, Any]:
    """The form's choices: groups with the reader's reserves, actions with their help, the
    reader's skills and the opponent's (for the guesses), the text's length bounds."""
    cfg = state.config
    me = next(f for f in state.fighters if f.pid == pid)
    them = next(f for f in state.fighters if f.pid != pid)
    reserves = me.reserves_json()
    return {
        "groups": [
            {"id": g, "label": plain(group_name(tr, g)), "reserve": reserves[g]} for g in GROUPS
        ],
        "actions": [
            {
                "id": a,
                "label": plain(action_name(tr, a)),
                "help": plain(tr(f"plans.action_help.{a}")),
            }
            for a in ACTIONS
        ],
        "skills": _skills(tr, me.sheet.to_json()),
        "their_skills": _skills(tr, them.sheet.to_json()),
        "opponent": {"pid": them.pid, "name": match.seat(them.pid).name},
        "wounds": me.wounds,
        "text": [cfg.min_text_length, cfg.max_text_length],
        "target": cfg.success_target,
        "sides": cfg.dice_sides,
    }


def plans_odds(
    match: Match, state: Any, pid: str, order: Mapping[str, Any], tr: Tr
) -> dict[str, Any]:
    """The draft's pool and exact chances of at least k successes, or why it is refused
    (the engine's own validation, with a stand-in text: the text is checked on sealing)."""
    from handlers.telegram.plain import rejection_text

    cfg = state.config
    draft = {**order, "text": "x" * max(cfg.min_text_length, 1)}
    me = next(f for f in state.fighters if f.pid == pid)
    try:
        plan = parse_plan(draft)
        refused = match.rules.validate(state, pid, plan)
    except Rejection as exc:
        refused = exc
    if refused is not None:
        return {"error": plain(rejection_text(tr, refused))}
    pv = preview_plan(cfg, me.sheet, me.reserves, plan)
    return {
        "pool": pv.pool,
        "parts": {"accuracy": pv.accuracy, "skill": pv.skill, "second": pv.second},
        "group_paid": pv.group_paid,
        "steps": [list(s) for s in pv.steps],
        "damage_pool": pv.damage_pool,
        "at_least": [frac(p) for p in pv.at_least],
    }

"""The ``plans`` order builder: one step per part of the plan, chances shown, the confirmation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.plans import Fighter, PlansConfig, PlansState
from engine.rulesets.plans.config import ACTIONS, GROUPS
from engine.rulesets.plans.orders import parse_plan
from engine.rulesets.plans.preview import PlanPreview, preview_plan
from engine.rulesets.plans.typed import format_typed
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Screen,
    esc,
)
from handlers.telegram.ui.plans.common import (
    ALPHA,
    ICON,
    NONE,
    _config,
    _index,
    _me_them,
    _opt,
    _state,
    group_name,
)
from handlers.telegram.ui.plans.reveal import PlansReveal
from handlers.telegram.ui.plans.steps import CHOICES, Choice, guess_action

CANCEL = "x"  # the cancelled builder
STEPS = (
    "group",
    "skill",
    "second",
    "action",
    "soak",
    "restore",
    "guess_group",
    "guess_skill",
    "guess_action",
)
DONE = len(STEPS)
MAX_CHANCES = 12  # lines of the "at least k" table shown (the rest are ~0)


class PlansBuilder(PlansReveal):
    def _seconds(self, me: Fighter, g: int, k: int) -> list[tuple[int, int]]:
        """C10: (paying group, skill index) pairs for a second skill: another group with
        reserve, a different skill usable with the group paid for."""
        n = len(me.sheet.skills)
        return [
            (pg, j)
            for pg in range(3)
            if pg != g and me.reserves[pg] > 0
            for j, s in enumerate(me.sheet.skills)
            if j != k and pg in s.groups and pg * n + j < len(ALPHA)
        ]

    def _auto(self, cfg: PlansConfig, me: Fighter, s: str) -> bool:
        """Whether step ``len(s)`` has nothing to choose (filled with ``-`` and skipped)."""
        step = STEPS[len(s)]
        if step == "second":
            return not self._seconds(me, _index(s[0], 3), _index(s[1], len(me.sheet.skills)))
        if step == "soak":
            return cfg.soak_choice != "plan" or not any(me.reserves)
        return False

    def _fill(self, cfg: PlansConfig, me: Fighter, s: str) -> str:
        while len(s) < DONE and self._auto(cfg, me, s):
            s += NONE
        return s

    def _back(self, cfg: PlansConfig, me: Fighter, s: str) -> str:
        t = s[:-1]  # drop the last choice; drop again while it was filled in (skipped)
        while t and self._auto(cfg, me, t):
            t = t[:-1]
        return t

    reply_alert_key = "plans.reply_alert"

    def order_with_text(
        self, match: Match, pid: str, args: Sequence[str], text: str
    ) -> dict[str, Any]:
        """C22: the plan of the confirmation's builder state, with its role-play text."""
        if len(args) != 1:
            raise Rejection("invalid_button")
        return self.plan_json(match, pid, args[0], text=text)

    def plan_json(self, match: Match, pid: str, s: str, text: str = "") -> dict[str, Any]:
        """The plan (JSON form, as sealed) a complete builder state stands for."""
        state = _state(match)
        me, them = _me_them(state, pid)
        if len(s) != DONE:
            raise Rejection("invalid_button")
        return self._plan(me, them, s, text)

    @staticmethod
    def _plan(me: Fighter, them: Fighter, s: str, text: str = "") -> dict[str, Any]:
        """The (possibly partial) plan of state ``s``: only the parts chosen so far."""
        skills, theirs = me.sheet.skills, them.sheet.skills
        n = len(skills)
        plan: dict[str, Any] = {}
        if len(s) > 0:
            plan["group"] = GROUPS[_index(s[0], 3)]
        if len(s) > 1:
            plan["skill"] = skills[_index(s[1], n)].id
        if len(s) > 2:
            sec = _opt(s[2], 3 * n)
            plan["second"] = (
                None if sec is None else {"group": GROUPS[sec // n], "skill": skills[sec % n].id}
            )
        if len(s) > 3:
            plan["action"] = ACTIONS[_index(s[3], 5)]
        if len(s) > 4:
            soak = _opt(s[4], 3)
            plan["soak"] = None if soak is None else GROUPS[soak]
        if len(s) > 5:
            restore = _opt(s[5], 3)
            plan["restore"] = None if restore is None else GROUPS[restore]
        if len(s) > 6:
            gg = _opt(s[6], 3)
            gs = _opt(s[7], len(theirs)) if len(s) > 7 else None
            ga = _opt(s[8], 5) if len(s) > 8 else None
            plan["guess"] = {
                "group": None if gg is None else GROUPS[gg],
                "skill": None if gs is None else theirs[gs].id,
                "action": None if ga is None else ACTIONS[ga],
            }
        if len(s) == DONE:
            plan["text"] = text
        return plan

    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        s = state[0] if state else ""
        turn = match.turn

        def cb(new: str, kind: str = "b") -> Callback:
            return Callback(kind, match.id, turn, (pid, new))

        if s == CANCEL:
            return Screen(
                tr("plans.cancelled", example=self._example(tr, match, pid)),
                [[Button(tr("plans.btn.restart"), cb(""))]],
            )
        if len(s) > DONE:
            raise Rejection("invalid_button")
        cfg = _config(match)
        st = _state(match)
        me, them = _me_them(st, pid)
        s = self._fill(cfg, me, s)
        plan = self._plan(me, them, s)
        nav: list[Button] = []
        if s:
            nav.append(Button(tr("btn.back"), cb(self._back(cfg, me, s))))
        nav.append(Button(tr("plans.btn.cancel"), cb(CANCEL)))
        head = [self._you(tr, me, st)]
        if plan:
            head.append(tr("plans.so_far", plan=Raw(self.order_text(tr, plan))))
        if len(s) == DONE:
            return self._confirm(tr, match, pid, cfg, st, me, s, plan, nav, cb(s, "pt"))
        step = STEPS[len(s)]
        rows = self._choices(tr, cfg, me, them, s, step, cb)
        prompt = tr(
            f"plans.step.{step}",
            n=len(s) + 1,
            total=DONE,
            opponent=Raw(esc(them.name)),
        )
        if not s:
            prompt += "\n" + tr("plans.typed_hint", example=self._example(tr, match, pid))
        return Screen("\n".join([*head, "", prompt]), [*rows, nav])

    @staticmethod
    def _example(tr: Tr, match: Match, pid: str) -> str:
        """A typed plan for this reader (``/plan`` is in the message)."""
        from handlers.telegram.hints import order_words

        return order_words(tr, match, pid)

    def _you(self, tr: Tr, me: Fighter, st: PlansState) -> str:
        role = "attacker" if st.attacker == me.pid else "defender"
        return tr(
            "plans.you",
            role=tr(f"plans.role.{role}"),
            wounds=me.wounds,
            reserves=Raw(self._reserves(tr, me.reserves, me.sheet.attrs)),
        )

    @staticmethod
    def _reserves(tr: Tr, reserves: Sequence[int], attrs: Sequence[int]) -> str:
        return " · ".join(
            f"{ICON[g]}{reserves[i]}/{attrs[3 * i + 2]}" for i, g in enumerate(GROUPS)
        )

    def _choices(
        self,
        tr: Tr,
        cfg: PlansConfig,
        me: Fighter,
        them: Fighter,
        s: str,
        step: str,
        cb: Any,
    ) -> list[list[Button]]:
        return CHOICES.get(step, guess_action)(Choice(tr, me, them, s, cb, self._seconds))

    def preview(self, match: Match, pid: str, plan: Mapping[str, Any]) -> PlanPreview:
        """The confirmation screen's numbers, straight from the ruleset (C8-C14)."""
        st = _state(match)
        me, _ = _me_them(st, pid)
        return preview_plan(st.config, me.sheet, me.reserves, parse_plan({**plan, "text": ""}))

    def _confirm(
        self,
        tr: Tr,
        match: Match,
        pid: str,
        cfg: PlansConfig,
        st: PlansState,
        me: Fighter,
        s: str,
        plan: dict[str, Any],
        nav: list[Button],
        text_cb: Callback,
    ) -> Screen:
        pv = self.preview(match, pid, plan)
        lines = [tr("plans.confirm.title", plan=Raw(self.order_text(tr, plan)))]
        parts = [tr("plans.part.accuracy", n=pv.accuracy), tr("plans.part.skill", n=pv.skill)]
        if pv.second:
            parts.append(tr("plans.part.second", n=pv.second))
        lines.append(tr("plans.confirm.pool", pool=pv.pool, parts=" + ".join(parts)))
        if not pv.group_paid:
            lines.append(tr("plans.confirm.unpaid", group=group_name(tr, plan["group"])))
        if pv.steps:
            lines.append(tr("plans.confirm.steps", steps=Raw(self._steps(tr, pv.steps))))
        lines.append(tr("plans.confirm.chances", target=cfg.success_target, sides=cfg.dice_sides))
        for k, p in enumerate(pv.at_least, start=1):
            if k > MAX_CHANCES or (k > 1 and p < Fraction(1, 1000)):
                break
            lines.append(tr("plans.confirm.at_least", k=k, pct=rounded_percent(p)))
        if not pv.at_least:
            lines.append(tr("plans.confirm.no_dice"))
        lines.append(tr("plans.confirm.guess_note"))
        if plan["action"] == "defensive":
            lines.append(tr("plans.confirm.damage_none"))
        else:
            lines.append(tr("plans.confirm.damage", pool=pv.damage_pool))
        typed = format_typed({**plan, "text": tr("input.plan_text")})  # accepted back as is
        lines += [
            "",
            tr(
                "plans.confirm.reply",
                min=cfg.min_text_length,
                max=cfg.max_text_length,
                typed=typed,
            ),
        ]
        rows = [[Button(tr("plans.btn.how_to_seal"), text_cb)], nav]
        return Screen("\n".join(lines), rows)

    @staticmethod
    def _steps(tr: Tr, steps: Sequence[tuple[str, int]]) -> str:
        return ", ".join(f"+{v}" if op == "add" else f"×{v}" for op, v in steps)


def rounded_percent(p: Fraction) -> str:
    """A chance as a whole percentage for a phone screen (issue 24: no exact fractions):
    never "0%" for a possible event nor "100%" for an uncertain one."""
    if p <= 0 or p >= 1:
        return f"{int(p) * 100}%"
    pct = round(float(p) * 100)
    if pct < 1:
        return "<1%"
    if pct > 99:
        return ">99%"
    return f"{pct}%"

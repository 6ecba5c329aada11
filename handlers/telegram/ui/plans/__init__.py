"""Telegram UI of the ``plans`` ruleset (``docs/rules/plans.md``, C1-C22).

Order builder (private chat), one step per screen, every screen with Back and Cancel:
group -> skill -> second skill (C10; only groups whose reserve can pay, skipped when none can)
-> action (C11) -> soak group (C15; skipped unless the config puts it in the plan) -> group to
restore (C17) -> guesses of the opponent's group, skill and action (C12) -> a confirmation
screen with the action pool and the EXACT chance of at least 1, 2, 3… successes
(:mod:`engine.rulesets.plans.preview`). The role-play text (C22) is the last part: the player
*replies* to the confirmation message with it, and the reply seals the plan.

Builder state travels in the callback data as ONE argument of one character per step
(:data:`STEPS`; ``-`` = none/not guessed; indexes, never names), so a whole plan costs 9 bytes
of the 64. The confirmation message's "✍️" button carries the complete state, signed: a reply
to that message is read back by :mod:`handlers.telegram.text_reply` from the replied message's
keyboard, so the text step needs no storage either.

Typed syntax: ``/plan physical fencing +mental feint strong soak:mental restore:magical
guess:magical/pyromancy/cunning -- text`` (also after ``/order``),
:func:`engine.rulesets.plans.parse_typed`.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from engine.errors import Rejection
from engine.match import Match, TurnRecord
from engine.rulesets.plans import Fighter, PlansConfig, PlansState
from engine.rulesets.plans import parse_typed as parse_plan_text
from engine.rulesets.plans.config import ACTIONS, ATTRIBUTES, GROUP_ATTRIBUTES, GROUPS
from engine.rulesets.plans.orders import parse_plan
from engine.rulesets.plans.preview import PlanPreview, preview_plan
from engine.rulesets.plans.sheet import PRESETS
from engine.rulesets.plans.typed import GROUP_WORDS, format_typed
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Option,
    RulesetUI,
    Screen,
    alias_words,
    aliases,
    esc,
    names_of,
    parse_words,
)

ALPHA = string.digits + string.ascii_lowercase + string.ascii_uppercase  # one-char indexes
NONE = "-"  # no second skill / no soak / bot's restore / not guessed
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
MAX_EXACT = 25  # the exact fraction is shown beside the percentage when this short
WOUND_LIMITS = (3, 5, 7)
TURN_CAPS = (10, 20, 30)
ICON = {"physical": "💪", "magical": "✨", "mental": "🧠"}
ACTION_ICON = {
    "strong": "🔨",
    "precise": "🎯",
    "cunning": "🦊",
    "healing": "💚",
    "defensive": "🛡",
}
# Typed sheets: short and Russian names of the nine attributes (C1).
ATTRIBUTE_WORDS: dict[str, str] = {
    **{a: a for a in ATTRIBUTES},
    **{a[:3]: a for a in ATTRIBUTES},
    "src": "source",
    "ловкость": "dexterity", "сила": "strength", "выносливость": "stamina",
    "искусность": "artistry", "одарённость": "giftedness", "одаренность": "giftedness",
    "исток": "source", "реакция": "reaction", "концентрация": "concentration", "воля": "will",
}  # fmt: skip


ALIASES = aliases("plans")


def _config(match: Match) -> PlansConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, PlansConfig)
    return cfg


def _state(match: Match) -> PlansState:
    state = match.rules.load_state(match.state or {})
    assert isinstance(state, PlansState)
    return state


def _me_them(state: PlansState, pid: str) -> tuple[Fighter, Fighter]:
    i = state.seat(pid)
    return state.fighters[i], state.fighters[1 - i]


def _index(ch: str, size: int) -> int:
    """A one-character index; a character that is no valid index is a forged press."""
    k = ALPHA.find(ch)
    if k < 0 or k >= size:
        raise Rejection("invalid_button")
    return k


def _opt(ch: str, size: int) -> int | None:
    return None if ch == NONE else _index(ch, size)


def skill_name(tr: Tr, skill: Any) -> str:
    """A skill in words (HTML): the catalog's name for the presets' skills, else the sheet's
    own id. The typed syntax keeps the ids (the builder's buttons show them)."""
    key = f"plans.skill.{skill}"
    return tr(key) if tr.has(key) else esc(skill)


def weapon_name(tr: Tr, weapon: Any) -> str:
    """A weapon's name in words (HTML): the catalog's for the presets' weapons, else its own."""
    key = f"plans.weapon.{weapon}"
    return tr(key) if tr.has(key) else esc(weapon)


def group_name(tr: Tr, group: str) -> str:
    return tr(f"plans.group.{group}") if tr.has(f"plans.group.{group}") else esc(group)


def action_name(tr: Tr, action: str) -> str:
    return tr(f"plans.action.{action}") if tr.has(f"plans.action.{action}") else esc(action)


class PlansUI(RulesetUI):
    ruleset = "plans"
    help_key = "help.plans"

    # --- lobby -------------------------------------------------------------------------------

    def turn_limit(self, match: Match) -> int | None:
        return _config(match).turn_cap  # C21

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = _config(match)
        end = cfg.end_condition
        other = "first_blood" if end == "incapacitation" else "incapacitation"
        wl = (
            WOUND_LIMITS[(WOUND_LIMITS.index(cfg.wound_limit) + 1) % len(WOUND_LIMITS)]
            if (cfg.wound_limit in WOUND_LIMITS)
            else 5
        )
        tc = (
            TURN_CAPS[(TURN_CAPS.index(cfg.turn_cap) + 1) % len(TURN_CAPS)]
            if (cfg.turn_cap in TURN_CAPS)
            else 20
        )
        sees = cfg.gm_sees_plans
        opts = [
            Option(
                "ec", tr("plans.opt.end", value=tr(f"plans.end.{end}")), {"end_condition": other}
            )
        ]
        if end == "incapacitation":  # C6: the wound limit only matters for incapacitation
            opts.append(
                Option("wl", tr("plans.opt.wound_limit", n=cfg.wound_limit), {"wound_limit": wl})
            )
        opts.append(Option("tc", tr("plans.opt.turn_cap", n=cfg.turn_cap), {"turn_cap": tc}))
        opts.append(
            Option(
                "gv",
                tr("plans.opt.gm_sees_on" if sees else "plans.opt.gm_sees_off"),
                {"gm_sees_plans": not sees},
            )
        )
        return opts

    # --- characters (C1, C2) -------------------------------------------------------------------

    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        attrs = character.get("attributes") or {}
        blocks = []
        for g in GROUPS:
            values = "/".join(str(attrs.get(a, "?")) for a in GROUP_ATTRIBUTES[g])
            blocks.append(f"{ICON[g]}{values}")
        skills = ", ".join(
            f"{skill_name(tr, sid)} {esc((s or {}).get('level', '?'))}"
            for sid, s in (character.get("skills") or {}).items()
        )
        weapon = character.get("weapon") or {}
        name = esc(character.get("name") or "")
        return tr(
            "plans.character",
            name=Raw(f"<b>{name}</b> " if name else ""),
            groups=" ".join(blocks),
            skills=Raw(skills or "—"),
            weapon=Raw(weapon_name(tr, weapon.get("name")) if weapon.get("name") else "")
            or tr("plans.unarmed"),
            lethality=int(weapon.get("lethality", 0) or 0),
        )

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        # Button labels are plain text: no HTML here.
        name = tr(f"plans.preset.{preset_id}") if tr.has(f"plans.preset.{preset_id}") else preset_id
        skills = ", ".join(
            f"{skill_name(tr, sid)} {s['level']}" for sid, s in character["skills"].items()
        )
        return f"{name}: {skills}"

    def character_example(self) -> str:
        return "/character preset=fencer name=Ivan dex=5 fencing=4:physical weapon=saber:2"

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """A typed sheet: JSON, or ``key=value`` words. ``preset=ID`` starts from a preset;
        ``attrs=9,numbers`` (C1 order) or ``dex=4 str=3 …``; ``SKILL=LEVEL:GROUP[,GROUP]``;
        ``weapon=NAME:LETHALITY``; ``name=NAME`` (``_`` for spaces)."""
        text = " ".join(words).strip()
        if text.startswith("{") or not text:
            return parse_words(words, what="character")
        sheet: dict[str, Any] = {"attributes": {}, "skills": {}}
        pairs: list[tuple[str, str]] = []
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or not value:
                raise Rejection("typed_pairs", what="character", word=w)
            pairs.append((key.lower(), value))
        for key, value in pairs:  # the preset first, whatever its position
            if key == "preset":
                base = PRESETS.get(value.lower())
                if base is None:
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field="preset",
                        expected=", ".join(PRESETS),
                    )
                sheet = {
                    "name": base["name"],
                    "attributes": dict(base["attributes"]),
                    "skills": {k: dict(v) for k, v in base["skills"].items()},
                    "weapon": dict(base["weapon"]),
                }
        for key, value in pairs:
            if key == "preset":
                continue
            if key == "name":
                sheet["name"] = value.replace("_", " ")
            elif key in ("attrs", "attributes"):
                nums = value.split(",")
                if len(nums) != len(ATTRIBUTES) or not all(_is_int(n) for n in nums):
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field="attrs",
                        expected="9 numbers: " + ",".join(ATTRIBUTES),
                    )
                sheet["attributes"] = dict(zip(ATTRIBUTES, map(int, nums), strict=True))
            elif key in ATTRIBUTE_WORDS:
                if not _is_int(value):
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field=ATTRIBUTE_WORDS[key],
                        expected="a number",
                    )
                sheet["attributes"][ATTRIBUTE_WORDS[key]] = int(value)
            elif key in ("weapon", "оружие"):
                wname, _, leth = value.rpartition(":")
                if not wname or not _is_int(leth):
                    raise Rejection(
                        "invalid_field", what="character", field="weapon", expected="NAME:LETHALITY"
                    )
                sheet["weapon"] = {"name": wname.replace("_", " "), "lethality": int(leth)}
            else:  # a skill: LEVEL:GROUP[,GROUP]
                level, colon, groups = value.partition(":")
                names = [GROUP_WORDS.get(g.lower()) for g in groups.split(",") if g]
                if not colon or not _is_int(level) or not names or None in names:
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field=f"skills.{key}",
                        expected="LEVEL:GROUP[,GROUP] (" + ", ".join(GROUPS) + ")",
                    )
                sheet["skills"][key] = {"level": int(level), "groups": names}
        return sheet

    # --- the order builder --------------------------------------------------------------------

    def typed_example(self) -> str:
        return "physical fencing strong soak:mental guess:magical/pyromancy/cunning -- I lunge low"

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
        sheet = me.sheet
        skip = tr("plans.btn.none")
        if step == "group":  # C8
            return [
                [
                    Button(
                        tr(
                            "plans.btn.group",
                            icon=ICON[g],
                            group=group_name(tr, g),
                            accuracy=sheet.accuracy(i),
                            impact=sheet.impact(i),
                            reserve=me.reserves[i],
                        )
                        + ("" if me.reserves[i] > 0 else " ⚠️"),
                        cb(s + ALPHA[i]),
                    )
                ]
                for i, g in enumerate(GROUPS)
            ]
        if step == "skill":  # C9: any skill, whatever the group
            return [
                [
                    Button(
                        f"{sk.id} {sk.level} ({', '.join(group_name(tr, GROUPS[x]) for x in sk.groups)})",  # noqa: E501
                        cb(s + ALPHA[k]),
                    )
                ]
                for k, sk in enumerate(sheet.skills)
            ]
        if step == "second":  # C10
            g, k = _index(s[0], 3), _index(s[1], len(sheet.skills))
            n = len(sheet.skills)
            rows = [
                [
                    Button(
                        tr(
                            "plans.btn.second",
                            skill=sheet.skills[j].id,
                            level=sheet.skills[j].level,
                            icon=ICON[GROUPS[pg]],
                            group=group_name(tr, GROUPS[pg]),
                        ),
                        cb(s + ALPHA[pg * n + j]),
                    )
                ]
                for pg, j in self._seconds(me, g, k)
            ]
            return [*rows, [Button(tr("plans.btn.no_second"), cb(s + NONE))]]
        if step == "action":  # C11
            return [
                [Button(f"{ACTION_ICON[a]} {tr(f'plans.action_help.{a}')}", cb(s + ALPHA[i]))]
                for i, a in enumerate(ACTIONS)
            ]
        if step == "soak":  # C15: only groups with reserve now
            row = [
                Button(f"{ICON[g]} {group_name(tr, g)}", cb(s + ALPHA[i]))
                for i, g in enumerate(GROUPS)
                if me.reserves[i] > 0
            ]
            return [row, [Button(tr("plans.btn.no_soak"), cb(s + NONE))]]
        if step == "restore":  # C17: a group not used this turn
            g = _index(s[0], 3)
            used = {g} if me.reserves[g] > 0 else set()
            sec = _opt(s[2], 3 * len(sheet.skills))
            if sec is not None:
                used.add(sec // len(sheet.skills))
            row = [
                Button(f"{ICON[x]} {group_name(tr, x)}", cb(s + ALPHA[i]))
                for i, x in enumerate(GROUPS)
                if i not in used
            ]
            return [row, [Button(tr("plans.btn.restore_auto"), cb(s + NONE))]]
        if step == "guess_group":  # C12
            row = [
                Button(f"{ICON[g]} {group_name(tr, g)}", cb(s + ALPHA[i]))
                for i, g in enumerate(GROUPS)
            ]
            return [row, [Button(skip, cb(s + NONE))]]
        if step == "guess_skill":
            rows = [
                [
                    Button(sk.id, cb(s + ALPHA[k]))
                    for k, sk in list(enumerate(them.sheet.skills))[i : i + 3]
                ]
                for i in range(0, len(them.sheet.skills), 3)
            ]
            return [*rows, [Button(skip, cb(s + NONE))]]
        # guess_action
        return [
            [
                Button(f"{ACTION_ICON[a]} {action_name(tr, a)}", cb(s + ALPHA[i]))
                for i, a in enumerate(ACTIONS[:3])
            ],
            [
                Button(f"{ACTION_ICON[a]} {action_name(tr, a)}", cb(s + ALPHA[i + 3]))
                for i, a in enumerate(ACTIONS[3:])
            ],
            [Button(skip, cb(s + NONE))],
        ]

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
        percent = pv.percent()  # the engine's own rounding of the exact fractions
        for k, p in enumerate(pv.at_least, start=1):
            if k > MAX_CHANCES or (k > 1 and p < Fraction(1, 1000)):
                break
            exact = f" = {p}" if len(str(p)) <= MAX_EXACT and p not in (0, 1) else ""
            lines.append(
                tr("plans.confirm.at_least", k=k, pct=f"{percent[k - 1]:.1f}%", exact=exact)
            )
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

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        """The typed plan; the words of ``plans/aliases.json`` (Russian skill names, option
        keys) read as their canonical words, the role-play text after ``--`` as typed."""
        head, sep, tail = " ".join(words).partition("--")
        return parse_plan_text(alias_words(ALIASES.get("words", {}), head) + sep + tail)

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterable[str]:
        """Plans ``pid`` can seal now: a group and one of its own skills usable with it, a
        strong action, a guess at one of the opponent's skills, and a role-play text."""
        if match.state is None:
            return [self.typed_example()]
        st = _state(match)
        me, them = _me_them(st, pid)
        text = tr("input.plan_text")
        guess = f" guess:?/{them.sheet.skills[0].id}/?" if them.sheet.skills else ""
        out = []
        for g in sorted(range(3), key=lambda g: -me.reserves[g]):
            for skill in me.sheet.skills:
                if g in skill.groups:
                    out.append(f"{GROUPS[g]} {skill.id} strong{guess} -- {text}")
                    out.append(f"{GROUPS[g]} {skill.id} strong -- {text}")
        return out or [self.typed_example()]

    # --- words ---------------------------------------------------------------------------------

    def order_text(self, tr: Tr, order: Mapping[str, Any]) -> str:
        """A (possibly partial) plan in words; its role-play text quoted and escaped (C22)."""
        if "group" not in order:
            return "—"
        parts = [f"{ICON.get(str(order['group']), '')}{group_name(tr, str(order['group']))}"]
        if order.get("skill"):
            skill = skill_name(tr, order["skill"])
            second = order.get("second")
            if second:
                skill += (
                    f" + {skill_name(tr, second['skill'])} ({group_name(tr, str(second['group']))})"
                )
            parts.append(skill)
        if order.get("action"):
            a = str(order["action"])
            parts.append(f"{ACTION_ICON.get(a, '')}{action_name(tr, a)}")
        if "soak" in order:
            soak = order.get("soak")
            parts.append(
                tr("plans.w.soak", group=group_name(tr, str(soak)))
                if soak
                else tr("plans.w.no_soak")
            )
        if order.get("restore"):
            parts.append(tr("plans.w.restore", group=group_name(tr, str(order["restore"]))))
        guess = order.get("guess") or {}
        if any(guess.get(k) for k in ("group", "skill", "action")):
            g = group_name(tr, str(guess["group"])) if guess.get("group") else "?"
            sk = skill_name(tr, guess["skill"]) if guess.get("skill") else "?"
            a = action_name(tr, str(guess["action"])) if guess.get("action") else "?"
            parts.append(tr("plans.w.guess", guess=Raw(f"{g}/{sk}/{a}")))
        text = " · ".join(parts)
        if order.get("text"):
            text += "\n" + tr("plans.w.text", text=str(order["text"]))
        return text

    # --- results (C19, C20) ----------------------------------------------------------------------

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        if kind == "initiative":  # C4
            scores = data.get("scores", {})
            parts = [
                f"{names.get(p, p)} {v['die']}+{v['bonus']}=<b>{v['total']}</b>"
                for p, v in scores.items()
            ]
            return tr(
                "plans.ev.initiative",
                scores=Raw(", ".join(parts)),
                attacker=Raw(names.get(str(data.get("attacker")), "")),
            )
        return super().event_text(tr, names, kind, actor, data)

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """Story: roles, both plans, each duelist's guesses, who won the exchange, wounds,
        reserves and the end (C19). Details: every die, pool and modifier, damage checks,
        rerolls and soaks."""
        names = names_of(match)
        cfg = PlansConfig.model_validate((record.state_before or {}).get("config") or {})
        target = cfg.success_target
        lines = [tr("reveal.title", turn=record.turn)]  # the story
        details: list[str] = []

        def name(pid: Any) -> Raw:
            return Raw(names.get(str(pid), esc(pid)))

        def faces(values: Sequence[int]) -> str:
            if not values:
                return "—"
            return " ".join(f"<b>{f}</b>" if f >= target else str(f) for f in values)

        for e in record.events:
            d, k = e.data, e.kind
            if k == "reveal":
                lines.append(
                    tr("plans.rv.roles", attacker=name(d["attacker"]), defender=name(d["defender"]))
                )
                for pid, plan in d["plans"].items():
                    key = "plans.rv.plan_default" if d["defaults"].get(pid) else "plans.rv.plan"
                    lines.append(tr(key, name=name(pid), plan=Raw(self.order_text(tr, plan))))
                lines.append("")
            elif k == "roll":
                purpose = str(d.get("purpose"))
                details.append(
                    tr(
                        "plans.rv.roll",
                        who=name(e.actor),
                        purpose=tr(f"plans.purpose.{purpose}")
                        if tr.has(f"plans.purpose.{purpose}")
                        else purpose,
                        sides=d.get("sides", 10),
                        faces=Raw(faces([int(f) for f in d.get("faces", [])])),
                    )
                )
            elif k == "group_empty":  # C8
                lines.append(
                    tr("plans.rv.group_empty", who=name(e.actor), group=group_name(tr, d["group"]))
                )
            elif k == "action":
                guesses, action = self._action_line(tr, name(e.actor), d)
                lines.append(guesses)
                details.append(action)
            elif k == "contest":
                pids = list(d["successes"])
                score = " : ".join(f"{names.get(p, p)} {d['successes'][p]}" for p in pids)
                if d.get("tie"):
                    lines.append(tr("plans.rv.tie", score=Raw(score)))
                else:
                    lines.append(tr("plans.rv.winner", score=Raw(score), winner=name(d["winner"])))
            elif k == "tie":  # C16
                lines.append(tr("plans.rv.tie_damage" if d.get("damage") else "plans.rv.tie_quiet"))
            elif k == "damage_check":  # C14
                parts = d.get("parts", {})
                detail = tr(
                    "plans.rv.damage_parts",
                    impact=parts.get("impact", 0),
                    lethality=parts.get("lethality", 0),
                    precise=parts.get("precise", 0),
                )
                for r in d.get("rerolls", []):
                    details.append(
                        tr(
                            "plans.rv.reroll",
                            who=name(e.actor),
                            old=r["old"],
                            new=r["new"],
                            n=r["index"] + 1,
                        )
                    )
                key = (
                    "plans.rv.heal_check" if d.get("effect") == "heal" else "plans.rv.damage_check"
                )
                hits = int(d.get("hits", 0))
                details.append(
                    tr(
                        key,
                        who=name(e.actor),
                        target=name(d.get("target")),
                        pool=d.get("pool", 0),
                        detail=detail,
                        faces=Raw(faces(d.get("faces", []))),
                        hits=Raw(
                            tr.n(
                                "plans.rv.heal_hits"
                                if d.get("effect") == "heal"
                                else "plans.rv.damage_hits",
                                hits,
                            )
                        ),
                    )
                )
            elif k == "no_damage":
                lines.append(tr("plans.rv.no_damage", who=name(e.actor)))
            elif k == "healed":
                lines.append(
                    tr("plans.rv.healed", who=name(e.actor), n=d["amount"], wounds=d["wounds"])
                )
            elif k == "soaked":  # C15
                details.append(
                    tr(
                        "plans.rv.soaked",
                        who=name(e.actor),
                        group=group_name(tr, d["group"]),
                        pool=d["pool"],
                        soaked=d["soaked"],
                        hits=d["hits"],
                        reserve=d["reserve"],
                    )
                )
            elif k == "damage":
                lines.append(
                    tr.n(
                        "plans.rv.damage",
                        int(d["wounds"]),
                        who=name(e.actor),
                        wounds=d["wounds_after"],
                    )
                )
            elif k == "status":  # C17, C19
                if lines and lines[-1] and not lines[-1].startswith("📊"):
                    lines.append("")
                lines.append(self._status_line(tr, name(e.actor), d, record, e.actor or ""))
            elif k == "end":
                lines.append("")
                lines.append(self._end_line(tr, names, d))
            else:
                details.append(super().event_text(tr, names, k, e.actor, d))
        return lines, details

    def _action_line(self, tr: Tr, who: Raw, d: Mapping[str, Any]) -> tuple[str, str]:
        """An action event as (its guesses, for the story; its pool and modifiers, a detail)."""
        g = d.get("guessed", {})
        marks = []
        for part in ("group", "skill", "action"):
            v = g.get(part)
            marks.append(
                tr(f"plans.rv.guess_{part}")
                + (" ✅" if v is True else " ❌" if v is False else " —")
            )
        p = d.get("parts", {})
        parts = [
            tr("plans.part.accuracy", n=p.get("accuracy", 0)),
            tr("plans.part.skill", n=p.get("skill", 0)),
        ]
        if p.get("second"):
            parts.append(tr("plans.part.second", n=p["second"]))
        steps = [tr("plans.rv.raw", n=d.get("raw", 0))]
        for st in d.get("steps", []):
            op = f"+{st['add']}" if "add" in st else f"×{st['mul']}"
            label = tr(f"plans.rv.step.{st['step']}", diff=st.get("diff", 0))
            steps.append(f"{label} {op} → {st['total']}")
        return (
            tr(
                "plans.rv.guesses",
                who=who,
                marks=", ".join(marks),
                right=d.get("right", 0),
                diff=f"{int(d.get('diff', 0)):+d}",
            ),
            tr(
                "plans.rv.action",
                who=who,
                pool=d.get("pool", 0),
                parts=" + ".join(parts),
                steps=Raw(", ".join(steps)),
                n=d.get("successes", 0),
            ),
        )

    def _status_line(
        self, tr: Tr, who: Raw, d: Mapping[str, Any], record: TurnRecord, pid: str
    ) -> str:
        res = d.get("reserves", {})
        maxes = {}
        for f in (record.state_after or {}).get("fighters", []):
            if f.get("pid") == pid:
                attrs = f["sheet"]["attributes"]
                maxes = {g: attrs[GROUP_ATTRIBUTES[g][2]] for g in GROUPS}
        reserves = " · ".join(f"{ICON[g]}{res.get(g, '?')}/{maxes.get(g, '?')}" for g in GROUPS)
        restore = d.get("restore") or {}
        extra = ""
        if restore.get("group") and restore.get("amount"):
            key = "plans.rv.restored_auto" if restore.get("fallback") else "plans.rv.restored"
            extra = " " + tr(key, group=group_name(tr, restore["group"]), n=restore["amount"])
        return (
            tr("plans.rv.status", who=who, wounds=d.get("wounds", 0), reserves=Raw(reserves))
            + extra
        )

    def _end_line(self, tr: Tr, names: Mapping[str, str], d: Mapping[str, Any]) -> str:
        reason = str(d.get("reason", ""))
        reason_text = (
            tr(f"plans.reason.{reason}") if tr.has(f"plans.reason.{reason}") else esc(reason)
        )
        winners = [names.get(p, p) for p in d.get("winners", [])]
        if d.get("status") == "win" and winners:
            return tr("plans.rv.end_win", names=Raw(", ".join(winners)), reason=reason_text)
        return tr("plans.rv.end_draw", reason=reason_text)

    def outcome_text(self, tr: Tr, match: Match) -> str:
        """The final summary: result, why, and each duelist's wounds and reserves (C19)."""
        out = match.outcome or {}
        names = names_of(match)
        if out.get("by_gm"):  # the GM's ruling: who won (or a draw), not "the GM ended it"
            lines = [super().outcome_text(tr, match)]
        else:
            lines = [self._end_line(tr, names, out)]
        for f in (match.state or {}).get("fighters", []):
            attrs = f["sheet"]["attributes"]
            reserves = " · ".join(
                f"{ICON[g]}{f['reserves'][g]}/{attrs[GROUP_ATTRIBUTES[g][2]]}" for g in GROUPS
            )
            lines.append(
                tr(
                    "plans.rv.status",
                    who=Raw(names.get(f["pid"], esc(f["pid"]))),
                    wounds=f["wounds"],
                    reserves=Raw(reserves),
                )
            )
        return "\n".join(lines)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


UI = PlansUI()

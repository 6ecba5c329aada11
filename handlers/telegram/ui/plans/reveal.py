"""The ``plans`` reveal: the plans in words, the story, every die one tap away."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.match import Match, TurnRecord
from engine.rulesets.plans import PlansConfig
from engine.rulesets.plans.config import GROUP_ATTRIBUTES, GROUPS
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    esc,
    names_of,
)
from handlers.telegram.ui.plans.common import ACTION_ICON, ICON, action_name, group_name, skill_name
from handlers.telegram.ui.plans.typed import PlansTyped

Name = Callable[[Any], Raw]


def _faces(values: Sequence[int], target: int) -> str:
    """The dice, each success in bold."""
    if not values:
        return "—"
    return " ".join(f"<b>{f}</b>" if f >= target else str(f) for f in values)


def _roll_detail(tr: Tr, who: Raw, d: Mapping[str, Any], target: int) -> str:
    """A roll: its purpose, the die and the faces."""
    purpose = str(d.get("purpose"))
    return tr(
        "plans.rv.roll",
        who=who,
        purpose=tr(f"plans.purpose.{purpose}") if tr.has(f"plans.purpose.{purpose}") else purpose,
        sides=d.get("sides", 10),
        faces=Raw(_faces([int(f) for f in d.get("faces", [])], target)),
    )


def _contest_line(tr: Tr, names: Mapping[str, str], name: Name, d: Mapping[str, Any]) -> str:
    """Who won the exchange and the score, or the tie."""
    pids = list(d["successes"])
    score = " : ".join(f"{names.get(p, p)} {d['successes'][p]}" for p in pids)
    if d.get("tie"):
        return tr("plans.rv.tie", score=Raw(score))
    return tr("plans.rv.winner", score=Raw(score), winner=name(d["winner"]))


def _damage_check_details(
    tr: Tr, name: Name, d: Mapping[str, Any], target: int, actor: str | None
) -> list[str]:
    """A damage or heal check (C14): its rerolls, then the pool and the hits."""
    details: list[str] = []
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
                who=name(actor),
                old=r["old"],
                new=r["new"],
                n=r["index"] + 1,
            )
        )
    key = "plans.rv.heal_check" if d.get("effect") == "heal" else "plans.rv.damage_check"
    hits = int(d.get("hits", 0))
    details.append(
        tr(
            key,
            who=name(actor),
            target=name(d.get("target")),
            pool=d.get("pool", 0),
            detail=detail,
            faces=Raw(_faces(d.get("faces", []), target)),
            hits=Raw(
                tr.n(
                    "plans.rv.heal_hits" if d.get("effect") == "heal" else "plans.rv.damage_hits",
                    hits,
                )
            ),
        )
    )
    return details


def _soaked_detail(tr: Tr, who: Raw, d: Mapping[str, Any]) -> str:
    """A soak (C15): the group, its pool and what it took off."""
    return tr(
        "plans.rv.soaked",
        who=who,
        group=group_name(tr, d["group"]),
        pool=d["pool"],
        soaked=d["soaked"],
        hits=d["hits"],
        reserve=d["reserve"],
    )


class PlansReveal(PlansTyped):
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

        for e in record.events:
            d, k = e.data, e.kind
            if k == "reveal":
                lines += self._plans_lines(tr, name, d)
            elif k == "roll":
                details.append(_roll_detail(tr, name(e.actor), d, target))
            elif k == "group_empty":  # C8
                lines.append(
                    tr("plans.rv.group_empty", who=name(e.actor), group=group_name(tr, d["group"]))
                )
            elif k == "action":
                guesses, action = self._action_line(tr, name(e.actor), d)
                lines.append(guesses)
                details.append(action)
            elif k == "contest":
                lines.append(_contest_line(tr, names, name, d))
            elif k == "tie":  # C16
                lines.append(tr("plans.rv.tie_damage" if d.get("damage") else "plans.rv.tie_quiet"))
            elif k == "damage_check":  # C14
                details += _damage_check_details(tr, name, d, target, e.actor)
            elif k == "no_damage":
                lines.append(tr("plans.rv.no_damage", who=name(e.actor)))
            elif k == "healed":
                lines.append(
                    tr("plans.rv.healed", who=name(e.actor), n=d["amount"], wounds=d["wounds"])
                )
            elif k == "soaked":  # C15
                details.append(_soaked_detail(tr, name(e.actor), d))
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

    def _plans_lines(self, tr: Tr, name: Name, d: Mapping[str, Any]) -> list[str]:
        """The roles and both plans (a default plan marked), then a blank line."""
        out: list[str] = []
        out.append(tr("plans.rv.roles", attacker=name(d["attacker"]), defender=name(d["defender"])))
        for pid, plan in d["plans"].items():
            key = "plans.rv.plan_default" if d["defaults"].get(pid) else "plans.rv.plan"
            out.append(tr(key, name=name(pid), plan=Raw(self.order_text(tr, plan))))
        out.append("")
        return out

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

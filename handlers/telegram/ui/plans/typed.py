"""Typed ``plans`` orders (``/plan``) with the words of ``aliases.json``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.match import Match
from engine.rulesets.plans import parse_typed as parse_plan_text
from engine.rulesets.plans.config import GROUPS
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    alias_words,
    aliases,
)
from handlers.telegram.ui.plans.common import _me_them, _state
from handlers.telegram.ui.plans.sheet import PlansSheet
from handlers.telegram.ui.words import bare_name, shown_names

ALIASES = aliases("plans")
# The typed words: the names the bot shows (skills, groups, actions) in either language, and
# the words of ``plans/aliases.json``.
WORDS = {
    **shown_names("plans.skill.", "plans.group.", "plans.action."),
    **ALIASES.get("words", {}),
}


class PlansTyped(PlansSheet):
    # --- the order builder --------------------------------------------------------------------

    def typed_example(self) -> str:
        return "physical fencing strong soak:mental guess:magical/pyromancy/cunning -- I lunge low"

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        """The typed plan; the words of ``plans/aliases.json`` (Russian skill names, option
        keys) read as their canonical words, the role-play text after ``--`` as typed."""
        head, sep, tail = " ".join(words).partition("--")
        return parse_plan_text(alias_words(WORDS, head) + sep + tail)

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterable[str]:
        """Plans ``pid`` can seal now: a group and one of its own skills usable with it, a
        strong action, a guess at one of the opponent's skills, and a role-play text."""
        if match.state is None:
            return [self.typed_example()]
        st = _state(match)
        me, them = _me_them(st, pid)
        text = tr("input.plan_text")

        def word(prefix: str, ident: str) -> str:  # the reader's word, if one word (both parse)
            name = bare_name(tr(prefix + ident)) if tr.has(prefix + ident) else ident
            return name.lower() if len(name.split()) == 1 else ident

        strong = word("plans.action.", "strong")
        guess_key = "догадка" if tr.lang == "ru" else "guess"
        skills = them.sheet.skills
        guess = f" {guess_key}:?/{word('plans.skill.', skills[0].id)}/?" if skills else ""
        out = []
        for g in sorted(range(3), key=lambda g: -me.reserves[g]):
            for skill in me.sheet.skills:
                if g in skill.groups:
                    head = f"{word('plans.group.', GROUPS[g])} {word('plans.skill.', skill.id)}"
                    out.append(f"{head} {strong}{guess} -- {text}")
                    out.append(f"{head} {strong} -- {text}")
        return out or [self.typed_example()]

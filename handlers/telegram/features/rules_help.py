"""``/rules``: the rules of the ruleset in play, in at most 15 short lines per language.

In a group: the group's match; in private: the rulesets of the user's matches; with no match,
the list of rulesets (``help.rulesets``). The texts are ``rules.<ruleset>`` in the catalogs;
the full rules as implemented are ``docs/rules/*.md``.
"""

from __future__ import annotations

from telegram import Update

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.match_config import config_params
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import command, sender
from handlers.telegram.shared.send import send
from handlers.telegram.ui import Screen

MAX_LINES = 15


def rules_text(tr: Tr, matches: list[Match]) -> str:
    """The short rules of each ruleset of ``matches``, with the first such match's numbers
    (the list of all rulesets when there is none)."""
    firsts = {m.ruleset: m for m in reversed(matches)}
    order = dict.fromkeys(m.ruleset for m in matches)
    parts = [tr(f"rules.{r}", **config_params(firsts[r])) for r in order if tr.has(f"rules.{r}")]
    return "\n\n".join(parts) or tr("help.rulesets")


@command
async def cmd_rules(update: Update, context: Ctx) -> None:
    svc = context.svc
    user, chat = sender(update)
    if chat.type == "private":
        tr = context.tr(user)
        matches = svc.deps.repo.active_for_user(user.id)
    else:
        matches = svc.deps.repo.active_in_chat(chat.id)
        tr = Tr(matches[0].lang if matches else svc.user_lang(user))
    await send(context, chat.id, Screen(rules_text(tr, matches)))

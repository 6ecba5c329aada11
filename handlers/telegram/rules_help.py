"""``/rules``: the rules of the ruleset in play, in at most 15 short lines per language.

In a group: the group's match; in private: the rulesets of the user's matches; with no match,
the list of rulesets (``help.rulesets``). The texts are ``rules.<ruleset>`` in the catalogs;
the full rules as implemented are ``docs/rules/*.md``.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application, CommandHandler, filters

from handlers.telegram.bot import Ctx, command, send, services
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import Screen

MAX_LINES = 15


def rules_text(tr: Tr, rulesets: list[str]) -> str:
    """The short rules of each of ``rulesets`` (the list of all of them when empty)."""
    parts = [tr(f"rules.{r}") for r in rulesets if tr.has(f"rules.{r}")]
    return "\n\n".join(parts) or tr("help.rulesets")


@command
async def cmd_rules(update: Update, context: Ctx) -> None:
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type == "private":
        tr = Tr(svc.user_lang(user))
        matches = svc.deps.repo.active_for_user(user.id)
    else:
        matches = svc.deps.repo.active_in_chat(chat.id)
        tr = Tr(matches[0].lang if matches else svc.user_lang(user))
    rulesets = list(dict.fromkeys(m.ruleset for m in matches))
    await send(context, chat.id, Screen(rules_text(tr, rulesets)))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("rules", cmd_rules, filters=filters.UpdateType.MESSAGE))

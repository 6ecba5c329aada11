"""Callback routing owned by the application: every inline button press goes through
:func:`on_button` to the handler registered for its kind in the application's :class:`Router`
(``application.bot_data``), and the features' seal and GM-change hooks live there too. The
wiring (``handlers.telegram.app``) fills it; no module-level registry is mutated, so two
applications in one process (tests, the sandbox) cannot see each other's routes. A ruleset UI's
own flow (commands, buttons and hooks beyond its order builder) is a :class:`Flow`, which the
wiring adds with :func:`add_flow` (:meth:`handlers.telegram.ui.RulesetUI.flow`)."""

from __future__ import annotations

import contextlib
import html
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.error import BadRequest
from telegram.ext import Application, BaseHandler

from engine.match import Match
from engine.usecases import SealResult
from handlers.telegram import callbacks as cbcodec
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import (
    EXPECTED,
    Alert,
    Button_,
    _rejection_text,
    left_to_redelivery,
)
from handlers.telegram.shared.send import _api

log = logging.getLogger("sekundant.bot")

ROUTES = "sekundant.routes"
ALERT_MAX = 200  # characters Telegram shows in a callback answer
SealHook = Callable[[Ctx, Match, SealResult], Awaitable[None]]
GmHook = Callable[[Ctx, Match], Awaitable[None]]


@dataclass
class Router:
    """What a press or a seal is routed to, per application."""

    buttons: dict[str, Button_] = field(default_factory=dict)
    # Run after every seal with (context, match before, result): plans' GM review (its flow).
    seal_hooks: list[SealHook] = field(default_factory=list)
    # Run when the GM role changed hands mid-turn, with the match after: plans' review.
    gm_hooks: list[GmHook] = field(default_factory=list)

    def add_buttons(self, handlers: Mapping[str, Button_]) -> None:
        """Route each callback kind to its handler (a kind is a wire format: never reuse one)."""
        self.buttons.update(handlers)

    def on_seal(self, hook: SealHook) -> None:
        if hook not in self.seal_hooks:
            self.seal_hooks.append(hook)

    def on_gm_change(self, hook: GmHook) -> None:
        if hook not in self.gm_hooks:
            self.gm_hooks.append(hook)


@dataclass(frozen=True)
class Flow:
    """A ruleset UI's Telegram flow beyond its order builder (``plans``: ``/plan`` and the
    GM's veto): handlers added to the application, button kinds routed here, seal and
    GM-change hooks. A flow's module is imported when the bot is wired (a cold start), so it
    must not import its ruleset at module level."""

    handlers: Sequence[BaseHandler[Any, Any, Any]] = ()
    buttons: Mapping[str, Button_] = field(default_factory=dict)
    on_seal: Sequence[SealHook] = ()
    on_gm_change: Sequence[GmHook] = ()


def add_flow(app: Application[Any, Any, Any, Any, Any, Any], flow: Flow) -> None:
    """Wire a ruleset UI's :class:`Flow`: its handlers (group 0, in order), buttons and hooks."""
    app.add_handlers(flow.handlers)
    routes = router(app)
    routes.add_buttons(flow.buttons)
    for seal_hook in flow.on_seal:
        routes.on_seal(seal_hook)
    for gm_hook in flow.on_gm_change:
        routes.on_gm_change(gm_hook)


def router(app: Application[Any, Any, Any, Any, Any, Any]) -> Router:
    """The application's router (made on first use)."""
    found = app.bot_data.get(ROUTES)
    if not isinstance(found, Router):
        found = app.bot_data[ROUTES] = Router()
    return found


async def on_button(update: Update, context: Ctx) -> None:
    """Every inline button. Unknown, forged or stale presses get a private alert and change
    nothing; expected failures too."""
    svc = context.svc
    query = update.callback_query
    assert query is not None
    user = query.from_user
    tr = context.tr(user)  # in a group, the match's language (a rejection is about its match)
    mine = context.own_tr(user)  # a forged or unknown button: the presser's own words
    cb = cbcodec.decode(query.data, svc.secret)
    toast: str | None = None
    alert = False
    try:
        if cb is None:
            raise Alert(mine("err.forged"))
        handler = router(context.application).buttons.get(cb.kind)
        if handler is None:
            raise Alert(mine("err.forged"))
        toast = await handler(context, query.message, user, tr, cb)  # type: ignore[arg-type]
    except Alert as exc:
        toast, alert = exc.text, True
    except EXPECTED as exc:
        if left_to_redelivery(svc, exc):
            raise  # unanswered: the redelivery answers the press (lambda_webhook)
        toast, alert = _rejection_text(tr, exc), True
    except (ValueError, IndexError):
        toast, alert = mine("err.forged"), True
    with contextlib.suppress(BadRequest):
        shown = alert_text(toast) if toast else None
        await _api(svc, lambda: query.answer(shown, show_alert=alert))


_TAG = re.compile(r"</?(b|i|u|s|code|pre|a|blockquote|tg-spoiler)\b[^>]*>")


def alert_text(text: str) -> str:
    """A message (HTML, as the catalog renders it) as a pop-up shows it: Telegram prints an
    alert's text verbatim, so tags go and escapes become the characters they stand for (a
    name with ``&``, ``<``, ``>`` shows as typed: issue 24); at most 200 characters."""
    shown = html.unescape(_TAG.sub("", text))
    return shown if len(shown) <= ALERT_MAX else shown[: ALERT_MAX - 1] + "…"

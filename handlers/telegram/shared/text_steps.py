"""A user's pending text step (the "✍️" button of a builder that waits for free text): stored
in the user's prefs, remembered when a builder is shown, forgotten when the seat seals (moved
from ``handlers.telegram.text_reply``, so the order builder need not import that feature)."""

from __future__ import annotations

import hashlib
from typing import Any

from engine import match as lifecycle
from engine.match import Match
from engine.ports import PrefsRepository
from engine.usecases import SealResult
from handlers.telegram import callbacks as cbcodec
from handlers.telegram.callbacks import Callback
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.ui import RulesetUI, Screen, get_ui

KIND = "pt"  # the callback kind of the "✍️" button (first used by plans: kept for old buttons)


PENDING = "text_step"  # the prefs key of a user's pending text step: the "✍️" button's data


def _prefs(svc: Services) -> PrefsRepository | None:
    repo = svc.deps.repo
    return repo if isinstance(repo, PrefsRepository) else None


DRAFT = "text_draft"  # the prefs key of the text shown back for 🔒 Seal / ✏️ Rewrite


_MEMORY: dict[tuple[int, str], Any] = {}  # stores without prefs (none in production)


def _get(svc: Services, user_id: int, key: str) -> Any:
    repo = _prefs(svc)
    if repo is None:
        return _MEMORY.get((user_id, key))
    return repo.load_prefs(user_id).get(key)


def _put(svc: Services, user_id: int, key: str, value: Any) -> None:
    """Store (or with None clear) one of ``user_id``'s prefs."""
    repo = _prefs(svc)
    if repo is None:
        if value is None:
            _MEMORY.pop((user_id, key), None)
        else:
            _MEMORY[(user_id, key)] = value
        return
    prefs = repo.load_prefs(user_id)
    if prefs.get(key) == value:
        return
    if value is None:
        prefs.pop(key, None)
    else:
        prefs[key] = value
    repo.save_prefs(user_id, prefs)


def pending(svc: Services, user_id: int) -> str | None:
    """The signed "✍️" data of ``user_id``'s pending text step, if any."""
    value = _get(svc, user_id, PENDING)
    return value if isinstance(value, str) else None


def set_pending(svc: Services, user_id: int, data: str | None) -> None:
    """Store (or with None clear) ``user_id``'s pending text step."""
    _put(svc, user_id, PENDING, data)


def draft(svc: Services, user_id: int) -> tuple[str, str] | None:
    """The text ``user_id`` was last shown back (the "✍️" data it is for, the text)."""
    value = _get(svc, user_id, DRAFT)
    if isinstance(value, dict) and isinstance(value.get("cb"), str):
        return str(value["cb"]), str(value.get("text", ""))
    return None


def set_draft(svc: Services, user_id: int, data: str, text: str) -> None:
    """Keep the text shown back to ``user_id`` until it is sealed or rewritten."""
    _put(svc, user_id, DRAFT, {"cb": data, "text": text})


def digest(text: str) -> str:
    """A short digest of a draft's text, bound into its 🔒 button: an old preview's button
    never seals a newer text."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def text_button(screen: Screen) -> Callback | None:
    """The "✍️" callback of a builder screen, if it waits for a text."""
    for row in screen.rows:
        for b in row:
            if b.cb is not None and b.cb.kind == KIND:
                return b.cb
    return None


def remember(context: Ctx, user_id: int, screen: Screen) -> None:
    """A builder screen was shown to ``user_id``: when it waits for a text, that is now the
    user's pending step; when it does not (Back, Start over), no step is pending any more."""
    svc = context.svc
    cb = text_button(screen)
    if cb is not None:
        set_pending(svc, user_id, svc.cb(cb))
    elif pending(svc, user_id) is not None:
        set_pending(svc, user_id, None)


async def forget_after_seal(context: Ctx, before: Match, res: SealResult) -> None:
    """Any seal of a seat ends the text step its controller had pending for that seat."""
    if not has_text_orders(before.ruleset):
        return
    svc = context.svc
    seat = before.seat(res.order.pid)
    gm_runs = seat.npc or seat.user_id is None or seat.pid in lifecycle.gm_controlled(before)
    uid = before.gm_user_id if gm_runs else seat.user_id
    if uid is not None:  # the one who gives this seat's orders
        data = pending(svc, uid)
        cb = cbcodec.decode(data, svc.secret) if data else None
        if cb is not None and cb.match == before.id and cb.arg(0) == res.order.pid:
            set_pending(svc, uid, None)


def has_text_orders(ruleset: str) -> bool:
    """Whether the ruleset's orders carry free text (its UI draws a "✍️" button)."""
    return get_ui(ruleset).reply_alert_key != RulesetUI.reply_alert_key

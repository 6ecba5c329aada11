"""The campaign hooks other parts of the bot call (docs/campaign.md): the lobby's "My
characters" and group presets beside the built-in ones, keeping a built character in the
player's roster, and keeping the ladder's result of a match in step with the match (finished,
undone, result changed). The features themselves are ``features/roster.py``, ``library.py``,
``ladder.py`` and ``chronicle.py``.

Every hook does nothing when the store has no campaign storage, never fails the action that
called it (a campaign write is logged and skipped), and imports ``engine.campaign`` only when
it runs, so none of it is on the webhook's cold path.
"""

from __future__ import annotations

import hashlib
import html
import logging
import re
from typing import Any

from engine import rulesets as registry
from engine.errors import Rejection
from engine.match import Match
from engine.ports import CampaignRepository
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.send import _api
from handlers.telegram.ui import Button, get_ui, has_ui

log = logging.getLogger("sekundant.campaign")

PICK = "cmc"  # the lobby button that picks a roster character or a group preset
ROSTER, LIBRARY = "r", "l"


def strip_html(text: str) -> str:
    """Telegram HTML as plain text (a label kept as a name)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


def store(svc: Services) -> CampaignRepository | None:
    repo = svc.deps.repo
    return repo if isinstance(repo, CampaignRepository) else None


def required_store(svc: Services) -> CampaignRepository:
    """The campaign store, or the plain refusal when this deployment has none."""
    found = store(svc)
    if found is None:
        raise Rejection("campaign_unavailable")
    return found


def rulesets() -> list[str]:
    """The rulesets a roster or a library can hold sheets of: those with a chat UI."""
    return [r for r in registry.available() if has_ui(r)]


def tag(name: str) -> str:
    """A short fingerprint of a name, so a button bound to a list position refuses a press
    after the list changed."""
    return hashlib.sha256(name.encode()).hexdigest()[:4]


def choices(svc: Services, match: Match, user_id: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(source, name, sheet) a player may pick in ``match``'s lobby: their roster's characters
    of its ruleset, then the group library's characters."""
    found = store(svc)
    if found is None:
        return []
    from engine.campaign.library import presets

    out = [(ROSTER, str(e["name"]), dict(e["sheet"])) for e in found.roster(user_id, match.ruleset)]
    library = found.library(match.chat_id, match.ruleset)
    out += [(LIBRARY, name, sheet) for name, sheet in presets(library, "characters")]
    return out


def character_rows(
    svc: Services, tr: Tr, match: Match, pid: str, user_id: int
) -> list[list[Button]]:
    """The lobby picker's rows for the roster and the group's library (one tap each)."""
    rows = []
    try:
        picks = choices(svc, match, user_id)
    except Exception:  # the picker still offers the built-in presets
        log.warning("campaign choices of %s not read", match.id, exc_info=True)
        return []
    for i, (source, name, _) in enumerate(picks):
        key = "campaign.btn_mine" if source == ROSTER else "campaign.btn_group"
        data = Callback(PICK, match.id, 0, (pid, str(i), tag(name)))
        rows.append([Button(tr(key, name=name), data)])
    return rows


def keep_built(svc: Services, tr: Tr, user_id: int, match: Match, sheet: dict[str, Any]) -> str:
    """Keep a character a player built (typed) in their roster; the name it was kept under,
    or "" (already kept, roster full, or no campaign storage)."""
    found = store(svc)
    if found is None:
        return ""
    from engine.campaign import roster

    try:
        base = strip_html(get_ui(match.ruleset).character_label(tr, sheet))
        kept = found.roster(user_id, match.ruleset)
        entry = roster.keep_built(match.ruleset, base, sheet, kept, svc.deps.clock())
        if entry is None:
            return ""
        found.put_characters(user_id, [entry])
        return str(entry["name"])
    except Exception:
        log.warning("character of %s not kept in the roster", user_id, exc_info=True)
        return ""


async def download(context: Ctx, file_id: str, size: int | None) -> bytes:
    """A user's file, refused (nothing read) when Telegram says it is too big."""
    from engine.campaign import documents

    limit = documents.FILE_MAX_BYTES
    if size is not None and size > limit:
        problem = Rejection("doc_too_big", limit=limit)
        raise documents.DocumentError([documents.EntryError("", problem)])
    file = await _api(context.svc, lambda: context.bot.get_file(file_id))
    return bytes(await file.download_as_bytearray())


def sync_result(svc: Services, match: Match) -> None:
    """Make the group's stored result of ``match`` what the match says now: its result when
    finished with one (and rated), none otherwise (an undone final turn, a cancelled lobby)."""
    found = store(svc)
    if found is None:
        return
    from engine.campaign.ladder import result_of

    try:
        doc = result_of(match)
        if doc is None:
            found.delete_result(match.chat_id, match.id)
        else:
            found.put_result(doc)
    except Exception:
        log.warning("ladder result of %s not kept", match.id, exc_info=True)

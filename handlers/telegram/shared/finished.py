"""The last finished match of a chat and of each of its users, so that ``/dossier`` and
``/history`` after the final answer about it (issue 24: "Такого матча здесь нет" right under
the final summary). Kept in the store's per-user prefs (a group's under its chat id), so it
works across restarts and Lambda containers; a store without prefs remembers nothing."""

from __future__ import annotations

import contextlib

from engine.errors import NotFoundError
from engine.match import Match
from engine.ports import PrefsRepository
from handlers.telegram.shared.context import Services

KEY = "last_finished"


def remember(svc: Services, match: Match) -> None:
    """``match`` just finished: it is the last finished match of its group and its people."""
    repo = svc.deps.repo
    if not isinstance(repo, PrefsRepository):
        return
    people = {s.user_id for s in match.seats if s.user_id is not None and not s.npc}
    if match.gm_user_id is not None:
        people.add(match.gm_user_id)
    for key in (match.chat_id, *sorted(people)):
        repo.set_pref(key, KEY, match.id)  # its field alone: one write, no read, no lost one


def last(svc: Services, key: int) -> Match | None:
    """The last finished match of a chat or user (``key``), if any is remembered."""
    repo = svc.deps.repo
    if not isinstance(repo, PrefsRepository):
        return None
    match_id = repo.load_prefs(key).get(KEY)
    if not isinstance(match_id, str):
        return None
    with contextlib.suppress(NotFoundError):
        return repo.load(match_id).match
    return None

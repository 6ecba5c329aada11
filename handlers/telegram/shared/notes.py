"""Screens owed with a change (the use cases' ``notes``; the outbox, issue 28), named here
and drawn by ``shared.owed`` when they are sent."""

from __future__ import annotations

from typing import Any


def show(
    what: str, *, chat: int | None = None, user: int | None = None, **data: Any
) -> dict[str, Any]:
    """A screen owed with a change (the use cases' ``notes``, issue 28), drawn from the
    latest state when it is sent (``shared.owed.send_note``): ``lobby`` (the group's lobby
    message edited), ``status`` (the turn's status edited), ``commitment`` (the open turn's
    commitment, if the group does not have it), ``clock`` (the match's clock settings),
    ``offer`` (a seat ``pid`` offered, with its claim link), ``builder`` (``pid``'s order
    screen to ``chat``, if it still acts), ``gm_changed`` (the new GM's order screens of the
    GM-run seats), ``inert`` (the keyboards of ``messages`` dropped:
    ``shared.farewell``). ``chat``: where (default the group); ``user``: whose language."""
    return {"show": what, "chat": chat, "user": user, **data}

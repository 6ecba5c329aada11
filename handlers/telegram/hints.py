"""Examples the bot shows, built for the person who reads them.

Every typed example (an order in a builder, a character in the lobby, the several-matches
prompt, an error's "for example") comes from here: it is made from the reader's own sheet,
seat code and legal targets, and checked with the ruleset before it is shown, so sending it
back verbatim is accepted (``tests/bot/test_examples_roundtrip.py`` sends every one back).
Each ruleset's UI proposes candidates (:meth:`RulesetUI.example_candidates`); the first one
the ruleset accepts is shown.
"""

from __future__ import annotations

from typing import Any

from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui


def order_command(match: Match, pid: str) -> str:
    """The command a reader types an order for ``pid`` with: ``/order``, ``/plan`` (plans),
    or ``/npcorder PID`` for a seat the GM runs."""
    seat = match.seat(pid)
    if seat.npc or seat.user_id is None or _gm_runs(match, pid):
        return f"/npcorder {pid}"
    return "/plan" if match.ruleset == "plans" else "/order"


def _gm_runs(match: Match, pid: str) -> bool:
    from engine import match as lifecycle

    return match.phase is Phase.RUNNING and pid in lifecycle.gm_controlled(match)


_LAST: list[tuple[object, Any]] = []  # (the stored state dict, its loaded state): one entry


def loaded_state(match: Match) -> Any:
    """``match``'s ruleset state, loaded once for the candidates of one example (loading a
    battle parses every sheet again)."""
    raw = match.state
    if _LAST and _LAST[0][0] is raw:
        return _LAST[0][1]
    state = match.rules.load_state(raw or {})
    _LAST[:] = [(raw, state)]
    return state


def accepted(match: Match, pid: str, words: str) -> bool:
    """Whether the typed order ``words`` would be accepted for ``pid`` now (shape and rules)."""
    if match.state is None:
        return False
    rules = match.rules
    try:
        raw = get_ui(match.ruleset).parse_typed_in(match, [words])
        rules.check_order(loaded_state(match), pid, raw)
    except (Rejection, ValueError, KeyError, TypeError):
        return False
    return True


def order_words(tr: Tr, match: Match, pid: str) -> str:
    """A typed order (the words after the command) valid for ``pid`` now; the ruleset's
    generic example when no candidate is accepted (e.g. before the battle exists)."""
    ui = get_ui(match.ruleset)
    first: str | None = None
    for words in ui.example_candidates(tr, match, pid):
        first = words if first is None else first
        if accepted(match, pid, words):
            return words
    return first or ui.typed_example()


def order_example(tr: Tr, match: Match, pid: str, *, with_id: bool = False) -> str:
    """The whole command line: ``/order level +1; attack claws p2`` (``with_id``: the match id
    after the command, for a reader in several matches)."""
    command = order_command(match, pid)
    head = command.split()[0]
    rest = command.split()[1:]
    parts = [head, *([match.id] if with_id else []), *rest, order_words(tr, match, pid)]
    return " ".join(parts)


def character_example(match: Match, *, with_id: bool = False, lang: str = "en") -> str:
    """A typed ``/character`` line the ruleset accepts (a filled-in sheet in its syntax), in
    the words of ``lang`` when its catalog has them (``character.example.<ruleset>``: the
    Russian keys and names, accepted as typed)."""
    ui = get_ui(match.ruleset)
    tr = Tr(lang)
    key = f"character.example.{match.ruleset}"
    words = tr(key) if lang != "en" and tr.has(key) else ui.character_words(match)
    return " ".join(["/character", *([match.id] if with_id else []), words])

"""A player's roster: every custom character they built, per ruleset and by name, kept across
matches (docs/campaign.md). A match copies the sheet into its seat when picked, so a roster
entry edited or deleted later changes no match, record or dossier."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.campaign.documents import (
    NAME_MAX,
    DocumentError,
    Entry,
    EntryError,
    checked,
    document,
    load_text,
    name_key,
)
from engine.errors import Rejection

ROSTER_MAX = 30  # characters per player and ruleset


def entry_doc(ruleset: str, name: str, sheet: Mapping[str, Any], now: float) -> dict[str, Any]:
    """A roster entry as stored (``key``: :func:`name_key` of the name)."""
    name = " ".join(name.split())[:NAME_MAX]
    return {
        "ruleset": ruleset,
        "name": name,
        "key": name_key(name),
        "sheet": json.loads(json.dumps(dict(sheet))),
        "saved_at": now,
    }


def same_sheet(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return json.dumps(dict(a), sort_keys=True) == json.dumps(dict(b), sort_keys=True)


def auto_name(base: str, sheet: Mapping[str, Any], roster: Sequence[Mapping[str, Any]]) -> str:
    """The name a built character is kept under: the sheet's own ``name`` or ``base`` (the
    ruleset's short label), numbered when another character already has it."""
    own = sheet.get("name")
    stem = " ".join((own if isinstance(own, str) and own.strip() else base).split())
    stem = stem[: NAME_MAX - 4] or "?"
    taken = {e["key"] for e in roster}
    name, n = stem, 1
    while name_key(name) in taken:
        n += 1
        name = f"{stem} {n}"
    return name


def keep_built(
    ruleset: str,
    base: str,
    sheet: Mapping[str, Any],
    roster: Sequence[Mapping[str, Any]],
    now: float,
) -> dict[str, Any] | None:
    """The entry to save for a character just built in a lobby, or None: the same sheet is
    already kept, or the roster is full (the oldest entries are never dropped silently)."""
    if any(same_sheet(e["sheet"], sheet) for e in roster) or len(roster) >= ROSTER_MAX:
        return None
    return entry_doc(ruleset, auto_name(base, sheet, roster), sheet, now)


def parse_import(
    rules: Any, data: bytes | str, ruleset: str, roster: Sequence[Mapping[str, Any]], now: float
) -> list[dict[str, Any]]:
    """The entries an imported file adds or replaces (same name: replaced); all or nothing.
    Raises :class:`DocumentError` naming every bad entry, or the roster limit."""
    found = checked(rules, load_text(data), ruleset, ("characters",))
    new_keys = {name_key(e.name) for e in found} - {e["key"] for e in roster}
    if len(roster) + len(new_keys) > ROSTER_MAX:
        raise DocumentError([EntryError("", Rejection("roster_full", limit=ROSTER_MAX))])
    return [entry_doc(ruleset, e.name, e.sheet, now) for e in found]


def export(ruleset: str, roster: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A roster as a sheet document (what :func:`parse_import` reads back)."""
    items = [Entry("characters", e["name"], e["sheet"]) for e in roster]
    return document(ruleset, {"characters": items})

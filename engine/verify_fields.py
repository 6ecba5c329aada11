"""Verify: the fields no replay reads, bound to the rest of the record (issue 26 point 5;
``docs/fairness.md``, "What sekundant verify checks", step 9). Like
``engine/verify_binding.py``, each check returns findings as ``(turn, what, says, gives,
undone)``:

- ``generated_at`` is no earlier than anything the dossier records;
- the match was created when its turn 0 opened (the lobby opens turn 0);
- each seat: an NPC has no player and a player's seat has one; ``status`` is ``forfeit``
  exactly for the seats with a ``forfeit`` entry; the ``replace`` entries of a seat chain
  (each one's ``old_user`` and ``old`` are the previous one's ``new_user`` and ``new``) and
  end at the seat's ``user_id`` and ``name``;
- every GM entry that names a seat names one of the match's;
- a ruling (``edit``) was made while its turn was open;
- a ``force_resolve`` entry is the freeze of a forced record of its turn (same time);
- every listed beacon network is named by its key and uses the one scheme verified;
- the fields that bind nothing (the match's language, a seat's display name and
  ``reachable``, a GM entry's free-text ``reason``) have their form: one of the bot's
  languages, a non-empty name, a boolean, a text.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.beacon import SCHEME

Found = tuple[int | None, str, Any, Any, bool]

LANGUAGES = ("en", "ru")
"""The languages a match can be played in (the bot's catalogs)."""

SEAT_ENTRIES = frozenset({"edit", "replace", "forfeit", "veto"})
ACTIONS = frozenset(
    {
        "force_resolve",
        "undo",
        "edit",
        "replace",
        "hand_gm",
        "forfeit",
        "end",
        "seed_only",
        "pause",
        "resume",
        "extend",
        "clock",
        "veto",
    }
)
"""Every kind of GM entry (``docs/fairness.md``, the dossier's ``interventions``)."""


def check_fields(dossier: Mapping[str, Any]) -> list[Found]:
    if dossier.get("format_version") == 1:
        return []  # version 1 predates most of these fields
    match: Mapping[str, Any] = dossier["match"]
    turns: list[Mapping[str, Any]] = list(dossier.get("turns") or [])
    undone: list[Mapping[str, Any]] = list(dossier.get("undone") or [])
    log: list[Mapping[str, Any]] = list(dossier.get("interventions") or [])
    found: list[Found] = []
    found += _generated(dossier, [*turns, *undone], log)
    if turns and turns[0].get("opened_at") is not None and match.get("created_at") is not None:
        created, opened = float(match["created_at"]), float(turns[0]["opened_at"])
        if created > opened:
            found.append(
                (None, "match created after its turn 0 opened", created, f"<= {opened}", False)
            )
        elif created < opened:
            found.append((None, "match created before its turn 0 opened", created, opened, False))
    found += _header(match)
    found += _seats(match, log)
    found += _forced_entries([(t, False) for t in turns] + [(t, True) for t in undone], log)
    found += _networks(dossier.get("beacon_networks") or {})
    found += _rulings(turns, undone, log)
    return found


def _rulings(
    turns: Sequence[Mapping[str, Any]],
    undone: Sequence[Mapping[str, Any]],
    log: Sequence[Mapping[str, Any]],
) -> list[Found]:
    """A ruling (``edit``) of turn N was made while N was open: after a record of turn N-1
    resolved (kept, or undone later) and no later than the kept turn N resolved."""
    found: list[Found] = []
    for a in log:
        if a.get("action") != "edit":
            continue
        number, at = int(a["turn"]), float(a["at"])
        after = [float(t["resolved_at"]) for t in [*turns, *undone] if int(t["turn"]) == number - 1]
        until = float(turns[number]["resolved_at"]) if 0 <= number < len(turns) else None
        if not any(t <= at for t in after) or (until is not None and at > until):
            found.append(
                (
                    number,
                    "time of the GM's ruling vs its turn",
                    at,
                    "while the turn was open",
                    False,
                )
            )
    return found


def _times(value: Any) -> Iterator[float]:
    """Every time (an ``*_at`` field, or a GM entry's ``at``) in ``value``, however deep."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if (key == "at" or key.endswith("_at")) and isinstance(item, (int, float)):
                yield float(item)
            elif key not in ("state_before", "state_after", "events", "order", "config"):
                yield from _times(item)
    elif isinstance(value, list):
        for item in value:
            yield from _times(item)


def _generated(
    dossier: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    log: Sequence[Mapping[str, Any]],
) -> list[Found]:
    at = dossier.get("generated_at")
    latest = max(
        _times([dossier["match"], list(records), list(log), dossier.get("current") or {}]),
        default=None,
    )
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        return [(None, "time the dossier was generated", at, "a time", False)]
    if latest is not None and float(at) < latest:
        return [(None, "dossier generated before what it records", at, f">= {latest}", False)]
    return []


def _header(match: Mapping[str, Any]) -> list[Found]:
    found: list[Found] = []
    if match.get("lang") not in LANGUAGES:
        found.append((None, "language of the match", match.get("lang"), list(LANGUAGES), False))
    return found


def _seats(match: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> list[Found]:
    found: list[Found] = []
    seats = list(match.get("seats") or [])
    pids = [s.get("pid") for s in seats]
    forfeited = {a.get("pid") for a in log if a.get("action") == "forfeit"}
    for seat in seats:
        pid = seat.get("pid")
        name, user, npc = seat.get("name"), seat.get("user_id"), seat.get("npc")
        if not isinstance(name, str) or not name.strip():
            found.append((None, f"name of seat {pid}", name, "a name", False))
        if not isinstance(seat.get("reachable", True), bool):
            found.append(
                (None, f"reachable of seat {pid}", seat.get("reachable"), "true or false", False)
            )
        if npc is True and user is not None:
            found.append((None, f"player of NPC seat {pid}", user, "none (the GM runs it)", False))
        elif npc is not True and (npc is not False or not isinstance(user, int)):
            found.append(
                (
                    None,
                    f"seat {pid}: NPC or player",
                    {"npc": npc, "user_id": user},
                    "a player's id",
                    False,
                )
            )
        status = "forfeit" if pid in forfeited else "active"
        if seat.get("status") != status:
            found.append((None, f"status of seat {pid}", seat.get("status"), status, False))
        found += _replacements(
            seat, [a for a in log if a.get("action") == "replace" and a.get("pid") == pid]
        )
    for a in log:
        if a.get("action") not in ACTIONS:
            found.append((None, "kind of GM entry", a.get("action"), sorted(ACTIONS), False))
        if a.get("action") in SEAT_ENTRIES and a.get("pid") not in pids:
            turn = a.get("turn")
            found.append(
                (
                    int(turn) if isinstance(turn, int) else None,
                    f"seat named by the GM's {a.get('action')} entry",
                    a.get("pid"),
                    pids,
                    False,
                )
            )
        if not isinstance(a.get("reason", ""), str):
            found.append(
                (
                    None,
                    f"reason of the GM's {a.get('action')} entry",
                    a.get("reason"),
                    "a text",
                    False,
                )
            )
    return found


def _replacements(seat: Mapping[str, Any], replaced: Sequence[Mapping[str, Any]]) -> list[Found]:
    """A seat's ``replace`` entries hand it on from holder to holder, ending at the seat."""
    found: list[Found] = []
    pid = seat.get("pid")
    for a, b in itertools.pairwise(replaced):
        if "old_user" in b and (b.get("old_user"), b.get("old")) != (
            a.get("new_user"),
            a.get("new"),
        ):
            found.append(
                (
                    None,
                    f"seat {pid}: replaced player vs the one the previous replacement seated",
                    [b.get("old_user"), b.get("old")],
                    [a.get("new_user"), a.get("new")],
                    False,
                )
            )
    if replaced and "new_user" in replaced[-1]:
        last = replaced[-1]
        if (last.get("new_user"), last.get("new")) != (seat.get("user_id"), seat.get("name")):
            found.append(
                (
                    None,
                    f"seat {pid}: its player vs the last replacement",
                    [seat.get("user_id"), seat.get("name")],
                    [last.get("new_user"), last.get("new")],
                    False,
                )
            )
    return found


def _forced_entries(
    records: Sequence[tuple[Mapping[str, Any], bool]], log: Sequence[Mapping[str, Any]]
) -> list[Found]:
    """The GM's force froze the turn: each entry's time is a forced record's freeze."""
    found: list[Found] = []
    for a in log:
        if a.get("action") != "force_resolve":
            continue
        number = int(a["turn"])
        frozen = [
            t.get("frozen_at")
            for t, _ in records
            if int(t["turn"]) == number and t.get("reason") == "forced"
        ]
        known = [f for f in frozen if f is not None]
        if known and a.get("at") not in known:
            found.append(
                (number, "time of the GM's force vs the turn's freeze", a.get("at"), known, False)
            )
    return found


def _networks(listed: Mapping[str, Any]) -> list[Found]:
    found: list[Found] = []
    for key, network in listed.items():
        if not isinstance(network, Mapping):
            found.append((None, f"beacon network {key}", network, "its parameters", False))
            continue
        if network.get("name") != key:
            found.append((None, f"name of beacon network {key}", network.get("name"), key, False))
        if network.get("scheme") != SCHEME:
            found.append(
                (None, f"scheme of beacon network {key}", network.get("scheme"), SCHEME, False)
            )
    return found

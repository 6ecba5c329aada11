"""Verify: the checks that bind the record's bookkeeping fields against each other (issue 26),
kept apart from the replay in ``engine/verify.py``. Each returns findings as
``(turn, what, says, gives, undone)``; ``docs/fairness.md`` ("What sekundant verify checks",
step 8) lists them:

- every commitment was its own group message: a turn with a sealed order has a
  ``commitment_message``, and no two turns (kept, undone, open) share one;
- a GM-only intervention's ``by`` is the GM at that time (``hand_gm`` entries followed in the
  log's order); a player's own ``forfeit`` is by the seat's holder then;
- each ``seed_only`` entry matches a turn resolved without its beacon, naming that turn's round;
- a turn with a beacon names its ``beacon_round``;
- a default order's ``sealed_at`` is its turn's resolution time.

The match's creation time against its turn 0: ``engine/verify_fields.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Found = tuple[int | None, str, Any, Any, bool]

GM_ONLY = frozenset(
    {
        "force_resolve",
        "undo",
        "edit",
        "replace",
        "pause",
        "extend",
        "clock",
        "veto",
        "seed_only",
        "end",
    }
)


def check_binding(dossier: Mapping[str, Any]) -> list[Found]:
    turns: list[Mapping[str, Any]] = list(dossier.get("turns") or [])
    undone: list[Mapping[str, Any]] = list(dossier.get("undone") or [])
    interventions: list[Mapping[str, Any]] = list(dossier.get("interventions") or [])
    match: Mapping[str, Any] = dossier["match"]
    found: list[Found] = []
    if dossier.get("format_version") == 1:
        return found  # version 1 predates these fields
    records = [(t, False) for t in turns] + [(t, True) for t in undone]
    found += _commitment_messages(records, dossier.get("current"))
    found += _gm_entries(match, interventions)
    found += _seed_only_entries(records, interventions)
    for turn, was_undone in records:
        found += _record_fields(turn, was_undone)
    return found


def _commitment_messages(
    records: Sequence[tuple[Mapping[str, Any], bool]], current: Mapping[str, Any] | None
) -> list[Found]:
    found: list[Found] = []
    seen: dict[int, tuple[int, bool]] = {}
    listed = list(records) + ([(current, False)] if current else [])
    for turn, was_undone in listed:
        number = int(turn["turn"])
        message = turn.get("commitment_message")
        sealed = [o for o in turn.get("orders", []) if not o.get("default")]
        sealed += list(turn.get("sealed", []))  # the open turn's fingerprints
        if message is None:
            if sealed:
                found.append(
                    (
                        number,
                        "commitment message of a turn with sealed orders",
                        None,
                        "the group message that posted the commitment",
                        was_undone,
                    )
                )
            continue
        if int(message) in seen:
            other, other_undone = seen[int(message)]
            label = f"{'undone ' if other_undone else ''}turn {other}"
            found.append(
                (number, "commitment message shared with another turn", message, label, was_undone)
            )
        seen[int(message)] = (number, was_undone)
    return found


def _gm_entries(
    match: Mapping[str, Any], interventions: Sequence[Mapping[str, Any]]
) -> list[Found]:
    """Follow the GM role and each seat's holder through the log, in its order."""
    found: list[Found] = []
    hands = [a for a in interventions if a.get("action") == "hand_gm"]
    gm = int(hands[0]["old"]) if hands else int(match["gm_user_id"])
    holders: dict[str, Any] = {}
    for seat in match.get("seats", []):
        replaced = [
            a for a in interventions if a.get("action") == "replace" and a.get("pid") == seat["pid"]
        ]
        holders[seat["pid"]] = replaced[0].get("old_user") if replaced else seat.get("user_id")
    for a in interventions:
        action, by, turn = a.get("action"), a.get("by"), a.get("turn")
        number = int(turn) if turn is not None else None
        if action in GM_ONLY or (action == "resume" and by not in (0, None)):
            if by != gm:
                found.append((number, f"who made the GM's {action} entry", by, gm, False))
        elif action == "forfeit":
            holder = holders.get(str(a.get("pid")))
            expected = holder if a.get("own") else gm
            if by != expected:
                found.append((number, f"who made the {action} entry", by, expected, False))
        if action == "hand_gm":
            if int(a["old"]) != gm:
                found.append((number, "GM handing over the role", a["old"], gm, False))
            gm = int(a["new"])
        if action == "replace":
            holders[str(a.get("pid"))] = a.get("new_user")
    if gm != int(match["gm_user_id"]):
        found.append((None, "GM after the hand-overs", match["gm_user_id"], gm, False))
    return found


def _seed_only_entries(
    records: Sequence[tuple[Mapping[str, Any], bool]], interventions: Sequence[Mapping[str, Any]]
) -> list[Found]:
    found: list[Found] = []
    for a in interventions:
        if a.get("action") != "seed_only":
            continue
        number = int(a["turn"])
        named = a.get("beacon_round")
        same = [t for t, _ in records if int(t["turn"]) == number]
        without = [t for t in same if t.get("beacon") is None]
        if not without:
            says = "resolved with its beacon" if same else "no such turn"
            found.append((number, "GM's seed_only entry", "server seed only", says, False))
        elif all(t.get("beacon_round") != named for t in without):
            rounds = sorted({t.get("beacon_round") for t in without}, key=str)
            found.append((number, "round named by the GM's seed_only entry", named, rounds, False))
    return found


def _record_fields(turn: Mapping[str, Any], was_undone: bool) -> list[Found]:
    found: list[Found] = []
    number = int(turn["turn"])
    beacon = turn.get("beacon")
    if beacon is not None and turn.get("beacon_round") is None:
        found.append(
            (number, "beacon round of a turn with a beacon", None, beacon.get("round"), was_undone)
        )
    resolved = turn.get("resolved_at")
    for order in turn.get("orders", []):
        early = resolved is not None and float(order["sealed_at"]) != float(resolved)
        if order.get("default") and early:
            found.append(
                (
                    number,
                    f"time of {order['pid']}'s default order (written at the resolution)",
                    order["sealed_at"],
                    resolved,
                    was_undone,
                )
            )
    return found

"""The match dossier as readable Markdown, in the reader's language (ru/en).

Rendered from the dossier document itself (``engine.dossier.build_dossier``), never from the
live match, so the Markdown and the JSON file beside it always say the same thing. The JSON is
what ``sekundant verify`` checks; this is for people.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from handlers.telegram.i18n import Raw, Tr


def _t(tr: Tr, key: str, /, **params: Any) -> str:
    """A catalog message with plain-text parameters (Markdown, not HTML: nothing is escaped)."""
    return tr(key, **{k: Raw(str(v)) for k, v in params.items()})


def _when(ts: Any) -> str:
    try:
        return datetime.fromtimestamp(float(ts), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (TypeError, ValueError, OverflowError):
        return str(ts)


def _js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _cell(text: Any) -> str:
    """A Markdown table cell: no pipes or newlines from user text."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(dossier: Mapping[str, Any], tr: Tr) -> str:
    """The whole dossier: match, seats, every turn (commitment, seed, orders with salts and
    fingerprints, dice, events), GM interventions, the open turn's public part."""
    m = dossier["match"]
    names = {s["pid"]: s["name"] for s in m.get("seats", [])}
    out = _header(m, dossier, tr)
    undone = [{**u, "undone": True} for u in dossier.get("undone", [])]
    holders = _holders(dossier.get("interventions", []))
    for turn in [*dossier.get("turns", []), *undone]:
        out += _turn(turn, _names_then(turn, names, holders), tr)
    out += _interventions(dossier.get("interventions", []), tr)
    current = dossier.get("current")
    if current:
        out += _current(current, names, tr)
    return "\n".join(out) + "\n"


def _holders(interventions: list[Mapping[str, Any]]) -> dict[tuple[str, Any], str]:
    """Each (seat, user) a replacement names, with that user's name at the seat."""
    out: dict[tuple[str, Any], str] = {}
    for a in interventions:
        if a.get("action") == "replace":
            out[(str(a.get("pid")), a.get("old_user"))] = str(a.get("old"))
            out[(str(a.get("pid")), a.get("new_user"))] = str(a.get("new"))
    return out


def _names_then(
    turn: Mapping[str, Any], names: Mapping[str, str], holders: Mapping[tuple[str, Any], str]
) -> dict[str, str]:
    """The seats' names as they were in ``turn``: a replaced player's orders (and rolls)
    stay his, never credited to who holds the seat now (issue 26)."""
    then = dict(names)
    for o in turn.get("orders", []):
        name = holders.get((str(o["pid"]), o.get("by_user")))
        if name is not None:
            then[o["pid"]] = name
    return then


def _header(m: Mapping[str, Any], dossier: Mapping[str, Any], tr: Tr) -> list[str]:
    """The match's facts and the table of seats."""
    out: list[str] = [
        _t(tr, "md.title", id=m["id"]),
        "",
        _t(tr, "md.ruleset", ruleset=m["ruleset"], version=m["ruleset_version"]),
        _t(tr, "md.phase", phase=m["phase"]),
        _t(tr, "md.created", when=_when(m.get("created_at"))),
        _t(tr, "md.generated", when=_when(dossier.get("generated_at"))),
        _t(tr, "md.outcome", outcome=_js(m.get("outcome"))),
        _t(tr, "md.config", config=_js(m.get("config", {}))),
        "",
        _t(tr, "md.verify_hint"),
        "",
        _t(tr, "md.seats"),
        "",
        "| pid | "
        + _t(tr, "md.col_name")
        + " | "
        + _t(tr, "md.col_side")
        + " | "
        + _t(tr, "md.col_character")
        + " | "
        + _t(tr, "md.col_status")
        + " |",
        "|---|---|---|---|---|",
    ]
    for s in m.get("seats", []):
        out.append(
            f"| {s['pid']} | {_cell(s['name'])} | {_cell(s.get('side', ''))} | "
            f"`{_cell(_js(s.get('character')))}` | {s.get('status', '')} |"
        )
    return out


def _turn(turn: Mapping[str, Any], names: Mapping[str, str], tr: Tr) -> list[str]:
    """One turn (resolved or undone): commitment, seed, beacon, orders, dice, events."""
    out = ["", _t(tr, "md.turn", turn=turn["turn"], reason=turn["reason"]), ""]
    if turn.get("undone"):
        out.append(_t(tr, "md.undone", when=_when(turn.get("undone_at"))))
    out.append(_t(tr, "md.commitment", commitment=turn["commitment"]))
    out.append(_t(tr, "md.seed", seed=turn["seed"]))
    beacon = turn.get("beacon")
    if beacon:
        out.append(
            _t(
                tr,
                "md.beacon",
                network=beacon["network"],
                round=beacon["round"],
                randomness=beacon["randomness"],
            )
        )
    elif turn.get("beacon_round") is not None:
        out.append(_t(tr, "md.seed_only", round=turn["beacon_round"]))
    if not beacon:
        out.append(_t(tr, "md.server_seed_only"))
    out.append(_t(tr, "md.resolved", when=_when(turn.get("resolved_at"))))
    if turn.get("orders"):
        out += ["", _t(tr, "md.orders")]
        for o in turn["orders"]:
            who = _cell(names.get(o["pid"], o["pid"]))
            if o.get("default"):
                out.append(_t(tr, "md.order_default", name=who, order=_js(o["order"])))
            else:
                out.append(
                    _t(
                        tr,
                        "md.order",
                        name=who,
                        order=_js(o["order"]),
                        salt=o["salt"],
                        fingerprint=o["fingerprint"],
                    )
                )
    rolls = [e for e in turn.get("events", []) if e.get("kind") == "roll"]
    others = [e for e in turn.get("events", []) if e.get("kind") != "roll"]
    if rolls:
        out += ["", _t(tr, "md.dice")]
        for e in rolls:
            faces = e.get("faces", [])
            out.append(
                _t(
                    tr,
                    "md.roll",
                    who=_cell(names.get(e.get("actor") or "", e.get("actor") or "—")),
                    purpose=str(e.get("purpose", "")),
                    sides=str(e.get("sides", "?")),
                    faces=", ".join(map(str, faces)),
                )
            )
    if others:
        out += ["", _t(tr, "md.events")]
        for e in others:
            data = {k: v for k, v in e.items() if k not in ("kind", "actor")}
            out.append(
                _t(
                    tr,
                    "md.event",
                    who=_cell(names.get(e.get("actor") or "", e.get("actor") or "—")),
                    kind=str(e.get("kind")),
                    data=_js(data),
                )
            )
    return out


def _interventions(interventions: list[Mapping[str, Any]], tr: Tr) -> list[str]:
    """The GM's interventions, or a line saying there were none."""
    out = ["", _t(tr, "md.interventions"), ""]
    if not interventions:
        out.append(_t(tr, "md.none"))
    for a in interventions:
        details = {k: v for k, v in a.items() if k not in ("at", "by", "action", "turn", "reason")}
        out.append(
            _t(
                tr,
                "md.intervention",
                when=_when(a.get("at")),
                by=str(a.get("by")),
                action=str(a.get("action")),
                turn=str(a.get("turn")),
                reason=_cell(a.get("reason") or "—"),
                details=_js(details),
            )
        )
    return out


def _current(current: Mapping[str, Any], names: Mapping[str, str], tr: Tr) -> list[str]:
    """The open turn's public part: its commitment and the sealed orders' fingerprints."""
    out = ["", _t(tr, "md.current", turn=current["turn"]), ""]
    out.append(_t(tr, "md.commitment", commitment=current["commitment"]))
    for s in current.get("sealed", []):
        out.append(
            _t(
                tr,
                "md.sealed",
                name=_cell(names.get(s["pid"], s["pid"])),
                fingerprint=s["fingerprint"],
            )
        )
    return out

"""The match dossier as readable Markdown, in the reader's language (ru/en).

Rendered from the dossier document itself (``engine.dossier.build_dossier``), never from the
live match, so the Markdown and the JSON file beside it always say the same thing. The JSON is
what ``sekundant verify`` checks; this is for people: the ruleset, phase, turn reasons, seat
statuses, GM actions, results, events and roll purposes in the glossary's words of the reader's
language (``docs/glossary.md``), the raw values only inside code spans.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import RulesetUI, get_ui, purpose_label


def _word(tr: Tr, prefixes: tuple[str, ...], value: Any) -> str:
    """``value`` (an internal id) in the reader's words, from the first catalog prefix that
    has it; else the id as a code span (never a bare English id in Russian text)."""
    for prefix in prefixes:
        if tr.has(prefix + str(value)):
            return tr(prefix + str(value))
    return f"`{value}`"


_TAG = re.compile(r"<[^>]+>")


def _plain(text: str) -> str:
    """A screen's HTML line as Markdown text: tags dropped, entities unescaped."""
    return _cell(html.unescape(_TAG.sub("", text)))


_PURPOSE = ("purpose.", "plans.purpose.", "md.purpose.", "dr.trait.", "input.field.")


def _purpose(tr: Tr, purpose: str) -> str:
    """A roll's purpose in words: each ``:`` part (``fighting:wild``) through the catalogs
    (:func:`handlers.telegram.ui.purpose_label` and the rulesets' trait words); a part none
    has stays an id, in code."""
    if tr.has("purpose." + purpose):
        return purpose_label(tr, purpose)
    parts = [_word(tr, _PURPOSE, p) if p else "" for p in purpose.split(":")]
    return ", ".join(p for p in parts if p) or "—"


def _outcome(tr: Tr, m: Mapping[str, Any]) -> str:
    """The result in words (who won, why; the GM's ruling said so), the raw value in code."""
    out = m.get("outcome")
    if not isinstance(out, Mapping):
        return tr("md.no_outcome")
    names = {s["pid"]: s["name"] for s in m.get("seats", [])}
    status = str(out.get("status", ""))
    winners = ", ".join(str(names.get(p, p)) for p in out.get("winners", []))
    if status == "win" and winners:
        text = tr("outcome.win", names=Raw(winners))
    else:
        text = tr("outcome.mutual" if status == "mutual" else "outcome.draw")
    if out.get("by_gm"):
        text = tr("outcome.gm_ruling", result=Raw(text))
    reason = out.get("reason")
    if reason:
        text = (
            text.rstrip(".")
            + " — "
            + _word(tr, ("sim.reason.", "dr.reason.", "plans.reason."), reason)
        )
    return _plain(text) + f" `{_js(out)}`"


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
        out += _turn(turn, _names_then(turn, names, holders), tr, str(m.get("ruleset", "")))
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
        _t(
            tr,
            "md.ruleset",
            ruleset=_word(tr, ("ruleset.",), m["ruleset"]),
            version=m["ruleset_version"],
        ),
        _t(tr, "md.phase", phase=_word(tr, ("phase.",), m["phase"])),
        _t(tr, "md.created", when=_when(m.get("created_at"))),
        _t(tr, "md.generated", when=_when(dossier.get("generated_at"))),
        _t(tr, "md.outcome_words", outcome=_outcome(tr, m)),
        _t(tr, "md.config", config=_js(m.get("config", {}))),
        "",
        _t(tr, "md.verify_hint"),
        "",
        _t(tr, "md.seats"),
        "",
        "| "
        + _t(tr, "md.col_pid")
        + " | "
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
            f"| `{s['pid']}` | {_cell(s['name'])} | {_cell(s.get('side', ''))} | "
            f"`{_cell(_js(s.get('character')))}` | {_word(tr, ('md.status.',), s.get('status'))} |"
        )
    return out


def _turn(
    turn: Mapping[str, Any], names: Mapping[str, str], tr: Tr, ruleset: str = ""
) -> list[str]:
    """One turn (resolved or undone): commitment, seed, beacon, orders, dice, events."""
    reason = _word(tr, ("md.reason.",), turn["reason"])
    out = ["", _t(tr, "md.turn", turn=turn["turn"], reason=reason), ""]
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
                    purpose=_purpose(tr, str(e.get("purpose", ""))),
                    sides=str(e.get("sides", "?")),
                    faces=", ".join(map(str, faces)),
                )
            )
    if others:
        out += ["", _t(tr, "md.events")]
        for e in others:
            out.append(_event(tr, names, ruleset, e))
    return out


def _event(tr: Tr, names: Mapping[str, str], ruleset: str, e: Mapping[str, Any]) -> str:
    """An event as the reveal tells it (the ruleset's words), its raw data in code."""
    data = {k: v for k, v in e.items() if k not in ("kind", "actor")}
    actor = e.get("actor") or None
    kind = str(e.get("kind"))
    told = ""
    try:
        ui = get_ui(ruleset)
        told = ui.event_text(tr, names, kind, actor, data)
        if told == RulesetUI.event_text(ui, tr, names, kind, actor, data):
            told = ""  # the generic "kind key=value" line: no words of the ruleset's
    except Exception:  # an event the ruleset's words do not cover: who and what, raw
        told = ""
    told = _plain(told)
    if not told:
        who = _cell(names.get(actor or "", actor or "—"))
        told = f"{who}: `{e.get('kind')}`"
    return _t(tr, "md.event_words", text=told, data=_js({"kind": e.get("kind"), **data}))


def _why(tr: Tr, reason: Any) -> str:
    """A GM action's reason: the GM's own words, or the bot's (``auto``) in the reader's."""
    if not reason:
        return "—"
    key = f"md.why.{reason}"
    return tr(key) if tr.has(key) else _cell(reason)


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
                action=_word(tr, ("md.action.",), a.get("action")),
                turn=str(a.get("turn")),
                reason=_why(tr, a.get("reason")),
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

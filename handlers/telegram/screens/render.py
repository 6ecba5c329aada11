"""Generic screens (lobby, status, receipts, match lists) and message splitting.

Pure functions from a match to a :class:`~handlers.telegram.ui.Screen`; the per-ruleset parts
(options, characters, orders, reveals) come from the ruleset's UI module.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from engine import match as lifecycle
from engine.match import Match, Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens.labels import short_fp as short_fp  # noqa: PLC0414 - re-exported
from handlers.telegram.screens.labels import turn_label as turn_label  # noqa: PLC0414 - re-exported
from handlers.telegram.ui import Button, Screen, esc, get_ui, names_of

MAX_TEXT = 4096
MAX_CAPTION = 1024  # a photo's caption (docs/bot.md: the picture and the story in one message)


def shown_length(text: str) -> int:
    """The length of ``text`` (HTML) as Telegram checks it against its limits: after the
    entities are parsed (tags dropped, ``&lt;`` one character), in UTF-16 code units."""
    shown = html.unescape(re.sub(r"<[^>]+>", "", text))
    return len(shown.encode("utf-16-le")) // 2


def lobby_screen(tr: Tr, match: Match, join_url: str) -> Screen:
    ui = get_ui(match.ruleset)
    lines = [tr("lobby.title", ruleset=tr(f"ruleset.{match.ruleset}"), id=match.id)]
    lines.append(tr.n("lobby.players", len(match.seats)))
    for s in match.seats:
        if s.character is None:
            lines.append(tr("lobby.seat_nochar", name=s.name))
        else:
            lines.append(
                tr("lobby.seat", name=s.name, character=Raw(ui.character_label(tr, s.character)))
            )
    extra = ui.lobby_extra(tr, match)
    if extra.text:
        lines.append(extra.text)
    lines.append(tr("lobby.hint"))
    from handlers.telegram.screens import campaign_text, clock_text, fairness, odds_text

    lines += clock_text.lobby_lines(tr, match)
    lines += campaign_text.lobby_lines(tr, match)
    if match.commitment:  # turn 0 (the setup rolls) is committed from the lobby on
        lines.append(fairness.commitment_text(tr, match.commitment))
    rows: list[list[Button]] = [[Button(tr("btn.join"), url=join_url)]]
    rows += [list(r) for r in extra.rows]
    for opt in ui.options(tr, match):
        rows.append([Button(opt.label, Callback("opt", match.id, 0, (opt.name,)))])
    rows += clock_text.lobby_rows(tr, match)
    rows += odds_text.lobby_rows(tr, match)
    rows += campaign_text.lobby_rows(tr, match)
    other = "en" if match.lang == "ru" else "ru"
    rows.append(
        [
            Button(
                tr("btn.lang", lang=tr(f"lang.{match.lang}")),
                Callback("opt", match.id, 0, ("lang", other)),
            )
        ]
    )
    rows.append(
        [
            Button(tr("btn.start"), Callback("start", match.id)),
            Button(tr("btn.cancel_match"), Callback("gend", match.id)),
        ]
    )
    return Screen("\n".join(lines), rows)


def status_text(
    tr: Tr, match: Match, fingerprints: Mapping[str, str], now: float | None = None
) -> str:
    """Who has sealed this turn (with public fingerprints), who is still thinking; the
    deadline (when ``now`` is given) and the turn's seed commitment."""
    names = names_of(match)
    lines = [tr("status.title", turn=Raw(turn_label(tr, match)))]
    need = lifecycle.acting(match)
    for s in match.seats:
        if s.pid not in need:
            continue
        name = Raw(names[s.pid])
        if s.pid in match.sealed:
            lines.append(tr("status.sealed", name=name, fp=short_fp(fingerprints.get(s.pid, ""))))
        else:
            lines.append(tr("status.waiting", name=name))
        if not s.reachable:
            lines.append(tr("status.unreachable", name=name))
    from handlers.telegram.screens import clock_text, fairness

    if now is not None and (deadline := clock_text.deadline_line(tr, match, now)):
        lines.append(deadline)
    if match.commitment:
        lines.append(fairness.commitment_text(tr, match.commitment))
    if match.locked_at is not None and match.beacon_round is not None:
        lines.append(tr("fair.locked", round=match.beacon_round))
    if match.ui.get("seed_only"):  # the bot runs without a public beacon (docs/fairness.md)
        lines.append(tr("fair.server_seed_only"))
    return "\n".join(lines)


def panel_rows(tr: Tr, match: Match) -> list[list[Button]]:
    """The GM panel under the status message (GM only; others get an alert)."""
    return [
        [
            Button(tr("btn.status"), Callback("gst", match.id, match.turn)),
            Button(tr("btn.force"), Callback("gfr", match.id, match.turn)),
            Button(tr("btn.end"), Callback("gend", match.id, match.turn)),
        ],
        [Button(tr("gm.btn_menu"), Callback("gm", match.id, match.turn))],
    ]


def status_screen(
    tr: Tr, match: Match, fingerprints: Mapping[str, str], now: float | None = None
) -> Screen:
    return Screen(status_text(tr, match, fingerprints, now), panel_rows(tr, match))


def closed_status(tr: Tr, match: Match, turn: int, fps: Mapping[str, str]) -> Screen:
    """The status message of a resolved turn: the fingerprints it revealed, no buttons."""
    names = names_of(match)
    lines = [tr("status.closed", turn=turn)]
    for pid, fp in fps.items():
        lines.append(tr("status.sealed", name=Raw(names.get(pid, pid)), fp=short_fp(fp)))
    return Screen("\n".join(lines))


def confirm_rows(tr: Tr, match: Match, yes_kind: str) -> list[list[Button]]:
    return [
        [
            Button(tr("btn.confirm"), Callback(yes_kind, match.id, match.turn)),
            Button(tr("btn.back"), Callback("gx", match.id, match.turn)),
        ]
    ]


def match_title(tr: Tr, match: Match) -> str:
    vs = " — ".join(esc(s.name) for s in match.seats) or "…"
    return tr("match.title", ruleset=tr(f"ruleset.{match.ruleset}"), id=match.id, vs=Raw(vs))


def builder_screen(tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
    ui = get_ui(match.ruleset)
    inner = ui.builder(tr, match, pid, state)
    head = f"{match_title(tr, match)}\n{turn_label(tr, match)}"
    return Screen(f"{head}\n\n{inner.text}", inner.rows)


def match_list(tr: Tr, matches: Sequence[Match]) -> str:
    if not matches:
        return tr("matches.none")
    lines = [tr("matches.title")]
    for m in matches:
        phase = tr(f"phase.{m.phase.value}")
        extra = f" · {turn_label(tr, m)}" if m.phase is Phase.RUNNING else ""
        lines.append(f"• {match_title(tr, m)} — {phase}{extra}")
    return "\n".join(lines)


def split_text(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Split a message under Telegram's limit, at paragraph then line boundaries, never inside
    a ``<pre>`` block that fits in one message."""
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    current = ""
    for para in text.split("\n\n"):
        pieces = [para] if len(para) <= limit else _hard_split(para, limit)
        for piece in pieces:
            candidate = f"{current}\n\n{piece}" if current else piece
            if len(candidate) <= limit:
                current = candidate
            else:
                if current:
                    chunks.append(current)
                current = piece
    if current:
        chunks.append(current)
    return chunks


def _hard_split(text: str, limit: int) -> list[str]:
    out: list[str] = []
    current = ""
    for whole in text.split("\n"):
        line = whole
        while len(line) > limit:
            out.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) <= limit:
            current = candidate
        else:
            out.append(current)
            current = line
    if current:
        out.append(current)
    return out

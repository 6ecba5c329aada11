"""The plans reveal picture: the two plans face to face, each guess that landed highlighted."""

from __future__ import annotations

from collections.abc import Mapping
from html import unescape
from typing import TYPE_CHECKING, Any

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import (
    BG,
    GRID,
    HEIGHT,
    HIT,
    INK,
    MUTED,
    WIDTH,
    draw_text,
    fit,
    participant_colours,
    seat_names,
)

if TYPE_CHECKING:
    from PIL import ImageDraw


def _plans(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    from handlers.telegram.ui.plans import action_name, group_name, skill_name

    names = seat_names(match)
    colours = participant_colours(match)
    reveal = next((e.data for e in record.events if e.kind == "reveal"), None)
    if reveal is None:
        return
    guessed = {e.actor: e.data.get("guessed", {}) for e in record.events if e.kind == "action"}
    wounds = {e.actor: e.data.get("wounds") for e in record.events if e.kind == "status"}
    draw_text(d, (24, 16), tr("pic.turn", turn=record.turn), 22, fill=MUTED)
    pids = [str(reveal["attacker"]), str(reveal["defender"])]
    plans: Mapping[str, Mapping[str, Any]] = reveal["plans"]

    def plain(html_text: str) -> str:
        return unescape(html_text)

    for i, pid in enumerate(pids):
        left = 24 + i * WIDTH // 2
        width = WIDTH // 2 - 48
        plan = plans.get(pid, {})
        role = tr("pic.attacker" if i == 0 else "pic.defender")
        draw_text(
            d, (left, 52), fit(names.get(pid, pid), 26, width), 26, fill=colours.get(pid, INK)
        )
        draw_text(d, (left, 86), role, 18, fill=MUTED)
        rows: list[tuple[str, str]] = [
            (tr("pic.group"), plain(group_name(tr, str(plan.get("group", "?"))))),
            (tr("pic.skill"), plain(skill_name(tr, plan.get("skill", "?")))),
            (tr("pic.action"), plain(action_name(tr, str(plan.get("action", "?"))))),
        ]
        y = 122
        for label, value in rows:
            draw_text(d, (left, y), label, 17, fill=MUTED)
            draw_text(d, (left + 120, y - 3), fit(value, 22, width - 120), 22)
            y += 36
        y += 6
        draw_text(d, (left, y), tr("pic.guesses"), 17, fill=MUTED)
        y += 28
        guess: Mapping[str, Any] = plan.get("guess") or {}
        marks = guessed.get(pid, {})
        for part in ("group", "skill", "action"):
            guessed_value = guess.get(part)
            if guessed_value is None:
                text, fill, box = tr("pic.no_guess"), MUTED, BG
            else:
                namer = {"group": group_name, "skill": skill_name, "action": action_name}[part]
                text = plain(namer(tr, guessed_value))
                right_guess = marks.get(part) is True
                fill, box = (INK, "#c8e6c9") if right_guess else (INK, "#f3d6d6")
                text = ("✓ " if right_guess else "✗ ") + text
            d.rounded_rectangle((left, y - 4, left + width, y + 28), 8, fill=box)
            draw_text(d, (left + 10, y), fit(text, 20, width - 20), 20, fill=fill)
            y += 40
        if pid in wounds:
            draw_text(d, (left, y + 8), tr("pic.wounds", wounds=wounds[pid]), 18, fill=MUTED)
    d.line((WIDTH // 2, 60, WIDTH // 2, HEIGHT - 80), fill=GRID, width=2)
    lines = result_lines(tr, match, record)
    y = HEIGHT - 30 - 34 * (len(lines) - 1)
    for text, colour in lines:
        draw_text(d, (WIDTH / 2, y), fit(text, 22, WIDTH - 48), 22, fill=colour, anchor="mm")
        y += 34


def result_lines(tr: Tr, match: Match, record: TurnRecord) -> list[tuple[str, str]]:
    """Under the plans: the exchange's score and who took it and, when the duel ended this
    turn, its real result and why (a win by incapacitation is no draw), as the text says."""
    names = seat_names(match)
    events = record.events
    reveal = next((e.data for e in events if e.kind == "reveal"), {})
    contest = next((e.data for e in events if e.kind == "contest"), {})
    pids = [str(reveal.get("attacker")), str(reveal.get("defender"))]
    lines: list[tuple[str, str]] = []
    successes: Mapping[str, Any] = contest.get("successes", {})
    if successes:
        score = " : ".join(str(successes.get(p, 0)) for p in pids)
        winner = contest.get("winner")
        line = tr("pic.exchange_tie", score=score)
        if winner and not contest.get("tie"):
            name = names.get(str(winner), str(winner))
            line = tr("pic.exchange", score=score, name=name)
        lines.append((line, INK))
    end = next((e.data for e in events if e.kind == "end"), None)
    if end is not None:
        reason = str(end.get("reason", ""))
        why = tr(f"plans.reason.{reason}") if tr.has(f"plans.reason.{reason}") else reason
        winners = [names.get(str(p), str(p)) for p in end.get("winners", [])]
        if end.get("status") == "win" and winners:
            lines.append((tr("pic.end_win", names=", ".join(winners), reason=why), HIT))
        else:
            lines.append((tr("pic.end_draw", reason=why), HIT))
    return [(unescape(text), colour) for text, colour in lines]  # the catalog escapes names

"""The GM's side of a turn: the seats the GM gives orders for (NPCs and seats handed over),
their order builders in the GM's private chat with one-tap helpers, and the alert about
players who keep missing turns (moved from ``shared.turns``)."""

from __future__ import annotations

from telegram import Message

from engine import match as lifecycle
from engine.clock import absentees, clock_config
from engine.match import Match, Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.page_button import with_page
from handlers.telegram.shared.send import dm, send
from handlers.telegram.ui import Button, Screen, esc, get_ui, names_of


def gm_run(match: Match) -> list[str]:
    """Acting seats whose orders the GM gives: NPCs and seats the ruleset handed over."""
    need = lifecycle.acting(match)
    taken = lifecycle.gm_controlled(match)
    return [s.pid for s in match.seats if s.pid in need and (s.npc or s.pid in taken)]


def helper_rows(tr: Tr, match: Match, pid: str) -> list[list[Button]]:
    """One-tap NPC orders: "same as last turn", and "attack nearest" for dragons."""
    row = [Button(tr("npc.btn.same"), Callback("nsl", match.id, match.turn, (pid,)))]
    if hasattr(get_ui(match.ruleset), "nearest_order"):
        row.append(Button(tr("npc.btn.nearest"), Callback("nnr", match.id, match.turn, (pid,))))
    return [row]


async def open_turn_gm(context: Ctx, match: Match, *, unsealed_only: bool = False) -> list[Message]:
    """A turn opened: one order builder per GM-run participant in the GM's private chat
    (``unsealed_only``: for those not sealed yet, e.g. for a GM who took over mid-turn).
    Returns the messages sent, oldest first (their keyboards go when the turn resolves:
    ``stale``; the first one's id orders the GM's typed orders after the turn opened)."""
    svc = context.svc
    pids = [p for p in gm_run(match) if not (unsealed_only and p in match.sealed)]
    sent: list[Message] = []
    if not pids:
        return sent
    tr = Tr(svc.lang_for(match.gm_user_id, match.lang))
    for pid in pids:
        screen = render.builder_screen(tr, match, pid, ())
        if not _has_helpers(screen):
            screen = Screen(screen.text, [*screen.rows, *helper_rows(tr, match, pid)])
        screen = with_page(svc, tr, match, pid, screen)
        msg = await dm(context, match, match.gm_user_id, screen)
        if msg is None:
            break  # the GM cannot be written to: the group was told once, not per NPC
        sent.append(msg)
    return sent


def _has_helpers(screen: Screen) -> bool:
    return any(b.cb is not None and b.cb.kind == "nsl" for row in screen.rows for b in row)


def _name(match: Match, pid: str) -> str:
    return names_of(match).get(pid, esc(pid))


async def absentee_alert(context: Ctx, match: Match) -> None:
    """After a resolution: players who missed ``missed_turns_alert`` turns in a row (and every
    further such run) are reported to the GM privately (a quiet group: issue 24; in the group
    only when the GM cannot be messaged), with Replace/Remove buttons."""
    if match.phase is not Phase.RUNNING:
        return
    limit = clock_config(match).missed_turns_alert
    due = [p for p in absentees(match) if match.missed.get(p, 0) % limit == 0]
    if not due:
        return
    gtr = Tr(context.svc.lang_for(match.gm_user_id, match.lang))
    lines = [gtr.n("gm.absent", match.missed.get(p, 0), name=Raw(_name(match, p))) for p in due]
    rows = [
        [
            Button(
                gtr("gm.btn_replace_who", name=match.seat(p).name),
                Callback("grp", match.id, match.turn, (p,)),
            ),
            Button(
                gtr("gm.btn_remove_who", name=match.seat(p).name),
                Callback("gko", match.id, match.turn, (p,)),
            ),
        ]
        for p in due
    ]
    screen = Screen("\n".join(lines), rows)
    if await dm(context, match, match.gm_user_id, screen) is None:
        await send(context, match.chat_id, screen)

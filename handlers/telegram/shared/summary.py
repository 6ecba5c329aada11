"""The final summary of a match in the group: who won and how, the dossier button and (while
the GM may still undo the last turn) its undo; it becomes the people's last finished match
(moved out of :mod:`handlers.telegram.shared.turns`, which re-exports it)."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import finished
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.page_button import proof_link
from handlers.telegram.shared.send import edit, send
from handlers.telegram.ui import Button, Screen, get_ui


async def send_summary(context: Ctx, match: Match, status_id: int | None = None) -> None:
    """The final summary in the group (``status_id``: the status message becomes it, a quiet
    group); the match becomes its people's last finished one (``/dossier`` and ``/history``
    answer about it: :mod:`handlers.telegram.shared.finished`)."""
    finished.remember(context.svc, match)
    screen = summary_screen(Tr(match.lang), match, proof_link(context, match))
    if status_id is not None:
        await edit(context, match.chat_id, status_id, screen)
        return
    await send(context, match.chat_id, screen)


def summary_screen(tr: Tr, match: Match, proof: str | None = None) -> Screen:
    """``proof``: the link to the "📜 Proof" page (``page_button.proof_link``), if any."""
    ui = get_ui(match.ruleset)
    lines = [
        tr("summary.title", title=Raw(render.match_title(tr, match))),
        ui.outcome_text(tr, match),
    ]
    rows = [[Button(tr("fair.btn_dossier"), Callback("dos", match.id))]]
    if proof:
        rows[0].append(Button(tr("webapp.btn.proof"), url=proof))
    forfeit = (match.outcome or {}).get("reason") == "forfeit"
    if match.turn > 1 and not forfeit:  # the GM may still undo the last resolved turn
        rows.append([Button(tr("gm.btn_undo"), Callback("gsu", match.id, match.turn))])
    return Screen("\n".join(lines), rows)

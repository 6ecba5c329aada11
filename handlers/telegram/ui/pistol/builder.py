"""The ``pistol`` order builder: move buttons, the aim keyboard drawn as the silhouette grid,
the confirmation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.pistol import PistolConfig, render_grid
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Screen,
    esc,
)
from handlers.telegram.ui.pistol.common import _config
from handlers.telegram.ui.pistol.reveal import PistolReveal

# The aim keyboard: the corners a player usually wants (the window around the silhouette);
# the rest of the P8 window is one more page (FAR), and always reachable typed.
KEY_XS = range(-3, 4)
KEY_YS = range(3, -3, -1)


AimKeys = tuple[tuple[tuple[str, str, str], ...], ...]  # rows of (label, x, y)
_AIM: dict[int, tuple[PistolConfig, str, AimKeys]] = {}


def _aim_layout(cfg: PistolConfig) -> tuple[str, AimKeys]:
    """The aim step's silhouette grid and button labels for ``cfg``, made once per config
    object (the ruleset hands out one object per distinct config)."""
    kept = _AIM.get(id(cfg))
    if kept is None or kept[0] is not cfg:
        cells = {c: p for p, cs in cfg.silhouette.items() for c in cs}
        mark = {"head": "☻", "torso": "▮", "arm": "━", "leg": "┃"}
        keys = tuple(
            tuple((f"{mark.get(cells.get((x, y), ''), '')}{x}:{y}", str(x), str(y)) for x in KEY_XS)
            for y in KEY_YS
        )
        kept = (cfg, "\n".join(render_grid(cfg)), keys)
        if len(_AIM) >= 32:
            _AIM.clear()
        _AIM[id(cfg)] = kept
    return kept[1], kept[2]


FAR = "far"  # the builder state of the aim page beyond the main keyboard
FAR_ROW = 6  # buttons per row there
FAR_MAX = 90  # at most this many (Telegram allows 100 buttons); a larger window is typed


def _far_cells(cfg: PistolConfig) -> list[tuple[int, int]]:
    """The aim corners of the P8 window that the main keyboard does not show."""
    window = range(cfg.aim_min, cfg.aim_max + 1)
    return [(x, y) for y in window for x in window if x not in KEY_XS or y not in KEY_YS]


class PistolBuilder(PistolReveal):
    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        cfg = _config(match)
        zone = self._zone(match, pid)
        turn = match.turn
        if not state:  # step 1: the move (P6)
            moves = range(-cfg.move_max, cfg.move_max + 1)
            row = [
                Button(self._move_button(m), Callback("b", match.id, turn, (pid, str(m))))
                for m in moves
            ]
            from handlers.telegram.hints import order_words

            example = order_words(tr, match, pid)
            return Screen(tr("pistol.pick_move", example=example), [row])
        move = int(state[0])
        if len(state) == 2 and state[1] == FAR:  # step 2b: the aims beyond the main grid
            return self._far_aims(tr, match, pid, move)
        if len(state) == 1:  # step 2: the aim corner on the grid (P5, P8)
            grid, keys = _aim_layout(cfg)
            rows = [
                [
                    Button(label, Callback("b", match.id, turn, (pid, str(move), x, y)))
                    for label, x, y in row
                ]
                for row in keys
            ]
            if _far_cells(cfg):  # the rest of the P8 window: one more page
                far = Callback("b", match.id, turn, (pid, str(move), FAR))
                rows.append([Button(tr("input.btn.far_aims"), far)])
            rows.append([Button(tr("btn.back"), Callback("b", match.id, turn, (pid,)))])
            text = tr(
                "pistol.pick_aim",
                move=Raw(self._move_text(tr, move)),
                zone=zone,
                grid=Raw(f"<pre>{esc(grid)}</pre>"),
            )
            return Screen(text, rows)
        a, b = int(state[1]), int(state[2])  # step 3: confirm exactly what will be sealed
        order = {"move": move, "aim": [a, b]}
        marks = {(x, y): "*" for x in range(a, a + zone) for y in range(b - zone + 1, b + 1)}
        grid = "\n".join(render_grid(cfg, marks))
        text = tr(
            "pistol.confirm",
            order=Raw(self.order_text(tr, order)),
            zone=zone,
            x0=a,
            x1=a + zone - 1,
            y0=b - zone + 1,
            y1=b,
            grid=Raw(f"<pre>{esc(grid)}</pre>"),
        )
        rows = [
            [
                Button(
                    tr("btn.seal"), Callback("s", match.id, turn, (pid, str(move), str(a), str(b)))
                )
            ],
            [
                Button(tr("btn.change_move"), Callback("b", match.id, turn, (pid,))),
                Button(tr("btn.change_aim"), Callback("b", match.id, turn, (pid, str(move)))),
            ],
        ]
        return Screen(text, rows)

    def order_from_args(self, args: Sequence[str]) -> dict[str, Any]:
        if len(args) != 3:
            raise Rejection("invalid_button")
        return {"move": int(args[0]), "aim": [int(args[1]), int(args[2])]}

    def _far_aims(self, tr: Tr, match: Match, pid: str, move: int) -> Screen:
        """Every legal aim corner the main keyboard leaves out (P8 window), rows by height;
        a window too large for one keyboard says how to type the aim instead."""
        cfg = _config(match)
        turn = match.turn
        example = f"move {move} aim {cfg.aim_max}:{cfg.aim_min}"
        text = tr("input.aim_zoom", example=example, min=cfg.aim_min, max=cfg.aim_max)
        cells = _far_cells(cfg)
        rows: list[list[Button]] = []
        if len(cells) <= FAR_MAX:
            for y in sorted({y for _, y in cells}, reverse=True):
                line = [x for x, yy in cells if yy == y]
                for i in range(0, len(line), FAR_ROW):
                    rows.append(
                        [
                            Button(
                                f"{x}:{y}",
                                Callback("b", match.id, turn, (pid, str(move), str(x), str(y))),
                            )
                            for x in line[i : i + FAR_ROW]
                        ]
                    )
        rows.append([Button(tr("btn.back"), Callback("b", match.id, turn, (pid, str(move))))])
        return Screen(text, rows)

    @staticmethod
    def _move_button(m: int) -> str:
        if m < 0:
            return f"⬅ {-m}"
        if m > 0:
            return f"{m} ➡"
        return "· 0 ·"

"""Telegram UI of the ``pistol`` ruleset (``docs/rules/pistol.md``).

Order builder (state in callback data, no storage): move buttons -2..+2 (P6, direction as the
opponent sees it) -> an aim keyboard laid out as the silhouette grid with coordinates (P5, P8)
-> a confirmation screen showing exactly what will be sealed, with the aim zone drawn (P6).
Typed syntax: ``/order move -2 aim 0:1``. The reveal shows both orders, every die with its
purpose, each shot's landing cell on the target's grid, the result and "turn k of N" (P20).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.events import Event
from engine.match import Match, TurnRecord
from engine.rulesets.pistol import PistolConfig, render_grid
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Option,
    RulesetUI,
    Screen,
    alias_words,
    aliases,
    esc,
    names_of,
    parse_words,
)

# The aim keyboard: the corners a player usually wants (the window around the silhouette);
# the rest of the P8 window is one more page (FAR), and always reachable typed.
KEY_XS = range(-3, 4)
KEY_YS = range(3, -3, -1)
TURN_LIMITS = (3, 6, 10)
PAIR = "dueling_pistol"
ALIASES = aliases("pistol")
ORDER_KEYS = ("move", "aim", "pick")  # the typed order's words (P6, P8, P13)


def _config(match: Match) -> PistolConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, PistolConfig)
    return cfg


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


def _label(tr: Tr, prefix: str, ident: str) -> str:
    key = f"{prefix}.{ident}"
    return tr(key) if tr.has(key) else esc(ident)


class PistolUI(RulesetUI):
    ruleset = "pistol"
    help_key = "help.pistol"

    # --- lobby ---

    def turn_limit(self, match: Match) -> int | None:
        return _config(match).turn_limit

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = _config(match)
        nxt = (
            TURN_LIMITS[(TURN_LIMITS.index(cfg.turn_limit) + 1) % len(TURN_LIMITS)]
            if (cfg.turn_limit in TURN_LIMITS)
            else 6
        )
        pair_only = set(cfg.weapons) == {PAIR}
        defaults = PistolConfig().model_dump(mode="json")
        if pair_only:
            weapons_patch = {"weapons": defaults["weapons"], "presets": defaults["presets"]}
        else:
            weapons_patch = {
                "weapons": {PAIR: defaults["weapons"][PAIR]},
                "presets": {"gentleman": {"weapon": PAIR, "perks": []}},
            }
        return [
            Option("tl", tr("opt.turn_limit", n=cfg.turn_limit), {"turn_limit": nxt}),
            Option("wp", tr("opt.weapons_pair" if pair_only else "opt.weapons_all"), weapons_patch),
        ]

    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        weapon = str(character.get("weapon", "?"))
        perks = [_label(tr, "perk", str(p)) for p in character.get("perks", ()) or ()]
        text = _label(tr, "weapon", weapon)
        return f"{text} + {', '.join(perks)}" if perks else text

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return f"{_label(tr, 'preset', preset_id)}: {self.character_label(tr, character)}"

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        sheet = parse_words(words, what="character")
        perks = sheet.get("perks")
        if isinstance(perks, str):
            sheet["perks"] = [perks]
        return sheet

    # --- orders ---

    def typed_example(self) -> str:
        return "move -2 aim 0:1"

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterable[str]:
        move = "сдвиг" if tr.lang == "ru" else "move"  # both parse (pistol/aliases.json)
        aim = "прицел" if tr.lang == "ru" else "aim"
        return [f"{move} -1 {aim} 0:1", f"{move} 0 {aim} 0:0", self.typed_example()]

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        """``move N aim A:B`` (or JSON); the words of ``pistol/aliases.json`` work too."""
        text = " ".join(words).strip()
        if not text.startswith("{"):
            words = alias_words(ALIASES.get("words", {}), text).split()
            flat = [p for w in words for p in (w.split("=", 1) if "=" in w else [w])]
            for key in flat[::2]:
                if key.lower() not in ORDER_KEYS:
                    raise Rejection("typed_unknown_word", word=key, expected=", ".join(ORDER_KEYS))
        return parse_words(words, what="order")

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

    @staticmethod
    def _move_text(tr: Tr, m: int) -> str:
        if m < 0:
            return tr.n("pistol.move_left", -m)
        if m > 0:
            return tr.n("pistol.move_right", m)
        return tr("pistol.move_stay")

    def order_text(self, tr: Tr, order: Mapping[str, Any]) -> str:
        try:
            move = int(order["move"])
            a, b = (int(v) for v in order["aim"])
        except (KeyError, TypeError, ValueError):
            return super().order_text(tr, order)
        return tr("pistol.order", move=Raw(self._move_text(tr, move)), aim=f"{a}:{b}")

    @staticmethod
    def _zone(match: Match, pid: str) -> int:
        if match.state is None:
            return 0
        rules = match.rules
        view = rules.view(rules.load_state(match.state), pid)
        for d in view["duelists"]:
            if d["pid"] == pid:
                return int(d["zone"])
        return 0

    # --- results (P20) ---

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        who = Raw(names.get(actor or "", actor or ""))
        if kind == "initiative":
            return tr(
                "pistol.initiative",
                who=who,
                roll=data["roll"],
                speed=data["speed"],
                move=abs(int(data["move"])),
                total=data["total"],
            )
        if kind in ("hit", "miss"):
            c, r = data["cell"]
            target = Raw(names.get(str(data.get("target")), ""))
            a, b = data["aim"]
            f, h = data["dice"]
            base = tr(
                "pistol.shot",
                who=who,
                target=target,
                aim=f"{a}:{b}",
                shift=f"{int(data['shift']):+d}",
                f=f,
                h=h,
                cell=f"{c}:{r}",
            )
            if kind == "miss":
                return base + " " + tr("pistol.miss")
            return base + " " + tr("pistol.hit", part=_label(tr, "part", str(data["part"])))
        if kind == "perk":
            return tr(
                f"pistol.perk_{data.get('effect')}",
                who=who,
                part=_label(tr, "part", str(data.get("part"))),
            )
        if kind in ("wound", "death"):
            return tr(f"pistol.{kind}", who=who, part=_label(tr, "part", str(data.get("part"))))
        if kind == "no_shot":
            return tr("pistol.no_shot", who=who)
        if kind in ("turn_result", "outcome"):
            return ""  # the result is the story's last line
        return super().event_text(tr, names, kind, actor, data)

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """Story: the orders, who shoots first, where each shot went, wounds and deaths, the
        result. Details: every die, the initiative and shot arithmetic, the grids (P20)."""
        names = names_of(match)
        story = self.order_lines(tr, names, record)
        details: list[str] = []
        events = record.events
        # The last pair of initiative events decides who shoots first (tie rerolls, P14, add
        # pairs): equal totals shoot at once, and both shots count (P15).
        inits = [e for e in events if e.kind == "initiative"][-2:]
        if len(inits) == 2:
            first, second = sorted(inits, key=lambda e: -int(e.data["total"]))
            a, b = int(first.data["total"]), int(second.data["total"])
            if a == b:
                story.append(tr("pistol.st.both", a=a))
            else:
                who = Raw(names.get(first.actor or "", ""))
                story.append(tr("pistol.st.first", who=who, a=a, b=b))
        for e in events:
            text = self.event_text(tr, names, e.kind, e.actor, e.data)
            if text:
                details.append(text)
            if e.kind in ("hit", "miss"):
                who = Raw(names.get(e.actor or "", ""))
                target = Raw(names.get(str(e.data.get("target")), ""))
                if e.kind == "miss":
                    story.append(tr("pistol.st.miss", who=who, target=target))
                else:
                    part = _label(tr, "part", str(e.data["part"]))
                    story.append(tr("pistol.st.hit", who=who, target=target, part=Raw(part)))
            elif e.kind in ("perk", "wound", "death", "no_shot"):
                story.append(text)
        details += self._grids(tr, match, record.events, names)
        result = next((e for e in record.events if e.kind == "turn_result"), None)
        if result is not None:
            story.append(self._result(tr, names, result))
        return story, details

    def _grids(
        self, tr: Tr, match: Match, events: Sequence[Event], names: Mapping[str, str]
    ) -> list[str]:
        """Each target's silhouette with the cell every shot at it landed on (P20), as lines
        of a collapsed block (``<code>``: a ``<pre>`` cannot sit inside a blockquote)."""
        cfg = match.rules.config((match.state or {}).get("config") or match.config)
        assert isinstance(cfg, PistolConfig)
        shots: dict[str, dict[tuple[int, int], str]] = {}
        for e in events:
            if e.kind in ("hit", "miss"):
                c, r = e.data["cell"]
                shots.setdefault(str(e.data["target"]), {})[(int(c), int(r))] = "X"
        blocks = []
        for pid, marks in shots.items():
            grid = "\n".join(render_grid(cfg, marks))
            outside = [
                f"{c}:{r}"
                for (c, r) in marks
                if not (cfg.aim_min <= c <= cfg.aim_max and cfg.aim_min <= r <= cfg.aim_max)
            ]
            title = tr("pistol.grid_title", name=Raw(names.get(pid, pid)))
            note = "\n" + tr("pistol.off_grid", cells=", ".join(outside)) if outside else ""
            blocks.append(f"{title}\n<code>{esc(grid)}</code>{note}")
        return blocks

    @staticmethod
    def _result(tr: Tr, names: Mapping[str, str], e: Event) -> str:
        status = str(e.data.get("status"))
        winners = [names.get(p, p) for p in e.data.get("winners", [])]
        if status == "win":
            return tr("outcome.win", names=Raw(", ".join(winners)))
        if status == "mutual":
            return tr("outcome.mutual")
        if status == "draw":
            return tr("outcome.draw")
        return tr("pistol.no_hit")


UI = PistolUI()

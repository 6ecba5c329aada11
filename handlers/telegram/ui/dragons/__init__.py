"""Telegram UI of the ``dragons`` ruleset (``docs/rules/dragons.md``, D1-D36).

Lobby: options (turn cap D35, edition, melee range D21, takeover D34, terrain D24), presets and
typed stat blocks (D1-D2), sides and GM-run NPC dragons (buttons in
:mod:`handlers.telegram.npc`).

Order builder (private chat; state in the callback args, no storage). The args after the pid
are compact tokens, so a three-action order fits Telegram's 64 bytes:

- movement (D11-D13): ``l<n>`` level with Speed change n, ``c<n>`` climb, ``d<n>`` dive, a
  trailing ``a`` for aerobatics (D33); ``~`` is the movement screen in aerobatics mode;
- actions (D3, at most ``max_actions``): ``a<weapon index><target>`` attack, ``t<target>``
  tail, ``f<u|d>[c|d]`` force (D27, with the choice on a raise), ``b[<pursuer>]`` break a tail
  (D28), ``p`` use a power (D34a);
- a last pending token picks the next step: ``+`` action menu, ``+a`` weapon, ``+a<i>``
  target, ``+t`` tail target, ``+f`` / ``+f<u|d>`` force choices, ``+b`` pursuer, ``!`` confirm.

Every movement button shows the resulting Speed and Altitude; illegal ones are not offered and
are listed with the reason (the ruleset's :func:`movement_options`). Attack targets show
whether the attack is possible after the chosen movement and the range band
(:func:`attack_check`). The multi-action penalty is shown as actions are added.

Reveal (D36): initiative order, each activation with its movement, rolls (trait die, Wild Die,
aces, modifiers, result, raises), damage and effects; a status table and the sky chart.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match, TurnRecord
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsConfig, DragonsState
from engine.savage import multi_action_penalty
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Option,
    RulesetUI,
    Screen,
    aliases,
    esc,
    leading_phrase,
    names_of,
    parse_words,
)

TURN_LIMITS: tuple[int | None, ...] = (None, 5, 10, 20)
EDITIONS: tuple[str, ...] = ("SWADE", "SWD2015", "SWD2011")
DEFAULT_SIDES: tuple[str, ...] = ("A", "B")
MAX_STEPS = 4  # climb/dive buttons 1..4; larger values through the typed syntax
_MOVE_PREFIX = {"l": "level", "c": "climb", "d": "dive"}
ALIASES = aliases("dragons")


def config_of(match: Match) -> DragonsConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, DragonsConfig)
    return cfg


def state_of(match: Match) -> DragonsState | None:
    if match.state is None:
        return None
    state = match.rules.load_state(match.state)
    assert isinstance(state, DragonsState)
    return state


def _label(tr: Tr, key: str, fallback: str) -> str:
    return tr(key) if tr.has(key) else esc(fallback)


def weapon_name(tr: Tr, name: Any) -> Raw:
    """A weapon's name in words: the catalog's for the presets' weapons (breath, claws,
    bite), else the sheet's own name (escaped)."""
    return Raw(_label(tr, f"dr.weapon.{name}", str(name)))


def reason_text(tr: Tr, code: str, **params: Any) -> str:
    """A reason code (a Rejection's or an event's) in words: ``err.<code>`` when the catalog
    has it, else ``dr.reason.<code>``, else the code."""
    keys = [f"dr.reason.{code}", f"err.{code}"]
    if params:  # a Rejection with its details: its own message says the most
        keys.reverse()
    from handlers.telegram.plain import params as plain_params

    for key in keys:
        if tr.has(key):
            try:
                return tr(key, **plain_params(tr, code, params))
            except (KeyError, IndexError):
                continue
    return esc(code)


# --------------------------------------------------------------------------- tokens


def parse_move(token: str) -> tuple[str, int, bool]:
    """``l-1`` / ``c2a`` -> (move, n, aerobatics); raises ValueError on a bad token."""
    aero = token.endswith("a")
    body = token[:-1] if aero else token
    return _MOVE_PREFIX[body[0]], int(body[1:]), aero


def move_token(move: str, n: int, aero: bool) -> str:
    return f"{move[0]}{n}{'a' if aero else ''}"


def action_from_token(state: DragonsState | None, pid: str, token: str) -> dict[str, Any]:
    """An action dict from its builder token (weapon indexes need the state)."""
    kind, rest = token[0], token[1:]
    if kind == "a":
        if state is None:
            raise ValueError(token)
        weapons = state.stats[pid].weapons
        return {"type": "attack", "weapon": weapons[int(rest[0])].name, "target": rest[1:]}
    if kind == "t" and rest:
        return {"type": "tail", "target": rest}
    if kind == "f" and rest[:1] in ("u", "d"):
        raise_choice = {"c": "climb", "d": "dive"}.get(rest[1:2]) if len(rest) > 1 else None
        return {
            "type": "force",
            "choice": "up" if rest[0] == "u" else "down",
            "raise_choice": raise_choice,
        }
    if kind == "b":
        return {"type": "break", "target": rest or None}
    if kind == "p" and not rest:
        return {"type": "power", "text": ""}
    raise ValueError(token)


def order_from_tokens(state: DragonsState | None, pid: str, args: Sequence[str]) -> dict[str, Any]:
    if not args:
        raise Rejection("invalid_button")
    try:
        move, n, aero = parse_move(args[0])
        actions = [action_from_token(state, pid, t) for t in args[1:]]
    except (ValueError, IndexError, KeyError):
        raise Rejection("invalid_button") from None
    return {"move": move, "n": n, "aerobatics": "aerobatics" if aero else None, "actions": actions}


# --------------------------------------------------------------------------- typed sheets

_DICE_KEYS = ("piloting", "fighting", "shooting", "spirit", "arcane", "strength")
_INT_KEYS = ("top_speed", "toughness", "armor", "speed", "altitude")
_NO = frozenset({"none", "no", "-", "нет"})
_YES = frozenset({"yes", "true", "1", "да"})
_CHARACTER_KEYS = ("preset", "name", "wild_card", *_DICE_KEYS, *_INT_KEYS, "weapon")
WEAPON_SYNTAX = "NAME:DAMAGE[:melee][:apN][:SHORT/MEDIUM/LONG]"


def _weapon(value: str) -> dict[str, Any]:
    """``breath:2d8:ap2:12/24/48`` / ``claws:str+d6:melee`` -> a weapon of the sheet."""
    parts = [p for p in value.split(":") if p]
    if len(parts) < 2:
        raise Rejection("invalid_field", what="character", field="weapon", expected=WEAPON_SYNTAX)
    weapon: dict[str, Any] = {"name": parts[0].lower(), "damage": parts[1]}
    for flag in parts[2:]:
        low = flag.lower()
        if low in ("melee", "ближний"):
            weapon["melee"] = True
        elif low.startswith("ap") and low[2:].isdigit():
            weapon["ap"] = int(low[2:])
        elif low.count("/") == 2 and all(b.isdigit() for b in low.split("/")):
            weapon["range"] = [int(b) for b in low.split("/")]
        else:
            raise Rejection(
                "invalid_field", what="character", field="weapon", expected=WEAPON_SYNTAX
            )
    return weapon


def parse_character_words(words: Sequence[str]) -> dict[str, Any]:
    """The typed stat block (see :meth:`DragonsUI.parse_character`); every value is checked
    later by the ruleset (:class:`engine.rulesets.dragons.CharacterSpec`)."""
    text = " ".join(words).strip()
    if not text or text.startswith("{"):
        return parse_words(words, what="character")
    known = dr.presets(DragonsConfig())
    aliases = ALIASES.get("character", {})
    sheet: dict[str, Any] = {}
    rest = list(words)
    first = aliases.get(rest[0].lower(), rest[0].lower())
    if "=" not in rest[0] and first in known:
        sheet, rest = dict(known[first]), rest[1:]
    weapons: list[dict[str, Any]] | None = None
    for w in rest:
        raw_key, eq, value = w.partition("=")
        key = aliases.get(raw_key.lower(), raw_key.lower())
        if not eq or not value:
            raise Rejection("typed_pairs", what="character", word=w)
        if key not in _CHARACTER_KEYS:
            expected = ", ".join(_CHARACTER_KEYS)
            raise Rejection("character_unknown_word", word=raw_key, expected=expected)
        if key == "preset":
            base = known.get(aliases.get(value.lower(), value.lower()))
            if base is None:
                raise Rejection(
                    "invalid_field", what="character", field="preset", expected=", ".join(known)
                )
            sheet = {**base, **sheet}
        elif key == "name":
            sheet["name"] = value.replace("_", " ")
        elif key == "wild_card":
            sheet["wild_card"] = value.lower() in _YES
        elif key in _DICE_KEYS:
            sheet[key] = None if value.lower() in _NO and key != "spirit" else value.lower()
        elif key in _INT_KEYS:
            try:
                sheet[key] = int(value)
            except ValueError:
                raise Rejection(
                    "invalid_field", what="character", field=key, expected="a whole number"
                ) from None
        else:
            weapons = [*(weapons or []), _weapon(value)]
    if weapons is not None:
        sheet["weapons"] = weapons
    return sheet


def format_character(sheet: Mapping[str, Any]) -> str:
    """A sheet in the typed syntax (inverse of :func:`parse_character_words`)."""
    words = []
    if sheet.get("name"):
        words.append("name=" + str(sheet["name"]).replace(" ", "_"))
    if sheet.get("wild_card") is False:
        words.append("wild_card=no")
    for key in (*_DICE_KEYS, *_INT_KEYS):
        if key in sheet:
            value = sheet[key]
            words.append(f"{key}={'none' if value is None else value}")
    for w in sheet.get("weapons") or ():
        parts = [str(w["name"]), str(w["damage"])]
        if w.get("melee"):
            parts.append("melee")
        if w.get("ap"):
            parts.append(f"ap{w['ap']}")
        if w.get("range"):
            parts.append("/".join(str(b) for b in w["range"]))
        words.append("weapon=" + ":".join(parts))
    return " ".join(words)


# --------------------------------------------------------------------------- typed orders


def canonical_order(text: str) -> str:
    """A typed order with the words of the alias table (``dragons/aliases.json``: the
    buttons' Russian words, translated weapon names) replaced by the canonical ones; the free
    texts (``power TEXT``, ``aero NAME``) are kept as typed."""
    table, weapons = ALIASES.get("order", {}), ALIASES.get("weapons", {})
    commands = []
    for part in text.replace("\n", ";").split(";"):
        words = part.split()
        found = leading_phrase(table, words) if words else None
        if found is not None:
            words = [found[0], *words[found[1] :]]
        if words and words[0].lower() in ("attack", "atk", "a", "атака") and len(words) > 1:
            words[1] = weapons.get(words[1].lower(), words[1])
        if words and words[0].lower() in ("attack", "tail", "break", "хвост"):
            words[-1] = words[-1].rstrip(".,!")  # a sentence's full stop copied with a code
        commands.append(" ".join(words))
    return "; ".join(c for c in commands if c)


def _typed_words(tr: Tr) -> dict[str, str]:
    """The order keywords a reader of ``tr`` is shown (Russian or English; both parse)."""
    if tr.lang == "ru":
        return {"level": "по уровню", "climb": "набор", "dive": "снижение", "attack": "атака"}
    return {"level": "level", "climb": "climb", "dive": "dive", "attack": "attack"}


def _move_words(words: Mapping[str, str], move: str, n: int) -> str:
    if move == "level":
        return f"{words['level']} {n:+d}" if n else f"{words['level']} 0"
    return f"{words[move]} {n}"


# --------------------------------------------------------------------------- the UI


class DragonsUI(RulesetUI):
    ruleset = "dragons"
    help_key = "help.dragons"

    # --- lobby ---

    def turn_limit(self, match: Match) -> int | None:
        return config_of(match).turn_limit

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = config_of(match)
        tl = cfg.turn_limit
        nxt = (
            TURN_LIMITS[(TURN_LIMITS.index(tl) + 1) % len(TURN_LIMITS)]
            if tl in TURN_LIMITS
            else None
        )
        ed = EDITIONS[(EDITIONS.index(cfg.edition) + 1) % len(EDITIONS)]
        return [
            Option("tl", tr("dr.opt.turn_limit", n=tl or "∞"), {"turn_limit": nxt}),
            Option("ed", tr("dr.opt.edition", edition=cfg.edition), {"edition": ed}),
            Option(
                "ml",
                tr("dr.opt.melee_5" if cfg.melee_requires_range_5 else "dr.opt.melee_alt"),
                {"melee_requires_range_5": not cfg.melee_requires_range_5},
            ),
            Option(
                "tk",
                tr(
                    "dr.opt.takeover_auto" if cfg.consumed_attacks_nearest else "dr.opt.takeover_gm"
                ),
                {"consumed_attacks_nearest": not cfg.consumed_attacks_nearest},
            ),
            Option(
                "tr",
                tr(f"dr.opt.terrain_{cfg.terrain}"),
                {"terrain": "ground" if cfg.terrain == "blue" else "blue"},
            ),
        ]

    def sides(self, match: Match) -> list[str]:
        """Sides offered by buttons: A, B and every side a seat is on (a seat's own pid, the
        lobby default, is not offered)."""
        pids = {s.pid for s in match.seats}
        named = [s.side for s in match.seats if s.side and s.side not in pids]
        return list(dict.fromkeys([*DEFAULT_SIDES, *named]))[:6]

    def lobby_extra(self, tr: Tr, match: Match) -> Screen:
        lines = [tr("dr.lobby.sides")]
        by_side: dict[str, list[str]] = {}
        for s in match.seats:
            tag = tr("dr.lobby.npc_tag") if s.npc else ""
            by_side.setdefault(s.side, []).append(f"{esc(s.name)}{tag} <code>{s.pid}</code>")
        for side, who in by_side.items():
            lines.append(f"• <b>{esc(side)}</b>: {', '.join(who)}")
        if not match.seats:
            lines.append("—")
        side_row = [
            Button(tr("dr.btn.side", side=side), Callback("nsd", match.id, 0, (side,)))
            for side in self.sides(match)[:4]
        ]
        rows = [side_row, [Button(tr("dr.btn.npc_panel"), Callback("npp", match.id, 0))]]
        return Screen("\n".join(lines), rows)

    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        try:
            spec = dr.CharacterSpec.model_validate(character)
        except ValueError:
            return super().character_label(tr, character)
        weapons = ", ".join(
            f"{weapon_name(tr, w.name)} {esc(w.damage)}"
            + (f" AP{w.ap}" if w.ap else "")
            + (f" {w.range[0]}/{w.range[1]}/{w.range[2]}" if w.range else "")
            for w in spec.weapons
        )
        return tr(
            "dr.sheet",
            name=spec.name or "—",
            kind=tr("dr.wild_card" if spec.wild_card else "dr.extra"),
            piloting=spec.piloting or "—",
            fighting=spec.fighting or "—",
            shooting=spec.shooting or "—",
            spirit=spec.spirit,
            top=spec.top_speed,
            toughness=spec.toughness,
            armor=spec.armor,
            strength=spec.strength,
            weapons=Raw(weapons),
            speed=spec.speed,
            altitude=spec.altitude,
        )

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return _label(tr, f"dr.preset.{preset_id}", preset_id)

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """A stat block (D1-D2, docs/rules/dragons.md "Typed characters"): JSON, or words - an
        optional preset first, then ``key=value`` edits (``young name=Ember piloting=d10
        weapon=breath:2d8:12/24/48 weapon=claws:str+d6:melee``)."""
        return parse_character_words(words)

    def character_words(self, match: Match) -> str:
        """The first preset written out in full in the typed syntax (every key), renamed."""
        sheet = dict(next(iter(dr.presets(config_of(match)).values())))
        sheet["name"] = "Ember"
        return format_character(sheet)

    # --- orders ---

    def typed_example(self) -> str:
        return "level +2; attack breath p2"

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterator[str]:
        """Orders for ``pid`` now, lazily (the first accepted one is shown): a legal movement,
        then an attack that reaches a foe after it (else any attack, else the movement
        alone), in the reader's language."""
        from handlers.telegram.hints import loaded_state

        st = loaded_state(match) if match.state is not None else None
        if not isinstance(st, DragonsState) or pid not in st.stats:
            yield self.typed_example()
            return
        words = _typed_words(tr)
        opts = [o for o in dr.movement_options(st, pid) if o.legal]
        opts.sort(key=lambda o: (o.move != "level", o.dangerous, abs(o.n)))
        moves = [(o.move, o.n) for o in opts] or [("level", 0)]
        foes = self._foes(st, pid)
        weapons = st.stats[pid].weapons
        attack = words["attack"]
        for move, n in moves[:6]:
            for w in weapons:
                for foe in foes:
                    if dr.attack_check(st, pid, w.name, foe.pid, (move, n)).possible:
                        yield f"{_move_words(words, move, n)}; {attack} {w.name} {foe.pid}"
        first = _move_words(words, *moves[0])
        yield from (f"{first}; {attack} {w.name} {f.pid}" for w in weapons for f in foes)
        yield from (_move_words(words, m, n) for m, n in moves)

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        text = " ".join(words).strip()
        if text.startswith("{"):
            return parse_words(words, what="order")
        if not text:
            raise Rejection("typed_empty", what="order")
        return dr.parse_typed(canonical_order(text))

    def order_from_args(self, args: Sequence[str]) -> dict[str, Any]:
        return order_from_tokens(None, "", args)

    def order_for(self, match: Match, pid: str, args: Sequence[str]) -> dict[str, Any]:
        return order_from_tokens(state_of(match), pid, args)

    reply_alert_key = "dr.reply_alert"

    def order_with_text(
        self, match: Match, pid: str, args: Sequence[str], text: str
    ) -> dict[str, Any]:
        """D34a: the confirmed order with ``text`` as the effect of its power(s)."""
        order = order_from_tokens(state_of(match), pid, args)
        powers = [a for a in order["actions"] if a["type"] == "power"]
        if not powers:
            raise Rejection("invalid_button")
        for action in powers:
            action["text"] = text
        return order

    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        st = state_of(match)
        if st is None:
            return Screen(tr("builder.typed_only", turn=match.turn))
        me = st.dragon(pid)
        names = names_of(match)
        head = tr(
            "dr.b.you",
            name=Raw(names.get(pid, pid)),
            pid=pid,
            speed=me.speed,
            altitude=me.altitude,
            top=st.stats[pid].spec.top_speed,
        )
        cb = _Cb(match, pid)
        try:
            if not state or state[0] == "~":
                body = self._movement(tr, st, pid, cb, aero=bool(state))
            else:
                body = self._actions(tr, st, match, pid, cb, list(state))
        except (ValueError, IndexError, KeyError):
            raise Rejection("invalid_button") from None
        return Screen(f"{head}\n\n{body.text}", body.rows)

    def _movement(self, tr: Tr, st: DragonsState, pid: str, cb: _Cb, *, aero: bool) -> Screen:
        me = st.dragon(pid)
        cfg = st.config
        seat = cb.match.seat(pid)
        from handlers.telegram.hints import order_command, order_words

        command = f"/npcorder {pid}" if seat.npc or me.consumed else order_command(cb.match, pid)
        example = f"{command} {order_words(tr, cb.match, pid)}"
        lines = [tr("dr.b.pick_move", example=example)]
        rows: list[list[Button]] = []
        if me.falling:  # D32: the movement is void while falling
            lines.append(tr("dr.b.falling"))
            rows.append([Button(tr("dr.b.continue"), cb(move_token("level", 0, False)))])
            return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])
        if me.tail_of is not None:  # D26: a pursuer copies its victim
            lines.append(tr("dr.b.pursuer", victim=me.tail_of))
            rows.append([Button(tr("dr.b.continue"), cb(move_token("level", 0, False)))])
            return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])
        if me.shaken:
            lines.append(tr("dr.b.shaken"))  # D16
        opts = dr.movement_options(st, pid, max_steps=min(MAX_STEPS, cfg.max_altitude_change))
        refused: list[str] = []
        by_kind: dict[str, list[Button]] = {}
        for o in opts:
            text = self._move_label(tr, o.move, o.n)
            if not o.legal:
                why = reason_text(tr, o.reason.code, **o.reason.params) if o.reason else ""
                refused.append(tr("dr.b.refused", move=Raw(text), reason=Raw(why)))
                continue
            warn = " ⚠" if o.dangerous else " ⬇" if o.speed <= 0 else ""
            label = f"{text} ▸ S{o.speed} H{o.altitude}{warn}"
            by_kind.setdefault(o.move, []).append(Button(label, cb(move_token(o.move, o.n, aero))))
        for kind in ("level", "climb", "dive"):
            buttons = by_kind.get(kind, [])
            for i in range(0, len(buttons), 2):
                rows.append(buttons[i : i + 2])
        if any(o.dangerous and o.legal for o in opts):
            lines.append(tr("dr.b.dangerous_hint"))
        if any(o.speed <= 0 and o.legal for o in opts):
            lines.append(tr("dr.b.stall_hint"))  # D14
        if refused:
            lines.append(tr("dr.b.refused_title"))
            lines += refused
        lines.append(tr("dr.b.aero_on" if aero else "dr.b.aero_off"))
        toggle = cb() if aero else cb("~")
        rows.append([Button(tr("dr.btn.aero_off" if aero else "dr.btn.aero_on"), toggle)])
        return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])

    @staticmethod
    def _npc_rows(tr: Tr, cb: _Cb) -> list[list[Button]]:
        """GM-run dragons (NPCs, and D34 consumed ones): one-tap orders (handlers in npc.py)."""
        match, pid = cb.match, cb.pid
        st = state_of(match)
        if not match.seat(pid).npc and not (st is not None and st.dragon(pid).consumed):
            return []
        args = (pid,)
        return [
            [
                Button(tr("npc.btn.same"), Callback("nsl", match.id, match.turn, args)),
                Button(tr("npc.btn.nearest"), Callback("nnr", match.id, match.turn, args)),
            ]
        ]

    def _actions(
        self, tr: Tr, st: DragonsState, match: Match, pid: str, cb: _Cb, state: list[str]
    ) -> Screen:
        cfg = st.config
        move, n, _aero = parse_move(state[0])
        pending = state[-1] if state[-1].startswith(("+", "!")) else ""
        acts = state[1:-1] if pending else state[1:]
        for t in acts:
            action_from_token(st, pid, t)  # a malformed token is a forged press
        order = order_from_tokens(st, pid, [state[0], *acts])
        me = st.dragon(pid)
        names = names_of(match)
        limit = cfg.max_actions
        summary = self.order_text(tr, order, names)
        penalty = multi_action_penalty(len(acts), cfg.multi_action_penalty) if acts else 0
        lines = [tr("dr.b.order_so_far", order=Raw(summary))]
        if len(acts) > 1:
            lines.append(tr("dr.b.penalty", count=len(acts), penalty=penalty))  # D3
        base = [state[0], *acts]
        # Back returns to the order so far; cancel starts over from the movement.
        nav = [Button(tr("btn.back"), cb(*base)), Button(tr("dr.btn.cancel"), cb())]
        rows: list[list[Button]] = []
        if pending == "!":
            rules = match.rules
            reason = rules.validate(st, pid, rules.parse_order(st, pid, order))
            if reason is not None:
                lines.append(
                    tr("dr.b.illegal", reason=Raw(reason_text(tr, reason.code, **reason.params)))
                )
                return Screen("\n".join(lines), [nav])
            lines.append(tr("dr.b.confirm"))
            seal = Button(tr("btn.seal"), Callback("s", match.id, match.turn, (pid, *base)))
            if "p" not in acts:
                return Screen("\n".join(lines), [[seal], nav])
            # D34a: the GM rules on the power's effect, which is free text: a reply to this
            # message seals the order with it (text_reply); Seal leaves it blank.
            lines.append(tr("dr.b.power_text"))
            text = Button(
                tr("dr.btn.power_text"), Callback("pt", match.id, match.turn, (pid, *base))
            )
            return Screen("\n".join(lines), [[text], [seal], nav])
        if pending == "+a":
            used = {a["weapon"] for a in order["actions"] if a["type"] == "attack"}
            for i, w in enumerate(st.stats[pid].weapons):
                if w.name in me.broken:
                    lines.append(tr("dr.b.weapon_broken", weapon=w.name))
                elif w.name not in used:
                    kind = tr("dr.melee") if w.melee else tr("dr.ranged")
                    rows.append([Button(f"{w.name} ({kind})", cb(*base, f"+a{i}"))])
            lines.append(tr("dr.b.pick_weapon"))
            return Screen("\n".join(lines), [*rows, nav])
        if pending.startswith("+a"):
            wi = int(pending[2:])
            weapon = st.stats[pid].weapons[wi]
            lines.append(tr("dr.b.pick_target", weapon=weapon.name))
            for foe in self._foes(st, pid):
                chk = dr.attack_check(st, pid, weapon.name, foe.pid, (move, n))
                band = tr(f"dr.band.{chk.band}") if chk.band else ""
                if chk.possible:
                    extra = f" {band} {chk.penalty:+d}" if chk.band else f" TN{chk.tn}"
                    label = f"✅ {foe.name} ({foe.pid}) R{chk.range}{extra}"
                else:
                    label = f"⚠ {foe.name} ({foe.pid}) R{chk.range}"
                    lines.append(tr("dr.b.not_possible", target=foe.name,
                                    reason=Raw(reason_text(tr, chk.reason or ""))))  # fmt: skip
                if foe.tail_of == pid:
                    continue  # D26: never offered (validation refuses it)
                rows.append([Button(label, cb(*base, f"a{wi}{foe.pid}"))])
            if not rows:
                lines.append(tr("dr.b.no_targets"))
            return Screen("\n".join(lines), [*rows, nav])
        if pending == "+t":
            rows = [
                [
                    Button(
                        f"{foe.name} ({foe.pid}) S{foe.speed} H{foe.altitude}",
                        cb(*base, f"t{foe.pid}"),
                    )
                ]
                for foe in self._foes(st, pid)
                if foe.pid != me.tail_of
            ]
            lines.append(tr("dr.b.pick_tail"))
            return Screen("\n".join(lines), [*rows, nav])
        if pending == "+f":
            lines.append(tr("dr.b.pick_force"))
            rows = [
                [
                    Button(tr("dr.force.up"), cb(*base, "+fu")),
                    Button(tr("dr.force.down"), cb(*base, "+fd")),
                ]
            ]
            return Screen("\n".join(lines), [*rows, nav])
        if pending in ("+fu", "+fd"):
            c = pending[2]
            lines.append(tr("dr.b.pick_force_raise"))
            rows = [
                [
                    Button(tr("dr.force.climb"), cb(*base, f"f{c}c")),
                    Button(tr("dr.force.dive"), cb(*base, f"f{c}d")),
                    Button(tr("dr.force.same"), cb(*base, f"f{c}")),
                ]
            ]
            return Screen("\n".join(lines), [*rows, nav])
        if pending == "+b":
            pursuers = [d for d in st.dragons if d.tail_of == pid and d.in_battle]
            rows = [[Button(tr("dr.b.any_pursuer"), cb(*base, "b"))]]
            rows += [[Button(f"{d.name} ({d.pid})", cb(*base, f"b{d.pid}"))] for d in pursuers]
            lines.append(tr("dr.b.pick_break"))
            return Screen("\n".join(lines), [*rows, nav])
        if pending == "+":
            return self._menu(tr, st, pid, cb, base, lines, nav)
        # The hub: what is chosen so far, add an action, or finish.
        if len(acts) < limit:
            rows.append(
                [
                    Button(
                        tr(
                            "dr.btn.add_action" if acts else "dr.btn.add_first",
                            penalty=multi_action_penalty(len(acts) + 1, cfg.multi_action_penalty),
                        ),
                        cb(*base, "+"),
                    )
                ]
            )
        else:
            lines.append(tr("dr.b.max_actions", limit=limit))
        rows.append([Button(tr("dr.btn.review"), cb(*base, "!"))])
        if acts:
            rows.append([Button(tr("dr.btn.drop_last"), cb(*base[:-1]))])
        rows.append([Button(tr("dr.btn.change_move"), cb()), Button(tr("dr.btn.cancel"), cb())])
        return Screen("\n".join(lines), rows)

    def _menu(
        self,
        tr: Tr,
        st: DragonsState,
        pid: str,
        cb: _Cb,
        base: list[str],
        lines: list[str],
        nav: list[Button],
    ) -> Screen:
        me = st.dragon(pid)
        acts = base[1:]
        will_tail = me.tail_of is not None or any(t.startswith("t") for t in acts)
        pursued = any(d.tail_of == pid and d.in_battle for d in st.dragons)
        rows = [
            [
                Button(tr("dr.act.attack"), cb(*base, "+a")),
                Button(tr("dr.act.tail"), cb(*base, "+t")),
            ]
        ]
        second: list[Button] = []
        if will_tail:
            second.append(Button(tr("dr.act.force"), cb(*base, "+f")))  # D27
        else:
            lines.append(tr("dr.b.force_needs_tail"))
        if pursued:
            second.append(Button(tr("dr.act.break"), cb(*base, "+b")))  # D28
        else:
            lines.append(tr("dr.b.break_needs_pursuer"))
        if st.stats[pid].arcane is not None:
            second.append(Button(tr("dr.act.power"), cb(*base, "p")))  # D34a
        if second:
            rows.append(second)
        lines.append(tr("dr.b.pick_action"))
        return Screen("\n".join(lines), [*rows, nav])

    @staticmethod
    def _foes(st: DragonsState, pid: str) -> list[dr.Dragon]:
        me = st.dragon(pid)
        return [d for d in st.dragons if d.in_battle and d.pid != pid and d.team != me.team]

    @staticmethod
    def _move_label(tr: Tr, move: str, n: int) -> str:
        if move == "level":
            return tr("dr.mv.level", n=f"{n:+d}") if n else tr("dr.mv.level0")
        return tr(f"dr.mv.{move}", n=n)

    def order_text(
        self, tr: Tr, order: Mapping[str, Any], names: Mapping[str, str] | None = None
    ) -> str:
        try:
            move, n = str(order["move"]), int(order.get("n", 0))
            parts = [self._move_label(tr, move, n)]
            if order.get("aerobatics"):
                parts[0] += " " + tr("dr.aero", name=str(order["aerobatics"]))
            for a in order.get("actions") or ():
                parts.append(self.action_text(tr, a, names or {}))
        except (KeyError, TypeError, ValueError):
            return super().order_text(tr, order)
        return "; ".join(parts)

    @staticmethod
    def action_text(tr: Tr, a: Mapping[str, Any], names: Mapping[str, str]) -> str:
        def who(p: Any) -> Raw:
            return Raw(names.get(str(p), esc(p)))

        kind = a.get("type")
        if kind == "attack":
            return tr("dr.o.attack", weapon=weapon_name(tr, a["weapon"]), target=who(a["target"]))
        if kind == "tail":
            return tr("dr.o.tail", target=who(a["target"]))
        if kind == "force":
            text = tr("dr.o.force", choice=tr(f"dr.force.{a['choice']}"))
            if a.get("raise_choice"):
                text += " " + tr("dr.o.force_raise", choice=tr(f"dr.force.{a['raise_choice']}"))
            return text
        if kind == "break":
            return (
                tr("dr.o.break_from", target=who(a["target"]))
                if a.get("target")
                else tr("dr.o.break")
            )
        return tr("dr.o.power", text=str(a.get("text") or "—"))

    # --- helpers for the GM's NPC buttons ---

    def nearest_order(self, match: Match, pid: str) -> dict[str, Any] | None:
        """D34 "nearest": level flight (or the first legal movement after which it works) and
        an attack on the nearest foe with the first weapon that can reach it; None when no
        movement allows one."""
        st = state_of(match)
        if st is None:
            return None
        me = st.dragon(pid)
        foes = sorted(
            self._foes(st, pid),
            key=lambda d: dr.distance(st.config, me, d),
        )
        moves = [("level", 0)] + [
            (o.move, o.n)
            for o in dr.movement_options(st, pid, max_steps=MAX_STEPS)
            if o.legal and (o.move, o.n) != ("level", 0) and not o.dangerous
        ]
        for target in foes[:1] or []:
            if target.tail_of == pid:
                continue
            for move, n in moves:
                for w in st.stats[pid].weapons:
                    if w.name in me.broken:
                        continue
                    if dr.attack_check(st, pid, w.name, target.pid, (move, n)).possible:
                        order = {
                            "move": move,
                            "n": n,
                            "aerobatics": None,
                            "actions": [{"type": "attack", "weapon": w.name, "target": target.pid}],
                        }
                        if (
                            match.rules.validate(st, pid, match.rules.parse_order(st, pid, order))
                            is None
                        ):
                            return order
        return None

    # --- results (D36) ---

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        def who(p: Any) -> Raw:
            return Raw(names.get(str(p), esc(p)))

        me = who(actor)
        if kind in ("roll", "status", "initiative"):
            return ""  # rolls are shown inside the events that use them; table and order apart
        if kind == "battle":
            pos = ", ".join(
                f"{names.get(p, esc(p))} S{s} H{a}" for p, (s, a) in dict(data["positions"]).items()
            )
            return tr("dr.ev.battle", positions=Raw(pos))
        if kind == "activation":
            return tr("dr.ev.activation", who=me, speed=data["speed"], altitude=data["altitude"])
        if kind == "move":
            move = Raw(self._move_label(tr, str(data["move"]), int(data["n"])))
            key = "dr.ev.move"
            if data.get("copied_from"):
                key = "dr.ev.move_copied"
            elif data.get("forced"):
                key = "dr.ev.move_forced"
            elif data.get("converted"):
                key = "dr.ev.move_converted"
            text = tr(
                key,
                who=me,
                move=move,
                victim=who(data.get("copied_from")),
                sf=data["speed_from"],
                af=data["altitude_from"],
                speed=data["speed"],
                altitude=data["altitude"],
            )
            if data.get("aerobatics"):
                text += " " + tr("dr.aero", name=str(data["aerobatics"]))
            return text
        trait_roll = data.get("roll")
        is_trait = isinstance(trait_roll, Mapping) and "trait" in trait_roll
        roll = Raw(roll_text(tr, data["roll"]) if is_trait else "")
        contest = Raw(contest_text(tr, data["contest"])) if "contest" in data else Raw("")
        reason = Raw(reason_text(tr, str(data.get("reason", ""))))
        simple: dict[str, dict[str, Any]] = {
            "recover": {"ok": tr("dr.yes" if data.get("recovered") else "dr.no")},
            "dangerous": {
                "reasons": Raw(", ".join(reason_text(tr, r) for r in data.get("reasons", ())))
            },
            "fall": {},
            "falling": {
                "lost": data.get("lost"),
                "speed": data.get("speed"),
                "altitude": data.get("altitude"),
            },
            "regain": {},
            "miss": {"target": who(data.get("target"))},
            "hit": {"target": who(data.get("target")), "raises": data.get("raises", 0)},
            "shaken": {},
            "out": {"fate": Raw(reason_text(tr, str(data.get("fate", ""))))},
            "speed_loss": {"lost": data.get("lost"), "speed": data.get("speed")},
            "weapon_broken": {"weapon": str(data.get("weapon")), "face": data.get("face")},
            "spirit": {},
            "takeover": {},
            "consumed_orders": {"target": who(data.get("target")) if data.get("target") else "—"},
            "tail": {"victim": who(data.get("victim"))},
            "evade": {"pursuer": who(data.get("pursuer"))},
            "tail_broken": {"victim": who(data.get("victim"))},
            "force": {
                "victim": who(data.get("victim")),
                "choice": tr(f"dr.force.{data.get('choice')}"),
            },
            "force_failed": {"victim": who(data.get("victim"))},
            "break_failed": {"pursuer": who(data.get("pursuer"))},
            "power": {"text": str(data.get("text") or "—")},
            "impossible": {"action": tr(f"dr.act.{data.get('type')}")},
        }
        if kind == "wound":
            return tr.n("dr.st.wounds", int(data.get("wounds", 0)), who=me, total=data["total"])
        if kind == "actions_void":
            return tr.n("dr.st.actions_void", int(data.get("count", 0)), who=me, reason=reason)
        if kind == "attack":
            band = " " + tr(f"dr.band.{data['band']}") if data.get("band") else ""
            return tr(
                "dr.ev.attack",
                who=me,
                target=who(data["target"]),
                weapon=weapon_name(tr, data["weapon"]),
                range=data["range"],
                band=band,
                roll=roll,
            )
        if kind == "damage":
            return tr(
                "dr.ev.damage",
                who=me,
                target=who(data["target"]),
                dice=Raw(damage_text(data["roll"])),
                total=data["roll"]["total"],
                toughness=data["toughness"],
                armor=data["armor"],
                ap=data["ap"],
                excess=data["excess"],
                wounds=data["wounds"],
            )
        if kind in simple:
            return tr(
                f"dr.ev.{kind}", who=me, roll=roll, contest=contest, reason=reason, **simple[kind]
            )
        return super().event_text(tr, names, kind, actor, data)

    def reveal_order_text(self, tr: Tr, order: Mapping[str, Any], names: Mapping[str, str]) -> str:
        return self.order_text(tr, order, names)  # attack targets by name

    # Events told in the story (the rest - movement, recovery and manoeuvre rolls, damage
    # arithmetic - are details); attacks are told with their hit or miss.
    STORY = frozenset(
        {"fall", "falling", "shaken", "out", "takeover", "consumed_orders", "tail_broken"}
        | {"impossible", "weapon_broken"}
    )

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """Story (D36 in short): the orders, each attack and whether it hit, wounds, Shaken,
        falls, tails and who is out, then the table of all dragons. Details: the initiative,
        each activation with its movement and every roll, and the sky chart."""
        names = names_of(match)

        def who(p: Any) -> Raw:
            return Raw(names.get(str(p), esc(p)))

        story = self.order_lines(tr, names, record)
        details: list[str] = []
        init = next((e for e in record.events if e.kind == "initiative"), None)
        if init is not None:
            order = " → ".join(
                f"{names.get(p, esc(p))} (S{s} H{a})"
                for p in init.data["order"]
                for s, a in [init.data["positions"][p]]
            )
            details.append(tr("dr.ev.initiative", order=Raw(order)))
        attack: Mapping[str, Any] | None = None
        for e in record.events:
            text = self.event_text(tr, names, e.kind, e.actor, e.data)
            if text:
                details.append(text if e.kind == "activation" else f"  {text}")
            d = e.data
            if e.kind == "attack":
                attack = d
            elif e.kind in ("hit", "miss") and attack is not None:
                key = "dr.st.hit" if e.kind == "hit" else "dr.st.miss"
                weapon = weapon_name(tr, attack["weapon"])
                story.append(tr(key, who=who(e.actor), target=who(d.get("target")), weapon=weapon))
                attack = None
            elif e.kind == "wound":
                story.append(
                    tr.n(
                        "dr.st.wounds", int(d.get("wounds", 0)), who=who(e.actor), total=d["total"]
                    )
                )
            elif e.kind in ("tail", "evade", "force", "force_failed", "break_failed", "power"):
                story.append(
                    tr(
                        f"dr.st.{e.kind}",
                        who=who(e.actor),
                        victim=who(d.get("victim")),
                        pursuer=who(d.get("pursuer")),
                        choice=tr(f"dr.force.{d.get('choice')}") if e.kind == "force" else "",
                        text=str(d.get("text") or "—"),
                    )
                )
            elif e.kind == "actions_void":
                reason = Raw(reason_text(tr, str(d.get("reason", ""))))
                story.append(
                    tr.n(
                        "dr.st.actions_void",
                        int(d.get("count", 0)),
                        who=who(e.actor),
                        reason=reason,
                    )
                )
            elif e.kind in self.STORY and text:
                story.append(text)
        after = match.rules.load_state(record.state_after)
        assert isinstance(after, DragonsState)
        story += [tr("dr.table_title"), f"<pre>{esc(status_table(tr, after, match))}</pre>"]
        details += [tr("dr.chart_title"), f"<code>{esc(dr.sky_chart(after))}</code>"]
        return story, details

    def outcome_text(self, tr: Tr, match: Match) -> str:
        """The result by side (D35): the winning side and its dragons, or a draw, with why;
        a result the GM declared says so."""
        out = match.outcome or {}
        names = names_of(match)
        winners = [str(p) for p in out.get("winners", [])]
        sides = {s.pid: s.side for s in match.seats}
        won = {sides.get(p) for p in winners}
        if out.get("status") == "win" and winners:
            who = Raw(", ".join(names.get(p, esc(p)) for p in winners))
            if len(won) == 1 and None not in won:
                text = tr("dr.outcome.side", side=str(won.pop()), names=who)
            else:
                text = tr("outcome.win", names=who)
        else:
            text = tr("outcome.draw")
        reason = str(out.get("reason", ""))
        if reason and reason != "gm" and tr.has(f"dr.reason.{reason}"):
            text += " " + tr(f"dr.reason.{reason}")
        return self.by_gm(tr, match, text)

    def result_choices(self, tr: Tr, match: Match) -> list[tuple[str, str]]:
        """The GM declares a side the winner (D35), never a single dragon."""
        active = [s for s in match.seats if s.status == "active" and s.side]
        choices = []
        for side in dict.fromkeys(s.side for s in active):
            who = ", ".join(s.name for s in active if s.side == side)
            choices.append((tr("dr.btn_side_wins", side=side, names=who), f"~{side}"))
        return choices

    def result_winners(self, match: Match, choice: str) -> tuple[str, ...]:
        side = choice.removeprefix("~")
        winners = tuple(
            s.pid
            for s in match.seats
            if s.side == side and s.status == "active" and choice[:1] == "~"
        )
        if not winners:
            raise Rejection("no_such_participant", pid=choice)
        return winners


class _Cb:
    """Builder callbacks for one participant: ``cb(*tokens)``."""

    __slots__ = ("match", "pid")

    def __init__(self, match: Match, pid: str) -> None:
        self.match, self.pid = match, pid

    def __call__(self, *tokens: str) -> Callback:
        return Callback("b", self.match.id, self.match.turn, (self.pid, *tokens))


# --------------------------------------------------------------------------- text helpers


def _faces(faces: Sequence[int]) -> str:
    """Aces shown as ``6+6+3``."""
    return "+".join(str(f) for f in faces) if faces else "—"


def roll_text(tr: Tr, roll: Mapping[str, Any]) -> str:
    """A trait roll (D36): trait die and Wild Die faces with aces, modifiers, total vs TN,
    result and raises."""
    trait = _label(tr, f"dr.trait.{roll['trait']}", str(roll["trait"]))
    dice = f"{roll['die']}[{_faces(roll['trait_faces'])}]"
    if roll.get("wild_faces"):
        dice += f" {tr('dr.wild')}[{_faces(roll['wild_faces'])}]"
    if roll.get("unskilled"):
        dice += " " + tr("dr.unskilled")
    mods = [(str(k), int(v)) for k, v in roll.get("modifiers", ()) if int(v)]
    mod_text = "".join(f" {v:+d} {_label(tr, f'dr.mod.{k}', k)}" for k, v in mods)
    result = _label(tr, f"dr.result.{roll['result']}", str(roll["result"]))
    raises = f" ×{roll['raises']}" if roll.get("raises") else ""
    total = f"<b>{roll['total']}</b> vs {roll['tn']}"
    return f"{trait} {dice} → {roll['kept']}{mod_text} = {total}: {result}{raises}"


def contest_text(tr: Tr, contest: Mapping[str, Any]) -> str:
    return tr(
        "dr.contest",
        a=Raw(roll_text(tr, contest["initiator"])),
        b=Raw(roll_text(tr, contest["defender"])),
    )


def damage_text(roll: Mapping[str, Any]) -> str:
    parts = [f"d{d['sides']}[{_faces(d['faces'])}]" for d in roll.get("dice", ())]
    if roll.get("raise_die"):
        parts.append(f"d6[{_faces(roll['raise_die'])}]")
    text = " + ".join(parts)
    if roll.get("flat"):
        text += f" {int(roll['flat']):+d}"
    return text


def status_table(tr: Tr, state: DragonsState, match: Match) -> str:
    """All dragons by name: side, Speed, Altitude, wounds, Shaken, falling, tail relations,
    status. Names are cut to one width so the side column stays a column."""
    seats = {s.pid: s.name for s in match.seats}
    names = {d.pid: _cut(seats.get(d.pid, d.name), 12) for d in state.dragons}
    rows = [(tr("dr.col.dragon"), tr("dr.col.side"), "S", "H", "W", tr("dr.col.state"))]
    for d in state.dragons:
        flags = []
        if d.shaken:
            flags.append(tr("dr.flag.shaken"))
        if d.falling:
            flags.append(tr("dr.flag.falling"))
        if d.tail_of:
            flags.append(tr("dr.flag.tail", letter=names.get(d.tail_of, "?")))
        if d.consumed:
            flags.append(tr("dr.flag.consumed"))
        if d.broken:
            flags.append(tr("dr.flag.broken", weapons=",".join(d.broken)))
        if not d.in_battle:
            flags.append(_label(tr, f"dr.status.{d.status}", d.status))
        rows.append(
            (
                names[d.pid],
                d.side[:6],
                str(d.speed),
                str(d.altitude),
                str(d.wounds),
                " ".join(flags),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join(
        " ".join(r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(5))
        + " "
        + r[5]
        for r in rows
    ).rstrip()


def _cut(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters (an ellipsis marks a cut)."""
    return name if len(name) <= width else name[: width - 1] + "…"


UI = DragonsUI()

"""Typed ``dragons`` orders (``climb 2 attack bite b``) with the words of ``aliases.json``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsState
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    leading_phrase,
    parse_words,
)
from handlers.telegram.ui.dragons.common import ALIASES, weapon_name
from handlers.telegram.ui.dragons.sheet import DragonsSheet
from handlers.telegram.ui.words import replace_names, shown_names

# --------------------------------------------------------------------------- typed orders

# The names the bot shows, typed in either language (docs/glossary.md): the weapons, with the
# words of ``dragons/aliases.json``; the choices of a force.
WEAPONS = {**shown_names("dr.weapon."), **ALIASES.get("weapons", {})}
ORDER_WORDS = {**shown_names("dr.act."), **ALIASES.get("order", {})}  # "Break a tail"
FORCE_NAMES = {k: v for k, v in shown_names("dr.force.").items() if v != "same"}


def canonical_order(text: str) -> str:
    """A typed order with the words of the alias table (``dragons/aliases.json``: the
    buttons' Russian words, translated weapon names) replaced by the canonical ones; the free
    texts (``power TEXT``, ``aero NAME``) are kept as typed."""
    table = ORDER_WORDS
    commands = []
    for part in text.replace("\n", ";").split(";"):
        words = part.split()
        found = leading_phrase(table, words) if words else None
        if found is not None:
            words = [found[0], *words[found[1] :]]
        if words and words[0].lower() == "force":
            words = [words[0], *replace_names(FORCE_NAMES, " ".join(words[1:])).split()]
        if words and words[0].lower() in ("attack", "atk", "a", "атака") and len(words) > 1:
            words[1] = WEAPONS.get(words[1].lower(), words[1])
        if words and words[0].lower() in ("attack", "tail", "break", "хвост"):
            words[-1] = words[-1].rstrip(".,!")  # a sentence's full stop copied with a code
        commands.append(" ".join(words))
    return "; ".join(c for c in commands if c)


_TARGETED = {"attack": 2, "tail": 1, "break": 1}  # the words before a command's target


def shown_targets(match: Match) -> dict[str, str]:
    """Every name the bot shows for a participant (its seat's - the rider's or the NPC
    dragon's - and its dragon's own name), case-folded, to its pid; a name two participants
    share names neither."""
    seen: dict[str, set[str]] = {}
    for seat in match.seats:
        names = {seat.name, str((seat.character or {}).get("name") or "")}
        for name in names:
            key = " ".join(name.split()).casefold()
            if key and key != seat.pid:
                seen.setdefault(key, set()).add(seat.pid)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def targets_by_name(text: str, names: Mapping[str, str]) -> str:
    """``text`` (an order, its keywords canonical) with each target typed by a shown name
    replaced by its pid; everything else as typed."""
    parts = []
    for part in text.split(";"):
        words = part.split()
        skip = _TARGETED.get(dr.typed_command(words[0]) or "") if words else None
        if skip is not None and len(words) > skip:
            typed = " ".join(words[skip:]).rstrip(".,!").casefold()
            if typed in names:
                words = [*words[:skip], names[typed]]
        parts.append(" ".join(words))
    return "; ".join(parts)


def _typed_words(tr: Tr) -> dict[str, str]:
    """The order keywords a reader of ``tr`` is shown (Russian or English; both parse)."""
    if tr.lang == "ru":
        return {"level": "по уровню", "climb": "набор", "dive": "снижение", "attack": "атака"}
    return {"level": "level", "climb": "climb", "dive": "dive", "attack": "attack"}


def _move_words(words: Mapping[str, str], move: str, n: int) -> str:
    if move == "level":
        return f"{words['level']} {n:+d}" if n else f"{words['level']} 0"
    return f"{words[move]} {n}"


class DragonsTyped(DragonsSheet):
    # --- orders ---

    def typed_example(self) -> str:
        return "level +2; attack breath p2"

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterator[str]:
        """Orders for ``pid`` now, lazily (the first accepted one is shown): a legal movement
        (a safe one when there is one), then an attack that reaches a foe after it, else the
        movement alone, in the reader's language. Never an attack that cannot succeed now:
        an example is a suggestion (issue 24)."""
        from handlers.telegram.hints import loaded_state

        st = loaded_state(match) if match.state is not None else None
        if not isinstance(st, DragonsState) or pid not in st.stats:
            yield self.typed_example()
            return
        words = _typed_words(tr)
        opts = [o for o in dr.movement_options(st, pid) if o.legal]
        opts = [o for o in opts if not o.dangerous] or opts
        opts.sort(key=lambda o: (o.move != "level", o.dangerous, abs(o.n)))
        moves = [(o.move, o.n) for o in opts] or [("level", 0)]
        foes = self._foes(st, pid)
        weapons = st.stats[pid].weapons
        attack = words["attack"]

        def typed(weapon: str) -> str:  # the reader's word for a weapon, if one (both parse)
            name = str(weapon_name(tr, weapon)).lower()
            return name if WEAPONS.get(name) == weapon else weapon

        shown = shown_targets(match)

        def named(foe: str) -> str:  # the foe as the player sees it, when that name is typable
            name = next((s.name for s in match.seats if s.pid == foe), foe)
            key = " ".join(name.split()).casefold()
            return name if shown.get(key) == foe and ";" not in name else foe

        for move, n in moves[:6]:
            for w in weapons:
                for foe in foes:
                    if dr.attack_check(st, pid, w.name, foe.pid, (move, n)).possible:
                        order = f"{attack} {typed(w.name)} {named(foe.pid)}"
                        yield f"{_move_words(words, move, n)}; {order}"
        yield from (_move_words(words, m, n) for m, n in moves)

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        text = " ".join(words).strip()
        if text.startswith("{"):
            return parse_words(words, what="order")
        if not text:
            raise Rejection("typed_empty", what="order")
        return dr.parse_typed(canonical_order(text))

    def parse_typed_in(self, match: Match, words: Sequence[str]) -> dict[str, Any]:
        """A target typed by the name the bot shows (the rider's or the dragon's, any case,
        several words too) stands for its pid: ``атака когти Wingman`` = ``атака когти n1``."""
        text = " ".join(words).strip()
        if text.startswith("{") or not text:
            return self.parse_typed(words)
        return self.parse_typed([targets_by_name(canonical_order(text), shown_targets(match))])

    @staticmethod
    def _foes(st: DragonsState, pid: str) -> list[dr.Dragon]:
        me = st.dragon(pid)
        return [d for d in st.dragons if d.in_battle and d.pid != pid and d.team != me.team]

    @staticmethod
    def _move_label(tr: Tr, move: str, n: int) -> str:
        if move == "level":
            return tr("dr.mv.level", n=f"{n:+d}") if n else tr("dr.mv.level0")
        return tr(f"dr.mv.{move}", n=n)

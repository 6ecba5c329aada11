"""The ``dragons`` typed order syntax (``climb 2 attack bite b``)."""

from __future__ import annotations

from typing import Any

from engine.errors import Rejection
from engine.rulesets.dragons.config import FORCE_CHOICES, FORCE_RAISE_CHOICES, MOVE_KINDS

# --------------------------------------------------------------------------- typed syntax

_WORDS: dict[str, str] = {
    "level": "level", "lvl": "level", "l": "level", "уровень": "level", "ровно": "level",
    "climb": "climb", "up": "climb", "набор": "climb", "вверх": "climb",
    "dive": "dive", "down": "dive", "снижение": "dive", "пике": "dive", "вниз": "dive",
    "aero": "aero", "aerobatics": "aero", "трюк": "aero", "пилотаж": "aero",
    "attack": "attack", "atk": "attack", "a": "attack", "атака": "attack", "атаковать": "attack",
    "tail": "tail", "хвост": "tail",
    "force": "force", "принуждение": "force", "принудить": "force",
    "break": "break", "отрыв": "break", "сброс": "break",
    "power": "power", "сила": "power",
}  # fmt: skip
_FORCE_WORDS: dict[str, str] = {
    "up": "up", "faster": "up", "быстрее": "up", "down": "down", "slower": "down",
    "медленнее": "down", "climb": "climb", "вверх": "climb", "dive": "dive", "вниз": "dive",
}  # fmt: skip


def typed_command(word: str) -> str | None:
    """The command a typed keyword stands for (``атака`` -> ``attack``), or None."""
    return _WORDS.get(word.lower())


def parse_typed(text: str) -> dict[str, Any]:
    """Parse the typed order syntax into an order dict (shape checked later by
    :meth:`DragonsRuleset.parse_order`), e.g. ``/order level +2; attack breath n1; tail p3``.

    Commands, separated by ``;`` or new lines: ``level [±N]``, ``climb N``, ``dive N``,
    ``aero NAME``, ``attack WEAPON TARGET``, ``tail TARGET``, ``force up|down [climb|dive]``,
    ``break [TARGET]``, ``power TEXT``; Russian keywords work too. Raises :class:`Rejection`.
    """
    body = text.strip()
    if body.startswith("/"):
        head, _, body = body.partition(" ")
        if head.split("@")[0].lower() not in ("/order", "/приказ", "/o"):
            raise Rejection("typed_unknown_command", word=head)
    order: dict[str, Any] = {"move": "level", "n": 0, "aerobatics": None, "actions": []}
    moved = False
    for part in body.replace("\n", ";").split(";"):
        words = part.split()
        if not words:
            continue
        command = _WORDS.get(words[0].lower())
        args = words[1:]
        if command is None:
            raise Rejection(
                "typed_unknown_word",
                word=words[0],
                expected="level, climb, dive, aero, attack, tail, force, break, power",
            )
        if command in MOVE_KINDS:
            if moved:
                raise Rejection("typed_two_movements", word=words[0])
            moved = True
            order["move"] = command
            default = "0" if command == "level" else None
            value = args[0] if args else default
            if value is None:
                raise Rejection("typed_missing_argument", command=command, expected="N")
            try:
                order["n"] = int(value)
            except ValueError:
                raise Rejection("typed_bad_number", command=command, word=value) from None
            if len(args) > 1:
                raise Rejection("typed_extra_words", command=command, words=" ".join(args[1:]))
        elif command == "aero":
            order["aerobatics"] = " ".join(args) or "aerobatics"
        elif command == "attack":
            if len(args) != 2:
                raise Rejection("typed_missing_argument", command=command, expected="WEAPON TARGET")
            order["actions"].append({"type": "attack", "weapon": args[0], "target": args[1]})
        elif command == "tail":
            if len(args) != 1:
                raise Rejection("typed_missing_argument", command=command, expected="TARGET")
            order["actions"].append({"type": "tail", "target": args[0]})
        elif command == "force":
            picks = [_FORCE_WORDS.get(a.lower()) for a in args]
            if not 1 <= len(picks) <= 2 or picks[0] not in FORCE_CHOICES:
                raise Rejection(
                    "typed_missing_argument", command=command, expected="up|down [climb|dive]"
                )
            raise_pick = picks[1] if len(picks) == 2 else None
            if len(picks) == 2 and raise_pick not in FORCE_RAISE_CHOICES:
                raise Rejection("typed_bad_word", command=command, word=args[1])
            order["actions"].append(
                {"type": "force", "choice": picks[0], "raise_choice": raise_pick}
            )
        elif command == "break":
            if len(args) > 1:
                raise Rejection("typed_extra_words", command=command, words=" ".join(args[1:]))
            order["actions"].append({"type": "break", "target": args[0] if args else None})
        else:
            order["actions"].append({"type": "power", "text": " ".join(args)})
    return order

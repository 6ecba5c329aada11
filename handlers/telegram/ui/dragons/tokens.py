"""The ``dragons`` order as builder tokens (the callback data of the order builder): a
movement token (``c2``, ``l-1a``) and one token per action."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import Rejection
from engine.rulesets.dragons import DragonsState

_MOVE_PREFIX = {"l": "level", "c": "climb", "d": "dive"}


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

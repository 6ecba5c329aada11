"""Events: what a resolution says happened, in order, for rendering and audit."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

_NO_DATA: Mapping[str, Any] = MappingProxyType({})


class Event(NamedTuple):
    """One thing that happened. ``kind`` names it (``roll``, ``hit``, ``move``…), ``actor`` is
    the participant it concerns (or None), ``data`` holds JSON-ready details.

    Immutable, data included: equal events may be one shared object (``TurnLog.memo``), so
    nothing may change an event's ``data`` once it is emitted. A named tuple rather than a
    frozen dataclass because a resolution creates several per turn and the simulator plays
    millions of turns: construction is about twice as fast, while attribute access, equality
    and the constructor stay the same."""

    kind: str
    actor: str | None = None
    data: Mapping[str, Any] = _NO_DATA

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor": self.actor, **self.data}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in raw.items() if k not in ("kind", "actor")}
        return cls(str(raw["kind"]), raw.get("actor"), data)

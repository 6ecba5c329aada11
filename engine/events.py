"""Events: what a resolution says happened, in order, for rendering and audit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``kind`` names it (``roll``, ``hit``, ``move``…), ``actor`` is
    the participant it concerns (or None), ``data`` holds JSON-ready details."""

    kind: str
    actor: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor": self.actor, **self.data}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in raw.items() if k not in ("kind", "actor")}
        return cls(str(raw["kind"]), raw.get("actor"), data)

"""The ``coin`` configuration: every DEFAULT of ``rules.md`` as data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CoinConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    target: int = Field(default=2, ge=1)
    max_turns: int = Field(default=10, ge=1)
    default_call: int = Field(default=1, ge=1, le=6)


# A match that runs until a test stops it (storage tests seal turn after turn).
ENDLESS: Mapping[str, Any] = {"target": 10**9, "max_turns": 10**9}

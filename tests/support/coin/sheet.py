"""The ``coin`` character sheet and its presets."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class CoinCharacter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lucky: bool = False


# K3: two presets, so the bot's character screen has buttons.
PRESETS: dict[str, dict[str, Any]] = {"plain": {"lucky": False}, "lucky": {"lucky": True}}

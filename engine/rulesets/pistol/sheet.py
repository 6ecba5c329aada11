"""The ``pistol`` character sheet and its presets."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CharacterSpec(BaseModel):
    """A duelist's sheet: a weapon id and perk ids, checked against the config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weapon: str
    perks: tuple[str, ...] = ()


def _default_presets() -> dict[str, CharacterSpec]:
    return {
        "marksman": CharacterSpec(weapon="rifle", perks=("steady_hand",)),
        "gunslinger": CharacterSpec(weapon="revolver", perks=("lucky",)),
        "brawler": CharacterSpec(weapon="pistol", perks=("thick_skinned",)),
        "cardsharp": CharacterSpec(weapon="derringer", perks=("lucky",)),
        "gentleman": CharacterSpec(weapon="dueling_pistol", perks=()),
    }

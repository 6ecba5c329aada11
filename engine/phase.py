"""A match's phase: its own module so the clock (:mod:`engine.clock`), which the lifecycle
(:mod:`engine.match`) calls, can check it without importing the lifecycle back."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"

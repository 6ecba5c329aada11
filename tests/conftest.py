"""Shared fixtures: the test-only ``coin`` ruleset, deterministic deps over the memory store."""

from __future__ import annotations

import pytest

from engine import rulesets
from engine.usecases import CountingEntropy, Deps
from infra.memory import MemoryRepository
from tests.support import coin

rulesets.register(coin.RULESET)


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def deps(clock: FakeClock) -> Deps:
    return Deps(repo=MemoryRepository(), clock=clock, entropy=CountingEntropy())

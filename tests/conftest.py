"""Shared fixtures: the test-only ``coin`` ruleset, deterministic deps over the memory store."""

from __future__ import annotations

import pytest

from engine import rulesets
from engine.usecases import CountingEntropy, Deps
from infra.memory import MemoryRepository
from tests.support import coin
from tests.support.clock import FakeClock

rulesets.register(coin.RULESET)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def deps(clock: FakeClock) -> Deps:
    return Deps(repo=MemoryRepository(), clock=clock, entropy=CountingEntropy())

"""A user's stored /lang is read once per minute per process, not once per message: a turn's
delivery writes to every player and the GM several times, and each read was a DynamoDB
request and a read unit (docs/deploy.md, "Load and cost")."""

from __future__ import annotations

import time
from typing import Any

import pytest

from engine.usecases import Deps, SystemEntropy
from handlers.telegram.shared import context as ctx
from handlers.telegram.shared.context import Services
from infra.memory import MemoryRepository


class CountingPrefs(MemoryRepository):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        self.reads += 1
        return super().load_prefs(user_id)


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    return clock


def _services(repo: CountingPrefs) -> Services:
    return Services(
        deps=Deps(repo=repo, clock=lambda: 0.0, entropy=SystemEntropy()), secret=b"k" * 32
    )


def test_a_stored_choice_and_its_absence_are_each_read_once_within_the_ttl(
    now: list[float],
) -> None:
    repo = CountingPrefs()
    repo.set_pref(1, "lang", "en")
    svc = _services(repo)
    assert [svc.lang_for(1, "ru") for _ in range(5)] == ["en"] * 5
    assert [svc.lang_for(2, "ru") for _ in range(5)] == ["ru"] * 5  # none stored: the fallback
    assert repo.reads == 2
    repo.set_pref(2, "lang", "en")  # chosen through another container
    now[0] += ctx.PREFS_TTL_SECONDS
    assert svc.lang_for(2, "ru") == "en"  # seen once the entry ran out
    assert repo.reads == 3


def test_a_choice_made_here_is_used_at_once_without_a_read(now: list[float]) -> None:
    repo = CountingPrefs()
    svc = _services(repo)
    assert svc.lang_for(3, "en") == "en"
    svc.set_user_lang(3, "ru")
    assert svc.lang_for(3, "en") == "ru"
    assert repo.reads == 1
    assert repo.load_prefs(3)["lang"] == "ru"

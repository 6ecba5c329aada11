"""No lost write between the features sharing a user's preferences document (issue 28 point 3):
``/lang`` (``Services.set_user_lang``) and the pending text step (``text_steps.set_pending``)
each update their own field in one write, so one landing between the other's read and write
loses nothing, over memory, SQLite and DynamoDB (moto)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.ports import MatchRepository, PrefsRepository
from engine.usecases import CountingEntropy, Deps
from handlers.telegram.shared import text_steps
from handlers.telegram.shared.context import Services

USER = 424242


def _services(repo: MatchRepository) -> Services:
    deps = Deps(repo=repo, clock=lambda: 1_700_000_000.0, entropy=CountingEntropy())
    return Services(deps=deps, secret=b"k" * 32)


def _meanwhile(repo: Any, other: Callable[[], None]) -> None:
    """Another container's write (``other``) lands inside this feature's next update of the
    document: right after its read, or right before its write when it reads nothing."""
    armed = [True]

    def fire() -> None:
        if armed[0]:
            armed[0] = False
            other()

    real_load, real_set = repo.load_prefs, repo.set_pref

    def load_prefs(user_id: int) -> dict[str, Any]:
        got: dict[str, Any] = real_load(user_id)
        fire()
        return got

    def set_pref(user_id: int, field: str, value: Any) -> None:
        fire()
        real_set(user_id, field, value)

    repo.load_prefs, repo.set_pref = load_prefs, set_pref


def _unhook(repo: Any) -> None:
    del repo.load_prefs, repo.set_pref


def test_lang_chosen_while_a_text_step_is_stored_keeps_both(repo: MatchRepository) -> None:
    assert isinstance(repo, PrefsRepository)
    svc, other = _services(repo), _services(repo)  # two containers
    _meanwhile(repo, lambda: other.set_user_lang(USER, "en"))
    text_steps.set_pending(svc, USER, "v1:tx:m1:1")
    _unhook(repo)
    assert repo.load_prefs(USER) == {"lang": "en", text_steps.PENDING: "v1:tx:m1:1"}


def test_a_text_step_stored_while_lang_is_chosen_keeps_both(repo: MatchRepository) -> None:
    assert isinstance(repo, PrefsRepository)
    svc, other = _services(repo), _services(repo)
    repo.set_pref(USER, "lang", "ru")
    _meanwhile(repo, lambda: text_steps.set_pending(other, USER, "v1:tx:m1:2"))
    svc.set_user_lang(USER, "en")
    _unhook(repo)
    assert repo.load_prefs(USER) == {"lang": "en", text_steps.PENDING: "v1:tx:m1:2"}


def test_a_text_step_cleared_while_lang_is_chosen_keeps_lang(repo: MatchRepository) -> None:
    assert isinstance(repo, PrefsRepository)
    svc, other = _services(repo), _services(repo)
    text_steps.set_pending(svc, USER, "v1:tx:m1:3")
    _meanwhile(repo, lambda: other.set_user_lang(USER, "en"))
    text_steps.set_pending(svc, USER, None)
    _unhook(repo)
    assert repo.load_prefs(USER) == {"lang": "en"}


@pytest.mark.parametrize("value", ["en", {"nested": [1, "два"]}, 7])
def test_one_field_set_alone_keeps_the_others(repo: MatchRepository, value: Any) -> None:
    assert isinstance(repo, PrefsRepository)
    repo.save_prefs(USER, {"lang": "ru", "tz": "Europe/Moscow"})  # a whole older document
    repo.set_pref(USER, "x", value)
    repo.set_pref(USER, "tz", None)
    assert repo.load_prefs(USER) == {"lang": "ru", "x": value}

"""The one fake clock of the tests: a ``Deps.clock`` (or a runtime's) that a test moves by hand."""

from __future__ import annotations


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

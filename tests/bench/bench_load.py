"""The load run (``python -m tests.bench.load``) with its defaults: 200 matches of the three
rulesets, 2-4 players each, 8 worker processes running the real webhook handler against
DynamoDB in moto's server mode, the fake Bot API over HTTP and production's beacon path
against a fake drand relay; with the cost of 1,000 turns (the beacon's share apart).
The figures and what they mean: docs/deploy.md, "Load and cost"."""

from __future__ import annotations

from tests.bench.load.__main__ import main as run


def main() -> None:
    run([])

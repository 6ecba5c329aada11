"""The match dossier: the whole match record as one JSON document anyone can verify.

Contents: the match (ruleset, version, configuration, seats with characters), every resolved
turn (the commitment posted when it opened, the revealed seed, every order with its salt and
fingerprint, every event including each roll, the states before and after), the GM's
interventions, and, for a running match, the current turn's public commitment and who has
sealed (fingerprints only: an unrevealed order or seed never enters a dossier).

The format is documented in ``docs/fairness.md``; ``sekundant verify`` checks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import ENGINE_VERSION, codec
from engine.beacon import known_network
from engine.match import Match, SealedOrder, TurnRecord

FORMAT = "sekundant-dossier"
FORMAT_VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
"""Version 2 adds, per turn, ``opened_at``, ``locked_at``, ``beacon_round`` and ``beacon``;
``undone[]`` (the records of undone turns) and ``beacon_networks``. A version-1 dossier
verifies as "server seed only" turns."""


def build_dossier(
    match: Match,
    history: Sequence[TurnRecord],
    current_orders: Sequence[SealedOrder] = (),
    *,
    generated_at: float,
) -> dict[str, Any]:
    """The dossier of ``match``. ``current_orders`` contribute only their public fingerprints."""
    dossier: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "engine_version": ENGINE_VERSION,
        "generated_at": generated_at,
        "match": {
            "id": match.id,
            "ruleset": match.ruleset,
            "ruleset_version": match.ruleset_version,
            "config": dict(match.config),
            "lang": match.lang,
            "created_at": match.created_at,
            "phase": match.phase.value,
            "outcome": match.outcome,
            "gm_user_id": match.gm_user_id,
            "seats": [codec.seat_to_doc(s) for s in match.seats],
        },
        "turns": [_turn(r) for r in history],
        "interventions": [{k: v for k, v in a.items() if k != "record"} for a in match.audit],
        "undone": [
            {**a["record"], "undone_at": a["at"]}
            for a in match.audit
            if a.get("action") == "undo" and isinstance(a.get("record"), dict)
        ],
    }
    names = {
        t["beacon"]["network"] for t in dossier["turns"] + dossier["undone"] if t.get("beacon")
    }
    networks = [known_network(n) for n in sorted(names)]
    dossier["beacon_networks"] = {n.name: n.to_json() for n in networks if n is not None}
    if match.commitment is not None:
        dossier["current"] = {
            "turn": match.turn,
            "commitment": match.commitment,
            "commitment_message": match.commitment_message,
            "commitment_posted_at": match.commitment_posted_at,
            "opened_at": match.turn_opened_at,
            "locked_at": match.locked_at,
            "frozen_at": match.frozen_at,
            "lock_message": match.lock_message,
            "beacon_round": match.beacon_round,
            "sealed": [
                {"pid": o.pid, "fingerprint": o.fingerprint, "sealed_at": o.sealed_at}
                for o in sorted(current_orders, key=lambda o: o.seq)
                if o.turn == match.turn
            ],
        }
    return dossier


def _turn(record: TurnRecord) -> dict[str, Any]:
    doc = codec.record_to_doc(record)
    doc.pop("schema", None)
    for order in doc["orders"]:
        order.pop("schema", None)
    return doc

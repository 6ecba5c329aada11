"""Provable-fairness screens (pure): the turn's seed commitment, the private receipt with the
order's salt and full fingerprint, the reveal's proof block (seed and every order with its
salt), and the dossier files. The construction is ``docs/fairness.md``; anyone can recompute
every value shown here."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.beacon import PUBLIC_NETWORKS
from engine.match import Match, SealedOrder, TurnRecord
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import clock_text, dossier_md
from handlers.telegram.screens.labels import short_fp, turn_label
from handlers.telegram.ui import Button, Screen, esc, get_ui, names_of


def commitment_text(tr: Tr, commitment: str) -> str:
    """The commitment of the open turn's seed: a line in words, the hash one tap away."""
    digest = tr("fair.commitment_full", commitment=commitment)
    return tr("commit.line") + f"\n<blockquote expandable>{digest}</blockquote>"


def commitment_post(tr: Tr, match: Match) -> str:
    """The open turn's commitment as its own message (never edited): the full hash, so the
    reveal's seed can be checked against what the group got before any order."""
    return tr(
        "fair.commitment_post",
        turn=Raw(turn_label(tr, match, match.turn)) if match.turn else tr("fair.setup_turn"),
        id=match.id,
        commitment=match.commitment or "",
    )


def receipt_screen(
    tr: Tr,
    match: Match,
    order: SealedOrder,
    replaced: bool,
    now: float,
    *,
    final: bool = False,
    locked: bool = False,
) -> Screen:
    """A player's private receipt: the order, its salt and full fingerprint (so they can check
    the reveal and the dossier), the deadline, and Change/Withdraw until the turn locks
    (``locked``: this seal locked it, the dice are being rolled; ``final``: it resolved)."""
    ui = get_ui(match.ruleset)
    key = "receipt.replaced" if replaced else "receipt.sealed"
    lines = [
        tr(
            key,
            turn=Raw(turn_label(tr, match, order.turn)),
            id=match.id,
            order=Raw(ui.reveal_order_text(tr, order.order, names_of(match))),  # targets by name
            fp=short_fp(order.fingerprint),
        ),
    ]
    if final:  # this seal completed the turn: nothing is left to change
        lines.append(tr("receipt.resolved_now", turn=order.turn))
    elif locked:  # nor when it locked the turn (no seal, change or withdrawal any more)
        lines.append(tr("receipt.locked_now", turn=order.turn))
    else:
        lines.append(tr("receipt.changeable"))
        deadline = clock_text.deadline_line(tr, match, now)
        if deadline:
            lines.append(deadline)
    # The proof for the reveal and the dossier, one tap away (collapsed): the receipt reads
    # short on a phone.
    proof = tr("fair.receipt_proof", salt=order.salt, fingerprint=order.fingerprint)
    lines.append(f"<blockquote expandable>{proof}</blockquote>")
    if final or locked:
        return Screen("\n".join(lines))
    rows = [
        [
            Button(tr("btn.change"), Callback("b", match.id, order.turn, (order.pid,))),
            Button(tr("fair.btn_withdraw"), Callback("wd", match.id, order.turn, (order.pid,))),
        ]
    ]
    return Screen("\n".join(lines), rows)


def reveal_proof(tr: Tr, match: Match, record: TurnRecord) -> str:
    """The reveal's proof block: the seed (which hashes to the commitment posted when the turn
    opened) and every order with its salt and fingerprint, as canonical JSON."""
    names = names_of(match)
    ui = get_ui(match.ruleset)
    lines = [
        tr("proof.title", turn=record.turn),
        tr("fair.proof_seed", seed=record.seed),
        tr("fair.proof_commitment", commitment=record.commitment),
    ]
    if record.beacon is not None:  # in words: no network ids ("local-test") in the group
        public = record.beacon.network in PUBLIC_NETWORKS
        lines.append(
            tr(
                "proof.beacon_public" if public else "proof.beacon_local",
                round=record.beacon.round,
                randomness=record.beacon.randomness,
            )
        )
    elif record.beacon_round is not None:
        lines.append(tr("fair.proof_seed_only", round=record.beacon_round))
    for o in sorted(record.orders, key=lambda o: o.seq):
        name = Raw(names.get(o.pid, esc(o.pid)))
        order = Raw(ui.reveal_order_text(tr, o.order, names))  # in words, targets by name
        if o.default:
            lines.append(tr("proof.default", name=name, order=order))
        else:
            lines.append(tr("proof.order", name=name, order=order, salt=o.salt, fp=o.fingerprint))
    block = "<blockquote expandable>" + "\n".join(lines) + "</blockquote>"
    if record.beacon is None:  # visible, not folded away: these dice are the server's alone
        return tr("fair.server_seed_only") + "\n" + block
    return block


def dossier_files(dossier: Mapping[str, Any], tr: Tr) -> tuple[bytes, bytes]:
    """The dossier as JSON (what ``sekundant verify`` reads) and as Markdown in ``tr``'s
    language."""
    data = json.dumps(dossier, ensure_ascii=False, indent=1, sort_keys=True).encode()
    return data, dossier_md.render(dossier, tr).encode()

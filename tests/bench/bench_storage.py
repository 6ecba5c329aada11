"""Storage: DynamoDB requests per use case (moto, counted at the client; targets: create a
match <= 2, seal an order that does not complete the turn <= 2, seal the last order with the
resolution <= 4) and SQLite seal operations per second (WAL, synchronous=FULL)."""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from engine import rulesets, usecases
from engine.ports import MatchRepository
from engine.usecases import Deps, SystemEntropy
from tests.storage.aws import create_table, use_fake_aws_env
from tests.storage.helpers import CHAT, GM, P1, P2
from tests.support import coin
from tests.support.coin import ENDLESS

rulesets.register(coin.RULESET)  # the tests' toy ruleset (tests/conftest.py does it for pytest)

SQLITE_SEALS = 400


def _deps(repo: MatchRepository) -> Deps:
    return Deps(repo=repo, clock=time.time, entropy=SystemEntropy())


def _started(deps: Deps) -> str:
    m = usecases.create_match(deps, CHAT, GM, "coin", config=ENDLESS)
    for i, uid in enumerate((P1, P2), 1):
        usecases.join(deps, m.id, uid, f"player{i}")
        usecases.set_character(deps, m.id, uid, f"p{i}", {})
    usecases.start(deps, m.id, GM)
    return m.id


def dynamodb_requests() -> None:
    import boto3
    from moto import mock_aws

    from infra.dynamodb import DynamoRepository

    use_fake_aws_env()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        create_table(client, "bench")
        calls: Counter[str] = Counter()

        def count(model: Any, **_: Any) -> None:
            calls[model.name] += 1

        client.meta.events.register("before-call.dynamodb", count)
        repo = DynamoRepository(client, "bench")
        deps = _deps(repo)

        def measure(label: str, target: int | None, action: Callable[[], object]) -> None:
            calls.clear()
            action()
            total = sum(calls.values())
            detail = ", ".join(f"{n} {op}" for op, n in sorted(calls.items()))
            goal = f"(target <= {target})" if target is not None else ""
            mark = "" if target is None or total <= target else "  OVER TARGET"
            print(f"   DynamoDB requests, {label:<34} {total:>2} {goal:<14} [{detail}]{mark}")

        match_id = _started(deps)
        measure(
            "create a match",
            2,
            lambda: usecases.create_match(deps, CHAT, GM, "coin", config=ENDLESS),
        )
        measure(
            "seal (turn not complete)",
            2,
            lambda: usecases.seal_order(deps, match_id, P1, "p1", {"call": 2, "note": "a"}),
        )
        measure(
            "seal the last order + resolution",
            4,
            lambda: usecases.seal_order(deps, match_id, P2, "p2", {"call": 3, "note": "b"}),
        )
        lobby = usecases.create_match(deps, CHAT - 1, GM, "coin", config=ENDLESS)
        measure("join a lobby", None, lambda: usecases.join(deps, lobby.id, P1, "x"))
        ready = _ready(deps)
        measure("start (setup record)", None, lambda: usecases.start(deps, ready, GM))
        measure("deadline sweep query", None, lambda: repo.due(time.time()))
        measure("matches of a chat", None, lambda: repo.active_in_chat(CHAT))
        measure("matches of a user", None, lambda: repo.active_for_user(P1))

        def claim_and_confirm() -> None:  # what the webhook does for each update it handles
            claim = repo.claim_update(1, time.time(), 30.0)
            repo.confirm_update(1, claim.token, time.time())

        measure("claim + confirm an update id", None, claim_and_confirm)

        def deliver_owed() -> None:  # the outbox of the resolution above, one message sent
            (item,) = [o for o in repo.owed(match_id) if o.kind == "resolved"]
            claimed = repo.claim_owed(match_id, item.key, time.time(), 60.0)
            assert claimed is not None
            sent = replace(claimed, sent={"1": [CHAT, 1]})
            repo.update_owed(sent)  # the journal: one per message Telegram accepted
            repo.update_owed(replace(sent, done=True))

        measure("outbox: list, claim, 1 message, done", None, deliver_owed)
        measure("outbox: sweeper's query", None, lambda: repo.owed_due(time.time()))


def _ready(deps: Deps) -> str:
    """A lobby with both players seated and characters picked."""
    m = usecases.create_match(deps, CHAT - 2, GM, "coin", config=ENDLESS)
    for i, uid in enumerate((P1, P2), 1):
        usecases.join(deps, m.id, uid, f"player{i}")
        usecases.set_character(deps, m.id, uid, f"p{i}", {})
    return m.id


def sqlite_seals() -> None:
    from infra.sqlite import SqliteRepository

    with tempfile.TemporaryDirectory() as tmp:
        repo = SqliteRepository(Path(tmp) / "bench.sqlite3")
        deps = _deps(repo)
        match_id = _started(deps)
        started = time.perf_counter()
        for i in range(SQLITE_SEALS):  # re-sealing p1: a seal that does not complete the turn
            usecases.seal_order(deps, match_id, P1, "p1", {"call": 1 + i % 6, "note": f"m{i}"})
        elapsed = time.perf_counter() - started
        print(f"   SQLite seals/s (turn not complete)        {SQLITE_SEALS / elapsed:>7.0f}")
        started = time.perf_counter()
        turns = SQLITE_SEALS // 2
        for i in range(turns):
            usecases.seal_order(deps, match_id, P1, "p1", {"call": 1 + i % 6, "note": "a"})
            usecases.seal_order(deps, match_id, P2, "p2", {"call": 1 + i % 6, "note": "b"})
        elapsed = time.perf_counter() - started
        print(f"   SQLite seals/s (every 2nd resolves a turn) {2 * turns / elapsed:>6.0f}")
        repo.close()


def record_sizes() -> None:
    """Bytes of a stored turn record per turn: whole (as every version before stored it) and
    compact (``codec.record_to_stored``; the configuration, stored once per match, not
    counted). Target: at most half."""
    import json

    from engine import codec
    from tests.support.records import RULESETS, turn_records

    for ruleset in RULESETS:
        records = turn_records(ruleset)
        whole = sum(len(json.dumps(codec.record_to_doc(r), separators=(",", ":"))) for r in records)
        compact = sum(
            len(json.dumps(codec.record_to_stored(r)[0], separators=(",", ":"))) for r in records
        )
        ratio = compact / whole
        mark = "" if ratio <= 0.5 else "  OVER TARGET"
        print(
            f"   record bytes per turn, {ruleset:<8} {whole // len(records):>6} whole"
            f" -> {compact // len(records):>6} stored ({ratio:.0%}, target <= 50%){mark}"
        )


def packed_sizes() -> None:
    """Packed bytes of what a played turn stores (``tests.support.docpack_dictionary.played``)
    with each preset dictionary, and the CPU a pack and an unpack take per document (target:
    well under 1 ms each; docs/storage.md, "Item sizes"). v2 was made from this play's
    two-player turn 2, so its figures here are its best case: the load run's, of matches it
    never saw, are in docs/deploy.md ("Turn records in one KB")."""
    from engine import codec
    from infra import docpack
    from infra.dynamo_values import dumps
    from infra.dynamodb import _match_stored, _order_stored
    from tests.support.docpack_dictionary import played

    texts: dict[str, list[str]] = {}
    for ruleset, players in (("pistol", 2), ("plans", 2), ("dragons", 2), ("dragons", 4)):
        for turn in played(ruleset, players):
            kind = f"{ruleset} {players}p"
            doc = codec.match_to_doc(turn.match) | {"version": turn.match.version}
            stored = codec.record_to_stored(turn.record)[0]
            texts.setdefault(f"record, {kind}", []).append(dumps(stored))
            texts.setdefault(f"match, {kind}", []).append(dumps(_match_stored(doc)))
            texts.setdefault(f"sealed order, {ruleset}", []).extend(
                dumps(_order_stored(turn.match.id, o)) for o in turn.orders
            )
    for label, group in texts.items():
        sizes = {v: [len(docpack.pack(t, v)) for t in group] for v in docpack.SHA256}
        shown = ", ".join(f"v{v} {min(s)}-{max(s)}" for v, s in sizes.items())
        print(f"   packed bytes, {label:<20} {shown}")
    every = [t for group in texts.values() for t in group]
    started = time.perf_counter()
    packed = [docpack.pack(t) for t in every]
    middle = time.perf_counter()
    for data in packed:
        docpack.unpack(data)
    done = time.perf_counter()
    pack_ms, unpack_ms = (
        (b - a) * 1000 / len(every) for a, b in ((started, middle), (middle, done))
    )
    mark = "" if pack_ms < 1 and unpack_ms < 1 else "  OVER TARGET"
    print(f"   docpack v{docpack.CURRENT} CPU per document: pack {pack_ms:.3f} ms, unpack"
          f" {unpack_ms:.3f} ms ({len(every)} documents; target < 1 ms){mark}")  # fmt: skip


def hanging_dynamodb() -> None:
    """How long one DynamoDB call takes to give up when the endpoint accepts connections and
    never answers (the worst case of ``infra.aws.config``: every attempt waits its read
    timeout). The webhook must answer 500 inside its 25 s Timeout after two such calls (the
    failing one and the release of the update's lease)."""
    import socket
    import threading

    from infra import aws

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    client = aws.client(
        "dynamodb",
        region_name="eu-west-1",
        endpoint_url=f"http://127.0.0.1:{server.getsockname()[1]}",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
    )
    attempts = [0]
    client.meta.events.register(
        "before-send.dynamodb", lambda **_: attempts.__setitem__(0, attempts[0] + 1)
    )
    started = time.perf_counter()
    try:
        client.get_item(TableName="t", Key={"PK": {"S": "p"}, "SK": {"S": "s"}})
    except Exception as exc:  # the read timeout, after the retries
        failure = type(exc).__name__
    elapsed = time.perf_counter() - started
    server.close()
    for conn in held:
        conn.close()
    mark = "" if 2 * elapsed < 25 else "  OVER TARGET"
    print(
        f"   DynamoDB that never answers: one call gives up in {elapsed:.1f} s"
        f" ({attempts[0]} attempts, {failure}); target: two < 25 s{mark}"
    )


def main() -> None:
    dynamodb_requests()
    sqlite_seals()
    record_sizes()
    packed_sizes()
    hanging_dynamodb()


if __name__ == "__main__":
    main()

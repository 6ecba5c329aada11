"""Storage fixtures: ``memory_repo``, ``sqlite_repo``, ``dynamo_repo`` (moto, table from the
template) and ``repo``, parametrized over all three, plus a ``backdoor`` that writes raw
records the way a bug, an old release or disk damage would (the port has no way to)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.ports import MatchRepository
from infra import docpack
from infra.dynamodb import DynamoRepository, doc_text
from infra.memory import MemoryRepository
from infra.sqlite import SqliteRepository
from tests.storage.aws import ClientSpy, create_table, use_fake_aws_env

use_fake_aws_env()
# moto imported before any botocore session exists (``infra.aws`` keeps one per process, as
# boto3 does): sessions copy botocore's handlers when created, moto's hook among them.
import moto  # noqa: E402, F401

TABLE = "sekundant-test"


@pytest.fixture
def memory_repo() -> MemoryRepository:
    return MemoryRepository()


@pytest.fixture
def sqlite_repo(tmp_path: Path) -> Iterator[SqliteRepository]:
    repo = SqliteRepository(tmp_path / "sekundant.sqlite3")
    yield repo
    repo.close()


@pytest.fixture
def dynamo_client() -> Iterator[Any]:
    import boto3
    from moto import mock_aws

    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        create_table(client, TABLE)
        yield client


@pytest.fixture
def dynamo_spy(dynamo_client: Any) -> ClientSpy:
    """The client the DynamoDB repository uses: production's (:mod:`infra.aws`, trimmed
    model), recording every call (no-scan test). ``dynamo_client`` (full model) set it up."""
    from infra import aws

    return ClientSpy(aws.client("dynamodb", region_name="eu-west-1"))


@pytest.fixture
def dynamo_repo(dynamo_spy: ClientSpy) -> DynamoRepository:
    return DynamoRepository(dynamo_spy, TABLE)


@pytest.fixture(params=["memory", "sqlite", "dynamo"])
def repo(request: pytest.FixtureRequest) -> MatchRepository:
    repo: MatchRepository = request.getfixturevalue(f"{request.param}_repo")
    return repo


class Backdoor:
    """Raw access to what a repository stored, for tests only."""

    def __init__(self, repo: MatchRepository) -> None:
        self.repo = repo

    # --- writing raw documents

    def put_raw_match(self, doc: dict[str, Any]) -> None:
        r = self.repo
        if isinstance(r, MemoryRepository):
            r.matches[doc["id"]] = dict(doc)
            r.orders[doc["id"]] = {}
            r.records[doc["id"]] = []
        elif isinstance(r, SqliteRepository):
            db = r._db()
            db.execute(
                "INSERT INTO matches (id, chat_id, created_at, active, due, version, attention,"
                " doc) VALUES (?, ?, ?, 1, NULL, ?, NULL, ?)",
                (doc["id"], doc["chat_id"], doc["created_at"], doc["version"], json.dumps(doc)),
            )
        elif isinstance(r, DynamoRepository):
            r.client.put_item(
                TableName=r.table,
                Item={
                    "PK": {"S": f"MATCH#{doc['id']}"},
                    "SK": {"S": "CUR#MATCH"},
                    "doc": {"S": json.dumps(doc)},
                    "version": {"N": str(doc["version"])},
                    "GSI2PK": {"S": f"CHAT#{doc['chat_id']}"},
                    "GSI2SK": {"S": f"{doc['created_at']:017.6f}#{doc['id']}"},
                },
            )

    def corrupt_match(self, match_id: str) -> None:
        r = self.repo
        if isinstance(r, MemoryRepository):
            r.matches[match_id] = {"id": match_id, "version": r.matches[match_id]["version"]}
        elif isinstance(r, SqliteRepository):
            r._db().execute("UPDATE matches SET doc = '{\"id\": tru' WHERE id = ?", (match_id,))
        elif isinstance(r, DynamoRepository):
            r.client.update_item(
                TableName=r.table,
                Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": "CUR#MATCH"}},
                UpdateExpression="SET doc = :d",
                ExpressionAttributeValues={":d": {"S": '{"id": tru'}},
            )

    def corrupt_order(self, match_id: str, pid: str) -> None:
        r = self.repo
        if isinstance(r, MemoryRepository):
            r.orders[match_id][pid] = {"pid": pid, "turn": r.orders[match_id][pid]["turn"]}
        elif isinstance(r, SqliteRepository):
            r._db().execute(
                "UPDATE orders SET doc = '[1, 2' WHERE match_id = ? AND pid = ?", (match_id, pid)
            )
        elif isinstance(r, DynamoRepository):  # the order in the match item's ``ord`` map
            r.client.update_item(
                TableName=r.table,
                Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": "CUR#MATCH"}},
                UpdateExpression="SET ord.#p = :d",
                ExpressionAttributeNames={"#p": pid},
                ExpressionAttributeValues={":d": {"B": zlib.compress(b"[1, 2")}},
            )

    def corrupt_record(self, match_id: str, turn: int) -> None:
        r = self.repo
        if isinstance(r, MemoryRepository):
            for i, rec in enumerate(r.records[match_id]):
                if rec["turn"] == turn:
                    r.records[match_id][i] = {"turn": turn}
        elif isinstance(r, SqliteRepository):
            r._db().execute(
                "UPDATE records SET doc = 'nope' WHERE match_id = ? AND turn = ?",
                (match_id, turn),
            )
        elif isinstance(r, DynamoRepository):
            r.client.update_item(
                TableName=r.table,
                Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": f"TURN#{turn:06d}#000"}},
                UpdateExpression="SET doc = :d",
                ExpressionAttributeValues={":d": {"S": "nope"}},
            )

    def put_old_claim(self, update_id: int, expires: float) -> None:
        """A processed-update claim as written before leases existed (no token)."""
        r = self.repo
        if isinstance(r, MemoryRepository):
            r.updates[update_id] = (expires, 0.0, "")
        elif isinstance(r, SqliteRepository):
            r._db().execute(
                "INSERT INTO updates (update_id, expires) VALUES (?, ?)", (update_id, expires)
            )
        elif isinstance(r, DynamoRepository):
            r.client.put_item(
                TableName=r.table,
                Item={
                    "PK": {"S": f"UPDATE#{update_id}"},
                    "SK": {"S": "UPDATE"},
                    "type": {"S": "update"},
                    "ttl": {"N": str(int(expires))},
                },
            )

    # --- reading raw storage

    def attention(self, match_id: str) -> str | None:
        r = self.repo
        if isinstance(r, MemoryRepository):
            return r.matches[match_id].get("attention")
        if isinstance(r, SqliteRepository):
            row = (
                r._db()
                .execute("SELECT attention FROM matches WHERE id = ?", (match_id,))
                .fetchone()
            )
            return None if row is None else row[0]
        assert isinstance(r, DynamoRepository)
        item = self._match_item(match_id)
        return item["attention"]["S"] if "attention" in item else None

    def raw_match(self, match_id: str) -> str:
        """Everything stored in the match record itself, as text."""
        r = self.repo
        if isinstance(r, MemoryRepository):
            return json.dumps(r.matches[match_id])
        if isinstance(r, SqliteRepository):
            row = r._db().execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
            return json.dumps(list(row))
        item = self._match_item(match_id)
        if "docz" in item:  # compressed: what it says, so a leak cannot hide in the bytes
            item["docz"] = {"S": doc_text(item)}
        for entry in item.get("ow", {}).get("M", {}).values():  # the outbox's, packed or not
            for name, value in entry["M"].items():
                if "B" in value:
                    entry["M"][name] = {"S": docpack.unpack(bytes(value["B"]))}
        # Not the sealed orders' own attribute: only ``load`` reads it (DynamoDB's listings
        # project it away: test_dynamodb_layout.py).
        item.pop("ord", None)
        return json.dumps(item, ensure_ascii=False)

    def raw_doc(self, match_id: str) -> str:
        """The stored match document only (not the columns/attributes beside it)."""
        r = self.repo
        if isinstance(r, MemoryRepository):
            doc = dict(r.matches[match_id])
            doc.pop("attention", None)
            doc.pop("version", None)
            return json.dumps(doc, sort_keys=True)
        if isinstance(r, SqliteRepository):
            row = r._db().execute("SELECT doc FROM matches WHERE id = ?", (match_id,)).fetchone()
            return str(row[0])
        return doc_text(self._match_item(match_id))

    def _match_item(self, match_id: str) -> dict[str, Any]:
        r = self.repo
        assert isinstance(r, DynamoRepository)
        item: dict[str, Any] = r.client.get_item(
            TableName=r.table,
            Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": "CUR#MATCH"}},
            ConsistentRead=True,
        )["Item"]
        return item


@pytest.fixture
def backdoor(repo: MatchRepository) -> Backdoor:
    return Backdoor(repo)

"""The processed-update lease, store by store: what the contract suite cannot see (the
DynamoDB item's attributes and calls, an SQLite file of the layout before leases)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from infra.dynamodb import DynamoRepository
from infra.sqlite import LAYOUT_VERSION, SqliteRepository
from tests.storage.aws import ClientSpy

T0 = 1_700_000_000.0
KEY = {"PK": {"S": "UPDATE#7"}, "SK": {"S": "UPDATE"}}


def _item(repo: DynamoRepository) -> dict[str, Any]:
    item: dict[str, Any] = repo.client.get_item(
        TableName=repo.table, Key=KEY, ConsistentRead=True
    ).get("Item", {})
    return item


def test_dynamo_lease_and_done_items_keep_the_ttl_attribute(dynamo_repo: DynamoRepository) -> None:
    claim = dynamo_repo.claim_update(7, T0, 60.0)
    item = _item(dynamo_repo)
    assert item["token"] == {"S": claim.token}
    assert float(item["lease"]["N"]) == T0 + 60.0
    assert int(item["ttl"]["N"]) == T0 + 48 * 3600  # an abandoned lease is swept by TTL too
    assert dynamo_repo.confirm_update(7, claim.token, T0 + 5)
    item = _item(dynamo_repo)
    assert "token" not in item and "lease" not in item  # done: as a pre-lease claim
    assert int(item["ttl"]["N"]) == T0 + 5 + 48 * 3600


def test_dynamo_a_refused_claim_is_one_call(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    """The item that refused the claim comes back with the refusal (ALL_OLD): no extra read."""
    dynamo_repo.claim_update(7, T0, 60.0)
    before = len(dynamo_spy.calls)
    assert dynamo_repo.claim_update(7, T0 + 1, 60.0).status == "processing"
    assert dynamo_spy.calls[before:] == ["update_item"]


LAYOUT_1 = """
CREATE TABLE matches (id TEXT PRIMARY KEY, chat_id INTEGER NOT NULL, created_at REAL NOT NULL,
    active INTEGER NOT NULL, due REAL, version INTEGER NOT NULL, attention TEXT,
    doc TEXT NOT NULL);
CREATE TABLE updates (update_id INTEGER PRIMARY KEY, expires REAL NOT NULL);
INSERT INTO updates VALUES (7, 1700172800.0);
PRAGMA user_version = 1;
"""


def test_an_sqlite_store_of_layout_1_is_migrated_and_its_claims_stay_done(tmp_path: Path) -> None:
    path = tmp_path / "sekundant.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(LAYOUT_1)
    db.close()
    repo = SqliteRepository(path)
    try:
        assert repo.claim_update(7, T0, 60.0).status == "done"  # written before leases
        claim = repo.claim_update(8, T0, 60.0)
        assert repo.claim_update(8, T0 + 1, 60.0).status == "processing"
        assert repo.confirm_update(8, claim.token, T0 + 2)
    finally:
        repo.close()
    SqliteRepository(path).close()  # opening a migrated store again changes nothing
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION == 3
    columns = [r[1] for r in db.execute("PRAGMA table_info(updates)")]
    assert columns == ["update_id", "expires", "token", "lease_until", "attempts", "error"]
    db.close()

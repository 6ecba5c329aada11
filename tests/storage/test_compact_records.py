"""Turn records are stored compactly (``codec.record_to_stored``: the ruleset configuration
once per match, ``state_after`` as what changed) and load exactly as they were; records
stored whole by earlier versions load through every store unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from engine import codec
from engine.match import TurnRecord
from engine.ports import MatchRepository
from infra.dynamodb import DynamoRepository
from infra.memory import MemoryRepository
from infra.sqlite import SqliteRepository
from tests.storage.helpers import make_deps, started
from tests.support.records import RULESETS, turn_records


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_stored_record_loads_exactly_as_it_was(ruleset: str) -> None:
    for record in turn_records(ruleset):
        stored, configs = codec.record_to_stored(record)
        text = json.dumps(stored)
        config = record.state_before.get("config")
        if config is not None:  # referred to, stored once per match
            assert json.loads(text)["state_before"]["config"] == {
                "$config": codec.config_ref(config)
            }
            assert configs[codec.config_ref(config)] == config
        assert codec.record_from_stored(json.loads(text), json.loads(json.dumps(configs))) == (
            record
        )


def test_unset_optional_fields_are_left_out_and_set_ones_kept() -> None:
    record = turn_records("pistol")[0]
    unset = replace(record, opened_at=None, locked_at=None, commitment_message=None)
    stored, configs = codec.record_to_stored(unset)
    assert not codec.OPTIONAL_RECORD_KEYS & set(stored)  # none of them is set
    assert codec.record_from_stored(stored, configs) == unset
    full = replace(unset, opened_at=1.5, locked_at=2.5, commitment_message=77)
    stored, configs = codec.record_to_stored(full)
    assert {"opened_at", "locked_at", "commitment_message"} <= set(stored)
    assert codec.record_from_stored(stored, configs) == full


def test_deltas_set_nested_changes_and_deletions() -> None:
    before = {"a": 1, "b": {"x": [1], "y": 2}, "gone": True, "same": {"k": 1}}
    after = {"a": 2, "b": {"x": [1, 2], "z": None}, "new": {"n": 1}, "same": {"k": 1}}
    delta = codec.state_delta(before, after)
    assert "same" not in json.dumps(delta)
    assert codec.apply_delta(before, delta) == after


def _write_whole(repo: MatchRepository, record: TurnRecord) -> None:
    """Store ``record`` whole, as every version before compact records did."""
    doc = codec.record_to_doc(record)
    text = json.dumps(doc)
    if isinstance(repo, MemoryRepository):
        repo.records[record.match_id].append(json.loads(text))
    elif isinstance(repo, SqliteRepository):
        with repo._write() as db:
            db.execute(
                "INSERT INTO records (match_id, turn, doc) VALUES (?, ?, ?)",
                (record.match_id, record.turn, text),
            )
    else:
        assert isinstance(repo, DynamoRepository)
        repo.client.put_item(
            TableName=repo.table,
            Item={
                "PK": {"S": f"MATCH#{record.match_id}"},
                "SK": {"S": f"TURN#{record.turn:06d}#000"},
                "type": {"S": "turn"},
                "turn": {"N": str(record.turn)},
                "parts": {"N": "1"},
                "doc": {"S": text},
            },
        )


def test_records_stored_whole_by_older_versions_still_load(repo: MatchRepository) -> None:
    """The migration: a match whose turn 1 was stored whole (before this version) and whose
    turn 2 is stored compactly reads back every record exactly."""
    m = started(make_deps(repo))
    (setup,) = repo.history(m.id)
    old, new = (
        replace(rec, match_id=m.id, turn=turn)
        for turn, rec in enumerate(turn_records("dragons", 2), 1)
    )
    _write_whole(repo, old)
    current = repo.load(m.id).match
    repo.save(current, expected_version=current.version, record=new)
    assert repo.history(m.id) == [setup, old, new]


def test_dynamodb_stores_the_configuration_once_per_match(
    dynamo_repo: DynamoRepository, dynamo_client: Any
) -> None:
    m = started(make_deps(dynamo_repo))
    records = [
        replace(rec, match_id=m.id, turn=turn)
        for turn, rec in enumerate(turn_records("dragons", 3), 1)
    ]
    for rec in records[:2]:
        current = dynamo_repo.load(m.id).match
        dynamo_repo.save(current, expected_version=current.version, record=rec)
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # another container
    current = fresh.load(m.id).match
    fresh.save(current, expected_version=current.version, record=records[2])
    items = dynamo_client.query(
        TableName=dynamo_repo.table,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :c)",
        ExpressionAttributeValues={":pk": {"S": f"MATCH#{m.id}"}, ":c": {"S": "TURN#CONF#"}},
    )["Items"]
    # Two configurations, each one item: the coin match's own (its turn-0 record) and the
    # dragons records' (written once for three records and two containers).
    assert len(items) == 2
    assert fresh.history(m.id)[1:] == records


class _CountingPuts:
    """The client, noting the sort keys of the items each transaction puts."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.put_keys: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def transact_write_items(self, **kwargs: Any) -> Any:
        for op in kwargs["TransactItems"]:
            if "Put" in op:
                self.put_keys.append(op["Put"]["Item"]["SK"]["S"])
        return self._client.transact_write_items(**kwargs)


def _resolve_in_new_containers(
    dynamo_repo: DynamoRepository, match_id: str, records: list[TurnRecord]
) -> list[str]:
    """Save each record through a fresh instance (a container that never saw the match):
    the sort keys of the configuration items their transactions put."""
    puts: list[str] = []
    for rec in records:
        client = _CountingPuts(dynamo_repo.client)
        fresh = DynamoRepository(client, dynamo_repo.table)
        current = fresh.load(match_id).match
        fresh.save(current, expected_version=current.version, record=rec)
        puts += [sk for sk in client.put_keys if sk.startswith("TURN#CONF#")]
    return puts


def test_dynamodb_puts_a_configuration_once_whichever_container_resolves(
    dynamo_repo: DynamoRepository,
) -> None:
    """The match item knows which configuration items are stored (its ``cf``): a container
    that never read the history does not put the configuration again every turn."""
    m = started(make_deps(dynamo_repo))
    records = [
        replace(rec, match_id=m.id, turn=turn)
        for turn, rec in enumerate(turn_records("dragons", 3), 1)
    ]
    puts = _resolve_in_new_containers(dynamo_repo, m.id, records)
    assert len(puts) == len(set(puts)) == 1  # the dragons configuration, once
    assert DynamoRepository(dynamo_repo.client, dynamo_repo.table).history(m.id)[1:] == records


def test_dynamodb_match_without_the_configuration_list_puts_it_again(
    dynamo_repo: DynamoRepository, dynamo_client: Any
) -> None:
    """A match item written before ``cf`` existed: the next record puts its configuration
    (a harmless put again) and no record ever refers to a missing one."""
    m = started(make_deps(dynamo_repo))
    first, second = (
        replace(rec, match_id=m.id, turn=turn)
        for turn, rec in enumerate(turn_records("dragons", 2), 1)
    )
    assert len(_resolve_in_new_containers(dynamo_repo, m.id, [first])) == 1
    key = {"PK": {"S": f"MATCH#{m.id}"}, "SK": {"S": "CUR#MATCH"}}
    dynamo_client.update_item(
        TableName=dynamo_repo.table, Key=key, UpdateExpression="REMOVE cf"
    )  # as an older version left it
    assert len(_resolve_in_new_containers(dynamo_repo, m.id, [second])) == 1
    assert "cf" in dynamo_client.get_item(TableName=dynamo_repo.table, Key=key)["Item"]
    assert DynamoRepository(dynamo_repo.client, dynamo_repo.table).history(m.id)[1:] == [
        first,
        second,
    ]


def test_what_the_rest_of_a_record_makes_is_not_stored_and_comes_back() -> None:
    """A played turn's record (beacon round, real orders) is stored without the commitment
    (SHA-256 of the seed), the orders' fingerprints (of their fields), the beacon round's
    randomness (SHA-256 of its signature) and number (``beacon_round``): ~35 bytes packed
    each, of an item billed by the started KB. It loads exactly as it was, and its public
    form (the dossier's, the verifier's) still has them all."""
    from tests.support.docpack_dictionary import played

    for turn in played("dragons", 3):
        record = turn.record
        assert record.beacon is not None and all(o.fingerprint for o in record.orders)
        stored, configs = codec.record_to_stored(record)
        assert "commitment" not in stored
        assert all("fingerprint" not in o for o in stored["orders"])
        assert set(stored["beacon"]) == {"network", "signature"}
        assert codec.record_from_stored(json.loads(json.dumps(stored)), configs) == record
        public = codec.record_to_doc(record)
        assert public["commitment"] == record.commitment
        assert public["beacon"]["randomness"] == record.beacon.randomness


def test_fields_the_rest_does_not_make_are_kept_as_they_are() -> None:
    """Only an exact match is left out: a commitment, a fingerprint or a randomness that is
    not what the rest makes (a damaged record, a test's), a beacon round numbered apart, and
    a default order's empty fingerprint are stored and load as they were."""
    from tests.support.docpack_dictionary import played

    record = played("pistol", 2, 1)[0].record
    assert record.beacon is not None
    first, second = record.orders
    odd = replace(
        record,
        commitment="c" * 64,
        orders=(replace(first, fingerprint="f" * 64), replace(second, salt="", fingerprint="")),
        beacon=replace(record.beacon, randomness="0" * 64, round=record.beacon.round + 1),
    )
    stored, configs = codec.record_to_stored(odd)
    assert stored["commitment"] == "c" * 64
    assert [o["fingerprint"] for o in stored["orders"]] == ["f" * 64, ""]
    assert stored["beacon"]["randomness"] == "0" * 64
    assert stored["beacon"]["round"] == record.beacon.round + 1
    assert codec.record_from_stored(json.loads(json.dumps(stored)), configs) == odd
    not_hex = replace(record, seed="not hex", commitment="c")
    stored, configs = codec.record_to_stored(not_hex)
    assert stored["commitment"] == "c"
    assert codec.record_from_stored(stored, configs) == not_hex


def test_records_stored_with_every_field_still_load() -> None:
    """Records stored compactly before derived fields were left out carry them all."""
    from tests.support.docpack_dictionary import played

    record = played("plans", 2, 1)[0].record
    stored, configs = codec.record_to_stored(record)
    full = codec.record_to_doc(record)
    older = stored | {"commitment": full["commitment"], "beacon": full["beacon"]}
    older["orders"] = full["orders"]
    assert codec.record_from_stored(older, configs) == record

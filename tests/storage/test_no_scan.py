"""No code path scans the table: every read is a key lookup or a Query (on the table or a
sparse index), and a load is one Query, a save one TransactWriteItems."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from engine import usecases
from engine.ports import Owed
from engine.ruleset import Outcome
from infra.dynamodb import DynamoRepository
from tests.storage.aws import ClientSpy
from tests.storage.helpers import CHAT, GM, P1, fake_record, make_deps, started

INFRA = Path(__file__).resolve().parents[2] / "infra"


def test_no_repository_method_calls_scan(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    deps = make_deps(dynamo_repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 1, "note": "a"})
    usecases.withdraw_order(deps, m.id, P1, "p1")
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 1, "note": "b"})
    usecases.my_orders(deps, m.id, P1)
    m = dynamo_repo.load(m.id).match
    m = dynamo_repo.save(replace(m, turn=2), expected_version=m.version, record=fake_record(m, 1))
    dynamo_repo.active_in_chat(CHAT)
    dynamo_repo.active_for_user(P1)
    dynamo_repo.due(m.created_at + 10**9)
    dynamo_repo.history(m.id)
    dynamo_repo.save(replace(m, turn=1), expected_version=m.version, drop_record=1)
    claim = dynamo_repo.claim_update(1, 0.0, 60.0)
    dynamo_repo.claim_update(1, 1.0, 60.0)  # processing: the old item comes with the refusal
    dynamo_repo.release_update(1, claim.token)
    claim = dynamo_repo.claim_update(1, 2.0, 60.0)
    dynamo_repo.confirm_update(1, claim.token, 3.0)
    dynamo_repo.flag(m.id, "x")
    usecases.end_match(deps, m.id, GM, Outcome("draw"))
    assert dynamo_spy.calls  # the spy did see the traffic
    assert not [c for c in dynamo_spy.calls if "scan" in c.lower()]


def test_load_is_one_query_and_save_one_write(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    """A save is one request: an UpdateItem for the match item alone (a withdrawal too: the
    sealed orders are in the match item; the messages it owes too: the outbox's entries are
    in the match item), a transaction when other items go with it."""
    m = started(make_deps(dynamo_repo))
    dynamo_spy.calls.clear()
    loaded = dynamo_repo.load(m.id)
    assert dynamo_spy.calls == ["query"]
    dynamo_spy.calls.clear()
    saved = dynamo_repo.save(loaded.match, expected_version=loaded.match.version)
    assert dynamo_spy.calls == ["update_item"]
    dynamo_spy.calls.clear()
    saved = dynamo_repo.save(saved, expected_version=saved.version, withdraw="p1")
    assert dynamo_spy.calls == ["update_item"]
    dynamo_spy.calls.clear()
    owed = Owed(m.id, "status:1", "status", m.chat_id, 1, 1, 0.0)
    saved = dynamo_repo.save(saved, expected_version=saved.version, owe=[owed])
    assert dynamo_spy.calls == ["update_item"]
    dynamo_spy.calls.clear()
    handed = replace(saved, gm_user_id=saved.gm_user_id + 100)  # memberships change
    dynamo_repo.save(handed, expected_version=saved.version, owe=[owed])
    assert dynamo_spy.calls == ["transact_write_items"]


def test_no_adapter_source_mentions_a_scan() -> None:
    for path in INFRA.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\.scan\(|\bScan\b|\"Scan\"", text), path.name

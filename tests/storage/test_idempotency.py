"""A DynamoDB transaction whose response is lost is retried by botocore; the retry must be
the same transaction, not a second write that fails its version condition (DynamoDB would
then answer "conflict" for a write that in fact committed, and the user would see an error
for a seal that was taken).

DynamoDB makes ``TransactWriteItems`` idempotent for ten minutes per ``ClientRequestToken``.
botocore fills that token itself (the model marks it ``idempotencyToken``) and resends the
same request body on a retry, so this rests on the trimmed model keeping the trait
(:mod:`infra.aws`). moto ignores the token, so these tests check what is sent."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from botocore.exceptions import ConnectionClosedError

from engine import usecases
from engine.errors import ConflictError
from engine.ports import Owed
from infra.dynamodb import DynamoRepository
from tests.storage.helpers import GM, make_deps, order, started


def _tokens_with_one_lost_response(repo: DynamoRepository) -> list[str]:
    """Record the ClientRequestToken of every TransactWriteItems attempt; the first attempt
    fails as a dropped connection would (before the request reaches the table), so botocore
    retries it."""
    tokens: list[str] = []

    def spy(request: Any, **_: Any) -> None:
        if request.headers.get("X-Amz-Target", b"").endswith(b"TransactWriteItems"):
            tokens.append(json.loads(request.body)["ClientRequestToken"])
            if len(tokens) == 1:
                raise ConnectionClosedError(endpoint_url=request.url)

    repo.client.meta.events.register_first("before-send.dynamodb.TransactWriteItems", spy)
    return tokens


def test_a_retried_seal_resends_the_same_idempotency_token(dynamo_repo: DynamoRepository) -> None:
    deps = make_deps(dynamo_repo)
    match = started(deps)
    tokens = _tokens_with_one_lost_response(dynamo_repo)
    seal = order(match, "p1")
    handed = replace(match, gm_user_id=GM + 100)  # a membership changes: so a transaction
    saved = dynamo_repo.save(handed, expected_version=match.version, seal=seal)
    assert len(tokens) == 2, "botocore did not retry the transaction"
    assert tokens[0] and tokens[0] == tokens[1]
    assert dynamo_repo.load(match.id).orders["p1"] == seal
    assert saved.version == match.version + 1


class ResendsUpdates:
    """The repository's client, but each ``update_item`` reaches the table and its response
    is lost: it is sent again, as botocore resends a request whose response it did not get."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent = 0

    def update_item(self, **kwargs: Any) -> Any:
        self.inner.update_item(**kwargs)
        self.sent += 2
        return self.inner.update_item(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_seal_saved_alone_whose_response_was_lost_is_not_a_conflict(
    dynamo_repo: DynamoRepository,
) -> None:
    """A save of the match item alone is an UpdateItem, which has no idempotency token: its
    resend fails the version condition on the item the first attempt wrote. The repository
    recognizes its own write in the item the refusal returns (docs/storage.md)."""
    deps = make_deps(dynamo_repo)
    match = started(deps)
    real = dynamo_repo.client
    dynamo_repo.client = resending = ResendsUpdates(real)
    seal = order(match, "p1")
    saved = dynamo_repo.save(match, expected_version=match.version, seal=seal)
    assert resending.sent == 2
    assert saved.version == match.version + 1
    again = replace(order(saved, "p1", move="charge"), salt="77aa")  # replacing it, resent too
    dynamo_repo.save(saved, expected_version=saved.version, seal=again)
    assert dynamo_repo.load(match.id).orders["p1"] == again
    withdrawn = dynamo_repo.load(match.id).match
    dynamo_repo.save(withdrawn, expected_version=withdrawn.version, withdraw="p1")
    # Owed messages ride on the same UpdateItem (the outbox's map and index keys): resent too.
    owing = dynamo_repo.load(match.id).match
    first = Owed(match.id, "receipt:1:p1", "receipt", 11, 1, 1, 0.0, data={"n": 1})
    owing = dynamo_repo.save(owing, expected_version=owing.version, owe=[first])
    second = Owed(match.id, "status:1", "status", 11, 1, 2, 0.0, sent={"x": [1, 2, 3]})
    dynamo_repo.save(owing, expected_version=owing.version, owe=[second])
    dynamo_repo.client = real
    assert dynamo_repo.load(match.id).orders == {}
    owed = {o.key: o for o in dynamo_repo.owed(match.id)}
    assert (owed["receipt:1:p1"], owed["status:1"]) == (first, second)
    # Someone else's write at that version is still a conflict.
    current = dynamo_repo.load(match.id).match
    dynamo_repo.save(current, expected_version=current.version, seal=order(current, "p2"))
    with pytest.raises(ConflictError):
        dynamo_repo.save(current, expected_version=current.version, seal=order(current, "p1"))


def test_each_transaction_has_its_own_token(dynamo_repo: DynamoRepository) -> None:
    deps = make_deps(dynamo_repo)
    tokens = _tokens_with_one_lost_response(dynamo_repo)
    started(deps)  # create, joins, characters, start: one transaction each
    usecases.create_match(deps, -1002, GM, "coin")
    assert len(tokens) >= 6
    assert tokens[0] == tokens[1]  # the retried first one
    assert len(set(tokens[1:])) == len(tokens) - 1

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
from typing import Any

from botocore.exceptions import ConnectionClosedError

from engine import usecases
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
    saved = dynamo_repo.save(match, expected_version=match.version, seal=seal)
    assert len(tokens) == 2, "botocore did not retry the transaction"
    assert tokens[0] and tokens[0] == tokens[1]
    assert dynamo_repo.load(match.id).orders["p1"] == seal
    assert saved.version == match.version + 1


def test_each_transaction_has_its_own_token(dynamo_repo: DynamoRepository) -> None:
    deps = make_deps(dynamo_repo)
    tokens = _tokens_with_one_lost_response(dynamo_repo)
    started(deps)  # create, joins, characters, start: one transaction each
    usecases.create_match(deps, -1002, GM, "coin")
    assert len(tokens) >= 6
    assert tokens[0] == tokens[1]  # the retried first one
    assert len(set(tokens[1:])) == len(tokens) - 1

"""template.yaml: a valid SAM template whose Table is what the DynamoDB adapter expects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from infra import dynamo_outbox, dynamodb
from tests.storage.aws import TEMPLATE, load_template, table_properties


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def test_template_is_a_sam_template_with_parameters(template: dict[str, Any]) -> None:
    assert template["Transform"] == "AWS::Serverless-2016-10-31"
    assert template["Parameters"]


def test_cfn_lint_finds_nothing() -> None:
    from cfnlint.api import ManualArgs, lint_file

    assert lint_file(Path(TEMPLATE), config=ManualArgs(regions=["eu-west-1"])) == []


def test_the_table_matches_the_adapter(template: dict[str, Any]) -> None:
    table = template["Resources"]["Table"]
    assert table["Type"] == "AWS::DynamoDB::Table"
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"
    props = table_properties()  # as deployed with the parameters' defaults
    assert props["BillingMode"] == "PAY_PER_REQUEST"  # on demand unless the operator says
    assert "ProvisionedThroughput" not in props
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["PK", "SK"]
    indexes = {g["IndexName"]: g for g in props["GlobalSecondaryIndexes"]}
    assert set(indexes) == {dynamodb.DEADLINE_INDEX, dynamodb.CHAT_INDEX, dynamo_outbox.OWED_INDEX}
    assert [k["AttributeName"] for k in indexes["GSI1"]["KeySchema"]] == ["GSI1PK", "GSI1SK"]
    assert indexes["GSI1"]["Projection"]["ProjectionType"] == "KEYS_ONLY"  # ids only
    chat = indexes[dynamodb.CHAT_INDEX]
    assert [k["AttributeName"] for k in chat["KeySchema"]] == ["GSI2PK", "GSI2SK"]
    assert chat["Projection"]["ProjectionType"] == "KEYS_ONLY"  # a write of a match, once
    owed = indexes[dynamo_outbox.OWED_INDEX]  # matches with pending owed messages
    assert [k["AttributeName"] for k in owed["KeySchema"]] == [
        dynamo_outbox.OWED_PK,
        dynamo_outbox.OWED_AT,
    ]
    assert owed["Projection"]["ProjectionType"] == "KEYS_ONLY"
    types = {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]}
    assert types[dynamo_outbox.OWED_AT] == "N"  # a time: the sweeper's "at or before now"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_the_moto_table_has_ttl_enabled(dynamo_client: Any) -> None:
    from tests.storage.conftest import TABLE

    ttl = dynamo_client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_sam_translates_the_template_offline(template: dict[str, Any]) -> None:
    from samtranslator.translator.transform import transform

    class OfflinePolicyLoader:
        def load(self) -> dict[str, str]:
            return {}

    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = "s3://placeholder-bucket/code.zip"
        if resource["Type"] == "AWS::Serverless::LayerVersion":
            resource["Properties"]["ContentUri"] = "s3://placeholder-bucket/layer.zip"
    cfn = transform(template, {}, OfflinePolicyLoader())
    assert cfn["Resources"]["Table"]["Type"] == "AWS::DynamoDB::Table"

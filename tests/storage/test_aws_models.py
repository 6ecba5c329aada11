"""The trimmed AWS models shipped in ``infra/aws_models`` (:mod:`infra.aws`): equal to the
installed botocore's for the operations we call, and enough for the code that calls them."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from infra import aws

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("service", sorted(aws.OPERATIONS))
def test_the_shipped_model_is_the_installed_botocore_one_trimmed(service: str) -> None:
    version, full = aws.installed_model(service)
    path = aws.model_path(service, version)
    assert path.is_file(), f"{path} missing: run python -m infra.aws"
    shipped = json.loads(path.read_text(encoding="utf-8"))
    assert shipped == aws.trimmed_model(full, aws.OPERATIONS[service]), (
        "botocore's model changed: run python -m infra.aws and commit infra/aws_models"
    )
    for name, op in shipped["operations"].items():  # verbatim apart from the documentation
        assert {k: v for k, v in full["operations"][name].items() if "documentation" not in k} == op
    assert not [p for p in path.parent.parent.iterdir() if p.name != version]


def test_the_shipped_endpoints_are_the_installed_botocore_ones_trimmed() -> None:
    shipped = json.loads(aws.ENDPOINTS.read_text(encoding="utf-8"))
    assert shipped == aws.trimmed_endpoints(aws.installed_endpoints()), (
        "botocore's endpoints changed: run python -m infra.aws and commit infra/aws_models"
    )


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "dynamodb": ("get_item", {"TableName": "t", "Key": {"pk": {"S": "x"}}}),
    "ssm": ("get_parameter", {"Name": "/x", "WithDecryption": True}),
    "secretsmanager": ("get_secret_value", {"SecretId": "s"}),
    "sqs": (
        "send_message",
        {"QueueUrl": "https://sqs.eu-west-1.amazonaws.com/1/q", "MessageBody": "x"},
    ),
}


class _SentError(Exception):
    pass


def _request(client: Any, service: str) -> tuple[str, str, str]:
    """URL, credential scope and target of the request ``client`` would send."""
    seen: list[tuple[str, str, str]] = []

    def stop(request: Any, **_: Any) -> None:
        auth = request.headers["Authorization"].decode()
        scope = auth.split("Credential=")[1].split(",")[0].split("/", 2)[2]
        seen.append((request.url, scope, request.headers["X-Amz-Target"].decode()))
        raise _SentError

    client.meta.events.register("before-send", stop)
    method, params = CALLS[service]
    with pytest.raises(_SentError):
        getattr(client, method)(**params)
    return seen[0]


@pytest.mark.parametrize("service", sorted(aws.OPERATIONS))
@pytest.mark.parametrize("region", ["eu-west-1", "us-gov-west-1", "cn-north-1"])
@pytest.mark.parametrize("fips", [False, True])
def test_a_trimmed_client_sends_what_a_boto3_client_sends(
    service: str, region: str, fips: bool
) -> None:
    import boto3
    from botocore.config import Config

    config = Config(use_fips_endpoint=fips)
    full = boto3.client(service, region_name=region, config=config)  # type: ignore[call-overload]
    ours = aws.client(service, region_name=region, config=config)
    assert _request(ours, service) == _request(full, service)
    assert ours.meta.partition == full.meta.partition


def _called(path: Path) -> set[str]:
    """Method names called on ``client``/``self.client`` in a module."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            owner_name = (
                owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            )
            if owner_name == "client":
                names.add(node.func.attr)
    return names


def test_every_operation_our_code_calls_is_in_the_trimmed_models() -> None:
    from botocore import xform_name

    def ops(service: str) -> set[str]:
        return {xform_name(name) for name in aws.OPERATIONS[service]}

    assert _called(ROOT / "infra" / "dynamodb.py") <= ops("dynamodb")
    assert _called(ROOT / "infra" / "secrets.py") <= ops("ssm") | ops("secretsmanager")
    assert _called(ROOT / "infra" / "later.py") == ops("sqs")


def test_a_trimmed_client_is_a_regular_client() -> None:
    client = aws.client("dynamodb", region_name="eu-west-1")
    assert client.meta.endpoint_url == "https://dynamodb.eu-west-1.amazonaws.com"
    assert sorted(client.meta.service_model.operation_names) == sorted(aws.OPERATIONS["dynamodb"])
    with pytest.raises(ValueError, match="no trimmed model"):
        aws.client("s3")

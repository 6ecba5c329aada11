"""The trimmed AWS models shipped in ``infra/aws_models`` (:mod:`infra.aws`): equal to the
installed botocore's for the operations we call, and enough for the code that calls them."""

from __future__ import annotations

import ast
import json
from pathlib import Path

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


def test_a_trimmed_client_is_a_regular_client() -> None:
    client = aws.client("dynamodb", region_name="eu-west-1")
    assert client.meta.endpoint_url == "https://dynamodb.eu-west-1.amazonaws.com"
    assert sorted(client.meta.service_model.operation_names) == sorted(aws.OPERATIONS["dynamodb"])
    with pytest.raises(ValueError, match="no trimmed model"):
        aws.client("s3")

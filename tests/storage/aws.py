"""The moto table, created from ``template.yaml``'s own ``Table`` definition (so the code and
the deployed key schema, indexes and TTL cannot drift). Shared by tests and the benchmark."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"

FAKE_ENV = {
    "AWS_DEFAULT_REGION": "eu-west-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}


def use_fake_aws_env() -> None:
    """Fake credentials and region, and no custom endpoint, so nothing can reach AWS."""
    os.environ.update(FAKE_ENV)
    os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.pop("AWS_PROFILE", None)


def load_template() -> dict[str, Any]:
    from cfnlint.decode import decode

    template, errors = decode(str(TEMPLATE))
    if errors or template is None:
        raise RuntimeError(f"template.yaml does not parse: {errors}")
    return json.loads(json.dumps(template))  # plain dicts (no cfn-lint node types)


def table_properties() -> dict[str, Any]:
    return dict(load_template()["Resources"]["Table"]["Properties"])


def create_table(client: Any, name: str) -> None:
    """``create_table`` with the template's properties; TTL applied separately (moto, like
    CloudFormation, takes it as its own call)."""
    props = table_properties()
    ttl = props.pop("TimeToLiveSpecification")
    props.pop("PointInTimeRecoverySpecification", None)
    props.pop("DeletionProtectionEnabled", None)  # an intrinsic (!If), not a literal
    client.create_table(TableName=name, **props)
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
    )

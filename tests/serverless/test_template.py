"""template.yaml: cfn-lint clean, and its SAM translation (aws-sam-translator, offline) checked
resource by resource; then deployed into moto's CloudFormation as a smoke test."""

from __future__ import annotations

import io
import json
import re
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.storage.aws import FAKE_ENV, TEMPLATE, load_template

REGION = FAKE_ENV["AWS_DEFAULT_REGION"]
PARAMS = {"BotUsername": "sekundant_bot"}
FUNCTIONS = {
    "WebhookFunction": "handlers.lambda_webhook.lambda_handler",
    "SweeperFunction": "handlers.lambda_sweeper.lambda_handler",
    "WebAppFunction": "handlers.webapp.lambda_entry.lambda_handler",
    "ResolverFunction": "handlers.lambda_resolver.lambda_handler",
}
INFRA = Path(__file__).resolve().parents[2] / "infra"
DYNAMODB_REPO = (INFRA / "dynamodb.py", INFRA / "dynamo_outbox.py")  # the adapter's modules


def _repository_code() -> str:
    return "\n".join(path.read_text() for path in DYNAMODB_REPO)


class OfflinePolicyLoader:
    """No managed-policy lookup (that would call IAM): the template names none."""

    def load(self) -> dict[str, str]:
        return {}


@cache
def translated() -> dict[str, Any]:
    from samtranslator.translator.transform import transform

    tpl = load_template()
    # The translator only accepts S3 code locations (SAM CLI substitutes them the same way).
    tpl["Globals"]["Function"]["CodeUri"] = "s3://placeholder-bucket/code.zip"
    tpl["Resources"]["PicturesLayer"]["Properties"]["ContentUri"] = "s3://placeholder-bucket/l.zip"
    out: dict[str, Any] = transform(tpl, dict(PARAMS), OfflinePolicyLoader())
    return json.loads(json.dumps(out))


def resources(kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in translated()["Resources"].items() if v["Type"] == kind}


def statements(function: str) -> list[dict[str, Any]]:
    role = translated()["Resources"][f"{function}Role"]["Properties"]
    return [s for p in role["Policies"] for s in p["PolicyDocument"]["Statement"]]


def test_cfn_lint_is_clean() -> None:
    from cfnlint.api import ManualArgs, lint_file

    assert lint_file(TEMPLATE, config=ManualArgs(regions=[REGION])) == []


def test_the_translated_template_is_cfn_lint_clean() -> None:
    from cfnlint.api import ManualArgs, lint

    matches = lint(json.dumps(translated()), config=ManualArgs(regions=[REGION]))
    assert matches == []


def test_functions_run_a_current_python_on_arm64_with_our_handlers() -> None:
    fns = resources("AWS::Lambda::Function")
    assert set(fns) == set(FUNCTIONS)
    for name, handler in FUNCTIONS.items():
        props = fns[name]["Properties"]
        assert props["Handler"] == handler
        assert props["Runtime"] in ("python3.12", "python3.13")
        assert props["Architectures"] == ["arm64"]
    # The HTTP API integration gives up at 30 s; a sweep must end before the next one.
    assert fns["WebhookFunction"]["Properties"]["Timeout"] <= 30
    assert fns["SweeperFunction"]["Properties"]["Timeout"] < 60


def test_no_token_in_the_environment_only_where_it_is_kept() -> None:
    for name in FUNCTIONS:
        env = translated()["Resources"][name]["Properties"]["Environment"]["Variables"]
        assert "TELEGRAM_BOT_TOKEN" not in env
        assert env["SEKUNDANT_TOKEN_PARAMETER"] == {"Ref": "BotTokenParameterName"}
        assert env["SEKUNDANT_STORE"] == "dynamodb"
        assert env["SEKUNDANT_TABLE"] == {"Ref": "Table"}
    tpl = load_template()
    assert tpl["Parameters"]["BotTokenParameterName"]["Default"].startswith("/")
    # Only where the token is kept is a parameter; the token itself never is.
    tokenish = {k for k in tpl["Parameters"] if "token" in k.lower()}
    assert tokenish == {"BotTokenParameterName", "BotTokenKmsKeyArn"}
    webhook_env = translated()["Resources"]["WebhookFunction"]["Properties"]["Environment"]
    assert webhook_env["Variables"]["SEKUNDANT_WEBHOOK_SECRET"] == {"Ref": "WebhookSecret"}


def test_webhook_secret_is_generated_in_telegrams_charset() -> None:
    (secret,) = resources("AWS::SecretsManager::Secret").values()
    gen = secret["Properties"]["GenerateSecretString"]
    assert gen["ExcludePunctuation"] is True and gen.get("IncludeSpace") is False
    assert 16 <= gen["PasswordLength"] <= 256


def test_table_has_ttl_pitr_and_the_indexes_the_code_queries() -> None:
    props = translated()["Resources"]["Table"]["Properties"]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    code = _repository_code()
    for index in props["GlobalSecondaryIndexes"]:
        assert f'"{index["IndexName"]}"' in code


def _client_calls() -> set[str]:
    code = _repository_code()
    return set(re.findall(r"self\.client\.(\w+)\(", code))


def test_iam_grants_exactly_the_dynamodb_actions_the_repository_uses() -> None:
    # TransactWriteItems is authorised per contained operation (Put/Delete/Update/ConditionCheck).
    code = _repository_code()
    used = {
        "".join(w.capitalize() for w in call.split("_"))
        for call in _client_calls() - {"transact_write_items"}
    }
    if "transact_write_items" in _client_calls():
        used |= {op + "Item" for op in ("Put", "Delete", "Update") if f'"{op}"' in code}
        if '"ConditionCheck"' in code:
            used.add("ConditionCheckItem")
    for fn in FUNCTIONS:
        dynamo = [s for s in statements(fn) if any(a.startswith("dynamodb:") for a in _actions(s))]
        granted = {a.removeprefix("dynamodb:") for s in dynamo for a in _actions(s)}
        assert granted == used, fn
        for s in dynamo:  # only this table and its indexes
            assert s["Resource"] == [
                {"Fn::GetAtt": ["Table", "Arn"]},
                {"Fn::Sub": "${Table.Arn}/index/*"},
            ]


def _actions(statement: dict[str, Any]) -> list[str]:
    if "Fn::If" in statement:
        return _actions(statement["Fn::If"][1])
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def test_iam_reads_only_the_token_parameter_and_the_webhook_secret() -> None:
    for fn in FUNCTIONS:
        by_sid = {s.get("Sid"): s for s in statements(fn) if "Sid" in s}
        token = by_sid["BotToken"]
        assert token["Action"] == "ssm:GetParameter"
        assert token["Resource"]["Fn::Sub"].endswith(":parameter${BotTokenParameterName}")
        kms = [s for s in statements(fn) if "Fn::If" in s]
        assert [s["Fn::If"][0] for s in kms] == ["CustomTokenKey"]
        assert kms[0]["Fn::If"][1]["Action"] == "kms:Decrypt"
        assert kms[0]["Fn::If"][1]["Resource"] == {"Ref": "BotTokenKmsKeyArn"}
        assert not any("*" in str(_actions(s)) for s in statements(fn))
    webhook = {s.get("Sid"): s for s in statements("WebhookFunction")}
    assert webhook["WebhookSecret"] == {
        "Sid": "WebhookSecret",
        "Effect": "Allow",
        "Action": "secretsmanager:GetSecretValue",
        "Resource": {"Ref": "WebhookSecret"},
    }
    for fn in ("SweeperFunction", "WebAppFunction", "ResolverFunction"):
        assert "WebhookSecret" not in {s.get("Sid") for s in statements(fn)}


def test_locked_turns_go_to_the_resolver_through_one_queue_with_dead_letters() -> None:
    """docs/deploy.md, "The beacon wait": every function that may lock a turn may send to the
    resolve queue (and nothing else of SQS); only the resolver's role reads and deletes its
    messages, through a mapping that reports failed messages one by one."""
    res = translated()["Resources"]
    queue = res["ResolveQueue"]["Properties"]
    for fn in FUNCTIONS:
        env = res[fn]["Properties"]["Environment"]["Variables"]
        assert env["SEKUNDANT_RESOLVE_QUEUE"] == {"Ref": "ResolveQueue"}, fn
        assert env["SEKUNDANT_PACK_VERSION"] == {"Ref": "PackVersion"}, fn  # (its own test)
        failures = {"Fn::GetAtt": ["SweeperFailures", "Arn"]}  # the sweeper's destination
        sqs = [
            s
            for s in statements(fn)
            if any(a.startswith("sqs:") for a in _actions(s)) and s.get("Resource") != failures
        ]
        granted = {a for s in sqs for a in _actions(s)}
        consume = {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}
        want = {"sqs:SendMessage"} | (consume if fn == "ResolverFunction" else set())
        assert granted == want, fn
        assert all(s["Resource"] == {"Fn::GetAtt": ["ResolveQueue", "Arn"]} for s in sqs), fn
    (mapping,) = resources("AWS::Lambda::EventSourceMapping").values()
    props = mapping["Properties"]
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["ResolveQueue", "Arn"]}
    assert props["FunctionName"] == {"Ref": "ResolverFunction"}
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["MaximumBatchingWindowInSeconds"] == 0
    timeout = res["ResolverFunction"]["Properties"]["Timeout"]
    assert queue["VisibilityTimeout"] >= 6 * timeout  # AWS's advice for an event source
    redrive = queue["RedrivePolicy"]
    assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": ["ResolveDeadLetters", "Arn"]}
    alarm = res["ResolveDeadLettersAlarm"]["Properties"]
    assert alarm["Dimensions"][0]["Value"] == {"Fn::GetAtt": ["ResolveDeadLetters", "QueueName"]}
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    assert res["ResolverErrorsAlarm"]["Properties"]["Dimensions"][0]["Value"] == {
        "Ref": "ResolverFunction"
    }


def test_json_logs_in_log_groups_with_retention() -> None:
    groups = resources("AWS::Logs::LogGroup")
    for name in FUNCTIONS:
        logging = translated()["Resources"][name]["Properties"]["LoggingConfig"]
        assert logging["LogFormat"] == "JSON"
        group = groups[logging["LogGroup"]["Ref"]]
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert load_template()["Parameters"]["LogRetentionDays"]["Default"] == 30


def test_sweeper_runs_every_minute_on_a_schedule_named_after_the_stack() -> None:
    (schedule,) = resources("AWS::Scheduler::Schedule").values()
    props = schedule["Properties"]
    assert props["ScheduleExpression"] == "rate(1 minute)"
    assert props["Name"] == {"Fn::Sub": "${AWS::StackName}-deadline-sweep"}
    assert props["Target"]["Arn"] == {"Fn::GetAtt": ["SweeperFunction", "Arn"]}


def test_webhook_is_a_post_route_of_an_http_api_and_an_output() -> None:
    (api,) = resources("AWS::ApiGatewayV2::Api").values()
    paths = api["Properties"]["Body"]["paths"]
    integration = paths["/webhook"]["post"]["x-amazon-apigateway-integration"]
    assert integration["payloadFormatVersion"] == "2.0"
    outputs = translated()["Outputs"]
    assert outputs["WebhookUrl"]["Value"]["Fn::Sub"].endswith("/webhook")
    assert outputs["TableName"]["Value"] == {"Ref": "Table"}
    assert {"WebhookSecretArn", "BotTokenParameterName", "BotUsername"} <= set(outputs)


def test_the_order_page_and_its_api_are_routes_of_the_same_http_api() -> None:
    (api,) = resources("AWS::ApiGatewayV2::Api").values()
    paths = api["Properties"]["Body"]["paths"]
    for path, method in (("/app/{file+}", "get"), ("/app", "get"), ("/api/{route}", "post")):
        integration = paths[path][method]["x-amazon-apigateway-integration"]
        assert "WebAppFunction" in json.dumps(integration["uri"]), path
        assert integration["payloadFormatVersion"] == "2.0"
    outputs = translated()["Outputs"]
    assert outputs["WebAppUrl"]["Value"]["Fn::Sub"].endswith("/app/")
    sweeper = translated()["Resources"]["SweeperFunction"]["Properties"]["Environment"]
    page = sweeper["Variables"]["SEKUNDANT_WEBAPP_URL"]["Fn::Sub"]
    assert page == outputs["WebAppUrl"]["Value"]["Fn::Sub"]  # its turns get the button too
    webhook = outputs["WebhookUrl"]["Value"]["Fn::Sub"].removesuffix("/webhook")
    assert outputs["WebAppUrl"]["Value"]["Fn::Sub"] == webhook + "/app/"


@pytest.fixture
def cloudformation() -> Any:
    import boto3
    from moto import mock_aws

    with mock_aws():
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(
            Bucket="placeholder-bucket",
            CreateBucketConfiguration={"LocationConstraint": REGION},  # type: ignore[typeddict-item]
        )
        code = io.BytesIO()
        with zipfile.ZipFile(code, "w") as z:
            z.writestr("handlers/__init__.py", "")
        s3.put_object(Bucket="placeholder-bucket", Key="code.zip", Body=code.getvalue())
        yield boto3.client("cloudformation", region_name=REGION)


def _deploy(cloudformation: Any, **params: str) -> tuple[dict[str, str], dict[str, Any]]:
    """The stack created in moto with ``params`` beside :data:`PARAMS`: its outputs and
    its table as DynamoDB describes it."""
    import boto3

    cloudformation.create_stack(
        StackName="sekundant",
        TemplateBody=json.dumps(translated()),
        Parameters=[
            {"ParameterKey": k, "ParameterValue": v} for k, v in {**PARAMS, **params}.items()
        ],
        Capabilities=["CAPABILITY_IAM"],
    )
    stack = cloudformation.describe_stacks(StackName="sekundant")["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    table = boto3.client("dynamodb", region_name=REGION).describe_table(
        TableName=outputs["TableName"]
    )["Table"]
    return outputs, table


def test_the_stack_deploys_into_moto_and_creates_the_table_the_code_expects(
    cloudformation: Any,
) -> None:
    import boto3

    outputs, table = _deploy(cloudformation)
    want = load_template()["Resources"]["Table"]["Properties"]
    assert table["KeySchema"] == want["KeySchema"]
    assert sorted(i["IndexName"] for i in table["GlobalSecondaryIndexes"]) == sorted(
        i["IndexName"] for i in want["GlobalSecondaryIndexes"]
    )
    # The repository works against the deployed table.
    from infra.dynamodb import DynamoRepository

    repo = DynamoRepository(boto3.client("dynamodb", region_name=REGION), outputs["TableName"])
    claim = repo.claim_update(1, 1_764_440_000.0, 30.0)
    assert claim.status == "claimed"
    assert repo.claim_update(1, 1_764_440_000.0, 30.0).status == "processing"
    assert repo.confirm_update(1, claim.token, 1_764_440_001.0)
    fns = boto3.client("lambda", region_name=REGION).list_functions()["Functions"]
    assert sorted(f["Handler"] for f in fns) == sorted(FUNCTIONS.values())


def test_provisioned_capacity_scales_the_table_and_every_index_at_the_bench_s_utilization() -> None:
    """TableBillingMode PROVISIONED (docs/deploy.md, "Provisioned capacity"): the table and
    each index hold read and write capacity, each scaled by target tracking at the
    utilization the load run's bill assumes (tests/bench/load/cost.py), capped by
    TableMaxCapacity; on demand (the default) none of it exists."""
    from tests.bench.load.cost import TARGET_UTILIZATION

    tpl = load_template()
    table = tpl["Resources"]["Table"]["Properties"]
    assert tpl["Parameters"]["TableBillingMode"]["Default"] == "PAY_PER_REQUEST"
    assert table["BillingMode"] == {"Ref": "TableBillingMode"}
    held = [table, *table["GlobalSecondaryIndexes"]]
    for props in held:  # capacity only when provisioned
        cond, capacity, otherwise = props["ProvisionedThroughput"]["Fn::If"]
        assert cond == "Provisioned" and otherwise == {"Ref": "AWS::NoValue"}
        assert set(capacity) == {"ReadCapacityUnits", "WriteCapacityUnits"}
    targets = {
        k: v for k, v in tpl["Resources"].items()
        if v["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"
    }  # fmt: skip
    scaled = {
        (json.dumps(t["Properties"]["ResourceId"]), t["Properties"]["ScalableDimension"])
        for t in targets.values()
    }
    names = ["", *(f"/index/{i['IndexName']}" for i in table["GlobalSecondaryIndexes"])]
    kinds = ["table", *["index"] * len(table["GlobalSecondaryIndexes"])]
    assert scaled == {
        (json.dumps({"Fn::Sub": f"table/${{Table}}{name}"}), f"dynamodb:{kind}:{unit}CapacityUnits")
        for name, kind in zip(names, kinds, strict=True)
        for unit in ("Read", "Write")
    }
    for t in targets.values():
        assert t["Condition"] == "Provisioned"
        assert t["Properties"]["MaxCapacity"] == {"Ref": "TableMaxCapacity"}
    policies = [
        v for v in tpl["Resources"].values()
        if v["Type"] == "AWS::ApplicationAutoScaling::ScalingPolicy"
    ]  # fmt: skip
    assert sorted(p["Properties"]["ScalingTargetId"]["Ref"] for p in policies) == sorted(targets)
    for p in policies:
        assert p["Condition"] == "Provisioned"
        config = p["Properties"]["TargetTrackingScalingPolicyConfiguration"]
        assert config["TargetValue"] == TARGET_UTILIZATION * 100


def test_a_provisioned_stack_deploys_into_moto_with_capacity_on_the_table_and_indexes(
    cloudformation: Any,
) -> None:
    _outputs, table = _deploy(cloudformation, TableBillingMode="PROVISIONED")
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 5
    for index in table["GlobalSecondaryIndexes"]:
        assert index["ProvisionedThroughput"]["ReadCapacityUnits"] == 5

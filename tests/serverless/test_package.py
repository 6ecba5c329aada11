"""The Lambda package as ``make deploy`` stages it: only production code, and it works under
the runtime's Python (3.12) with the oldest botocore that runtime ships.

The run installs the package's requirements for python3.12 from PyPI into a temporary folder
(as ``sam build`` does) plus that botocore, so it is skipped without python3.12 or without
PyPI; the package contents are checked in any case."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from infra import deploy

ROOT = Path(__file__).resolve().parents[2]
# The oldest botocore of the python3.12 Lambda runtime we test against (the runtime was
# launched in late 2023; its SDK has only been upgraded since). With its default retry mode
# ("legacy", 5 retries) a failing table outlived the webhook's Timeout; infra.aws sets the
# Config explicitly, and this run checks the old botocore takes it.
OLDEST_BOTOCORE = "1.31.85"
BOTOCORE_DEPS = ("jmespath<2", "python-dateutil<3", "urllib3<2.1")


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("src")
    for package in deploy.PACKAGES:
        (root / package).symlink_to(ROOT / package, target_is_directory=True)
    (root / "requirements-lambda.txt").symlink_to(ROOT / "requirements-lambda.txt")
    return deploy.stage(root)


def test_the_package_holds_no_development_code(staged: Path) -> None:
    for dev in deploy.DEV_ONLY:
        assert (ROOT / dev).is_file(), dev  # still in the repository
        assert not (staged / dev).exists(), dev
    assert (staged / "handlers" / "lambda_webhook.py").is_file()
    assert (staged / "infra" / "dynamodb.py").is_file()
    assert not list(staged.rglob("tests"))


def test_the_package_answers_an_update_under_the_runtime_python_and_oldest_botocore(
    staged: Path, tmp_path: Path
) -> None:
    try:
        python = deploy.find_python("3.12")
    except deploy.DeployError:
        pytest.skip("python3.12 is not installed (the package contents are still checked)")
    deps = tmp_path / "deps"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    wanted = ["-r", str(staged / "requirements.txt"), f"botocore=={OLDEST_BOTOCORE}"]
    install = subprocess.run(
        [*pip, "--target", str(deps), *wanted, *BOTOCORE_DEPS],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if install.returncode != 0:
        pytest.skip(f"cannot install the requirements from PyPI: {install.stderr[-300:]}")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{staged}{os.pathsep}{deps}"}
    run = subprocess.run(
        [str(python), "-s", str(Path(__file__).with_name("package_check.py")), OLDEST_BOTOCORE],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["python"].startswith("3.12.") and seen["botocore"] == OLDEST_BOTOCORE

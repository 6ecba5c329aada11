"""Lambda figures: cold-start ratio, deployment package size, peak memory of a duel.

- Cold start: a fresh interpreter importing the webhook module and wiring a container
  (settings, token and secret readers, DynamoDB client, Application built and initialised;
  AWS secret reads stubbed, no network), as a ratio to a fresh ``import boto3, telegram.ext``
  in the same run (median of interleaved runs, bytecode already compiled). Target <= 1.25.
- Package: ``requirements-lambda.txt`` installed for the runtime (manylinux2014_aarch64,
  cp312, no boto3: the runtime has it) plus the staged packages, zipped. Target <= 10 MB.
  Needs the package index (pip download); skipped when it is unreachable.
- Peak RSS of a fresh process: cold start plus a whole pistol duel through the webhook
  handler over moto (moto's own import and table included, so this over-states Lambda).
  Target <= 128 MB.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7

BASELINE = "import boto3, telegram.ext"
COLD_START = """
import os
os.environ.update(AWS_DEFAULT_REGION="eu-west-1", AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x")
import handlers.lambda_webhook
from handlers import runtime
from handlers.telegram.fake_api import FakeBotAPI

class Stub:
    def get_parameter(self, **kw):
        return {"Parameter": {"Value": "7000000001:AAH-sandbox-token-not-a-real-one-xx"}}
    def get_secret_value(self, **kw):
        return {"SecretString": "bench-secret"}

def clients(service):
    if service == "dynamodb":
        import boto3
        return boto3.client("dynamodb")
    return Stub()

env = {"TELEGRAM_BOT_USERNAME": "sekundant_bot", "SEKUNDANT_TOKEN_PARAMETER": "/t",
       "SEKUNDANT_WEBHOOK_SECRET": "arn", "SEKUNDANT_TABLE": "t"}
runtime.cold_start(env, request=FakeBotAPI(), clients=clients)
"""
DUEL = """
import resource, sys
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly",
    "tests/serverless/test_webhook.py::test_whole_pistol_duel_through_the_webhook"]) or print(
    "RSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def _time(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return time.perf_counter() - started


def cold_start_ratio() -> None:
    for code in (BASELINE, COLD_START):  # warm the bytecode caches
        _time(code)
    base, ours = [], []
    for _ in range(RUNS):
        base.append(_time(BASELINE))
        ours.append(_time(COLD_START))
    b, o = statistics.median(base), statistics.median(ours)
    print(
        f"   cold start: {o * 1000:.0f} ms vs import boto3+telegram.ext {b * 1000:.0f} ms "
        f"-> ratio {o / b:.2f} (target <= 1.25; median of {RUNS})"
    )


def package_size() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "pkg"
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(target),
            "--platform",
            "manylinux2014_aarch64",
            "--implementation",
            "cp",
            "--python-version",
            "3.12",
            "--only-binary=:all:",
            "--no-compile",
            "-r",
            str(ROOT / "requirements-lambda.txt"),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            print(
                f"   package: skipped (pip could not fetch wheels: "
                f"{done.stderr.strip().splitlines()[-1:]})"
            )
            return
        src = Path(tmp) / "src"
        src.mkdir()
        stage_dir = _stage_into(src)
        zpath = Path(tmp) / "code.zip"
        unzipped = 0
        with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
            for base in (target, stage_dir):
                for f in base.rglob("*"):
                    if f.is_file() and "__pycache__" not in f.parts:
                        z.write(f, f.relative_to(base))
                        unzipped += f.stat().st_size
        mb = zpath.stat().st_size / 1e6
        print(
            f"   package: {mb:.1f} MB zipped, {unzipped / 1e6:.1f} MB unzipped, before "
            f"bytecode (target <= 10 MB zipped; boto3 excluded, the runtime has it)"
        )


def _stage_into(tmp: Path) -> Path:
    """Stage the real packages (as ``make deploy`` does: catalogs compiled to ``.mo``) without
    touching ``build/``."""
    import shutil

    from infra.deploy import IGNORE, PACKAGES, compile_catalogs

    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp / package, ignore=IGNORE)
    compile_catalogs(tmp)
    return tmp


def peak_memory() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", DUEL], cwd=ROOT, capture_output=True, text=True, env=env, check=False
    )
    rss = [line for line in done.stdout.splitlines() if line.startswith("RSS")]
    if done.returncode != 0 or not rss:
        print(f"   peak RSS: not measured (the duel failed: {done.stdout[-300:]!r})")
        return
    mib = int(rss[-1].split()[1]) / 1024
    print(
        f"   peak RSS: {mib:.0f} MiB for cold start + a whole duel through the webhook "
        f"(incl. pytest and moto; target <= 128 MB)"
    )


def main() -> None:
    cold_start_ratio()
    peak_memory()
    package_size()


if __name__ == "__main__":
    main()

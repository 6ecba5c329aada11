"""Lambda figures: cold-start ratio, deployment package size, peak memory of a duel.

- Cold start: a fresh interpreter importing the webhook module, starting a container
  (``runtime.cold_start``: token and secret read - stubbed, no network - and the event loop)
  and wiring it (``Runtime.wire``: settings, DynamoDB client and repository, the Application
  built and initialised; in production this happens on the first delivery), as a ratio to a
  fresh ``import boto3, telegram.ext`` in the same run. Both run from a staged copy of the
  packages compiled like the deploy does (``unchecked-hash`` pyc; this venv's interpreter), so
  no module is compiled while timed. Median of interleaved runs, wall and CPU time (CPU time
  is steadier on a shared machine). Target <= 1.25. Also printed: the same plus the first real
  update (``/duel`` through the webhook handler: settings, DynamoDB client, Application,
  engine, catalogs), i.e. what the first Telegram delivery to a new container waits for; and
  the wiring with production's request class (PTB's ``HTTPXRequest``, whose TLS context loads
  the CA bundle) instead of the fake Bot API, which the other lines use. And two floors of
  the stack alone, no code of ours: the baseline's imports plus ``HTTPXRequest`` (what any
  webhook on this stack needs before its first call to Telegram), and the same plus pydantic
  with one model (what a delivery that validates with pydantic adds: the first update that
  loads a ruleset does; wiring does not, ``tests/serverless/test_cold_start_imports.py``).
- Package: ``requirements-lambda.txt`` installed for the runtime (manylinux2014_aarch64,
  cp312, no boto3: the runtime has it) plus the staged packages (catalogs as ``.mo``), with
  bytecode as the deploy ships it (from ``python3.12`` when installed), zipped. Target <= 10
  MB. Needs the package index (pip download); skipped when it is unreachable.
- Peak RSS of a clean process (``python -m tests.bench.lambda_duel``): cold start plus a whole
  pistol duel through ``lambda_handler`` with an in-memory repository and the fake Bot API;
  also with moto's DynamoDB, whose own share is printed. Target <= 128 MB.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7
COMPILE = [sys.executable, "-m", "compileall", "-q", "-j0", "--invalidation-mode", "unchecked-hash"]

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
    if service == "dynamodb":  # the production factory (SSM and Secrets Manager are stubbed)
        return runtime.aws_client("dynamodb")
    return Stub()

env = {"TELEGRAM_BOT_USERNAME": "sekundant_bot", "SEKUNDANT_TOKEN_PARAMETER": "/t",
       "SEKUNDANT_WEBHOOK_SECRET": "arn", "SEKUNDANT_TABLE": "t",
       "SEKUNDANT_BEACON": "none"}
runtime.cold_start(env, request=FakeBotAPI(), clients=clients)
"""
# What a new container does before it can process anything: the above plus ``wire()``
# (settings, the DynamoDB client and repository, the Application built and initialised).
WIRED = COLD_START.replace("runtime.cold_start(", "rt = runtime.cold_start(") + "rt.wire()\n"
# The same with production's request class (PTB's HTTPXRequest: its TLS context loads the CA
# bundle; still no network call) instead of the fake Bot API.
WIRED_HTTPX = WIRED.replace("request=FakeBotAPI(), ", "").replace(
    "from handlers.telegram.fake_api import FakeBotAPI\n", ""
)
# The floor of any webhook on this stack, before a line of ours: the baseline's imports plus
# PTB's HTTPXRequest with its TLS context (needed before the first call to Telegram).
FLOOR = """
import boto3, telegram.ext
from telegram.request import HTTPXRequest
HTTPXRequest()
"""
# The same plus pydantic with one model validated: what a delivery that validates with
# pydantic adds (the first update that loads a ruleset; not the wiring).
FLOOR_PYDANTIC = (
    FLOOR
    + """
from pydantic import BaseModel
class Model(BaseModel):
    a: int = 1
Model(a=2)
"""
)
FIRST_UPDATE = (
    (
        COLD_START.replace("request=FakeBotAPI()", "request=(api := FakeBotAPI())").replace(
            "clients=clients)", "clients=clients, repo=MemoryRepository())"
        )
        + """
import base64, json
from handlers import lambda_webhook
# The repository is in memory (no network); the DynamoDB client is still created, as the
# DynamoDB repository does when it is wired.
runtime.aws_client("dynamodb")
update = {"update_id": 1, "message": {"message_id": 1, "date": 1764440000, "text": "/duel",
    "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
    "chat": {"id": -1001, "type": "supergroup", "title": "Bench"},
    "from": {"id": 42, "is_bot": False, "first_name": "A", "language_code": "ru"}}}
event = {"headers": {"x-telegram-bot-api-secret-token": "bench-secret"}, "isBase64Encoded": True,
    "body": base64.b64encode(json.dumps(update).encode()).decode()}
assert lambda_webhook.handle(event, rt)["statusCode"] == 200
assert api.chat(-1001).messages, "the bot did not answer /duel"
"""
    )
    .replace("runtime.cold_start(", "rt = runtime.cold_start(")
    .replace(
        "from handlers import runtime\n",
        "from handlers import runtime\nfrom infra.memory import MemoryRepository\n",
    )
)


def _run(code: str, cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of a fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _compiled_stage(tmp: Path) -> Path:
    """The staged packages with bytecode, as the deploy ships them (``-c`` puts the working
    directory first on ``sys.path``, so these copies are imported, not the repository's)."""
    stage_dir = _stage_into(tmp)
    subprocess.run(
        COMPILE + [str(stage_dir)],  # noqa: RUF005
        check=True,
        capture_output=True,
    )
    return stage_dir


def cold_start_ratio() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = _compiled_stage(Path(tmp))
        cases = {
            "base": BASELINE,
            "init": COLD_START,
            "wired": WIRED,
            "httpx": WIRED_HTTPX,
            "first": FIRST_UPDATE,
            "floor": FLOOR,
            "floor_pydantic": FLOOR_PYDANTIC,
        }
        for code in cases.values():  # warm the OS caches
            _run(code, cwd)
        got: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
        for _ in range(RUNS):
            for name, code in cases.items():
                got[name].append(_run(code, cwd))
    wall = {k: statistics.median(w for w, _ in v) for k, v in got.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in got.items()}
    b = wall["base"]
    labels = (
        ("init", "import + cold_start (webhook secret, loop)", "; for reference"),
        ("wired", "import + cold_start + wiring (repository, Application)", "; target <= 1.25"),
        ("httpx", "the same with production's HTTPXRequest, not the fake API", "; for reference"),
        ("first", "the above + the first real update", "; for reference"),
        (
            "floor",
            "floor of the stack, no code of ours (boto3, telegram.ext, HTTPXRequest)",
            "; compare with the HTTPXRequest line",
        ),
        (
            "floor_pydantic",
            "the floor + pydantic with one model (paid by the first update that loads a ruleset)",
            "; for reference",
        ),
    )
    for name, label, note in labels:
        print(
            f"   {label}: {wall[name] * 1000:.0f} ms vs import boto3+telegram.ext {b * 1000:.0f}"
            f" ms -> ratio {wall[name] / b:.2f} (CPU time ratio {cpu[name] / cpu['base']:.2f})"
            + note
            + f" (median of {RUNS})"
        )


def _wheels_for_runtime(requirements: Path, target: Path) -> str | None:
    """Install ``requirements`` for the runtime (arm64, 3.12) into ``target``; an error line
    when pip cannot fetch the wheels."""
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
        str(requirements),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        return str(done.stderr.strip().splitlines()[-1:])
    return None


def _zip(zpath: Path, parts: list[tuple[Path, Path]]) -> tuple[float, float]:
    """Zip each (folder, its path in the archive) into ``zpath``; (zipped, unzipped) MB."""
    unzipped = 0
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for base, inside in parts:
            for f in base.rglob("*"):
                if f.is_file():
                    z.write(f, inside / f.relative_to(base))
                    unzipped += f.stat().st_size
    return zpath.stat().st_size / 1e6, unzipped / 1e6


def _compile(python: str, base: Path) -> None:
    """Bytecode as the deploy ships it (``infra.deploy``: the runtime's Python)."""
    subprocess.run([python, *COMPILE[1:], str(base)], check=True, capture_output=True)


def layer_size() -> None:
    """The Pillow layer (``requirements-pictures.txt``), with bytecode, zipped as SAM ships
    it (under ``python/``)."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "python"
        error = _wheels_for_runtime(ROOT / "requirements-pictures.txt", target)
        if error is not None:
            print(f"   pictures layer: skipped (pip could not fetch wheels: {error})")
            return
        _compile(_runtime_python(), target)
        mb, _ = _zip(Path(tmp) / "layer.zip", [(target, Path("python"))])
        print(
            f"   pictures layer (Pillow): {mb:.1f} MB zipped, with bytecode, apart from the"
            " package; loaded only when a picture is drawn"
        )


def package_size() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "pkg"
        error = _wheels_for_runtime(ROOT / "requirements-lambda.txt", target)
        if error is not None:
            print(f"   package: skipped (pip could not fetch wheels: {error})")
            return
        src = Path(tmp) / "src"
        src.mkdir()
        stage_dir = _stage_into(src)
        # The deploy ships bytecode compiled by the runtime's Python (infra.deploy); use a
        # python3.12 when there is one, else this interpreter (its .pyc are about as large).
        python = _runtime_python()
        version = subprocess.run(
            [python, "-c", "import sys; print(sys.version.split()[0])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for base in (target, stage_dir):
            _compile(python, base)
        mb, unzipped = _zip(Path(tmp) / "code.zip", [(target, Path()), (stage_dir, Path())])
        print(
            f"   package: {mb:.1f} MB zipped, {unzipped:.1f} MB unzipped, with bytecode"
            f" from Python {version} (target <= 10 MB zipped; boto3 excluded, the runtime"
            " has it)"
        )


def _runtime_python() -> str:
    """A working ``python3.12`` (the runtime's version), else this interpreter."""
    found = shutil.which("python3.12")
    if (
        found
        and subprocess.run([found, "-c", ""], check=False, capture_output=True).returncode == 0
    ):
        return found
    return sys.executable


def _stage_into(tmp: Path) -> Path:
    """Stage the real packages (as ``make deploy`` does: catalogs compiled to ``.mo``) without
    touching ``build/``."""
    from infra.deploy import IGNORE, PACKAGES, compile_catalogs

    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp / package, ignore=IGNORE)
    compile_catalogs(tmp)
    return tmp


def peak_memory() -> None:
    for args, label in (((), "in-memory repository"), (("--moto",), "moto DynamoDB")):
        done = subprocess.run(
            [sys.executable, "-m", "tests.bench.lambda_duel", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        rss = [line for line in done.stdout.splitlines() if line.startswith("RSS")]
        if done.returncode != 0 or not rss:
            print(f"   peak RSS ({label}): not measured: {(done.stdout + done.stderr)[-300:]!r}")
            continue
        moto = [line for line in done.stdout.splitlines() if line.startswith("moto ready")]
        share = (
            f"; moto alone, before the handler is imported: {moto[0].split()[2]} MiB"
            if moto
            else ""
        )
        print(
            f"   peak RSS ({label}): {float(rss[-1].split()[1]):.0f} MiB for a clean process's cold"
            f" start + a whole duel through lambda_handler{share} (target <= 128 MB)"
        )


def main() -> None:
    cold_start_ratio()
    peak_memory()
    package_size()
    layer_size()


if __name__ == "__main__":
    main()

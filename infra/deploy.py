"""``make deploy`` (``python -m infra.deploy``): stage, ``sam build``, compile, ``sam deploy``.

1. Stage only what the functions import into ``build/lambda/`` (the ``engine``, ``handlers``
   and ``infra`` packages without caches, plus ``requirements-lambda.txt`` as
   ``requirements.txt``); ``template.yaml``'s ``CodeUri`` points there, so tests, the venv
   and the rest of the repository never reach the package. The gettext catalogs are compiled
   here, one ``<lang>.mo`` per language replacing its ``.po`` files, so Babel (and its
   ~30 MB of locale data) is a build-time tool and not part of the package. Pillow, which
   only drawing a picture imports, is staged apart (``requirements-pictures.txt`` into
   ``build/layer-pictures/``): the template builds it as a layer both functions use.
2. ``sam build`` for the template's runtime (python3.12, arm64): SAM's pip workflow needs that
   exact interpreter on PATH; this finds it (PATH, then pyenv) or stops with a clear message.
3. Compile bytecode into the build with that interpreter and ``--invalidation-mode
   unchecked-hash``: ``sam build`` strips every ``.pyc`` and Lambda's code directory is
   read-only, so without this each cold start recompiles (~1.6 s instead of ~0.55 s,
   measured, ``docs/deploy.md``); unchecked-hash pyc stay valid after zipping, which
   does not keep mtimes.
4. ``sam deploy`` (``--guided`` when there is no ``samconfig.toml`` yet: it asks for the stack
   name, region and parameters once and saves them).

Missing ``sam``, AWS credentials or the interpreter fail fast with one line, no traceback.
``--dry-run`` prints the plan without running anything.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from infra import catalogs

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "handlers", "infra")
STAGE = Path("build") / "lambda"
LAYER_STAGE = Path("build") / "layer-pictures"
LAYER = "PicturesLayer"  # template.yaml's layer resource (Pillow)
BUILD_DIR = Path(".aws-sam") / "build"
# Every function of template.yaml (its bytecode is compiled after ``sam build``, which strips
# it; tests/serverless/test_deploy.py keeps this list equal to the template's).
FUNCTIONS = ("WebhookFunction", "SweeperFunction", "WebAppFunction", "ResolverFunction")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "tests", ".mypy_cache")
# The bot's gettext catalogs inside the package (``handlers.telegram.i18n.LOCALE_DIR``).
LOCALE = Path("handlers") / "telegram" / "locale"
# Development code the functions never import: the fake Bot API and its harness, the offline
# sandbox, the SQLite adapter (make run), this deploy script. Left out of the package
# (tests/serverless/test_package.py imports and runs the staged functions without them).
DEV_ONLY = (
    "handlers/telegram/fake_api.py",
    "handlers/telegram/harness.py",
    "handlers/telegram/sandbox.py",
    "handlers/commands/sandbox.py",
    "infra/sqlite.py",
    "infra/deploy.py",
)


class DeployError(Exception):
    """A precondition is missing; printed as one line."""


@dataclass(frozen=True)
class Step:
    """One step of the plan: a command (``argv``) or an in-process action (``action``)."""

    title: str
    argv: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    action: Callable[[], None] | None = None

    def show(self) -> str:
        return " ".join(self.argv) if self.argv else f"({self.title})"


def runtime_version(template: Path) -> str:
    """The ``3.12`` of the template's ``Runtime: python3.12``."""
    found = set(re.findall(r"Runtime:\s*python(3\.\d+)", template.read_text()))
    if len(found) != 1:
        raise DeployError(f"{template.name}: expected one Python runtime, found {sorted(found)}")
    return str(found.pop())


def find_python(version: str, which: Callable[[str], str | None] = shutil.which) -> Path:
    """An interpreter of exactly ``version`` (PATH, then pyenv), or :class:`DeployError`."""
    candidates: list[Path] = []
    if on_path := which(f"python{version}"):
        candidates.append(Path(on_path))
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        candidates += sorted(pyenv.glob(f"{version}.*/bin/python{version}"), reverse=True)
    for exe in candidates:
        if _version_of(exe) == version:
            return exe
    raise DeployError(
        f"python{version} not found: the Lambda runtime is python{version}, and sam build and "
        f"the bytecode need that exact interpreter (install it, e.g. `pyenv install "
        f"{version}`, and put it on PATH)"
    )


def _version_of(exe: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(exe), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def stage(root: Path = ROOT) -> Path:
    """Copy the packages the functions import, and their requirements, into ``build/lambda``."""
    target = root / STAGE
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for package in PACKAGES:
        shutil.copytree(root / package, target / package, ignore=IGNORE)
    for dev in DEV_ONLY:
        (target / dev).unlink(missing_ok=True)
    compile_catalogs(target)
    shutil.copyfile(root / "requirements-lambda.txt", target / "requirements.txt")
    layer_requirements = root / "requirements-pictures.txt"
    if layer_requirements.exists():
        layer = root / LAYER_STAGE
        if layer.exists():
            shutil.rmtree(layer)
        layer.mkdir(parents=True)
        shutil.copyfile(layer_requirements, layer / "requirements.txt")
    return target


def compile_catalogs(staged: Path) -> list[Path]:
    """Replace the staged ``.po`` catalogs by one compiled ``<lang>.mo`` per language (what
    ``handlers.telegram.i18n`` loads when present); the written files."""
    locale_dir = staged / LOCALE
    if not locale_dir.is_dir():
        return []
    written = []
    for lang in catalogs.languages(locale_dir):
        mo = catalogs.mo_file(lang, locale_dir)
        mo.write_bytes(catalogs.compile_catalog(lang, locale_dir))
        written.append(mo)
    for po in locale_dir.glob("*.po"):
        po.unlink()
    return written


def plan(root: Path, python: Path, *, guided: bool, extra: Sequence[str] = ()) -> list[Step]:
    """Every step of a deploy, in order (nothing runs here)."""
    # SAM's pip workflow looks for `python3.12` on PATH.
    env = {
        "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "SAM_CLI_TELEMETRY": "0",
    }
    steps = [
        Step(f"stage {', '.join(PACKAGES)} into {STAGE}", action=lambda: _stage(root)),
        Step(
            "sam build",
            ("sam", "build", "--template-file", "template.yaml", "--build-dir", str(BUILD_DIR)),
            env,
        ),
    ]
    for fn in (*FUNCTIONS, LAYER):
        steps.append(
            Step(
                f"compile {fn} for the runtime",
                (
                    str(python),
                    "-m",
                    "compileall",
                    "-q",
                    "-j0",
                    "--invalidation-mode",
                    "unchecked-hash",
                    str(BUILD_DIR / fn),
                ),
            )
        )
    deploy = ["sam", "deploy", "--template-file", str(BUILD_DIR / "template.yaml")]
    if guided:
        deploy.append("--guided")
    steps.append(Step("sam deploy", (*deploy, *extra), env))
    return steps


def _stage(root: Path) -> None:
    stage(root)


def preflight(which: Callable[[str], str | None], credentials: Callable[[], bool]) -> None:
    if which("sam") is None:
        raise DeployError(
            "sam: not found - install the AWS SAM CLI (pipx install aws-sam-cli; see "
            "docs/deploy.md)"
        )
    if not credentials():
        raise DeployError(
            "no AWS credentials - run `aws configure` (or `aws sso login`) or set "
            "AWS_PROFILE / AWS_ACCESS_KEY_ID first"
        )


def have_credentials() -> bool:
    """Whether the SDK finds credentials (no network call)."""
    import boto3

    return boto3.Session().get_credentials() is not None


def main(
    argv: Sequence[str] | None = None,
    *,
    which: Callable[[str], str | None] = shutil.which,
    credentials: Callable[[], bool] = have_credentials,
    run: Callable[[Step], int] | None = None,
) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m infra.deploy", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    parser.add_argument("--guided", action="store_true", help="force sam deploy --guided")
    parser.add_argument("sam_args", nargs="*", help="extra arguments for sam deploy")
    args = parser.parse_args(argv)
    root = ROOT
    try:
        preflight(which, credentials)
        python = find_python(runtime_version(root / "template.yaml"), which)
    except DeployError as exc:
        print(f"deploy: {exc}", file=sys.stderr)
        return 1
    guided = args.guided or not (root / "samconfig.toml").exists()
    steps = plan(root, python, guided=guided, extra=args.sam_args)
    if args.dry_run:
        for i, step in enumerate(steps, 1):
            print(f"{i}. {step.title}: {step.show()}")
        return 0
    runner = run or _run
    for step in steps:
        print(f"==> {step.title}", flush=True)
        code = runner(step)
        if code != 0:
            print(f"deploy: {step.title} failed (exit status {code})", file=sys.stderr)
            return code
    print("Deployed. Next: sekundant setup-webhook --stack <stack name> (docs/deploy.md).")
    return 0


def _run(step: Step) -> int:
    if step.action is not None:
        step.action()
        return 0
    try:
        env = {**os.environ, **step.env}
        return subprocess.run(step.argv, check=False, cwd=ROOT, env=env).returncode
    except FileNotFoundError:
        return 127
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

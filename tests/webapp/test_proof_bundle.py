"""The proof page's verifier (``webapp-verifier/``: docs/fairness.md in JavaScript, bundled as
``handlers/webapp/static/proof-bundle.js``):

- the checked-in bundle is exactly what its sources and locked packages build (``npm ci`` and
  the build in a temporary copy: a bundle edited by hand, or built from other sources or
  packages, fails);
- the verifier's pure parts pass their node tests (``webapp-verifier/test/``);
- the checked-in bundle, run by node, gives ``sekundant verify``'s verdict on every dossier
  of ``tests/webapp/proof_cases.py`` (honest matches of every ruleset, every tampering of
  ``test_tampering``, every field changed as ``test_every_field`` changes them).

Needs node (and npm for the build); without them these tests skip and say why, except in CI
(``SEKUNDANT_REQUIRE_NODE=1``, set by ``.ci/run``, which installs them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.webapp.proof_cases import all_cases

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "webapp-verifier"
BUNDLE = ROOT / "handlers" / "webapp" / "static" / "proof-bundle.js"
REQUIRED = os.environ.get("SEKUNDANT_REQUIRE_NODE") == "1"
OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ENETUNREACH")


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        reason = f"{' and '.join(missing)} not installed (apt-get install nodejs npm; .ci/run does)"
        if REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, check=False, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of webapp-verifier/ with its locked packages installed and the bundle built."""
    _need("node", "npm")
    work = tmp_path_factory.mktemp("proof") / "webapp-verifier"
    shutil.copytree(SOURCE, work, ignore=shutil.ignore_patterns("node_modules"))
    installed = _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], work)
    if installed.returncode != 0:
        output = installed.stdout + installed.stderr
        if not REQUIRED and any(code in output for code in OFFLINE):
            pytest.skip("npm ci cannot reach the registry (offline)")
        pytest.fail(f"npm ci failed:\n{output[-2000:]}")
    build = _run(["node", "build.mjs", str(work / "proof-bundle.js")], work)
    assert build.returncode == 0, build.stderr
    return work


def test_the_checked_in_bundle_is_the_build_of_its_sources(built: Path) -> None:
    fresh = (built / "proof-bundle.js").read_bytes()
    assert fresh == BUNDLE.read_bytes(), (
        "handlers/webapp/static/proof-bundle.js is not the build of webapp-verifier/: "
        "run `make proof-bundle` and commit the result"
    )


def test_the_verifiers_pure_parts(built: Path) -> None:
    result = _run(["node", "--test", "test/"], built)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


def test_the_bundle_gives_the_verdict_of_sekundant_verify_on_every_case(tmp_path: Path) -> None:
    _need("node")
    module = tmp_path / "proof-bundle.mjs"  # node reads a .js outside a package as CommonJS
    module.write_bytes(BUNDLE.read_bytes())
    cases = all_cases()
    paths = []
    for k, (_, text, _) in enumerate(cases):
        path = tmp_path / f"{k:03d}.json"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    cli = str(SOURCE / "cli.mjs")
    result = _run(["node", cli, "--module", str(module), *paths], SOURCE)
    # 1: some do not verify; 2: one is not a dossier at all (its "format" changed)
    assert result.returncode in (1, 2), result.stdout[-2000:] + result.stderr[-2000:]
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(verdicts) == len(cases)
    disagree = [
        (name, python_ok, v.get("error") or [f["text"] for f in v["findings"]][:2])
        for (name, _, python_ok), v in zip(cases, verdicts, strict=True)
        if v.get("ok", False) != python_ok
    ]
    assert disagree == []
    assert sum(1 for _, _, ok in cases if ok) >= 10  # honest matches of every ruleset
    assert sum(1 for _, _, ok in cases if not ok) >= 50  # and every tampering


def test_the_bundle_refuses_every_torsion_variant_of_a_real_round(tmp_path: Path) -> None:
    """docs/fairness.md, "The beacon", check 4: sigma + T (T of small order) passes the bare
    pairing but not the subgroup check, in the page as in ``sekundant verify``; so do the
    non-canonical encodings (compared with ``engine.beacon.verify_signature``)."""
    _need("node")
    from engine.beacon import QUICKNET, verify_signature
    from tests.fairness.test_beacon import ROUND, SIGNATURE
    from tests.fairness.test_subgroup import VARIANTS, _flip

    module = tmp_path / "proof-bundle.mjs"
    module.write_bytes(BUNDLE.read_bytes())
    signatures = [SIGNATURE, *(v for _, v in VARIANTS)]
    signatures += [_flip(SIGNATURE, 0x20), _flip(SIGNATURE, 0x40), SIGNATURE[:-2]]
    script = (
        f"import {{ verifyBeacon, QUICKNET }} from {json.dumps(module.as_uri())};"
        f"const sigs = {json.dumps(signatures)};"
        f"console.log(JSON.stringify(sigs.map((s) => verifyBeacon(QUICKNET.public_key, "
        f"{ROUND}, s))));"
    )
    result = _run(["node", "--input-type=module", "-e", script], tmp_path)
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)
    python = [verify_signature(QUICKNET, ROUND, s) for s in signatures]
    assert page == python
    assert python[0] and not any(python[1:])

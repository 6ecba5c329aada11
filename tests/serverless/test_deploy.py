"""``python -m infra.deploy``: preflight failures are one line, the plan is right (dry run),
and staging packages only the functions' code."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from infra import deploy

ROOT = Path(__file__).resolve().parents[2]


def fake_which(name: str) -> str | None:
    return "/usr/local/bin/sam" if name == "sam" else None


def test_missing_sam_fails_fast_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = deploy.main(["--dry-run"], which=lambda _name: None, credentials=lambda: True)
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("deploy: sam: not found") and err.count("\n") == 1
    assert "Traceback" not in err


def test_missing_credentials_fail_fast_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = deploy.main(["--dry-run"], which=fake_which, credentials=lambda: False)
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("deploy: no AWS credentials") and err.count("\n") == 1


def test_missing_runtime_interpreter_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))  # no pyenv versions either
    code = deploy.main(["--dry-run"], which=fake_which, credentials=lambda: True)
    err = capsys.readouterr().err
    assert code == 1 and "python3.12 not found" in err


def test_the_plan_builds_compiles_for_the_runtime_then_deploys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    python = tmp_path / "python3.12"
    steps = deploy.plan(ROOT, python, guided=True)
    titles = [s.title for s in steps]
    assert titles[0].startswith("stage") and steps[0].action is not None
    assert steps[1].argv[:2] == ("sam", "build")
    assert steps[1].env["PATH"].startswith(str(tmp_path))  # SAM finds python3.12
    compiles = [s.argv for s in steps if s.argv and s.argv[0] == str(python)]
    assert [a[-1] for a in compiles] == [
        ".aws-sam/build/WebhookFunction",
        ".aws-sam/build/SweeperFunction",
        ".aws-sam/build/WebAppFunction",
        ".aws-sam/build/ResolverFunction",
        ".aws-sam/build/PicturesLayer",  # Pillow's layer: its bytecode too
    ]
    # every function of the template gets its bytecode (a cold start without it recompiles)
    from tests.storage.aws import load_template

    resources = load_template()["Resources"]
    functions = {k for k, v in resources.items() if v["Type"] == "AWS::Serverless::Function"}
    assert set(deploy.FUNCTIONS) == functions
    assert all(a[5:7] == ("--invalidation-mode", "unchecked-hash") for a in compiles)
    assert steps[-1].argv[:2] == ("sam", "deploy") and "--guided" in steps[-1].argv
    assert "--guided" not in deploy.plan(ROOT, python, guided=False)[-1].argv
    assert deploy.runtime_version(ROOT / "template.yaml") == "3.12"


def test_dry_run_prints_the_plan_and_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[deploy.Step] = []
    try:
        deploy.find_python("3.12")
    except deploy.DeployError:
        pytest.skip("no python3.12 on this machine")
    code = deploy.main(
        ["--dry-run"], which=fake_which, credentials=lambda: True, run=lambda s: ran.append(s) or 0
    )
    out = capsys.readouterr().out
    assert code == 0 and ran == []
    assert "sam build" in out and "unchecked-hash" in out and "sam deploy" in out


def test_staging_copies_only_the_functions_code(tmp_path: Path) -> None:
    for package in deploy.PACKAGES:
        (tmp_path / package / "__pycache__").mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"")
    (tmp_path / "tests").mkdir()
    (tmp_path / "requirements-lambda.txt").write_text("python-telegram-bot\n")
    target = deploy.stage(tmp_path)
    found = sorted(str(p.relative_to(target)) for p in target.rglob("*"))
    assert found == [
        "engine",
        "engine/__init__.py",
        "handlers",
        "handlers/__init__.py",
        "infra",
        "infra/__init__.py",
        "requirements.txt",
    ]


def test_the_real_stage_holds_the_handlers_and_no_tests() -> None:
    # What sam build packages: the template's CodeUri is the staged folder.
    assert "CodeUri: build/lambda/" in (ROOT / "template.yaml").read_text()
    text = (ROOT / "requirements-lambda.txt").read_text()
    requirements = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert not any(r.startswith(("boto3", "botocore")) for r in requirements)  # in the runtime
    assert any(r.startswith("python-telegram-bot") for r in requirements)
    # Pillow is a layer of its own (imported only to draw a picture), not in the code package.
    assert not any(r.lower().startswith("pillow") for r in requirements)
    layer = (ROOT / "requirements-pictures.txt").read_text().splitlines()
    assert [r for r in layer if r and not r.startswith("#")] == ["Pillow>=10"]


def test_staging_puts_the_pictures_layer_beside_the_code(tmp_path: Path) -> None:
    for package in deploy.PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "requirements-lambda.txt").write_text("python-telegram-bot\n")
    (tmp_path / "requirements-pictures.txt").write_text("Pillow>=10\n")
    deploy.stage(tmp_path)
    layer = tmp_path / deploy.LAYER_STAGE
    assert sorted(p.name for p in layer.iterdir()) == ["requirements.txt"]
    assert (layer / "requirements.txt").read_text() == "Pillow>=10\n"
    template = (ROOT / "template.yaml").read_text()
    assert f"ContentUri: {deploy.LAYER_STAGE.as_posix()}/" in template
    assert "Layers: [!Ref PicturesLayer]" in template


def test_staging_compiles_the_catalogs_to_mo_files_that_translate_like_the_po_files(
    tmp_path: Path,
) -> None:
    # The package ships <lang>.mo only (no Babel at runtime); they must say exactly what the
    # .po files say, plural forms included.
    import gettext

    from handlers.telegram import i18n
    from infra import catalogs

    assert i18n.LOCALE_DIR.relative_to(ROOT) == deploy.LOCALE
    assert sorted(catalogs.languages(i18n.LOCALE_DIR)) == sorted(i18n.LANGS)
    locale = tmp_path / deploy.LOCALE
    shutil.copytree(i18n.LOCALE_DIR, locale, ignore=shutil.ignore_patterns("*.mo"))
    written = deploy.compile_catalogs(tmp_path)
    assert sorted(p.name for p in locale.iterdir()) == sorted(f"{lang}.mo" for lang in i18n.LANGS)
    assert sorted(written) == sorted(catalogs.mo_file(lang, locale) for lang in i18n.LANGS)
    for lang in i18n.LANGS:
        with catalogs.mo_file(lang, locale).open("rb") as fh:
            built = gettext.GNUTranslations(fh)
        source = gettext.GNUTranslations(
            io.BytesIO(catalogs.compile_catalog(lang, i18n.LOCALE_DIR))
        )
        assert built._catalog == source._catalog  # type: ignore[attr-defined]
        assert built.ngettext("x", "x.plural", 5) == source.ngettext("x", "x.plural", 5)
        assert built.plural(5) == source.plural(5)  # type: ignore[attr-defined]


def test_i18n_loads_a_precompiled_mo_without_babel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from handlers.telegram import i18n

    mo = tmp_path / "en.mo"
    mo.write_bytes(i18n.compile_catalog("en", i18n.LOCALE_DIR))
    expected = i18n.t("en", "lobby.title", ruleset="<b>x</b>", id="m1")

    def no_babel(lang: str, locale_dir: Path) -> bytes:
        raise AssertionError("compiled the .po files although a .mo is there")

    monkeypatch.setattr(i18n, "mo_file", lambda lang, locale_dir: tmp_path / f"{lang}.mo")
    monkeypatch.setattr(i18n, "compile_catalog", no_babel)
    monkeypatch.setattr(i18n, "_PLUGIN_DIRS", [])  # a test plug-in's catalogs ship as .po
    i18n.catalog.cache_clear()
    try:
        assert i18n.t("en", "lobby.title", ruleset="<b>x</b>", id="m1") == expected
        assert i18n.has("en", "lobby.title")
    finally:
        i18n.catalog.cache_clear()

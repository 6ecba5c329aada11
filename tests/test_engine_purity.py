"""The functional core stays pure: no module under ``engine/`` imports Telegram, AWS, a
database or an HTTP client. Parsed with ``ast`` over every file, so rulesets added later are
covered too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"
FORBIDDEN = ("telegram", "boto3", "botocore", "sqlite3", "httpx")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", ""))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def _files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def test_the_engine_has_modules_to_check() -> None:
    assert len(_files()) >= 8


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_imports_nothing_impure(path: Path) -> None:
    bad = sorted(
        name
        for name in imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    )
    assert not bad, f"{path.relative_to(ENGINE.parent)} imports {', '.join(bad)}"


def test_the_checker_catches_forbidden_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nimport boto3.session\nfrom telegram import Bot\nfrom . import x\n"
        "import importlib\nimportlib.import_module('httpx')\n",
        encoding="utf-8",
    )
    assert {"boto3.session", "telegram", "httpx"} <= imported_modules(sample)

"""The package layout: one folder per pipeline stage, and stages talk only through each other's `__init__`."""

from __future__ import annotations

import ast
from pathlib import Path

import porter

PACKAGE = Path(porter.__file__).parent
STAGES = {"syntax", "translate", "scan", "fix", "build", "agent", "review", "revisions", "tune"}


def _stage(path: Path) -> str | None:
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 and rel[0] in STAGES else None


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            if node.module == "porter":  # `from porter.X import Y` is caught above; here `from porter import X`
                out += [(node.lineno, f"porter.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def test_every_stage_is_a_package_with_a_docstring() -> None:
    for stage in STAGES:
        init = PACKAGE / stage / "__init__.py"
        assert init.is_file(), stage
        assert ast.get_docstring(ast.parse(init.read_text("utf-8"))), f"{stage}/__init__.py says what the stage does"


def test_no_stage_imports_another_stages_modules() -> None:
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _stage(path)
        for line, module in _imported_modules(ast.parse(path.read_text("utf-8"))):
            parts = module.split(".")
            if len(parts) >= 3 and parts[0] == "porter" and parts[1] in STAGES and parts[1] != own:
                offences.append(f"{path.relative_to(PACKAGE)}:{line}: {module}")
    assert offences == []


def test_the_top_level_holds_only_the_command_line_edge() -> None:
    top = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert top == ["__init__", "__main__", "cli", "config", "convert", "doctor", "files", "report", "shards",
                   "targets"]

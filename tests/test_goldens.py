"""One parametrized test over tests/data/cases: the port of input/ must equal expected/, byte for byte."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from golden_cases import case_dirs, convert_case, tree_files


def _describe(expected: dict[str, bytes], actual: dict[str, bytes]) -> str:
    lines = [f"missing: {sorted(set(expected) - set(actual))}", f"unexpected: {sorted(set(actual) - set(expected))}"]
    for rel in sorted(set(expected) & set(actual)):
        if expected[rel] != actual[rel]:
            a = expected[rel].decode("utf-8", "replace").splitlines(keepends=True)
            b = actual[rel].decode("utf-8", "replace").splitlines(keepends=True)
            lines.extend(difflib.unified_diff(a, b, f"expected/{rel}", f"actual/{rel}"))
    return "\n".join(lines) + "\n(regenerate with `make goldens` if the change is intended)"


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_golden(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert_case(case, case / "input", out)
    expected, actual = tree_files(case / "expected"), tree_files(out)
    assert actual == expected, _describe(expected, actual)


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_porting_the_output_again_changes_nothing(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    convert_case(case, case / "expected", out)
    expected, actual = tree_files(case / "expected"), tree_files(out)
    assert actual == expected, _describe(expected, actual)

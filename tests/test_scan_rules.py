"""Each hazard rule against annotated cases: `// expect: RULE` marks the lines that must fire, `// checks:` lists the
rules whose findings must match the marks exactly (so bait lines that stay unmarked must stay quiet)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from porter.scan import scan_source
from porter.scan.rules import CATEGORIES, all_rules
from porter.targets import resolve_target

CASES = Path(__file__).parent / "data" / "hazards" / "cases"
EXPECT = re.compile(r"//\s*expect:\s*([A-Z0-9, ]+)")


def _case(path: Path) -> tuple[str, set[str], Counter]:
    source = path.read_text("utf-8")
    target = re.search(r"//\s*target:\s*(\S+)", source)
    checks = re.search(r"//\s*checks:\s*([A-Z0-9 ]+)", source)
    assert checks, f"{path.name}: needs a `// checks:` line"
    expected: Counter = Counter()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for rule in match.group(1).replace(",", " ").split():
                expected[(number, rule)] += 1
    return (target.group(1) if target else "gfx942"), set(checks.group(1).split()), expected


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_case(path: Path) -> None:
    target, checked, expected = _case(path)
    findings = scan_source(path.read_bytes(), path.name, resolve_target(target))
    got = Counter((f.line, f.rule) for f in findings if f.rule in checked)
    assert got == expected, "\n".join(f"{f.line}:{f.column} {f.rule} {f.message}" for f in findings)


def test_every_rule_has_a_case() -> None:
    covered = set()
    for path in CASES.iterdir():
        covered |= _case(path)[1]
    missing = (
        set(all_rules()) - covered - {"PU001", "PU002"}
    )  # PU* come from the API map: tests/test_scan_api.py
    assert not missing


def test_every_category_has_a_rule() -> None:
    assert {r.category for r in all_rules().values()} == set(CATEGORIES)


def test_findings_carry_rule_metadata() -> None:
    source = b"__global__ void k(float* o) { o[0] = __shfl_down_sync(0xffffffff, o[0], 1); }\n"
    (finding,) = scan_source(source, "a.cu", resolve_target("gfx942"))
    assert finding.as_dict() == {
        "file": "a.cu",
        "line": 1,
        "column": source.index(b"0xffffffff") + 1,
        "rule": "PL001",
        "category": "lane-mask",
        "severity": "error",
        "message": finding.message,
        "fix": finding.fix,
    }
    assert "64-bit" in finding.message and "0xffffffffffffffffULL" in finding.fix


def test_warp_size_rules_are_target_aware() -> None:
    source = b"__global__ void k(int* o) { int lane = threadIdx.x % 32; o[lane] = __shfl_sync(0xffffffffffffffffULL, lane, 0); }\n"
    assert [f.rule for f in scan_source(source, "a.cu", resolve_target("gfx942"))] == ["PW001"]
    assert scan_source(source, "a.cu", resolve_target("gfx1100")) == []


def test_lane_arithmetic_without_warp_context_is_a_note() -> None:
    source = b"__global__ void k(int* o) { o[threadIdx.x] = threadIdx.x % 32; }\n"
    (finding,) = scan_source(source, "a.cu", resolve_target("gfx942"))
    assert (finding.rule, finding.severity) == ("PW001", "note")


def test_broken_source_does_not_crash() -> None:
    source = b"__global__ void k( { int x = threadIdx.x % 32 <<< ;; \xff\xfe }}}\n#define\n"
    scan_source(source, "bad.cu", resolve_target("gfx942"))

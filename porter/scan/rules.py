"""Hazard rule metadata (porter/data/hazards.toml): IDs, categories, severities and text templates."""

from __future__ import annotations

import functools
import string
import tomllib
from dataclasses import dataclass
from importlib import resources

from porter.targets import TargetProfile

CATEGORIES = (
    "warp-size",
    "lane-mask",
    "inline-asm",
    "shared-memory",
    "launch-bounds",
    "texture-reference",
    "cooperative-groups",
    "fp8-format",
    "timing",
    "libcudacxx",
    "tensor-core",
    "sync-semantics",
    "unsupported-api",
)
SEVERITIES = ("error", "warning", "note")  # most severe first
SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES), start=1)}  # note=1 .. error=3


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    severity: str
    title: str
    message: str
    fix: str
    help: str


class RuleDataError(RuntimeError):
    pass


@functools.cache
def all_rules() -> dict[str, Rule]:
    raw = tomllib.loads(resources.files("porter").joinpath("data/hazards.toml").read_text("utf-8"))
    rules = {}
    for rule_id, row in raw.items():
        try:
            rule = Rule(id=rule_id, **row)
        except TypeError as exc:
            raise RuleDataError(f"hazards.toml [{rule_id}]: {exc}") from None
        if rule.category not in CATEGORIES or rule.severity not in SEVERITIES:
            raise RuleDataError(f"hazards.toml [{rule_id}]: bad category or severity")
        rules[rule_id] = rule
    return rules


class _Fields(dict):
    """Missing template fields render as `?` instead of raising: rule text never crashes a scan."""

    def __missing__(self, key: str) -> str:
        return "?"


def target_fields(target: TargetProfile) -> dict[str, object]:
    return {
        "arch": target.arch,
        "wavefront": target.wavefront,
        "last": target.wavefront - 1,
        "half": target.wavefront // 2,
        "lds_kib": target.lds_per_workgroup_kib,
        "lds_bytes": target.lds_bytes,
        "max_threads": target.max_threads_per_block,
        "fp8_format": target.fp8_format,
    }


def render(template: str, fields: dict[str, object]) -> str:
    return string.Formatter().vformat(template, (), _Fields(fields))

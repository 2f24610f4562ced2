"""How many translation units of bench/corpus/ compile after `porter convert`, per toolchain, and why the rest fail.

Usage: python bench/compile_rate.py [--toolchain NAME ...] [--project NAME ...] [-j 2] [--json FILE|-] [--keep DIR]
       python bench/compile_rate.py --reclassify earlier.json   (class an earlier run's failures with today's table)

For every toolchain present (Debian's ROCm 5.2 for gfx90a; ROCm 6.4 for gfx942 and gfx950) and every corpus project:
  1. `porter convert PROJECT -o OUT --no-build --target T`, then every translation unit compiled on its own with
     porter's build stage: "compile after translation alone";
  2. `porter convert PROJECT -o OUT2 --target T` (translation, shims, rule fixers, no model), then every unit
     compiled again the same way: "compile after the fix loop". porter's own "build ok" is not trusted: the bench
     counts what the compiler accepted.
Each unit that still fails is put in a failure class of issue 9, section 3 (1-11), or "other", by the first matching
rule of bench/failure_classes.toml (message regex -> class) over its error diagnostics.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus_projects import CLASSES, Project, load_projects  # noqa: E402

from porter.build import (  # noqa: E402
    HipccEnvironment,
    Toolchain,
    ToolchainError,
    choose_compile_arch,
    resolve_toolchain,
)

# not re-exported by porter.build: the bench compiles the corpus's units itself (porter's own build skips host C++
# files that reach HIP only through a project header) and parses clang's output the way porter does
from porter.build.diagnostics import parse_clang_output  # noqa: E402

PATTERNS = HERE / "failure_classes.toml"


@dataclass(frozen=True)
class ToolchainSpec:
    name: str
    target: str
    toolchain: str  # what `porter convert --toolchain` takes: "system" (Debian's hipcc), or an installed name


TOOLCHAINS = (
    ToolchainSpec("rocm5.2-gfx90a", "gfx90a", "system"),
    ToolchainSpec("rocm6.4-gfx942", "gfx942", "rocm-6.4"),  # `porter toolchain install` (or `make rocm`)
    ToolchainSpec("rocm6.4-gfx950", "gfx950", "rocm-6.4"),
)


def detect(spec: ToolchainSpec) -> Toolchain | None:
    """The toolchain porter itself resolves for this spec (None when it is not there)."""
    try:
        return resolve_toolchain(spec.toolchain)
    except ToolchainError:
        return None


# ---- classification --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    cls: str  # "1".."11" or "other"
    pattern: re.Pattern[str]
    file: re.Pattern[str] | None
    label: str | None


def load_rules(path: Path = PATTERNS) -> list[Rule]:
    data = tomllib.loads(path.read_text("utf-8"))
    rules = []
    for entry in data["rule"]:
        cls = str(entry["class"])
        if cls != "other" and int(cls) not in CLASSES:
            raise ValueError(f"{path}: class {cls} is not 1-11 or 'other'")
        rules.append(Rule(cls, re.compile(entry["message"]), re.compile(entry["file"]) if "file" in entry else None,
                          entry.get("label")))
    return rules


def classify(message: str, file: str, rules: list[Rule]) -> tuple[str, str | None]:
    for rule in rules:
        if rule.pattern.search(message) and (rule.file is None or rule.file.search(file)):
            return rule.cls, rule.label
    return "other", None


# ---- one project ----------------------------------------------------------------------------------------------

@dataclass
class UnitResult:
    path: str
    ok: bool
    errors: list[dict] = field(default_factory=list)  # {file, line, message, class, label}

    @property
    def primary(self) -> dict | None:
        return self.errors[0] if self.errors else None


@dataclass
class ProjectResult:
    name: str
    units: int
    translated_ok: int = 0
    fixed_ok: int = 0
    porter_failed_files: list[str] = field(default_factory=list)
    porter_exit: dict = field(default_factory=dict)
    porter_claims: dict = field(default_factory=dict)
    remaining: list[UnitResult] = field(default_factory=list)
    seconds: float = 0.0


def run_porter(project: Project, out: Path, spec: ToolchainSpec, jobs: int, build: bool) -> tuple[int, dict]:
    cmd = [sys.executable, "-m", "porter", "convert", str(project.root), "-o", str(out), "--target", spec.target,
           "--toolchain", spec.toolchain, "-j", str(jobs)]
    if not build:
        cmd.append("--no-build")
    env = dict(os.environ, HIP_PLATFORM="amd", NO_COLOR="1")
    for var in ("PORTER_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "PORTER_HIPCC"):
        env.pop(var, None)  # the fix loop without a model
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600, check=False, cwd=out.parent)
    try:
        report = json.loads((out / ".porter" / "report.json").read_text("utf-8"))
    except (OSError, ValueError):
        report = {"error": (proc.stderr or proc.stdout)[-2000:]}
    return proc.returncode, report


def compile_units(root: Path, units: list[str], toolchain: Toolchain, arch: str, jobs: int,
                  rules: list[Rule]) -> list[UnitResult]:
    env = HipccEnvironment(root, toolchain, arch=arch, jobs=1, extra_flags=("-ferror-limit=0",))

    def one(rel: str) -> UnitResult:
        if not (root / rel).is_file():
            return UnitResult(rel, False, [{"file": rel, "line": 0, "message": "porter wrote no such file",
                                            "class": "other", "label": None}])
        build = env.compile_files([root / rel])[0]
        diagnostics = [d for d in parse_clang_output(build.output, root, default_file=rel)
                       if d.severity in ("error", "fatal")]
        errors = []
        classified_lines: dict[tuple[str, int], tuple[str, str | None]] = {}
        for d in diagnostics:
            if "too many errors emitted" in d.message:
                continue
            cls, label = classify(d.message, d.file, rules)
            if cls == "other" and label is None and (d.file, d.line) in classified_lines:
                cls, label = classified_lines[(d.file, d.line)]  # a follow-on error of a classified one
            elif cls != "other":
                classified_lines.setdefault((d.file, d.line), (cls, label))
            errors.append({"file": d.file, "line": d.line, "message": d.message, "class": cls, "label": label})
        if not build.ok and not errors:  # failed without a parsed diagnostic (crash, timeout)
            tail = build.output.strip().splitlines()[-1:] or ["no diagnostic"]
            errors.append({"file": rel, "line": 0, "message": tail[0][:300], "class": "other", "label": None})
        return UnitResult(rel, build.ok, errors)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, units))


def failed_files(report: dict) -> list[str]:
    return [f["path"] for f in report.get("files", []) if f.get("status") == "failed" or f.get("error")]


def run_project(project: Project, spec: ToolchainSpec, toolchain: Toolchain, arch: str, work: Path,
                jobs: int, rules: list[Rule]) -> ProjectResult:
    start = time.perf_counter()
    units = [str(u.relative_to(project.root)) for u in project.translation_units()]
    result = ProjectResult(project.name, len(units))
    translated, fixed = work / project.name / "translated", work / project.name / "fixed"
    for d in (translated, fixed):
        shutil.rmtree(d, ignore_errors=True)

    code, report = run_porter(project, translated, spec, jobs, build=False)
    result.porter_exit["translate"] = code
    result.porter_failed_files = failed_files(report)
    first = compile_units(translated, units, toolchain, arch, jobs, rules)
    result.translated_ok = sum(u.ok for u in first)

    code, report = run_porter(project, fixed, spec, jobs, build=True)
    result.porter_exit["fix"] = code
    loop = report.get("fix_loop") or {}
    result.porter_claims = {k: loop.get(k) for k in ("status", "rounds", "remaining_errors") if k in loop}
    after = compile_units(fixed, units, toolchain, arch, jobs, rules)
    result.fixed_ok = sum(u.ok for u in after)
    result.remaining = [u for u in after if not u.ok]
    result.seconds = time.perf_counter() - start
    return result


# ---- report ---------------------------------------------------------------------------------------------------

def summarize(spec: ToolchainSpec, toolchain: Toolchain, arch: str, results: list[ProjectResult]) -> dict:
    total = sum(r.units for r in results)
    primary: Counter[str] = Counter()
    touched: Counter[str] = Counter()
    failures = []
    for r in results:
        for u in r.remaining:
            first = u.primary or {"class": "other", "message": "?", "label": None, "file": u.path, "line": 0}
            primary[first["class"]] += 1
            for cls in {e["class"] for e in u.errors}:
                touched[cls] += 1
            failures.append({"project": r.name, "unit": u.path, "class": first["class"], "label": first["label"],
                             "first_error": f"{first['file']}:{first['line']}: {first['message']}",
                             "classes": sorted({e["class"] for e in u.errors}, key=_class_order),
                             "errors": len(u.errors),
                             "diagnostics": [{k: e[k] for k in ("file", "line", "message")} for e in u.errors]})
    return {
        "toolchain": spec.name, "target": spec.target, "hipcc": str(toolchain.hipcc),
        "hip_version": toolchain.hip_version, "compile_arch": arch,
        "projects": len(results), "units": total,
        "compile_after_translation": sum(r.translated_ok for r in results),
        "compile_after_fix_loop": sum(r.fixed_ok for r in results),
        "porter_failed_files": sum(len(r.porter_failed_files) for r in results),
        "failures_by_class": dict(sorted(primary.items(), key=lambda kv: _class_order(kv[0]))),
        "units_touching_class": dict(sorted(touched.items(), key=lambda kv: _class_order(kv[0]))),
        "failures": failures,
        "per_project": [{"project": r.name, "units": r.units, "after_translation": r.translated_ok,
                         "after_fix_loop": r.fixed_ok, "porter_exit": r.porter_exit, "porter_claims": r.porter_claims,
                         "porter_failed_files": r.porter_failed_files, "seconds": round(r.seconds, 1)}
                        for r in results],
    }


def _class_order(cls: str) -> tuple[int, str]:
    return (int(cls), "") if cls.isdigit() else (99, cls)


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def print_summary(s: dict) -> None:
    units = s["units"]
    print(f"\n== {s['toolchain']}: target {s['target']}, hipcc {s['hip_version']} compiling for {s['compile_arch']}")
    print(f"   {s['projects']} projects, {units} translation units")
    print(f"   compile after translation alone: {s['compile_after_translation']}/{units} "
          f"({_pct(s['compile_after_translation'], units)})")
    print(f"   compile after the fix loop:      {s['compile_after_fix_loop']}/{units} "
          f"({_pct(s['compile_after_fix_loop'], units)})")
    if s["porter_failed_files"]:
        print(f"   files porter failed to translate: {s['porter_failed_files']}")
    if s["failures"]:
        print("   remaining failures by class of their first error (units touching each class in brackets):")
        for cls, n in s["failures_by_class"].items():
            name = CLASSES[int(cls)] if cls.isdigit() else "other"
            print(f"     {cls:>5}  {name:<48} {n:3d}  [{s['units_touching_class'].get(cls, 0)}]")
        print("   each remaining failure:")
        for f in s["failures"]:
            label = f" ({f['label']})" if f["label"] else ""
            print(f"     [{f['class']}{label}] {f['project']}/{f['unit']}: {f['first_error'][:220]}"
                  f"  (+{f['errors'] - 1} more; classes {','.join(f['classes'])})" if f["errors"] > 1 else
                  f"     [{f['class']}{label}] {f['project']}/{f['unit']}: {f['first_error'][:220]}")


def reclassify(summary: dict, rules: list[Rule]) -> dict:
    """The same run's failures classed again with the current table (no compiling): for working on the table."""
    units: list[ProjectResult] = []
    by_project: dict[str, ProjectResult] = {}
    for p in summary["per_project"]:
        r = ProjectResult(p["project"], p["units"], p["after_translation"], p["after_fix_loop"],
                          p["porter_failed_files"], p["porter_exit"], p["porter_claims"])
        by_project[r.name] = r
        units.append(r)
    for f in summary["failures"]:
        errors, lines = [], {}
        for d in f["diagnostics"]:
            cls, label = classify(d["message"], d["file"], rules)
            if cls == "other" and label is None and (d["file"], d["line"]) in lines:
                cls, label = lines[(d["file"], d["line"])]
            elif cls != "other":
                lines.setdefault((d["file"], d["line"]), (cls, label))
            errors.append({**d, "class": cls, "label": label})
        by_project[f["project"]].remaining.append(UnitResult(f["unit"], False, errors))
    spec = next(t for t in TOOLCHAINS if t.name == summary["toolchain"])
    toolchain = Toolchain(Path(summary["hipcc"]), summary["hip_version"], None)
    return summarize(spec, toolchain, summary["compile_arch"], units)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolchain", action="append", choices=[t.name for t in TOOLCHAINS],
                        help="measure only these (default: every toolchain present)")
    parser.add_argument("--project", action="append", help="measure only these corpus projects")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel compiles (default 2)")
    parser.add_argument("--json", help="write the figures as JSON to this file ('-' for stdout)")
    parser.add_argument("--keep", type=Path, help="keep the converted trees here")
    parser.add_argument("--reclassify", type=Path, metavar="JSON",
                        help="class the failures of an earlier --json run again with the current table; no compiling")
    args = parser.parse_args()

    if args.reclassify:
        try:
            earlier = json.loads(args.reclassify.read_text("utf-8"))["toolchains"]
        except (OSError, ValueError, KeyError) as exc:
            print(f"compile_rate: cannot read {args.reclassify}: {exc}", file=sys.stderr)
            return 2
        try:
            summaries = [reclassify(s, load_rules()) for s in earlier]
        except (KeyError, TypeError, StopIteration) as exc:
            print(f"compile_rate: {args.reclassify} is not a --json file of this version of the bench ({exc!r})",
                  file=sys.stderr)
            return 2
        for s in summaries:
            print_summary(s)
        if args.json:
            _write_json(args.json, summaries)
        return 0

    projects = load_projects()
    if args.project:
        unknown = sorted(set(args.project) - {p.name for p in projects})
        if unknown:
            print(f"compile_rate: no corpus project named {', '.join(unknown)}", file=sys.stderr)
            return 2
        projects = [p for p in projects if p.name in args.project]
    rules = load_rules()
    work_root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="porter-compile-rate-"))
    summaries = []
    for spec in TOOLCHAINS:
        if args.toolchain and spec.name not in args.toolchain:
            continue
        toolchain = detect(spec)
        if toolchain is None:
            print(f"== {spec.name}: not present, skipped", file=sys.stderr)
            continue
        arch = choose_compile_arch(toolchain, spec.target).arch
        print(f"== {spec.name}: {len(projects)} projects with {toolchain.describe}, --offload-arch={arch}",
              file=sys.stderr)
        results = []
        for project in projects:
            r = run_project(project, spec, toolchain, arch, work_root / spec.name, args.jobs, rules)
            print(f"   {project.name:<28} {r.units:2d} units: {r.translated_ok:2d} after translation, "
                  f"{r.fixed_ok:2d} after the fix loop ({r.seconds:.0f} s)", file=sys.stderr, flush=True)
            results.append(r)
        summary = summarize(spec, toolchain, arch, results)
        summaries.append(summary)
        print_summary(summary)
    if not summaries:
        print("compile_rate: no HIP toolchain found (hipcc on PATH; `porter toolchain install` for ROCm 6.4)", file=sys.stderr)
        return 2
    if args.json:
        _write_json(args.json, summaries)
    if args.keep is None:
        shutil.rmtree(work_root, ignore_errors=True)
    return 0


def _write_json(target: str, summaries: list[dict]) -> None:
    text = json.dumps({"toolchains": summaries}, indent=1)
    if target == "-":
        print(text)
    else:
        Path(target).write_text(text + "\n", "utf-8")


if __name__ == "__main__":
    sys.exit(main())

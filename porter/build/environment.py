"""`HipccEnvironment`: builds an output tree with hipcc (or the user's build command) and runs its tests.

It implements the agent's Environment protocol: `root`, `build(path=None)`, `run_tests()`.
Objects go to a temporary directory, never into the user's tree.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from porter.build.cache import BuildCache, parse_depfile
from porter.build.compile_db import (
    HEADER_SUFFIXES,
    CompileFlags,
    UnitPlan,
    collect_flags,
    plan_units,
    walk_files,
)
from porter.build.diagnostics import dedupe, parse_clang_output, relative_path
from porter.build.results import BuildResult, TestResult
from porter.build.toolchain import Toolchain, hip_env

MAX_OUTPUT = 200_000  # characters of raw compiler output kept in a BuildResult
COMPILE_TIMEOUT_S = 600
TEST_TIMEOUT_S = 1800


@dataclass
class FileBuild:
    path: str  # relative to the output root
    ok: bool
    output: str
    command: str
    cached: bool = False  # reused from the build cache: nothing it reads changed


class BuildProgress(Protocol):
    """What a build tells whoever shows its progress (the fix loop's progress bar)."""

    def start(self, total: int) -> None: ...
    def done(self, unit: str, cached: bool, ok: bool) -> None: ...


@dataclass
class HipccEnvironment:
    root: Path
    toolchain: Toolchain | None
    arch: str = "gfx90a"
    build_cmd: str | None = None
    test_cmd: str | None = None
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    extra_flags: tuple[str, ...] = ()
    only: list[Path] | None = None  # restrict the build to these files (single-file conversions)
    cache: BuildCache | None = None  # reuse results while nothing a unit reads changed (porter.build.cache)
    progress: BuildProgress | None = None
    _flags: CompileFlags | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()
        if self.only is not None:  # a relative path means the working directory's, never the output root's
            self.only = [Path(p).resolve() for p in self.only]

    @property
    def flags(self) -> CompileFlags:
        # parsed once: the agent and fixers edit sources, not build files
        if self._flags is None:
            self._flags = collect_flags(self.root)
        return self._flags

    def compile_command(self, source: Path, obj: Path) -> list[str]:
        if self.toolchain is None:
            raise RuntimeError("no hipcc")
        rel = source.relative_to(self.root) if source.is_relative_to(self.root) else source
        # a C unit is HIP host code: compiled as C against HIP's headers, which need the platform named
        language = ["-x", "c", "-D__HIP_PLATFORM_AMD__"] if source.suffix == ".c" else ["-x", "hip"]
        # an installed toolchain runs in its own root: the host's headers (GL, MPI...) come last, after the root's
        host = ["-idirafter", self.toolchain.host_include] if self.toolchain.host_include else []
        return [str(self.toolchain.hipcc), f"--offload-arch={self.arch}", *language, "-c", str(rel),
                "-o", str(obj), *self.flags.args(source if source.is_absolute() else self.root / source),
                *host, *self.extra_flags]

    def _run(self, cmd: list[str], timeout: float, scratch: Path) -> subprocess.CompletedProcess[str]:
        # ROCm 5.2's clang leaves two empty directories in $TMPDIR per compile: keep them in porter's scratch
        # directory, which is removed after the build, instead of piling up in /tmp
        env = hip_env()
        env["TMPDIR"] = str(scratch)
        return subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, env=env, timeout=timeout,
                              check=False)

    def _compile_one(self, source: Path, objdir: Path, show_progress: bool = True) -> FileBuild:
        rel = relative_path(str(source), self.root)
        obj = objdir / (rel.replace("/", "__") + ".o")
        cmd = self.compile_command(source, obj)
        key = ""
        if self.cache is not None:
            key = self.cache.key(rel, self.compile_command(source, Path("UNIT.o")), self._toolchain_id(), self.arch)
            hit = self.cache.lookup(rel, key)
            if hit is not None:
                return self._done(FileBuild(rel, hit.ok, hit.output, shlex.join(cmd), cached=True), show_progress)
        depfile = obj.with_suffix(".d")
        try:
            proc = self._run([*cmd, "-MD", "-MF", str(depfile)] if self.cache else cmd, COMPILE_TIMEOUT_S, objdir)
            output, ok = proc.stdout + proc.stderr, proc.returncode == 0
        except subprocess.TimeoutExpired:
            output, ok = f"{rel}:0:0: error: compilation timed out after {COMPILE_TIMEOUT_S}s\n", False
        if self.cache is not None:
            self.cache.store(rel, key, self._dependencies(cmd, depfile, ok), ok, output)
        return self._done(FileBuild(rel, ok, output, shlex.join(cmd)), show_progress)

    def _dependencies(self, cmd: list[str], depfile: Path, compiled: bool) -> list[str]:
        """What the unit read: from -MD, or (clang writes none for a unit that failed) from a -M -MG run."""
        if not compiled or not depfile.is_file():
            args = [a for a in cmd[1:] if a != "-c"]
            out = args.index("-o")
            del args[out : out + 2]
            try:
                self._run([cmd[0], *args, "-M", "-MG", "-MF", str(depfile)], COMPILE_TIMEOUT_S, depfile.parent)
            except subprocess.TimeoutExpired:
                return []
        try:
            return parse_depfile(depfile.read_text("utf-8", "replace"))
        except OSError:
            return []

    def _toolchain_id(self) -> str:
        tc = self.toolchain
        return f"{tc.hipcc}|{tc.hip_version}" if tc is not None else ""

    def _done(self, result: FileBuild, show_progress: bool = True) -> FileBuild:
        if self.progress is not None and show_progress:
            self.progress.done(result.path, result.cached, result.ok)
        return result

    def scan_dependencies(self, sources: list[Path] | None = None) -> dict[str, list[str]]:
        """What each translation unit (of `sources`, else of the tree) reads inside the tree, without compiling:
        from the build cache while still valid, else from a `hipcc -M -MG` run, recorded in the cache so that
        `BuildCache.units_reading` can answer which units a change touches. Needs `cache` and a toolchain."""
        if self.cache is None or self.toolchain is None:
            raise RuntimeError("scan_dependencies needs a build cache and hipcc")
        cache = self.cache
        cache.refresh([str(p) for p in walk_files(self.root) if p.suffix.lower() in HEADER_SUFFIXES])
        units = plan_units(self.root, sources).units

        def scan(source: Path, objdir: Path) -> tuple[str, list[str]]:
            rel = relative_path(str(source), self.root)
            key = cache.key(rel, self.compile_command(source, Path("UNIT.o")), self._toolchain_id(), self.arch)
            known = cache.dependencies_of(rel, key)
            if known is None:
                obj = objdir / (rel.replace("/", "__") + ".o")
                deps = self._dependencies(self.compile_command(source, obj), obj.with_suffix(".d"), compiled=False)
                cache.store_dependencies(rel, key, deps)
                known = cache.dependencies_of(rel, key) or [rel]
            return rel, known

        with tempfile.TemporaryDirectory(prefix="porter-deps-") as tmp, \
                ThreadPoolExecutor(max_workers=max(1, self.jobs)) as pool:
            return dict(pool.map(lambda s: scan(s, Path(tmp)), units))

    def compile_files(self, sources: list[Path], *, show_progress: bool = True) -> list[FileBuild]:
        if self.cache is not None:
            self.cache.refresh([str(p) for p in walk_files(self.root) if p.suffix.lower() in HEADER_SUFFIXES])
        if self.progress is not None and show_progress:
            self.progress.start(len(sources))
        with tempfile.TemporaryDirectory(prefix="porter-build-") as tmp, \
                ThreadPoolExecutor(max_workers=max(1, self.jobs)) as pool:
            return list(pool.map(lambda s: self._compile_one(s, Path(tmp), show_progress), sources))

    def build(self, path: str | None = None) -> BuildResult:
        """Compile every translation unit (or just `path`), or run --build-cmd; diagnostics relative to root."""
        if self.build_cmd and path is None:
            return self._run_build_cmd()
        if self.toolchain is None:
            return BuildResult(False, output="hipcc not found", command="")
        if path is not None:
            return self._build_plan(plan_units(self.root, [self.root / path], alone=True))
        return self._build_plan(plan_units(self.root, self.only))

    def build_units(self, units: list[str]) -> BuildResult:
        """Compile only these units (relative to root): one agent task's scope. Safe to run in threads for
        disjoint units; no progress bar. With --build-cmd there are no units: the whole command runs."""
        if self.build_cmd:
            return self._run_build_cmd()
        if self.toolchain is None:
            return BuildResult(False, output="hipcc not found", command="")
        return self._build_plan(plan_units(self.root, [self.root / u for u in units], alone=True), show_progress=False)

    def unit_dependencies(self) -> dict[str, list[str]]:
        """unit -> the files of the tree it read when last compiled (from the build cache; empty without one)."""
        return self.cache.dependencies() if self.cache is not None and not self.build_cmd else {}

    def _build_plan(self, plan: UnitPlan, show_progress: bool = True) -> BuildResult:
        if not plan.units:
            return BuildResult(False, output="no translation units to compile", command="", units=[],
                               skipped=plan.skipped, headers=plan.headers)
        results = self.compile_files(plan.units, show_progress=show_progress)
        diags = []
        for r in results:
            diags.extend(parse_clang_output(r.output, self.root, default_file=r.path))
        output = "".join(f"$ {r.command}\n{r.output}" for r in results if r.output)
        return BuildResult(ok=all(r.ok for r in results), diagnostics=dedupe(diags), output=output[:MAX_OUTPUT],
                           command=results[0].command if len(results) == 1 else f"hipcc -c x{len(results)}",
                           units=[r.path for r in results], failed_units=[r.path for r in results if not r.ok],
                           cached_units=[r.path for r in results if r.cached], skipped=plan.skipped,
                           headers=plan.headers)

    def _run_build_cmd(self) -> BuildResult:
        assert self.build_cmd is not None
        try:
            proc = subprocess.run(self.build_cmd, shell=True, cwd=self.root, capture_output=True, text=True,
                                  env=hip_env(), timeout=COMPILE_TIMEOUT_S * 3, check=False)
            output, ok = proc.stdout + proc.stderr, proc.returncode == 0
        except subprocess.TimeoutExpired:
            output, ok = "build command timed out\n", False
        diags = parse_clang_output(output, self.root)
        return BuildResult(ok, diags, output[-MAX_OUTPUT:], self.build_cmd)

    def run_tests(self) -> TestResult | None:
        if not self.test_cmd:
            return None
        try:
            proc = subprocess.run(self.test_cmd, shell=True, cwd=self.root, capture_output=True, text=True,
                                  env=hip_env(), timeout=TEST_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return TestResult(False, f"timed out after {TEST_TIMEOUT_S}s", self.test_cmd, -1)
        output = (proc.stdout + proc.stderr)[-MAX_OUTPUT:]
        return TestResult(proc.returncode == 0, output, self.test_cmd, proc.returncode)

"""`porter check --build`: will a pull request still port and build, and what did it break that was fine before?

Both sides are ported the way `porter convert` would (translation, shims, rule fixers; no agent): the base (where
the branch left the target branch) and the head (the work tree as it is). Only the translation units the change
touches are compiled, found through the base port's dependency data (`BuildCache.units_reading`), and only what
the head has and the base had not is reported: new build errors, new untranslated identifiers and new hazards.

The base's port, its dependency scan and its compile results are kept in a cache entry keyed by the base commit,
porter's and the mapping's versions, the toolchain, the target and the conversion options, so a second push to
the same pull request converts and compiles nothing on the base side.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from porter import __version__
from porter.build import (
    BuildCache,
    Diagnostic,
    HipccEnvironment,
    Toolchain,
    ToolchainError,
    choose_compile_arch,
    detect_toolchain,
    resolve_toolchain,
)
from porter.config import PortConfig, build_config
from porter.revisions.git import (
    GitError,
    Scope,
    changed_since,
    changes_between,
    commit_of,
    export_commit,
    export_work_tree,
    git,
    is_dirty,
    merge_base,
    scope_of,
)
from porter.revisions.outputs import CheckOutcome, TargetRun
from porter.revisions.ports import ConvertedTree, LineMap, convert_tree
from porter.revisions.problems import Problem, Side, merge_targets, new_problems
from porter.targets import resolve_target
from porter.translate import RocmVersion

CACHE_VERSION = 1
KEEP_ENTRIES = 8  # base ports kept per cache directory (the least recently used go first)
MAX_FIXER_ROUNDS = 5  # as the fix loop: each round is a rebuild


class CheckError(RuntimeError):
    """The check cannot run here (no git work tree, no hipcc, a bad ref): one line, exit 2."""


@dataclass
class CheckRequest:
    path: Path  # the repository, or a folder in it: what gets ported
    base: str  # the ref to compare with
    targets: list[str]
    rocm: str | None = None
    cache_dir: Path | None = None  # default: <git dir>/porter/check-cache
    jobs: int = 0
    toolchain: str | None = None  # 'system' or a path (see select_toolchain)


def default_cache_dir(top: Path) -> Path:
    common = Path(git(top, "rev-parse", "--git-common-dir").strip())
    return (common if common.is_absolute() else top / common) / "porter" / "check-cache"


def _base_key(base_commit: str, scope: Scope, toolchain, target: str, arch: str, config: PortConfig,
              rename: bool) -> str:
    from porter.convert import mapping_version

    text = json.dumps([CACHE_VERSION, base_commit, scope.path, __version__, mapping_version(),
                       str(toolchain.hipcc.resolve()), toolchain.hip_version, target, arch,
                       str(config.rocm) if config.rocm else None, str(config.launch_syntax.value), rename])
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _base_port(cache_root: Path, key: str, scope: Scope, base_commit: str, config: PortConfig, rename: bool,
               jobs: int) -> tuple[ConvertedTree, bool]:
    """The base's port from the cache, else converted now and stored there. Returns (tree, was cached)."""
    entry = cache_root / key
    facts = entry / "conversion.json"
    if facts.is_file():
        with contextlib.suppress(OSError, ValueError, KeyError):
            tree = ConvertedTree.load(facts)
            tree.root, tree.source_root = entry / "port", entry / "source"
            os.utime(facts)  # recently used: pruned last
            return tree, True
        shutil.rmtree(entry, ignore_errors=True)
    cache_root.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{key}.partial-", dir=cache_root))
    try:
        export_commit(scope, base_commit, partial / "source")
        tree = convert_tree(partial / "source", partial / "port", config, rename=rename, jobs=jobs)
        tree.save(partial / "conversion.json")
        (partial / "meta.json").write_text(json.dumps({"commit": base_commit, "scope": scope.path,
                                                       "porter": __version__, "target": config.target,
                                                       "created": time.time()}) + "\n")
        try:
            os.replace(partial, entry)
        except OSError:  # another run stored the same entry first: use theirs
            shutil.rmtree(partial, ignore_errors=True)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    tree = ConvertedTree.load(facts)
    tree.root, tree.source_root = entry / "port", entry / "source"
    _prune(cache_root)
    return tree, False


def _prune(cache_root: Path) -> None:
    """Keep the most recently used entries; drop what an interrupted run left half-written a day ago."""
    entries = [p for p in cache_root.iterdir() if (p / "conversion.json").is_file()]
    entries.sort(key=lambda p: (p / "conversion.json").stat().st_mtime, reverse=True)
    stale = [p for p in cache_root.glob("*.partial-*") if p.stat().st_mtime < time.time() - 86400]
    for old in entries[KEEP_ENTRIES:] + stale:
        shutil.rmtree(old, ignore_errors=True)


@dataclass
class _Built:
    errors: list[Diagnostic]
    units: int = 0
    compiled: int = 0  # compiled now (the rest came from the build cache)
    failed: tuple[str, ...] = ()


def _build(root: Path, files: set[str], toolchain: Toolchain, arch: str, config: PortConfig, jobs: int) -> _Built:
    """Build `files` of the port at `root` as `porter convert` would: shims, hipcc, then the rule fixers' rounds
    (no agent). Results are kept in the tree's build cache."""
    from porter.fix import apply_fixers, install_shims

    present = sorted(root / f for f in files if (root / f).is_file())
    if not present:
        return _Built([])
    install_shims(root, present, config.rocm)
    env = HipccEnvironment(root, toolchain, arch=arch, jobs=jobs or os.cpu_count() or 1, only=present,
                           cache=BuildCache.for_tree(root))
    result = env.build()
    compiled = len(result.units or []) - len(result.cached_units)
    for _ in range(MAX_FIXER_ROUNDS):
        if result.ok or not result.errors or not apply_fixers(root, result.diagnostics):
            break
        result = env.build()
        compiled += len(result.units or []) - len(result.cached_units)
    return _Built(result.errors, len(result.units or []), compiled, tuple(sorted(result.failed_units)))


def select_toolchain(spec: str | None) -> Toolchain | None:
    """--toolchain: whatever `porter.build.resolve_toolchain` takes: nothing or 'system' (PORTER_HIPCC, else hipcc on
    PATH or under ROCM_PATH), an installed toolchain's name (`rocm-6.4`), a ROCm version, or a path: hipcc itself, a
    toolchain directory (`porter toolchain install --dir`'s), a ROCm prefix."""
    if spec is None or spec == "system":
        return detect_toolchain()
    try:
        return resolve_toolchain(spec, origin="--toolchain")
    except ToolchainError as exc:
        raise CheckError(str(exc)) from None


def _line_maps(scope: Scope, base_tree: ConvertedTree, head_src: Path, changed: set[str],
               renamed_from: dict[str, str]) -> dict[str, LineMap]:
    """For each changed file of the head (repository paths): its lines as the base's lines."""
    maps: dict[str, LineMap] = {}
    for name in changed:
        head_file = head_src / name
        if not head_file.is_file():
            continue
        old = base_tree.source_root / renamed_from.get(name, name)
        before = old.read_bytes() if old.is_file() else b""
        maps[f"{scope.path}/{name}" if scope.path else name] = LineMap(before, head_file.read_bytes())
    return maps


def check_port(request: CheckRequest, status: Callable[[str], None] = lambda _: None) -> CheckOutcome:
    """Port and build the change since `request.base` for each target; the problems it introduced. Raises
    CheckError (and ConfigError, PorterInputError) for what the user can fix."""
    try:
        scope = scope_of(request.path)
        base_commit = merge_base(scope.top, request.base)
        head_commit = commit_of(scope.top, "HEAD")
        changed = changed_since(scope, base_commit)
        renames = {c.new: c.old for c in changes_between(scope, base_commit, "HEAD") if c.status == "R" and c.new}
        dirty = is_dirty(scope)
        cache_root = request.cache_dir.resolve() if request.cache_dir else default_cache_dir(scope.top)
    except GitError as exc:
        raise CheckError(str(exc)) from None
    toolchain = select_toolchain(request.toolchain)
    if toolchain is None:
        raise CheckError("--build needs hipcc: install ROCm (or `porter toolchain install`), or leave out --build "
                         "for a hazard scan of the changed files")
    project = build_config(scope.root)
    rename = False  # output names as the sources': the comparison pairs files by name
    renamed_from = dict(renames)
    base_names = {renamed_from.get(n, n) for n in changed}
    runs: list[TargetRun] = []
    per_target: list[list[Problem]] = []
    targets = [resolve_target(t) for t in request.targets]
    with tempfile.TemporaryDirectory(prefix="porter-check-") as tmp:
        head_src = export_work_tree(scope, Path(tmp) / "head")
        for profile in targets:
            choice = choose_compile_arch(toolchain, profile.arch)
            rocm = project.rocm or toolchain.rocm
            if request.rocm:
                rocm = RocmVersion.parse(request.rocm)
            config = replace(project, target=profile.arch, rocm=rocm, offload_arch=choice.arch, model=None,
                             test_cmd=None, build_cmd=None, build=True, jobs=request.jobs)
            key = _base_key(base_commit, scope, toolchain, profile.arch, choice.arch, config, rename)
            status(f"{profile.arch}: porting the base {base_commit[:12]}")
            base_tree, cached = _base_port(cache_root, key, scope, base_commit, config, rename, request.jobs)
            base_cache = BuildCache.for_tree(base_tree.root)
            status(f"{profile.arch}: base port {'from the cache' if cached else 'converted'}; finding what the "
                   "change touches")
            HipccEnvironment(base_tree.root, toolchain, arch=choice.arch, jobs=request.jobs or os.cpu_count() or 1,
                             cache=base_cache).scan_dependencies()
            head_tree = convert_tree(head_src, Path(tmp) / f"port-{profile.arch}", config, rename=rename,
                                     jobs=request.jobs)
            base_out = {base_tree.outputs[n] for n in base_names if n in base_tree.outputs}
            head_out = {head_tree.outputs[n] for n in changed if n in head_tree.outputs}
            touched = set(base_cache.units_reading(base_out | head_out))
            status(f"{profile.arch}: building {len(touched | head_out)} file(s) of the head and the base")
            # the conversion's facts first: the build's shims and rule fixers edit the port, which moves its lines
            base_side, head_side = Side(base_tree, scope.path), Side(head_tree, scope.path)
            base_side.add_conversion_facts(base_names, profile.arch)
            head_side.add_conversion_facts(changed, profile.arch)
            base_built = _build(base_tree.root, touched | base_out, toolchain, choice.arch, config, request.jobs)
            head_built = _build(head_tree.root, touched | head_out, toolchain, choice.arch, config, request.jobs)
            base_side.add_build_errors(base_built.errors, profile.arch)
            head_side.add_build_errors(head_built.errors, profile.arch)
            to_head = {head_side.repo_path(old): head_side.repo_path(new) for new, old in renames.items()}
            base_problems = [replace(p, file=to_head.get(p.file, p.file)) for p in base_side.problems]
            fresh = new_problems(base_problems, head_side.problems,
                                 _line_maps(scope, base_tree, head_src, changed, renamed_from))
            per_target.append(fresh)
            runs.append(TargetRun(profile.arch, choice.arch, toolchain.describe, cached, units=head_built.units,
                                  head_compiled=head_built.compiled, base_compiled=base_built.compiled,
                                  head_failed=list(head_built.failed), note=choice.note))
    args = [] if request.path.resolve() == Path.cwd().resolve() else [str(request.path)]
    targets_args = " ".join(f"--target {t.arch}" for t in targets)
    extra = ([f"--toolchain {request.toolchain}"] if request.toolchain else []) + (
        [f"--rocm {request.rocm}"] if request.rocm else [])
    reproduce = " ".join(["porter check", *args, f"--base {base_commit[:12]} --build", targets_args, *extra])
    head = head_commit[:12] + (" with uncommitted changes" if dirty else "")
    repo_changed = sorted(f"{scope.path}/{n}" if scope.path else n for n in changed)
    return CheckOutcome(request.base, base_commit, head, repo_changed, merge_targets(per_target),
                        [t.arch for t in targets], reproduce, built=True, runs=runs)

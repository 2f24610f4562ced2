"""A conversion run over a file or a tree: classify, translate in parallel, write (or diff/check), report.

All file writes, progress and terminal output of `porter convert` happen here or in porter.files; the
translation itself (porter.translate) is pure.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import json
import os
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from porter import __version__
from porter.config import PortConfig
from porter.files import (
    MAX_TRANSLATE_BYTES,
    STATE_DIR,
    FileKind,
    PorterInputError,
    ShardSpec,
    TreeEntry,
    WriteMode,
    atomic_write,
    backup,
    check_default_destination,
    check_destination,
    classify,
    looks_binary,
    read_bytes,
    walk_tree,
)
from porter.report import FileReport, Report
from porter.translate import (
    CUDA_LOOKING,
    Conversion,
    PastedMacro,
    Reason,
    TranslateOptions,
    TranslationResult,
    defined_types,
    find_pasted_macros,
)

HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hxx", ".inl")
SHIM_DIR = "porter_shims"  # where ports keep the compatibility shims (porter.fix.shims.OUT_DIRNAME)
USER_DEFINED = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)|\b([A-Za-z_]\w*)[ \t]*\([^;{}]*\)[ \t]*(?:const[ \t]*)?\{", re.MULTILINE)


@dataclass
class ConvertRequest:
    source: Path
    output: Path | None
    mode: WriteMode
    config: PortConfig = field(default_factory=PortConfig)
    rename: bool = False
    jobs: int = 0  # 0: all cores
    report_path: Path | None = None
    strict: bool = False
    default_output: bool = False  # `output` is porter's default beside the input: it may only replace a port of ours
    shard: ShardSpec | None = None  # --shard K/N: build and fix only this share (the whole tree is translated)


@dataclass
class _Job:
    rel: str  # input-relative path
    out_rel: str  # output-relative path
    kind: FileKind
    path: Path  # absolute input path
    options: TranslateOptions
    want_diff: bool
    link_target: str | None = None
    scan_output: bool = False  # write modes: scan the result for the hazards still open


@dataclass
class _Done:
    report: FileReport
    output: bytes | None  # new content when it differs from the input (None: copy/keep as is)
    diff: str | None = None
    shims: tuple[str, ...] = ()  # shim files (under shims/) the output includes
    findings: list[dict] = field(default_factory=list)  # hazards still open in the output


# -- the pure part of a job, run in worker processes -----------------------------------------------------------
def _translate_job(job: _Job) -> _Done:
    kind = job.kind.value
    if job.kind is FileKind.SYMLINK:
        return _Done(FileReport(job.rel, job.out_rel, kind, "copied"), None)
    try:
        source = read_bytes(job.path)
    except PorterInputError as exc:
        return _Done(FileReport(job.rel, job.out_rel, kind, "failed", error=str(exc)), None)
    if job.kind is FileKind.OTHER:
        return _Done(FileReport(job.rel, job.out_rel, kind, "copied"), None)
    if looks_binary(source):
        return _Done(FileReport(job.rel, job.out_rel, kind, "copied", warnings=["binary content (NUL bytes); copied untouched"]), None)
    if len(source) > MAX_TRANSLATE_BYTES:
        warning = f"{len(source) // (1024 * 1024)} MiB: too large to translate; copied untouched"
        return _Done(FileReport(job.rel, job.out_rel, kind, "copied", warnings=[warning]), None)
    result = _translate_bytes(job, source)
    shims: tuple[str, ...] = ()
    findings: list[dict] = []
    if job.kind is FileKind.SOURCE:
        result.output, shims = _with_shims(result, job)
        if job.scan_output:
            findings = _open_findings(result, job, shims)
    report = FileReport.from_result(job.rel, job.out_rel, kind, source, result)
    if not _is_utf8(source) and report.status == "translated":
        report.warnings.append("not valid UTF-8: only the translated identifiers were changed, all other bytes kept")
    renamed = job.out_rel != job.rel
    if renamed and report.status == "unchanged":
        report.status = "translated"
    output = result.output if (result.changed(source) or renamed) else None
    diff = _unified_diff(job.rel, job.out_rel, source, result.output) if job.want_diff and output is not None else None
    if not job.scan_output:
        output = None  # --diff/--check: the main process needs the facts, not the bytes
    return _Done(report, output, diff, shims, findings)


def _with_shims(result: TranslationResult, job: _Job) -> tuple[bytes, tuple[str, ...]]:
    """Include the compatibility shims the output needs, by a path relative to the file (plain hipcc, no -I)."""
    from porter.fix import OUT_DIRNAME as SHIM_INCLUDE_DIR
    from porter.fix import add_shim_include, all_shims, needed_shims

    text = result.output.decode("utf-8", "surrogateescape")
    needed = needed_shims(text, job.options.rocm, job.options.local_headers)
    files = []
    for name in sorted(needed):
        shim = all_shims()[name]
        rel = posixpath.relpath(f"{SHIM_INCLUDE_DIR}/{shim.file}", posixpath.dirname(job.out_rel) or ".")
        updated = add_shim_include(text, f'#include "{rel}"  // porter shim\n', shim.file)
        if updated != text:
            text = updated
            result.conversions.append(Conversion("shim", name, f"{SHIM_INCLUDE_DIR}/{shim.file}", 1))
        files.append(shim.file)
    # what a shim now provides is no longer left for a newer ROCm
    provided = {ident for name in needed for ident in all_shims()[name].provides}
    result.unconverted = [u for u in result.unconverted if not (u.reason is Reason.NEWER_ROCM and u.name in provided)]
    return text.encode("utf-8", "surrogateescape"), tuple(files)


def _open_findings(result: TranslationResult, job: _Job, shims: tuple[str, ...]) -> list[dict]:
    from porter.fix import all_shims
    from porter.scan import scan_translated
    from porter.targets import resolve_target

    findings = scan_translated(result.output, job.out_rel, resolve_target(job.options.target), job.options.rocm, result)
    # an API "too new for this ROCm" that an included shim provides is not open any more
    provided = {ident for shim in all_shims().values() if shim.file in shims for ident in shim.provides}
    return [f.as_dict() for f in findings
            if not (f.category in ("unsupported-api", "cooperative-groups") and _subject(f.message) in provided)]


def _subject(message: str) -> str:
    """The identifier a finding's message names first (`name` in backticks)."""
    m = re.search(r"`([^`]+)`", message)
    return m.group(1) if m else ""


def _translate_bytes(job: _Job, source: bytes) -> TranslationResult:
    if job.kind is FileKind.BUILD:
        from porter.translate import translate_build_file

        return translate_build_file(job.rel, source, job.options)
    from porter.translate import translate

    return translate(source, job.options)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _unified_diff(rel: str, out_rel: str, old: bytes, new: bytes) -> str:
    a = old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    b = new.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, f"a/{rel}", f"b/{out_rel}"))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# -- the run --------------------------------------------------------------------------------------------------
def convert(request: ConvertRequest, console: Console, out: Callable[[str], None] | None = None) -> Report:
    """Convert request.source; `out` receives diff text (stdout). Raises PorterInputError for bad input."""
    source, mode = request.source, request.mode
    if not source.exists() and not source.is_symlink():
        raise PorterInputError(f"{source}: no such file or directory")
    if source.is_symlink() and source.is_file() and mode is WriteMode.IN_PLACE:
        raise PorterInputError(f"{source}: is a symlink; porter does not write through links")
    if mode is WriteMode.WRITE and request.output is None:
        raise PorterInputError("no output given: use -o OUT, --in-place, --diff or --check")
    output_root = _output_root(request)
    if output_root is not None and mode is WriteMode.WRITE:
        check_destination(source, request.output, in_place=False)
        if request.default_output:
            check_default_destination(source, request.output)
    config = request.config
    written_to = request.output if mode is WriteMode.WRITE else source if mode is WriteMode.IN_PLACE else None
    report = Report(str(source), str(output_root) if output_root else None, mode.value, config.target,
                    str(config.rocm) if config.rocm else None, written_to=str(written_to) if written_to else None,
                    shard=request.shard)
    jobs = list(_plan(request, report.warnings))
    if request.shard is not None and not mode.writes:  # a written shard needs the whole tree to build its share
        jobs = [j for j in jobs if request.shard.owns(j.out_rel)]
    done = _run_jobs(jobs, request, console, report, output_root)
    if mode.writes and output_root is not None and not report.interrupted:
        _write_manifest(request, output_root, done)
        _after_write(request, output_root, report, console)
    if mode.writes and output_root is not None:
        report.write_json(request.report_path or output_root / STATE_DIR / "report.json")
    elif request.report_path is not None:
        report.write_json(request.report_path)
    if out is not None:
        for d in done:
            if d.diff:
                out(d.diff)
    return report


def _output_root(request: ConvertRequest) -> Path | None:
    if request.mode is WriteMode.IN_PLACE:
        return request.source if request.source.is_dir() else request.source.parent
    if request.mode is WriteMode.WRITE and request.output is not None:
        return request.output if request.source.is_dir() else request.output.parent
    return None


def _plan(request: ConvertRequest, warnings: list[str]) -> Iterable[_Job]:
    source, config = request.source, request.config
    base = TranslateOptions(launch_syntax=config.launch_syntax, rocm=config.rocm, target=config.target,
                            full_parse=config.full_parse)
    want_diff = request.mode is WriteMode.DIFF
    scan_output = request.mode.writes
    if source.is_file():
        rel = source.name
        out_rel = request.output.name if request.mode is WriteMode.WRITE and request.output else rel
        kind = classify(rel)
        if kind is FileKind.OTHER:
            kind = FileKind.SOURCE  # a file named on the command line is translated whatever its suffix
        options = replace(base, nvcc_source=True) if rel.lower().endswith(".cu") else base
        yield _Job(rel, out_rel, kind, source.resolve(), options, want_diff, scan_output=scan_output)
        return
    entries = list(walk_tree(source, warnings))
    renamed = _renames(entries) if request.rename else {}
    pairs = tuple(renamed.items()) + tuple((Path(o).name, Path(n).name) for o, n in renamed.items())
    local_headers = frozenset(Path(e.rel).name for e in entries if e.rel.endswith(HEADER_SUFFIXES))
    symbols, types = _user_symbols(source, entries)
    options = replace(base, renamed=pairs, user_symbols=symbols, user_types=types, local_headers=local_headers,
                      pasted_macros=_pasted_macros(source, entries))
    nvcc_options = replace(options, nvcc_source=True)  # for .cu files (TranslateOptions.nvcc_source)
    for entry in entries:
        if entry.rel.startswith(SHIM_DIR + "/") and entry.kind is FileKind.SOURCE:
            entry = replace(entry, kind=FileKind.OTHER)  # porter's own shims in a port: copied as they are
        file_options = nvcc_options if entry.rel.lower().endswith(".cu") else options
        yield _Job(entry.rel, renamed.get(entry.rel, entry.rel), entry.kind, source / entry.rel, file_options, want_diff,
                   entry.link_target, scan_output)


def _renames(entries: list[TreeEntry]) -> dict[str, str]:
    """--rename: .cu sources get the .hip suffix (unless a .hip of that name already exists)."""
    existing = {e.rel for e in entries}
    out = {}
    for e in entries:
        if e.kind is FileKind.SOURCE and e.rel.endswith(".cu"):
            new = e.rel[:-3] + ".hip"
            if new not in existing:
                out[e.rel] = new
    return out


def _user_symbols(root: Path, entries: list[TreeEntry]) -> tuple[frozenset[str], frozenset[str]]:
    """CUDA-looking names the project defines in its headers (CUDA_CHECK, cudaCheckError...): the user's own; and
    the CUDA-looking types among them (a struct the project calls cuComplex)."""
    names: set[str] = set()
    types: set[str] = set()
    for e in entries:
        if e.kind is FileKind.SOURCE and e.rel.endswith(HEADER_SUFFIXES):
            try:
                data = (root / e.rel).read_bytes()
            except OSError:
                continue
            if len(data) > MAX_TRANSLATE_BYTES:
                continue
            for m in USER_DEFINED.finditer(data):
                name = (m.group(1) or m.group(2)).decode("ascii")
                if CUDA_LOOKING.match(name):
                    names.add(name)
            if b"cu" in data:
                types.update(name for name in defined_types(data) if CUDA_LOOKING.match(name))
    return frozenset(names), frozenset(types)


def _pasted_macros(root: Path, entries: list[TreeEntry]) -> tuple[PastedMacro, ...]:
    """The prefix-pasting check macros the tree defines, agreed across its files (a macro defined in a header and
    called in every source must be undone the same way in all of them)."""
    def sources() -> Iterator[bytes]:
        for e in entries:
            if e.kind is FileKind.SOURCE:
                try:
                    data = (root / e.rel).read_bytes()
                except OSError:
                    continue
                if b"##" in data and len(data) <= MAX_TRANSLATE_BYTES:
                    yield data
    return find_pasted_macros(sources())


def _run_jobs(jobs: list[_Job], request: ConvertRequest, console: Console, report: Report,
              output_root: Path | None) -> list[_Done]:
    """Translate in worker processes and write each result as it arrives (results stream; memory stays flat)."""
    writes = request.mode.writes and output_root is not None
    copied_shims: set[str] = set()
    workers = request.jobs or os.cpu_count() or 1
    translate_jobs = [j for j in jobs if j.kind in (FileKind.SOURCE, FileKind.BUILD)]
    workers = max(1, min(workers, len(translate_jobs) // 4 or 1))
    done: list[_Done] = []
    show_progress = len(jobs) > 1 and console.is_terminal
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=console, transient=True, disable=not show_progress)
    executor = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        with progress:
            task = progress.add_task("translating", total=len(jobs))
            results = executor.map(_translate_job, jobs, chunksize=8) if executor else map(_translate_job, jobs)
            for item in results:
                report.findings.extend(item.findings)
                if writes:
                    _copy_shims(item.shims, output_root, copied_shims)
                    _write_one(item, request, output_root)
                    item.output = None  # written: don't keep every file's bytes in memory
                done.append(item)
                report.files.append(item.report)
                progress.advance(task)
    except KeyboardInterrupt:
        report.interrupted = True
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
            executor = None
    finally:
        if executor is not None:
            executor.shutdown()
    return done


def _copy_shims(names: tuple[str, ...], output_root: Path, copied: set[str]) -> None:
    from porter.fix import OUT_DIRNAME as SHIM_INCLUDE_DIR
    from porter.fix import SHIMS_DIR

    for name in names:
        if name not in copied:
            atomic_write(output_root / SHIM_INCLUDE_DIR / name, (SHIMS_DIR / name).read_bytes())
            copied.add(name)


def _write_one(d: _Done, request: ConvertRequest, output_root: Path) -> None:
    r = d.report
    if r.status == "failed":
        return
    src = request.source if request.source.is_file() else request.source / r.path
    dest = (request.output if request.source.is_file() and request.mode is WriteMode.WRITE else output_root / r.output)
    try:
        if request.mode is WriteMode.IN_PLACE:
            if d.output is None:
                return
            backup(output_root, r.path)
            atomic_write(dest, d.output, mode_from=src)
            if r.output != r.path:
                src.unlink()  # renamed in place: the original is kept in the backup
            return
        if r.kind == FileKind.SYMLINK.value:
            if dest.is_symlink() or dest.exists():
                if not dest.is_symlink():
                    raise PorterInputError(f"{dest}: exists and is not a link; not replaced by the input's link")
                dest.unlink()
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.symlink_to(os.readlink(src))
            return
        data = d.output if d.output is not None else read_bytes(src)
        if dest.is_file() and not dest.is_symlink() and dest.read_bytes() == data:
            return  # already up to date: leave the file (and its timestamp) alone
        atomic_write(dest, data, mode_from=src)
    except PorterInputError as exc:
        r.status, r.error = "failed", str(exc)
    except OSError as exc:
        r.status, r.error = "failed", f"{dest}: {exc.strerror or exc}"


def _write_manifest(request: ConvertRequest, output_root: Path, done: list[_Done]) -> None:
    in_place = request.mode is WriteMode.IN_PLACE
    src_root = (request.source if request.source.is_dir() else request.source.parent).resolve()
    files = []
    for d in done:
        r = d.report
        if r.status == "failed":
            continue
        status = "copied" if r.kind in ("other", "symlink") or r.status == "copied" else r.status
        original = output_root.resolve() / STATE_DIR / "backup" / r.path if in_place else src_root / r.path
        if in_place and status != "translated":
            original = src_root / r.path
        files.append({"output": r.output, "source": r.path, "original": str(original), "status": status})
    manifest = {"porter_version": __version__, "mapping_version": mapping_version(), "source_root": str(src_root),
                "output_root": str(output_root.resolve()), "in_place": in_place,
                "source_revision": _source_revision(request.source), "options": conversion_options(request),
                "files": files}
    path = output_root / STATE_DIR / "manifest.json"
    if request.source.is_file():
        files += _other_ported_files(path, manifest, {f["output"] for f in files})
    atomic_write(path, json.dumps(manifest, indent=2).encode() + b"\n")


def conversion_options(request: ConvertRequest) -> dict:
    """What shapes the translation besides the sources: recorded so `porter sync` can convert again the same way."""
    config = request.config
    return {"target": config.target, "rocm": str(config.rocm) if config.rocm else None,
            "launch_syntax": str(config.launch_syntax.value), "rename": request.rename, "full_parse": config.full_parse}


@functools.cache
def mapping_version() -> str:
    """A digest of the data the translation applies (porter/data: API maps, headers, rewrites, build files, hazards)
    and the shims it copies: two ports with the same porter version and mapping version translate alike."""
    from porter.fix import SHIMS_DIR

    digest = hashlib.blake2b(digest_size=8)
    data = Path(__file__).parent / "data"
    for folder in (data, Path(SHIMS_DIR)):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _source_revision(source: Path) -> dict | None:
    """The git commit the input came from (a work tree's HEAD, and whether files under it were uncommitted)."""
    from porter.revisions import source_revision

    revision = source_revision(source)
    return revision.as_dict() if revision is not None else None


def _other_ported_files(path: Path, manifest: dict, outputs: set[str]) -> list[dict]:
    """Single files ported into one directory share its manifest: keep the entries of the other files."""
    try:
        earlier = json.loads(path.read_text("utf-8"))
        same = all(earlier[k] == manifest[k] for k in ("source_root", "output_root", "in_place"))
        return [f for f in earlier["files"] if f["output"] not in outputs] if same else []
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _after_write(request: ConvertRequest, output_root: Path, report: Report, console: Console) -> None:
    """Hazards still open in the output, then the build-and-fix loop (issue 3) unless --no-build."""
    written = [output_root / f.output for f in report.files if f.kind == "source" and f.status in ("translated", "unchanged")]
    if request.source.is_file() and request.output is not None and request.mode is WriteMode.WRITE:
        written = [request.output]
    if request.config.build:
        _fix(output_root, request.config, report, written, console, request.report_path, request.shard)


def _fix(output_root: Path, config: PortConfig, report: Report, written: list[Path], console: Console,
         report_path: Path | None, shard: ShardSpec | None = None, earlier_tasks: list[dict] | None = None) -> None:
    try:
        from porter.fix import LoopStatus, run_fix_loop
    except ImportError:
        report.warnings.append("the build step is not available in this installation; skipped")
        return
    path = report_path or output_root / STATE_DIR / "report.json"
    # a resumed run's edits add to those of the run it continues
    edited = set(report.fix_loop.get("edited") or []) if earlier_tasks is not None else set()
    before = _hashes(output_root, report)
    tuning = _tuning(output_root, config, written, report, before, shard.owns if shard else None)
    outcome = run_fix_loop(output_root, config, report.fix_loop, files=written, findings=report.findings,
                           console=console, share=shard.owns if shard else None, earlier_tasks=earlier_tasks,
                           checkpoint=lambda: report.write_json(path), tuning=tuning)
    after = _hashes(output_root, report)
    report.fix_loop["edited"] = sorted(edited | {rel for rel, digest in after.items() if before.get(rel) != digest})
    report.fix_loop["status"] = str(outcome.status)
    report.fix_loop["message"] = outcome.message
    # no toolchain is a warning (translation still happened), not a failed port
    report.fix_loop["ok"] = outcome.status in (LoopStatus.OK, LoopStatus.SKIPPED, LoopStatus.NO_TOOLCHAIN)


def _tuning(output_root: Path, config: PortConfig, written: list[Path], report: Report, digests: dict[str, str],
            share: Callable[[str], bool] | None = None) -> list[str]:
    """porter tune's per-launch facts for the report (a shard's own files only); their one-line form for the agent."""
    try:
        from porter.tune import port_facts
    except ImportError:
        return []
    root = output_root.resolve()
    files = [f for f in written if share is None or
             (f.resolve().is_relative_to(root) and share(f.resolve().relative_to(root).as_posix()))]
    # the facts come from compiling every kernel unit again (hipcc remarks, nvcc -v): reuse the last run's while
    # nothing they are computed from changed, so that a second convert of an unchanged tree compiles nothing
    cache = output_root / STATE_DIR / "tune-facts.json"
    key = _tuning_key(files, config, digests)
    try:
        saved = json.loads(cache.read_text("utf-8"))
        if saved.get("key") == key:
            report.tuning = saved["sites"]
            if saved.get("warning"):
                report.warnings.append(saved["warning"])
            return list(saved["hints"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    facts = port_facts(output_root, config.target, files=files, toolchain=config.toolchain)
    report.tuning = facts.sites
    if facts.warning:
        report.warnings.append(facts.warning)
    with contextlib.suppress(OSError):
        atomic_write(cache, json.dumps({"key": key, "sites": facts.sites, "hints": facts.hints,
                                        "warning": facts.warning}).encode())
    return facts.hints


def _tuning_key(files: list[Path], config: PortConfig, digests: dict[str, str]) -> str:
    """What porter tune's facts for a port depend on: the port's files (`digests`, from _hashes: kernels, launch
    sites and the headers they include; porter's shims come with its version), the files asked about, the target,
    the toolchain and the nvcc on this machine."""
    from porter.tune import find_nvcc

    return hashlib.sha256(json.dumps([__version__, config.target, config.toolchain, str(find_nvcc()),
                                      os.environ.get("PORTER_HIPCC", ""),
                                      sorted(f.resolve().as_posix() for f in files),
                                      sorted(digests.items())]).encode()).hexdigest()


def resume(output: Path, console: Console, report_path: Path | None = None, **options: object) -> Report:
    """`porter convert --resume OUT`: continue the build-and-fix loop of an earlier run of OUT from its report,
    without translating again (that would undo the fixes). The agent tasks it fixed are kept and not redone; the
    options it ran with (model, endpoint, budgets, build and test commands) apply unless given again now.
    Raises PorterInputError for an output tree with no usable report."""
    from porter.config import build_config

    path = report_path or output / STATE_DIR / "report.json"
    if not output.is_dir():
        raise PorterInputError(f"{output}: not a directory; --resume takes the output tree of an earlier porter convert")
    try:
        data = json.loads(path.read_text("utf-8"))
        report = Report.from_dict(data)
    except FileNotFoundError:
        raise PorterInputError(f"{path}: no porter report here to resume from; run porter convert first") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PorterInputError(f"{path}: not a porter report that can be resumed ({type(exc).__name__}: {exc})") from None
    if report.mode not in (WriteMode.WRITE.value, WriteMode.IN_PLACE.value) or report.output_root is None:
        raise PorterInputError(f"{path}: the report of a --{report.mode} run; nothing was written to resume")
    fix_loop = report.fix_loop
    stored = {k: v for k, v in (fix_loop.get("options") or {}).items() if v is not None}
    earlier = list((fix_loop.get("agent") or {}).get("tasks") or [])
    source_root = Path(report.source_root)
    project = source_root if source_root.is_dir() else source_root.parent if source_root.parent.is_dir() else None
    given = {k: v for k, v in options.items() if v is not None}
    config = build_config(project, **{"rocm": report.rocm, **stored, **given, "build": True, "report_path": report_path})
    root = output  # the tree may have moved since: the report's paths are relative to it
    written = [root / f.output for f in report.files if f.kind == "source" and f.status in ("translated", "unchanged")]
    if report.written_to and Path(report.written_to).is_file():
        written = [Path(report.written_to)]
    report.target = config.target
    _fix(root, config, report, written, console, path, report.shard, earlier_tasks=earlier)
    report.write_json(path)
    return report


def _hashes(output_root: Path, report: Report) -> dict[str, str]:
    """Content digests of the port's files: what the fix loop edited is what changed between two of these."""
    out = {}
    for f in report.files:
        path = output_root / f.output
        if f.kind in ("source", "build") and path.is_file() and not path.is_symlink():
            out[f.output] = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    return out


def write_diff(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.flush()

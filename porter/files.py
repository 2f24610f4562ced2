"""File-system side of a conversion: what a tree holds, how each file is treated, atomic writes and backups."""

from __future__ import annotations

import contextlib
import enum
import hashlib
import json
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from porter.translate import is_build_file

SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".hip"})
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".porter"})
STATE_DIR = ".porter"  # porter's own state in an output tree: manifest, report, transcript, backups, review state
MAX_TRANSLATE_BYTES = 256 * 1024 * 1024  # larger "sources" are copied untouched, with a warning
BINARY_SNIFF_BYTES = 8192


class PorterInputError(Exception):
    """Bad input from the user: reported as one line, non-zero exit."""


class PorterWriteError(PorterInputError, OSError):
    """A file could not be written (also an OSError, for callers that handle those)."""


class WriteMode(enum.Enum):
    WRITE = "write"  # write the converted tree to -o
    IN_PLACE = "in-place"  # rewrite the input, keeping backups under .porter/backup/
    DIFF = "diff"  # unified diff to stdout, write nothing
    CHECK = "check"  # write nothing; exit 1 when anything would change

    @property
    def writes(self) -> bool:
        return self in (WriteMode.WRITE, WriteMode.IN_PLACE)


class FileKind(enum.Enum):
    SOURCE = "source"
    BUILD = "build"
    OTHER = "other"  # copied byte for byte
    SYMLINK = "symlink"


@dataclass(frozen=True)
class TreeEntry:
    rel: str  # posix relative path inside the input root ("" parts never)
    kind: FileKind
    link_target: str | None = None  # for symlinks that stay inside the tree: the link text to recreate


def classify(rel: str) -> FileKind:
    if is_build_file(rel):
        return FileKind.BUILD
    return FileKind.SOURCE if Path(rel).suffix.lower() in SOURCE_SUFFIXES else FileKind.OTHER


def walk_tree(root: Path, warnings: list[str]) -> Iterator[TreeEntry]:
    """Every file under root, sorted; symlinks are never followed, and those pointing outside the tree are skipped."""
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        names = sorted(filenames) + [d for d in dirnames if (here / d).is_symlink()]
        for name in names:
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = os.readlink(path)
                resolved = (path.parent / target).resolve()
                if not resolved.is_relative_to(real_root):
                    warnings.append(f"{rel}: symlink points outside the tree ({target}); not followed, not copied")
                    continue
                yield TreeEntry(rel, FileKind.SYMLINK, target)
                continue
            if not path.is_file():
                warnings.append(f"{rel}: not a regular file; skipped")
                continue
            yield TreeEntry(rel, classify(rel))
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError:
        raise PorterInputError(f"{path}: permission denied (cannot read)") from None
    except IsADirectoryError:
        raise PorterInputError(f"{path}: is a directory") from None
    except OSError as exc:
        raise PorterInputError(f"{path}: cannot read: {exc.strerror or exc}") from None


def atomic_write(path: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write via a temp file in the same directory and rename, so a reader (or Ctrl-C) sees old or new, never half.

    The permission bits come from `mode_from`, else from the file being replaced; a symlink is never written through.
    """
    if path.is_symlink():
        raise PorterWriteError(f"{path}: destination is a symlink; porter does not write through links")
    mode_source = mode_from if mode_from is not None else (path if path.exists() else None)
    # Ctrl-C is held back until the file is replaced or its temp file removed: no half state, no stray temp file
    with _sigint_deferred():
        _write_replace(path, data, mode_source)


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends, then deliver it.

    Python runs signal handlers in the main thread whichever thread the kernel hands the signal to (a process pool
    keeps helper threads), so blocking the signal in this thread is not enough: swap the handler for one that only
    records the interrupt. Other threads never run Python handlers and need nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and previous is not signal.SIG_IGN:
            if callable(previous):
                previous(signal.SIGINT, None)  # default_int_handler raises KeyboardInterrupt
            else:
                raise KeyboardInterrupt


def _write_replace(path: Path, data: bytes, mode_source: Path | None) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".porter-tmp", dir=path.parent)
    except PermissionError:
        raise PorterWriteError(f"{path.parent}: permission denied (cannot write)") from None
    except OSError as exc:
        raise PorterWriteError(f"{path.parent}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode_source is not None:
            os.chmod(tmp, stat.S_IMODE(mode_source.stat().st_mode))
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, PermissionError):
            raise PorterWriteError(f"{path}: permission denied (cannot write)") from None
        if isinstance(exc, OSError):
            raise PorterWriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def backup(root: Path, rel: str) -> Path:
    """Keep the original of a file rewritten in place under <root>/.porter/backup/<rel> (first backup wins)."""
    source = root / rel
    dest = root / STATE_DIR / "backup" / rel
    if not dest.exists():
        atomic_write(dest, source.read_bytes(), mode_from=source)
    return dest


@dataclass(frozen=True)
class ShardSpec:
    """`--shard K/N`: the K-th of N deterministic shares of a tree, by path (1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        k, sep, n = text.partition("/")
        if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
            raise PorterInputError(f"--shard {text}: expected K/N with 1 <= K <= N, e.g. 2/8")
        return cls(int(k), int(n))

    def owns(self, rel: str) -> bool:
        """Whether the file at `rel` (posix, relative to the tree) is in this share; the same on every machine."""
        digest = hashlib.blake2b(rel.encode("utf-8", "surrogateescape"), digest_size=8).digest()
        return int.from_bytes(digest, "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def resolve_path(path: Path) -> Path:
    """The absolute path, with `.`, `..` and every directory link resolved: done once, at the command boundary,
    so the core never sees a path relative to the working directory. A file that is itself a symlink stays one,
    so porter can still refuse to write through it."""
    path = path.absolute()
    if path.is_symlink() and not path.is_dir():
        return path.parent.resolve() / path.name
    return path.resolve()


DEFAULT_DIR_SUFFIX = "-hip"  # repo/ -> repo-hip/ beside it
DEFAULT_FILE_INFIX = ".hip"  # k.cu -> k.hip.cu beside it


def default_output(source: Path) -> Path:
    """Where `porter convert SOURCE` with no -o/--in-place/--diff/--check writes: a sibling of the input.

    A tree `repo/` goes to `repo-hip/`; a file `k.cu` to `k.hip.cu` (the original suffix stays last, so build
    tools and editors still know the language, and the name can never be the input's)."""
    if source.is_dir():
        return source.with_name(source.name + DEFAULT_DIR_SUFFIX)
    return source.with_name(source.stem + DEFAULT_FILE_INFIX + source.suffix)


def check_default_destination(source: Path, dest: Path) -> None:
    """The default output may only replace porter's own earlier port of the same input, never anything else."""
    if not dest.exists() and not dest.is_symlink():
        if not os.access(dest.parent, os.W_OK):
            raise PorterInputError(f"cannot write the port beside the input: {dest.parent} is not writable; "
                                   "choose where it goes with -o OUT")
        return
    root = dest if source.is_dir() else dest.parent
    manifest = root / STATE_DIR / "manifest.json"
    try:
        data = json.loads(manifest.read_text("utf-8"))
        same_input = Path(data["source_root"]) == (source if source.is_dir() else source.parent)
        ours = source.is_dir() or any(f.get("output") == dest.name and f.get("source") == source.name
                                      for f in data.get("files", []))
    except (OSError, ValueError, KeyError, TypeError):
        same_input = ours = False
    if not (same_input and ours and (dest.is_dir() == source.is_dir()) and not dest.is_symlink()):
        raise PorterInputError(f"{dest} exists and is not porter's earlier port of {source}; "
                               "choose where the port goes with -o OUT")


def check_destination(source: Path, dest: Path, in_place: bool) -> None:
    """Refuse an output tree inside the input tree (and the reverse): it would convert its own output."""
    if in_place:
        return
    src, out = source.resolve(), dest.resolve()
    if src == out:
        raise PorterInputError(f"output {dest} is the input itself; use --in-place to rewrite in place")
    if source.is_dir() and out.is_relative_to(src):
        raise PorterInputError(f"output {dest} is inside the input tree {source}; choose a directory outside it")
    if src.is_relative_to(out) and source.is_dir():
        raise PorterInputError(f"input {source} is inside the output directory {dest}; choose another output")
    if dest.exists() and source.is_dir() and not dest.is_dir():
        raise PorterInputError(f"output {dest} exists and is not a directory")
    if dest.exists() and source.is_file() and dest.is_dir():
        raise PorterInputError(f"output {dest} is a directory; give a file name for a single-file conversion")

"""State a review reads and writes: the convert manifest, saved decisions, atomic byte-exact file writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from porter.files import atomic_write

STATE_DIR = ".porter"
MANIFEST = "manifest.json"
DECISIONS = "review.json"
DECISIONS_VERSION = 1


class ReviewError(Exception):
    """An expected problem: shown as one line, exit non-zero."""


@dataclass(frozen=True)
class PortedFile:
    output: str  # relative to the output root
    original: Path
    status: str


def load_manifest(out_dir: Path) -> list[PortedFile]:
    path = out_dir / STATE_DIR / MANIFEST
    try:
        data = json.loads(path.read_bytes())
        rows = data["files"]
        files = [
            PortedFile(output=row["output"], original=Path(row["original"]), status=row.get("status", ""))
            for row in rows
        ]
    except FileNotFoundError:
        raise ReviewError(
            f"no porter manifest at {path}: run `porter convert` into {out_dir} first"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReviewError(f"unreadable porter manifest {path}: {exc}") from None
    return files


# file's saved decisions: {hunk key: {first original line of the hunk (0-based, as text): action}}
FileDecisions = dict[str, dict[str, str]]


class DecisionStore:
    """<out>/.porter/review.json: {"version": 1, "files": {output path: FileDecisions}}.

    A hunk is known by its content; the line where it sits in the original (which a review never changes) tells
    identical hunks apart.
    """

    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / STATE_DIR / DECISIONS
        self.files: dict[str, FileDecisions] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_bytes())
                self.files = {
                    str(name): {
                        str(key): {str(at): str(a) for at, a in where.items()} for key, where in hunks.items()
                    }
                    for name, hunks in data["files"].items()
                }
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ReviewError(
                    f"unreadable review state {self.path}: {exc} (delete it to start over)"
                ) from None

    def for_file(self, output: str) -> FileDecisions:
        return self.files.setdefault(output, {})

    def save(self) -> None:
        data = {"version": DECISIONS_VERSION, "files": {k: v for k, v in sorted(self.files.items()) if v}}
        atomic_write(self.path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def lookup(saved: FileDecisions, key: str, a_start: int) -> str | None:
    """The decision for the hunk at this place, else the one every identical hunk got (the original moved)."""
    where = saved.get(key) or {}
    if str(a_start) in where:
        return where[str(a_start)]
    answers = set(where.values())
    return answers.pop() if len(answers) == 1 else None


def record(saved: FileDecisions, key: str, a_start: int, action: str) -> None:
    saved.setdefault(key, {})[str(a_start)] = action

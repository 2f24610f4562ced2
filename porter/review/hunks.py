"""Hunks of a port: splitting original vs port into difflib hunks and applying per-hunk choices (pure, bytes)."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

CONTEXT = 3


class Action(enum.StrEnum):
    ACCEPT = "accept"  # keep the port's text
    REJECT = "reject"  # restore the original's text
    EDIT = "edit"  # use the reviewer's text
    SKIP = "skip"  # leave undecided (asked again next time)
    QUIT = "quit"


@dataclass(frozen=True)
class Hunk:
    """One difflib group: a span of the original (a) and of the port (b), context included.

    Spans of different hunks never overlap (difflib splits groups only at equal runs longer than 2*context),
    so each hunk can be decided on its own.
    """

    index: int
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    old: tuple[bytes, ...]  # original lines of the span, line endings kept
    new: tuple[bytes, ...]  # port lines of the span
    ops: tuple[tuple[str, int, int, int, int], ...]  # difflib opcodes inside the span, for display
    core_a: tuple[int, int]  # the changed region in the original (first to last non-equal op)
    key: str  # content identity: hash of the span (original and port, context included)

    @property
    def old_bytes(self) -> bytes:
        return b"".join(self.old)

    @property
    def new_bytes(self) -> bytes:
        return b"".join(self.new)

    @property
    def header(self) -> str:
        return f"@@ -{_range(self.a_start, self.a_end)} +{_range(self.b_start, self.b_end)} @@"

    def diff_lines(self) -> list[tuple[str, bytes]]:
        """(' ' | '-' | '+', line) in unified-diff order."""
        out: list[tuple[str, bytes]] = []
        a_off, b_off = self.a_start, self.b_start
        for tag, i1, i2, j1, j2 in self.ops:
            if tag == "equal":
                out += [(" ", line) for line in self.old[i1 - a_off : i2 - a_off]]
                continue
            out += [("-", line) for line in self.old[i1 - a_off : i2 - a_off]]
            out += [("+", line) for line in self.new[j1 - b_off : j2 - b_off]]
        return out


def _range(start: int, end: int) -> str:
    # unified diff convention: 1-based start, an empty range names the line before it
    length = end - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def split_lines(data: bytes) -> list[bytes]:
    # bytes.splitlines only knows \n, \r\n and \r, and keepends makes the join exact
    return data.splitlines(keepends=True)


def split_hunks(old_lines: Sequence[bytes], new_lines: Sequence[bytes], context: int = CONTEXT) -> list[Hunk]:
    # difflib's default autojunk stays on: without it, files with many repeated lines ("}", blank) go quadratic
    matcher = SequenceMatcher(None, old_lines, new_lines)
    groups = list(matcher.get_grouped_opcodes(context)) if old_lines != new_lines else []
    hunks: list[Hunk] = []
    for index, group in enumerate(groups):
        a_start, b_start = group[0][1], group[0][3]
        a_end, b_end = group[-1][2], group[-1][4]
        changed = [op for op in group if op[0] != "equal"]
        old = tuple(old_lines[a_start:a_end])
        new = tuple(new_lines[b_start:b_end])
        key = hashlib.sha256(b"".join(old) + b"\0=>\0" + b"".join(new)).hexdigest()[:24]
        hunks.append(
            Hunk(
                index=index,
                a_start=a_start,
                a_end=a_end,
                b_start=b_start,
                b_end=b_end,
                old=old,
                new=new,
                ops=tuple(group),
                core_a=(changed[0][1], changed[-1][2]),
                key=key,
            )
        )
    return hunks


def apply_hunks(new_lines: Sequence[bytes], hunks: Sequence[Hunk], pieces: Mapping[int, bytes]) -> bytes:
    """The port with each hunk's span replaced by pieces[hunk.index] (hunks without a piece keep the port).

    Text outside the spans is the same in original and port, so it is taken from the port.
    """
    out: list[bytes] = []
    pos = 0
    for hunk in hunks:
        out += new_lines[pos : hunk.b_start]
        piece = pieces.get(hunk.index)
        out.append(hunk.new_bytes if piece is None else piece)
        pos = hunk.b_end
    out += new_lines[pos:]
    return b"".join(out)


def piece_for(hunk: Hunk, action: Action) -> bytes | None:
    """The span text an accept/reject decision stands for (None: keep the port)."""
    return hunk.old_bytes if action is Action.REJECT else None


def fit_edit(hunk: Hunk, edited: bytes, followed: bool) -> bytes:
    """Editors may drop the final line ending; put it back when more text follows the span."""
    if not followed or not edited or edited.endswith((b"\n", b"\r")) or not hunk.new:
        return edited
    last = hunk.new[-1]
    ending = last[len(last.rstrip(b"\r\n")) :] or b"\n"
    return edited + ending


def overlaps(x: tuple[int, int], y: tuple[int, int]) -> bool:
    # closed intervals, so a pure insertion (empty range) still meets the range it sits in or next to
    return max(x[0], y[0]) <= min(x[1], y[1])

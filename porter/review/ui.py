"""Terminal side of a review: drawing a hunk with its findings, reading single keys, running $EDITOR."""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from porter.review.hunks import Action, Hunk
from porter.review.store import ReviewError

KEYS = {"a": Action.ACCEPT, "r": Action.REJECT, "e": Action.EDIT, "s": Action.SKIP, "q": Action.QUIT}
PROMPT = "Keep this change? [a,r,e,s,q,?] "
HELP = """\
a  accept: keep the port's text for this hunk
r  reject: restore the original text for this hunk
e  edit: open the hunk's resulting text in $EDITOR and use what you save
s  skip: decide later (a resumed review asks again)
q  quit: save the decisions made so far and stop
?  this help"""

_SIGN_STYLE = {"-": "red", "+": "green", " ": ""}
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "blue", "note": "blue"}


@dataclass(frozen=True)
class HunkPrompt:
    """What a decider is asked about."""

    file: str
    hunk: Hunk
    findings: tuple[Any, ...]  # porter.scan Finding objects on the hunk's port lines
    file_number: int
    file_count: int
    hunk_count: int
    console: Console


def _show(line: bytes) -> str:
    return line.rstrip(b"\r\n").decode("utf-8", "replace")


def render_file_header(console: Console, file: str, number: int, count: int, hunks: int) -> None:
    console.rule(Text(f"{file}  ({number}/{count}, {hunks} hunk{'s' * (hunks != 1)})", style="bold"))


def render_hunk(prompt: HunkPrompt) -> None:
    console, hunk = prompt.console, prompt.hunk
    console.print()
    console.print(Text(f"{prompt.file}  hunk {hunk.index + 1}/{prompt.hunk_count}", style="bold"))
    console.print(Text(hunk.header, style="cyan"))
    for sign, line in hunk.diff_lines():
        console.print(Text(sign + _show(line), style=_SIGN_STYLE[sign]), soft_wrap=True)
    if prompt.findings:
        console.print(Text("hazards on these lines:", style="bold"))
    for finding in prompt.findings:
        severity = str(getattr(finding, "severity", "") or "")
        head = Text(f"  line {getattr(finding, 'line', '?')}  ")
        head.append(f"{severity or 'note'} ", style=_SEVERITY_STYLE.get(severity.lower(), ""))
        head.append(f"{getattr(finding, 'rule', '')}: {getattr(finding, 'message', '')}")
        console.print(head, soft_wrap=True)
        if getattr(finding, "fix", None):
            console.print(Text(f"    fix: {finding.fix}", style="dim"), soft_wrap=True)


@contextlib.contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Keys arrive one by one, unechoed; set before the prompt is drawn so no early key is echoed or lost."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)  # TCSANOW: keep keys typed ahead
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(fd: int) -> str:
    """One keypress (call inside cbreak); '' at end of input."""
    data = os.read(fd, 1)
    # swallow the rest of a multi-byte key (arrows, paste) so it is not read as more answers
    while data == b"\x1b" and select.select([fd], [], [], 0.05)[0]:
        if not os.read(fd, 64):
            break
    return data.decode("latin-1").lower()


class TerminalDecider:
    """The default decider: single keys a/r/e/s/q (and ? for help) from the terminal on stdin."""

    def __init__(self, fd: int | None = None) -> None:
        try:
            self.fd = sys.stdin.fileno() if fd is None else fd
            tty = os.isatty(self.fd)
        except (OSError, ValueError):  # stdin closed or replaced by something without a descriptor
            tty = False
        if not tty:
            raise ReviewError("interactive review needs a terminal; pass --accept-all or --reject-all")

    def __call__(self, prompt: HunkPrompt) -> Action:
        console = prompt.console
        while True:
            with cbreak(self.fd):
                console.print(Text(PROMPT, style="bold"), end="")
                console.file.flush()
                key = read_key(self.fd)
            console.print(key if key.isprintable() else "", markup=False, highlight=False)
            if key in KEYS:
                return KEYS[key]
            if key in ("", "\x04", "\x03"):  # end of input, Ctrl-D, Ctrl-C
                return Action.QUIT
            if key == "?":
                console.print(HELP, highlight=False, markup=False)
            else:
                console.print("press a, r, e, s or q (? for help)", highlight=False, markup=False)


def editor_command() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


def run_editor(text: bytes, suffix: str = "") -> bytes | None:
    """Edit `text` in $VISUAL/$EDITOR; None when the editor fails (the caller asks again)."""
    fd, name = tempfile.mkstemp(prefix="porter-review-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text)
        try:
            done = subprocess.run([*editor_command(), str(path)], check=False)
        except OSError as exc:
            print(f"porter review: cannot run editor: {exc}", file=sys.stderr)
            return None
        if done.returncode != 0:
            print(f"porter review: editor exited with {done.returncode}; edit discarded", file=sys.stderr)
            return None
        return path.read_bytes()
    finally:
        path.unlink(missing_ok=True)


def findings_in(findings: Sequence[Any], hunk: Hunk) -> tuple[Any, ...]:
    """Findings whose (1-based) line lies in the hunk's span of the port."""
    inside = [f for f in findings if hunk.b_start < (getattr(f, "line", 0) or 0) <= hunk.b_end]
    return tuple(sorted(inside, key=lambda f: (f.line, getattr(f, "column", 0) or 0)))

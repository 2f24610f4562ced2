"""Interactive review of a port: walk porter's changes hunk by hunk, keep or undo each, resumable.

The output tree holds the port; `<out>/.porter/manifest.json` names each file's original. A rejected hunk is
restored from the original, an accepted one is left as it is, an edited one gets the reviewer's text.
Decisions are saved in `<out>/.porter/review.json` keyed by file and hunk content, so a resumed review skips
what was decided and a re-converted tree gets the same decisions applied again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from porter.review.hunks import Action, Hunk, apply_hunks, fit_edit, overlaps, split_hunks, split_lines
from porter.review.store import (
    DecisionStore,
    FileDecisions,
    PortedFile,
    ReviewError,
    atomic_write,
    load_manifest,
    lookup,
    record,
)
from porter.review.ui import (
    HunkPrompt,
    TerminalDecider,
    findings_in,
    render_file_header,
    render_hunk,
    run_editor,
)
from porter.targets import TargetProfile, UnknownTargetError, resolve_target

__all__ = ["Action", "HunkPrompt", "ReviewError", "ReviewSummary", "print_summary", "review", "review_port"]

Decider = Callable[[HunkPrompt], Action]
Editor = Callable[[bytes, str], "bytes | None"]
Scanner = Callable[[bytes, str, Any], Iterable[Any]]
_DECIDED = {Action.ACCEPT, Action.REJECT, Action.EDIT}


@dataclass
class ReviewSummary:
    files: int = 0  # files that had hunks left to decide
    accepted: int = 0
    rejected: int = 0
    edited: int = 0
    skipped: int = 0
    earlier: int = 0  # hunks decided in an earlier run (their decision re-applied)
    written: list[str] = field(default_factory=list)  # output files rewritten
    missing: list[str] = field(default_factory=list)  # manifest entries whose output or original is gone
    quit: bool = False

    @property
    def complete(self) -> bool:
        return not self.quit and not self.skipped


def _scanner() -> Scanner | None:
    # porter.scan is optional here: without it the review shows no hazard findings
    try:
        from porter.scan import scan_source
    except ImportError:
        return None
    return scan_source


@dataclass
class _Review:
    out_dir: Path
    store: DecisionStore
    console: Console
    err: Console
    decide: Decider | None  # None: --accept-all / --reject-all
    bulk: Action
    edit: Editor
    target: TargetProfile
    scan: Scanner | None
    summary: ReviewSummary = field(default_factory=ReviewSummary)

    def file(self, entry: PortedFile, number: int, count: int) -> bool:
        """Review one file; True when the reviewer quit."""
        output = self.out_dir / entry.output
        if Path(entry.output).is_absolute() or ".." in Path(entry.output).parts:
            self.summary.missing.append(entry.output)
            self.err.print(f"porter review: skipping {entry.output}: not inside {self.out_dir}", markup=False)
            return False
        if not output.is_file() or not entry.original.is_file():
            self.summary.missing.append(entry.output)
            self.err.print(
                f"porter review: skipping {entry.output}: output or original file is missing", markup=False
            )
            return False
        new = output.read_bytes()
        old_lines, new_lines = split_lines(entry.original.read_bytes()), split_lines(new)
        hunks = split_hunks(old_lines, new_lines)
        saved = self.store.for_file(entry.output)
        decided: dict[int, Action] = {}
        pieces: dict[int, bytes] = {}
        pending: list[Hunk] = []
        for hunk in hunks:
            earlier = lookup(saved, hunk.key, hunk.a_start)
            if earlier in _DECIDED:
                decided[hunk.index] = Action(earlier)
                self.summary.earlier += 1
                if earlier == Action.REJECT:  # only seen when the port was regenerated since
                    pieces[hunk.index] = hunk.old_bytes
            else:
                pending.append(hunk)
        quit_ = False
        try:
            if pending:
                self.summary.files += 1
                quit_ = self._decide(entry, number, count, new, new_lines, hunks, pending, decided, pieces)
        except KeyboardInterrupt:  # Ctrl-C is a quit: keep what was decided
            quit_ = self.summary.quit = True
        finally:
            self._finish(entry, output, new, old_lines, new_lines, hunks, decided, pieces)
        return quit_

    def _decide(
        self,
        entry: PortedFile,
        number: int,
        count: int,
        new: bytes,
        new_lines: list[bytes],
        hunks: list[Hunk],
        pending: list[Hunk],
        decided: dict[int, Action],
        pieces: dict[int, bytes],
    ) -> bool:
        findings = self._findings(new, entry.output) if self.decide else []
        if self.decide:
            render_file_header(self.console, entry.output, number, count, len(hunks))
        for hunk in pending:
            if self.decide is None:
                action, edited = self.bulk, None
            else:
                action, edited = self._ask(entry, number, count, hunk, hunks, findings)
            if edited is not None:
                edited = fit_edit(hunk, edited, followed=hunk.b_end < len(new_lines))
                # an edit that lands on the port's or the original's text is just an accept or a reject
                if edited == hunk.new_bytes:
                    action = Action.ACCEPT
                elif edited == hunk.old_bytes:
                    action = Action.REJECT
                else:
                    pieces[hunk.index] = edited
            if action is Action.QUIT:
                self.summary.quit = True
                return True
            if action is Action.SKIP:
                self.summary.skipped += 1
                continue
            decided[hunk.index] = action
            if action is Action.REJECT:
                pieces[hunk.index] = hunk.old_bytes
            counter = {Action.ACCEPT: "accepted", Action.REJECT: "rejected", Action.EDIT: "edited"}[action]
            setattr(self.summary, counter, getattr(self.summary, counter) + 1)
        return False

    def _ask(
        self, entry: PortedFile, number: int, count: int, hunk: Hunk, hunks: list[Hunk], findings: list[Any]
    ) -> tuple[Action, bytes | None]:
        """The reviewer's action, with the edited span text for an edit."""
        assert self.decide is not None
        prompt = HunkPrompt(
            file=entry.output,
            hunk=hunk,
            findings=findings_in(findings, hunk),
            file_number=number,
            file_count=count,
            hunk_count=len(hunks),
            console=self.console,
        )
        render_hunk(prompt)
        while True:
            action = Action(self.decide(prompt))
            if action is not Action.EDIT:
                return action, None
            edited = self.edit(hunk.new_bytes, Path(entry.output).suffix)
            if edited is not None:
                return action, edited

    def _findings(self, source: bytes, path: str) -> list[Any]:
        if self.scan is None:
            return []
        try:
            return list(self.scan(source, path, self.target))
        except Exception as exc:  # a scanner bug must not cost the reviewer their session
            self.err.print(f"porter review: hazard scan of {path} failed: {exc}", markup=False)
            return []

    def _finish(
        self,
        entry: PortedFile,
        output: Path,
        new: bytes,
        old_lines: list[bytes],
        new_lines: list[bytes],
        hunks: list[Hunk],
        decided: dict[int, Action],
        pieces: dict[int, bytes],
    ) -> None:
        content = apply_hunks(new_lines, hunks, pieces)
        # the file goes first: a crash between the two writes then costs a re-ask, never a wrong skip
        if content != new:
            atomic_write(output, content)
            self.summary.written.append(entry.output)
        saved = self.store.for_file(entry.output)
        for index, action in decided.items():
            # an edited hunk is known by its edited text (below); a regenerated port asks about it again
            if action is not Action.EDIT:
                record(saved, hunks[index].key, hunks[index].a_start, action.value)
        if content != new:
            self._rekey(saved, old_lines, content, hunks, decided)
        self.store.save()

    @staticmethod
    def _rekey(
        saved: FileDecisions,
        old_lines: list[bytes],
        content: bytes,
        hunks: list[Hunk],
        decided: dict[int, Action],
    ) -> None:
        """Record the identity kept/edited hunks have in the written file, as a resumed review will see them.

        Lines of the original never move, so hunks are matched on their changed region in the original.
        """
        kept = [h for h in hunks if decided.get(h.index) in (Action.ACCEPT, Action.EDIT)]
        open_ = [h for h in hunks if h.index not in decided]
        for now in split_hunks(old_lines, split_lines(content)):
            if any(overlaps(now.core_a, h.core_a) for h in open_):
                continue
            owners = [decided[h.index] for h in kept if overlaps(now.core_a, h.core_a)]
            if owners:
                record(
                    saved,
                    now.key,
                    now.a_start,
                    (Action.EDIT if Action.EDIT in owners else Action.ACCEPT).value,
                )


def review_port(
    out_dir: Path,
    *,
    decide: Decider | None = None,
    accept_all: bool = False,
    reject_all: bool = False,
    target: TargetProfile | str | None = None,
    console: Console | None = None,
    err_console: Console | None = None,
    edit: Editor | None = None,
) -> ReviewSummary:
    """Review the translated files of the port in `out_dir`.

    `decide` answers each hunk (default: single keys from the terminal); `accept_all`/`reject_all` decide every
    hunk not decided earlier without asking. `edit(text, suffix)` returns the reviewer's text or None
    (default: $VISUAL/$EDITOR). Raises ReviewError for a missing manifest, an unknown target or no terminal.
    """
    if accept_all and reject_all:
        raise ReviewError("--accept-all and --reject-all exclude each other")
    out_dir = Path(out_dir)
    entries = [e for e in load_manifest(out_dir) if e.status == "translated"]
    store = DecisionStore(out_dir)
    try:
        profile = target if isinstance(target, TargetProfile) else resolve_target(target)
    except UnknownTargetError as exc:
        raise ReviewError(str(exc)) from None
    bulk = Action.ACCEPT if accept_all else Action.REJECT
    if not (accept_all or reject_all) and decide is None:
        decide = TerminalDecider()
    review = _Review(
        out_dir=out_dir,
        store=store,
        console=console or Console(),
        err=err_console or Console(stderr=True),
        decide=None if (accept_all or reject_all) else decide,
        bulk=bulk,
        edit=edit or run_editor,
        target=profile,
        scan=_scanner(),
    )
    for number, entry in enumerate(entries, 1):
        if review.file(entry, number, len(entries)):
            break
    return review.summary


def print_summary(summary: ReviewSummary, out_dir: Path, console: Console) -> None:
    parts = [
        f"{summary.accepted} accepted",
        f"{summary.rejected} rejected",
        f"{summary.edited} edited",
        f"{summary.skipped} skipped",
    ]
    if summary.earlier:
        parts.append(f"{summary.earlier} decided earlier")
    files = f"{summary.files} file{'s' * (summary.files != 1)}"
    console.print(
        f"review: {files}: {', '.join(parts)}; {len(summary.written)} written", markup=False, highlight=False
    )
    if summary.files == 0 and not summary.earlier:
        console.print("review: nothing to review", markup=False, highlight=False)
    if not summary.complete:
        console.print(
            f"review: not finished; run `porter review {out_dir}` to resume", markup=False, highlight=False
        )


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"porter review: {message}", err=True)
    return typer.Exit(code)


def review(
    out_dir: Annotated[
        Path, typer.Argument(help="Output tree of `porter convert` (holds .porter/manifest.json).")
    ],
    accept_all: Annotated[
        bool, typer.Option("--accept-all", help="Keep every undecided hunk, no questions.")
    ] = False,
    reject_all: Annotated[
        bool,
        typer.Option("--reject-all", help="Restore the original for every undecided hunk, no questions."),
    ] = False,
    target: Annotated[
        str | None, typer.Option("--target", help="GPU target for hazard findings (arch or product name).")
    ] = None,
) -> None:
    """Walk porter's changes hunk by hunk: accept, reject, edit, skip or quit (resumable)."""
    if accept_all and reject_all:
        raise _fail("--accept-all and --reject-all exclude each other", 2)
    if not (accept_all or reject_all) and not sys.stdin.isatty():
        raise _fail("interactive review needs a terminal on stdin; pass --accept-all or --reject-all", 2)
    try:
        profile = resolve_target(target)
    except UnknownTargetError as exc:
        raise _fail(str(exc), 2) from None
    err = Console(stderr=True)
    try:
        summary = review_port(
            out_dir, accept_all=accept_all, reject_all=reject_all, target=profile, err_console=err
        )
    except ReviewError as exc:
        raise _fail(str(exc), 1) from None
    print_summary(summary, out_dir, err)

"""porter review as a library: decisions, resume, edits, findings, byte-exact writes."""

from __future__ import annotations

import io
import json
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from porter.review import command as review_mod
from porter.review.command import Action, HunkPrompt, ReviewError, review_port
from porter.review.ui import run_editor

PAD = b"".join(b"int pad%d;\n" % i for i in range(12))
ORIGINAL = b"#include <cuda_runtime.h>\n" + PAD + b"cudaFree(p);\n" + PAD
PORT = b"#include <hip/hip_runtime.h>\n" + PAD + b"hipFree(p);\n" + PAD
ACCEPT_FIRST = b"#include <hip/hip_runtime.h>\n" + PAD + b"cudaFree(p);\n" + PAD
ACCEPT_SECOND = ORIGINAL.replace(b"cudaFree", b"hipFree")


def make_port(tmp_path: Path, files: dict[str, tuple[bytes, bytes]]) -> Path:
    """An output tree as porter convert leaves it: ports, originals elsewhere, a manifest."""
    src, out = tmp_path / "src", tmp_path / "out"
    rows = []
    for name, (original, port) in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes(original)
        out_name = name.replace(".cu", ".hip")
        (out / out_name).parent.mkdir(parents=True, exist_ok=True)
        (out / out_name).write_bytes(port)
        rows.append({"output": out_name, "source": name, "original": str(src / name), "status": "translated"})
    # entries that differ from their "original" but are not porter's translations: never reviewed
    (src / "notes.txt").write_bytes(b"old\n")
    (out / "notes.txt").write_bytes(b"new\n")
    rows.append(
        {"output": "notes.txt", "source": "notes.txt", "original": str(src / "notes.txt"), "status": "copied"}
    )
    manifest = {
        "porter_version": "0.1.0",
        "source_root": str(src),
        "output_root": str(out),
        "in_place": False,
    }
    (out / ".porter").mkdir()
    (out / ".porter" / "manifest.json").write_text(json.dumps(manifest | {"files": rows}))
    return out


class Script:
    """A decider answering from a list, recording what it was asked."""

    def __init__(self, *answers: Action | BaseException) -> None:
        self.answers = list(answers)
        self.asked: list[HunkPrompt] = []

    def __call__(self, prompt: HunkPrompt) -> Action:
        self.asked.append(prompt)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def never(prompt: HunkPrompt) -> Action:
    raise AssertionError(f"asked about {prompt.file} hunk {prompt.hunk.index}")


def quiet() -> Console:
    return Console(file=io.StringIO(), width=100, color_system=None)


def run(out: Path, decide=never, **kw):
    return review_port(out, decide=decide, console=kw.pop("console", quiet()), err_console=quiet(), **kw)


def saved(out: Path) -> dict:
    return json.loads((out / ".porter" / "review.json").read_text())["files"]


def actions(out: Path, file: str) -> list[str]:
    """Every saved decision of `file`, sorted."""
    return sorted(a for where in saved(out)[file].values() for a in where.values())


def test_accept_and_reject_hunks(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    decide = Script(Action.ACCEPT, Action.REJECT)
    summary = run(out, decide)
    assert (out / "k.hip").read_bytes() == ACCEPT_FIRST
    assert (summary.accepted, summary.rejected, summary.written, summary.quit) == (1, 1, ["k.hip"], False)
    assert actions(out, "k.hip") == ["accept", "reject"]
    assert [p.file for p in decide.asked] == ["k.hip", "k.hip"]
    assert (out / "notes.txt").read_bytes() == b"new\n"  # copied entry untouched


def test_quit_then_resume_asks_only_undecided_hunks(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    summary = run(out, Script(Action.REJECT, Action.QUIT))
    assert summary.quit and not summary.complete
    assert (out / "k.hip").read_bytes() == ACCEPT_SECOND
    assert actions(out, "k.hip") == ["reject"]

    again = Script(Action.ACCEPT)
    summary = run(out, again)
    assert len(again.asked) == 1
    assert b"hipFree(p);\n" in again.asked[0].hunk.new
    assert (out / "k.hip").read_bytes() == ACCEPT_SECOND
    assert summary.complete
    # everything decided: a third run asks nothing
    assert run(out).accepted == 0


def test_skip_is_asked_again(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    summary = run(out, Script(Action.SKIP, Action.ACCEPT))
    assert summary.skipped == 1 and (out / "k.hip").read_bytes() == PORT
    again = Script(Action.ACCEPT)
    run(out, again)
    assert [p.hunk.new[0] for p in again.asked] == [b"#include <hip/hip_runtime.h>\n"]


def test_resume_survives_unrelated_edits(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    run(out, Script(Action.ACCEPT, Action.QUIT))
    # the user edits the file far away from the first hunk
    (out / "k.hip").write_bytes(PORT + b"// reviewed\n")
    again = Script(Action.ACCEPT, Action.ACCEPT)
    run(out, again)
    asked = [b"".join(p.hunk.new) for p in again.asked]
    assert len(asked) == 2 and b"hipFree" in asked[0] and b"// reviewed" in asked[1]
    assert not any(b"hip_runtime" in a for a in asked)


def test_regenerated_port_gets_saved_decisions_again(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    run(out, Script(Action.ACCEPT, Action.REJECT))
    (out / "k.hip").write_bytes(PORT)  # porter convert ran again over the same tree
    summary = run(out)
    assert summary.earlier == 2
    assert (out / "k.hip").read_bytes() == ACCEPT_FIRST


def test_edit_uses_the_editors_text_and_is_not_asked_again(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    seen = []

    def editor(text: bytes, suffix: str) -> bytes:
        seen.append((text, suffix))
        return text.replace(b"hipFree(p);", b"HIP_CHECK(hipFree(p));")

    summary = run(out, Script(Action.ACCEPT, Action.EDIT), edit=editor)
    assert summary.edited == 1
    assert seen[0][1] == ".hip" and seen[0][0].startswith(b"int pad9;\n")  # context comes along
    assert (out / "k.hip").read_bytes() == PORT.replace(b"hipFree(p);", b"HIP_CHECK(hipFree(p));")
    assert "edit" in actions(out, "k.hip")
    run(out)  # the edited hunk counts as decided

    (out / "k.hip").write_bytes(PORT)  # a regenerated port: the edit cannot be replayed, so it is asked again
    again = Script(Action.REJECT)
    assert run(out, again).earlier == 1
    assert [p.hunk.index for p in again.asked] == [1]
    assert (out / "k.hip").read_bytes() == ACCEPT_FIRST


def test_failed_edit_asks_again(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    decide = Script(Action.EDIT, Action.REJECT, Action.ACCEPT)
    summary = run(out, decide, edit=lambda text, suffix: None)
    assert (summary.rejected, summary.accepted, summary.edited) == (1, 1, 0)
    assert (out / "k.hip").read_bytes() == ACCEPT_SECOND


def test_interrupt_saves_what_was_decided(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    summary = run(out, Script(Action.REJECT, KeyboardInterrupt()))
    assert summary.quit
    assert (out / "k.hip").read_bytes() == ACCEPT_SECOND
    assert actions(out, "k.hip") == ["reject"]


def test_reject_all_restores_exact_bytes_and_mode(tmp_path):
    original = b"// caf\xe9\r\n#include <cuda.h>\r\n" + PAD.replace(b"\n", b"\r\n") + b"cuInit(0);"
    port = b"// caf\xe9\r\n#include <hip/hip_runtime.h>\r\n" + PAD.replace(b"\n", b"\r\n") + b"hipInit(0);"
    out = make_port(tmp_path, {"a.cu": (original, port), "sub/b.cu": (ORIGINAL, PORT)})
    (out / "a.hip").chmod(0o750)
    summary = run(out, reject_all=True)
    assert (out / "a.hip").read_bytes() == original
    assert (out / "sub" / "b.hip").read_bytes() == ORIGINAL
    assert stat.S_IMODE((out / "a.hip").stat().st_mode) == 0o750
    assert summary.rejected == 4 and sorted(summary.written) == ["a.hip", "sub/b.hip"]
    assert not [p for p in out.rglob("*.tmp")]


def test_accept_all_keeps_the_port_and_records_decisions(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    summary = run(out, accept_all=True)
    assert (out / "k.hip").read_bytes() == PORT and summary.written == []
    assert actions(out, "k.hip") == ["accept", "accept"]
    assert run(out, reject_all=True).earlier == 2  # decided hunks keep their decision


def test_errors(tmp_path):
    with pytest.raises(ReviewError, match="manifest"):
        run(tmp_path, accept_all=True)
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    with pytest.raises(ReviewError, match="exclude"):
        run(out, accept_all=True, reject_all=True)
    with pytest.raises(ReviewError, match="unknown target"):
        run(out, accept_all=True, target="gfx000")
    with pytest.raises(ReviewError, match="terminal"):
        review_port(out, console=quiet())  # pytest's stdin is no terminal


def test_missing_files_are_reported_not_fatal(tmp_path):
    out = make_port(tmp_path, {"a.cu": (ORIGINAL, PORT), "b.cu": (ORIGINAL, PORT)})
    (out / "a.hip").unlink()
    manifest_path = out / ".porter" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"].append(manifest["files"][1] | {"output": "../b.hip"})
    manifest_path.write_text(json.dumps(manifest))
    summary = run(out, accept_all=True)
    assert summary.missing == ["a.hip", "../b.hip"] and summary.accepted == 2


def test_corrupt_review_state_is_an_error(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    (out / ".porter" / "review.json").write_text("{not json")
    with pytest.raises(ReviewError, match="review state"):
        run(out, accept_all=True)


@pytest.mark.parametrize("first", [Action.ACCEPT, Action.REJECT])
def test_identical_hunks_keep_their_own_decisions(tmp_path, first):
    half = PAD + b"cudaFree(p);\n" + PAD
    original = half * 2
    port = original.replace(b"cudaFree", b"hipFree")
    ported = half.replace(b"cudaFree", b"hipFree")
    expected = ported + half if first is Action.ACCEPT else half + ported
    second = Action.REJECT if first is Action.ACCEPT else Action.ACCEPT
    out = make_port(tmp_path, {"k.cu": (original, port)})
    run(out, Script(first, second))
    assert (out / "k.hip").read_bytes() == expected
    assert run(out).earlier == 1  # resumed: nothing asked, nothing changed
    assert (out / "k.hip").read_bytes() == expected
    (out / "k.hip").write_bytes(port)  # regenerated: each hunk gets its own decision back
    assert run(out).earlier == 2
    assert (out / "k.hip").read_bytes() == expected


@dataclass
class FakeFinding:
    file: str
    line: int
    column: int
    rule: str
    category: str
    severity: str
    message: str
    fix: str | None = None


def test_findings_on_the_hunks_lines_are_shown(tmp_path, monkeypatch):
    calls = []

    def scan_source(source: bytes, path: str, target):
        calls.append((path, target.arch))
        return [
            FakeFinding(path, 14, 1, "warp-size", "wavefront", "warning", "assumes 32 lanes", "use warpSize"),
            FakeFinding(path, 40, 1, "far-away", "x", "info", "not in any hunk"),
        ]

    monkeypatch.setattr(review_mod, "_scanner", lambda: scan_source)
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    console = quiet()
    decide = Script(Action.ACCEPT, Action.ACCEPT)
    run(out, decide, target="MI300X", console=console)
    assert calls == [("k.hip", "gfx942")]
    assert [f.rule for f in decide.asked[0].findings] == []
    assert [f.rule for f in decide.asked[1].findings] == ["warp-size"]
    text = console.file.getvalue()
    assert "warp-size: assumes 32 lanes" in text and "fix: use warpSize" in text
    assert "-cudaFree(p);" in text and "+hipFree(p);" in text and "not in any hunk" not in text


def test_broken_scanner_costs_only_the_findings(tmp_path, monkeypatch):
    def scan_source(source, path, target):
        raise RuntimeError("boom")

    monkeypatch.setattr(review_mod, "_scanner", lambda: scan_source)
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    decide = Script(Action.ACCEPT, Action.ACCEPT)
    run(out, decide)
    assert all(p.findings == () for p in decide.asked)


def test_run_editor_uses_visual_then_editor_and_reports_failures(tmp_path, monkeypatch):
    script = tmp_path / "upper.py"
    script.write_text(
        "import pathlib, sys\np = pathlib.Path(sys.argv[1])\np.write_bytes(p.read_bytes().upper())\n"
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    assert run_editor(b"hip\xff\r\n", ".hip") == b"HIP\xff\r\n"
    monkeypatch.setenv("VISUAL", f"{sys.executable} -c 'import sys; sys.exit(3)'")
    assert run_editor(b"x\n") is None
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    assert run_editor(b"x\n") is None

"""`porter review` driven for real: through a pseudo-terminal, with an $EDITOR script, and without a terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROMPT = "Keep this change?"

PAD = b"".join(b"int pad%d;\n" % i for i in range(12))
ORIGINAL = b"#include <cuda_runtime.h>\n" + PAD + b"cudaFree(p);\n" + PAD
PORT = b"#include <hip/hip_runtime.h>\n" + PAD + b"hipFree(p);\n" + PAD
ACCEPT_FIRST = b"#include <hip/hip_runtime.h>\n" + PAD + b"cudaFree(p);\n" + PAD


def make_port(tmp_path: Path, files: dict[str, tuple[bytes, bytes]]) -> Path:
    """An output tree as porter convert leaves it: ports, originals elsewhere, a manifest."""
    src, out = tmp_path / "src", tmp_path / "out"
    rows = []
    for name, (original, port) in files.items():
        out_name = name.replace(".cu", ".hip")
        for path, data in ((src / name, original), (out / out_name, port)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        rows.append({"output": out_name, "source": name, "original": str(src / name), "status": "translated"})
    (out / ".porter").mkdir()
    manifest = {"source_root": str(src), "output_root": str(out), "in_place": False, "files": rows}
    (out / ".porter" / "manifest.json").write_text(json.dumps(manifest))
    return out


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "VISUAL", "EDITOR", "FORCE_COLOR")}
    return env | {"PYTHONPATH": str(REPO), "COLUMNS": "100", "LINES": "40"} | extra


class Terminal:
    """`python -m porter ARGS` on a pseudo-terminal; keys go in one at a time after each prompt."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child: becomes the program, with the pty as its terminal
            try:
                os.execve(sys.executable, [sys.executable, "-m", "porter", *args], env)
            finally:
                os._exit(127)
        self.output = ""
        self.prompts_seen = 0

    def _read(self, wait: float) -> bool:
        """Read what the program wrote; False at its end. A silent program is a failure, not a hang."""
        if not select.select([self.fd], [], [], wait)[0]:
            os.kill(self.pid, 9)
            raise AssertionError(f"no output for {wait}s; got so far:\n{self.output}")
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            data = b""
        self.output += data.decode("utf-8", "replace")
        return bool(data)

    def answer(self, key: str) -> None:
        """Wait for the next prompt, then press `key`."""
        self.prompts_seen += 1
        while self.output.count(PROMPT) < self.prompts_seen:
            if not self._read(30):
                raise AssertionError(f"program ended before prompt {self.prompts_seen}:\n{self.output}")
        os.write(self.fd, key.encode())

    def finish(self) -> int:
        while self._read(30):
            pass
        os.close(self.fd)
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def _saved(out: Path) -> dict:
    return json.loads((out / ".porter" / "review.json").read_text())["files"]


def actions(out: Path, file: str) -> list[str]:
    """Every saved decision of `file`, sorted."""
    return sorted(a for where in _saved(out)[file].values() for a in where.values())


def test_keys_decide_hunks_and_a_second_run_resumes(tmp_path):
    out = make_port(tmp_path, {"one.cu": (ORIGINAL, PORT), "two.cu": (ORIGINAL, PORT)})
    term = Terminal(["review", str(out)], _env(NO_COLOR="1"))
    for key in "?xar":  # help and an unknown key re-prompt; then one.hip: accept, reject
        term.answer(key)
    term.answer("s")  # two.hip: skip the first hunk, quit at the second
    term.answer("q")
    assert term.finish() == 0, term.output
    assert "a  accept: keep the port's text" in term.output and "press a, r, e, s or q" in term.output
    assert "-cudaFree(p);" in term.output and "+hipFree(p);" in term.output
    assert "\x1b[3" not in term.output  # NO_COLOR: no colour codes
    assert "not finished" in term.output
    assert (out / "one.hip").read_bytes() == ACCEPT_FIRST
    assert (out / "two.hip").read_bytes() == PORT
    assert sorted(_saved(out)) == ["one.hip"]

    term = Terminal(["review", str(out)], _env(NO_COLOR="1"))
    term.answer("r")
    term.answer("r")
    assert term.finish() == 0, term.output
    assert "one.hip" not in term.output.split("review:")[0]  # decided file not shown again
    assert term.output.count(PROMPT) == 2
    assert (out / "two.hip").read_bytes() == ORIGINAL
    assert actions(out, "two.hip") == ["reject", "reject"]


def test_edit_key_runs_the_editor_on_the_hunk(tmp_path):
    editor = tmp_path / "editor.py"
    editor.write_text(
        textwrap.dedent(
            """
            import pathlib, sys
            path = pathlib.Path(sys.argv[1])
            path.write_bytes(path.read_bytes().replace(b"hipFree(p);", b"HIP_CHECK(hipFree(p));"))
            """
        )
    )
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    term = Terminal(["review", str(out)], _env(EDITOR=f"{sys.executable} {editor}", TERM="xterm-256color"))
    term.answer("a")
    term.answer("e")
    assert term.finish() == 0, term.output
    assert "\x1b[" in term.output  # colour when NO_COLOR is unset
    assert (out / "k.hip").read_bytes() == PORT.replace(b"hipFree(p);", b"HIP_CHECK(hipFree(p));")
    assert actions(out, "k.hip") == ["accept", "edit"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "porter", "review", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )


def test_refuses_without_a_terminal_unless_told_what_to_do(tmp_path):
    out = make_port(tmp_path, {"k.cu": (ORIGINAL, PORT)})
    done = _run(str(out))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "terminal" in done.stderr and "--accept-all" in done.stderr
    assert (out / "k.hip").read_bytes() == PORT and not (out / ".porter" / "review.json").exists()

    assert _run(str(out), "--accept-all", "--reject-all").returncode == 2
    done = _run(str(out), "--reject-all", "--target", "mi300x")
    assert done.returncode == 0, done.stderr
    assert (out / "k.hip").read_bytes() == ORIGINAL
    assert "2 rejected" in done.stderr and done.stdout == ""


def test_missing_manifest_is_one_line(tmp_path):
    done = _run(str(tmp_path), "--accept-all")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "manifest" in done.stderr and "Traceback" not in done.stderr

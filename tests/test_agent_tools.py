"""The agent's file tools: path confinement, exact-once replacement with helpful misses, atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from porter.agent import tools
from porter.agent.feedback import truncate
from porter.agent.paths import PathRefused, resolve_inside
from porter.agent.schemas import TOOL_NAMES, TOOLS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "out"
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.hip").write_text("int a = 1;\nint b = 2;\nint a2 = 1;\nreturn a + b;\n")
    return root


def test_tool_names_and_schemas() -> None:
    assert TOOL_NAMES == ("read_file", "replace_in_file", "write_file", "compile", "run_tests", "finish")
    for tool in TOOLS:
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])


# --- paths -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["../x", "src/../../x", "/etc/passwd", "", ".porter/cache/a.json", ".git/config"])
def test_paths_outside_the_tree_are_refused(root: Path, path: str) -> None:
    with pytest.raises(PathRefused):
        resolve_inside(root, path)


def test_symlink_pointing_outside_is_refused(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (root / "src" / "link.h").symlink_to(secret)
    (root / "dirlink").symlink_to(tmp_path)
    for path in ("src/link.h", "dirlink/secret.txt"):
        with pytest.raises(tools.ToolError, match="outside the ported tree"):
            tools.read_file(root, path)
    with pytest.raises(tools.ToolError, match="outside"):
        tools.write_file(root, "src/link.h", "overwritten")
    assert secret.read_text() == "top secret"


def test_paths_inside_the_tree_are_accepted(root: Path) -> None:
    assert resolve_inside(root, "src/../src/k.hip") == (root / "src/k.hip").resolve()
    assert resolve_inside(root, str(root / "src" / "k.hip")) == (root / "src/k.hip").resolve()
    (root / "src" / "alias.hip").symlink_to(root / "src" / "k.hip")
    assert resolve_inside(root, "src/alias.hip") == (root / "src/k.hip").resolve()


# --- arguments ---------------------------------------------------------------------------------------------

def test_parse_arguments_accepts_valid_calls() -> None:
    assert tools.parse_arguments("read_file", '{"path": "a", "start_line": 2}') == {"path": "a", "start_line": 2}
    assert tools.parse_arguments("run_tests", "") == {}
    assert tools.parse_arguments("compile", "{}") == {}


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("read_file", "{not json", "not valid JSON"),
        ("read_file", '"a"', "must be a JSON object"),
        ("nope", "{}", "unknown tool 'nope'"),
        ("finish", "{}", "missing required argument(s): summary"),
        ("run_tests", '{"x": 1}', "unexpected argument(s): x"),
        ("read_file", '{"path": "a", "end_line": true}', "must be a integer"),
        ("read_file", '{"path": 3}', "must be a string"),
    ],
)
def test_parse_arguments_errors(name: str, raw: str, message: str) -> None:
    with pytest.raises(tools.ToolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tools.parse_arguments(name, raw)


# --- read_file ---------------------------------------------------------------------------------------------

def test_read_file_numbers_lines_and_pages(root: Path) -> None:
    text = tools.read_file(root, "src/k.hip", start_line=2, end_line=3)
    assert text.splitlines() == ["src/k.hip (lines 2-3 of 4)", "2 | int b = 2;", "3 | int a2 = 1;",
                                 "[1 more lines; call read_file with start_line=4]"]
    big = root / "big.hip"
    big.write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    out = tools.read_file(root, "big.hip")
    assert f"lines 1-{tools.MAX_READ_LINES} of 1000" in out
    assert f"start_line={tools.MAX_READ_LINES + 1}" in out


def test_read_file_errors(root: Path) -> None:
    with pytest.raises(tools.ToolError, match="no such file"):
        tools.read_file(root, "missing.hip")
    with pytest.raises(tools.ToolError, match="past the end"):
        tools.read_file(root, "src/k.hip", start_line=99)
    (root / "blob.bin").write_bytes(b"\x7fELF\x00\x00")
    with pytest.raises(tools.ToolError, match="binary"):
        tools.read_file(root, "blob.bin")
    with pytest.raises(tools.ToolError, match="not a regular file"):
        tools.read_file(root, "src")


# --- replace_in_file ---------------------------------------------------------------------------------------

def test_replace_exactly_once(root: Path) -> None:
    out = tools.replace_in_file(root, "src/k.hip", "int b = 2;", "int b = 3;")
    assert (root / "src/k.hip").read_text() == "int a = 1;\nint b = 3;\nint a2 = 1;\nreturn a + b;\n"
    assert out.startswith("Edited src/k.hip.") and "2 | int b = 3;" in out


def test_replace_with_several_matches_changes_nothing(root: Path) -> None:
    before = (root / "src/k.hip").read_text()
    with pytest.raises(tools.ToolError) as info:
        tools.replace_in_file(root, "src/k.hip", " = 1;", " = 5;")
    message = str(info.value)
    assert message.startswith("2 matches for `old` in src/k.hip (at lines 1, 3)")
    assert "1 | int a = 1;" in message and "3 | int a2 = 1;" in message
    assert (root / "src/k.hip").read_text() == before


def test_replace_with_no_match_shows_the_closest_region(root: Path) -> None:
    with pytest.raises(tools.ToolError) as info:
        tools.replace_in_file(root, "src/k.hip", "int b  = 2;\nint a2 = 1;", "x")
    message = str(info.value)
    assert message.startswith("0 matches for `old` in src/k.hip")
    assert "Closest region (lines 2-3" in message
    assert "-int b  = 2;" in message and "+int b = 2;" in message


def test_replace_with_nothing_similar(root: Path) -> None:
    with pytest.raises(tools.ToolError, match=r"(?s)0 matches.*No similar lines"):
        tools.replace_in_file(root, "src/k.hip", "qqqqqqqqqqqqqqqqqqqqqqqqq", "x")


def test_replace_keeps_crlf_and_mode(root: Path) -> None:
    file = root / "win.hip"
    file.write_bytes(b"int a;\r\nint b;\r\n")
    file.chmod(0o755)
    tools.replace_in_file(root, "win.hip", "int a;\nint b;", "int a;\nint c;")
    assert file.read_bytes() == b"int a;\r\nint c;\r\n"
    assert stat.S_IMODE(file.stat().st_mode) == 0o755


def test_replace_keeps_latin1_bytes(root: Path) -> None:
    file = root / "old.hip"
    file.write_bytes(b"// caf\xe9\nint x;\n")
    tools.replace_in_file(root, "old.hip", "int x;", "int y;")
    assert file.read_bytes() == b"// caf\xe9\nint y;\n"


def test_replace_refuses_empty_old(root: Path) -> None:
    with pytest.raises(tools.ToolError, match="must not be empty"):
        tools.replace_in_file(root, "src/k.hip", "", "x")


# --- write_file --------------------------------------------------------------------------------------------

def test_write_file_creates_directories_atomically(root: Path) -> None:
    out = tools.write_file(root, "include/new/compat.h", "#pragma once\nint f();\n")
    assert out == "Created include/new/compat.h (2 lines)."
    assert (root / "include/new/compat.h").read_text() == "#pragma once\nint f();\n"
    assert tools.write_file(root, "include/new/compat.h", "x").startswith("Overwrote")
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_atomic_write_leaves_old_file_on_failure(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        tools.atomic_write(root / "src/k.hip", b"garbage")
    assert (root / "src/k.hip").read_text().startswith("int a = 1;")
    assert [p.name for p in (root / "src").iterdir()] == ["k.hip"]


# --- truncation --------------------------------------------------------------------------------------------

def test_truncate_keeps_head_and_tail() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    out = truncate(text, max_chars=100_000, max_lines=30)
    lines = out.splitlines()
    assert lines[0] == "line 0" and lines[-1] == "line 999"
    assert any("lines omitted" in line for line in lines)
    assert len(truncate("x" * 50_000, max_chars=1000)) < 1100
    assert truncate("short") == "short"

"""File tools the model may call, and validation of its tool calls.

Every failure here is a ToolError whose message goes back to the model as the tool result; nothing is executed
for a call that does not validate, and the model never gets a shell.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from porter.agent.paths import PathRefused, display_path, resolve_inside
from porter.agent.schemas import TOOL_NAMES, TOOLS
from porter.files import atomic_write

MAX_READ_LINES = 400
MAX_READ_CHARS = 40_000
MAX_FILE_BYTES = 4_000_000
_SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
_TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list}


class ToolError(Exception):
    """A message for the model: the call was refused or failed."""


def parse_arguments(name: str, raw: str | None) -> dict:
    """Decode and check a tool call's JSON arguments against the tool's schema."""
    schema = _SCHEMAS.get(name)
    if schema is None:
        raise ToolError(f"unknown tool {name!r}; the available tools are: {', '.join(TOOL_NAMES)}")
    if raw is None or not raw.strip():
        args: object = {}  # some servers send "" for a call without arguments
    else:
        try:
            args = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"the arguments of {name} are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                "send one JSON object matching the tool's schema"
            ) from None
    if not isinstance(args, dict):
        raise ToolError(f"the arguments of {name} must be a JSON object, got {type(args).__name__}")
    properties: dict = schema["properties"]
    missing = [key for key in schema["required"] if key not in args]
    if missing:
        raise ToolError(f"{name} is missing required argument(s): {', '.join(missing)}")
    extra = sorted(set(args) - set(properties))
    if extra:
        allowed = ", ".join(properties) or "none"
        raise ToolError(f"{name} got unexpected argument(s): {', '.join(extra)} (allowed: {allowed})")
    for key, value in args.items():
        expected = properties[key]["type"]
        wanted = _TYPES[expected]
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise ToolError(f"{name}: argument {key!r} must be a {expected}, got {type(value).__name__}")
    return args


# --- file access -------------------------------------------------------------------------------------------

def _resolve(root: Path, path: str) -> Path:
    try:
        return resolve_inside(root, path)
    except PathRefused as exc:
        raise ToolError(f"refused: {exc}") from None


def _read_text(file: Path, shown: str) -> tuple[str, str]:
    """(text, encoding). Bytes are decoded without newline translation so edits keep the file's line endings."""
    if not file.exists():
        raise ToolError(f"{shown}: no such file")
    if not file.is_file():
        raise ToolError(f"{shown}: not a regular file")
    data = file.read_bytes()
    if len(data) > MAX_FILE_BYTES:
        raise ToolError(f"{shown}: file too large ({len(data)} bytes)")
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown}: binary file")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"  # round-trips any byte sequence




def _numbered(lines: list[str], first: int) -> str:
    width = len(str(first + len(lines)))
    return "\n".join(f"{first + i:>{width}} | {line}" for i, line in enumerate(lines))


def read_file(root: Path, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
    file = _resolve(root, path)
    shown = display_path(root, file)
    text, _ = _read_text(file, shown)
    lines = text.splitlines()
    total = len(lines)
    if total == 0:
        return f"{shown}: (empty file)"
    start = max(1, start_line or 1)
    if start > total:
        raise ToolError(f"{shown}: start_line {start} is past the end of the file ({total} lines)")
    end = min(total, end_line if end_line is not None else total)
    if end < start:
        raise ToolError(f"{shown}: end_line {end} is before start_line {start}")
    end = min(end, start + MAX_READ_LINES - 1)
    body = _numbered(lines[start - 1 : end], start)
    if len(body) > MAX_READ_CHARS:
        body = body[:MAX_READ_CHARS].rsplit("\n", 1)[0]
        end = start + body.count("\n")
    header = f"{shown} (lines {start}-{end} of {total})"
    more = f"\n[{total - end} more lines; call read_file with start_line={end + 1}]" if end < total else ""
    return f"{header}\n{body}{more}"


def _closest_region(text: str, old: str) -> str:
    """Where the model probably meant: the window of the file most similar to `old`, as a diff."""
    lines = text.splitlines()
    wanted = old.splitlines() or [old]
    size = len(wanted)
    target = "\n".join(wanted)
    best, best_at = 0.0, -1
    if len(lines) <= 20_000:
        for at in range(max(1, len(lines) - size + 1)):
            window = "\n".join(lines[at : at + size])
            matcher = difflib.SequenceMatcher(None, target, window, autojunk=False)
            if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
                continue
            ratio = matcher.ratio()
            if ratio > best:
                best, best_at = ratio, at
    if best_at < 0 or best < 0.4:
        first = next((w for w in wanted if w.strip()), wanted[0])
        close = difflib.get_close_matches(first, lines, n=3, cutoff=0.5)
        if not close:
            return "No similar lines found; read the file first to copy the text exactly."
        rows = [f"{lines.index(c) + 1:>5} | {c}" for c in close]
        return "Closest lines:\n" + "\n".join(rows)
    region = lines[best_at : best_at + size]
    diff = difflib.unified_diff(
        wanted, region, "your old text", f"file lines {best_at + 1}-{best_at + len(region)}", lineterm="", n=size
    )
    return (
        f"Closest region (lines {best_at + 1}-{best_at + len(region)}, {best:.0%} similar):\n"
        + _numbered(region, best_at + 1)
        + "\n\nDifference (- your old text, + the file):\n"
        + "\n".join(list(diff)[2:])
    )


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def replace_in_file(root: Path, path: str, old: str, new: str) -> str:
    file = _resolve(root, path)
    shown = display_path(root, file)
    if not old:
        raise ToolError("`old` must not be empty; use write_file to create or overwrite a file")
    text, encoding = _read_text(file, shown)
    if old not in text and "\r\n" in text and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")  # the model writes \n; the file uses CRLF
    count = text.count(old)
    if count == 0:
        raise ToolError(f"0 matches for `old` in {shown}; nothing was changed.\n{_closest_region(text, old)}")
    if count > 1:
        offsets, at = [], text.find(old)
        while at >= 0:
            offsets.append(at)
            at = text.find(old, at + 1)
        lines = text.splitlines()
        shown_at = []
        for offset in offsets[:5]:
            line = _line_of(text, offset)
            lo, hi = max(1, line - 1), min(len(lines), line + 1)
            shown_at.append(_numbered(lines[lo - 1 : hi], lo))
        where = ", ".join(str(_line_of(text, o)) for o in offsets)
        raise ToolError(
            f"{count} matches for `old` in {shown} (at lines {where}); nothing was changed. "
            "Include more surrounding lines so `old` matches exactly once.\n" + "\n---\n".join(shown_at)
        )
    at = text.index(old)
    updated = text[:at] + new + text[at + len(old) :]
    atomic_write(file, updated.encode(encoding))
    first = _line_of(updated, at)
    last = _line_of(updated, at + len(new))
    lines = updated.splitlines()
    lo, hi = max(1, first - 2), min(len(lines), last + 2)
    return f"Edited {shown}. Lines {lo}-{hi} now read:\n" + _numbered(lines[lo - 1 : hi], lo)


def write_file(root: Path, path: str, content: str) -> str:
    file = _resolve(root, path)
    shown = display_path(root, file)
    if file.exists() and not file.is_file():
        raise ToolError(f"{shown}: not a regular file")
    existed = file.exists()
    atomic_write(file, content.encode("utf-8"))
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return f"{'Overwrote' if existed else 'Created'} {shown} ({lines} lines)."


def relative_path(root: Path, path: str) -> str:
    """Validated path relative to root, for tools that hand it to the environment (compile)."""
    file = _resolve(root, path)
    if not file.exists():
        raise ToolError(f"{path}: no such file")
    return display_path(root, file)

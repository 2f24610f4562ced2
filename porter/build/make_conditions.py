"""Which lines of a Makefile `make` would read, as far as porter can tell without running it.

GNU make's conditionals (`ifeq`/`ifneq`/`ifdef`/`ifndef`, `else`, `else ifeq ...`, `endif`) are followed with the
variables the Makefile itself assigns, every other variable empty (a plain `make` on Linux: `$(OS)` is empty,
`$(CI)` is not `true`). `$(shell uname)` and `$(shell uname -s)` read `Linux`, the system ROCm runs on; any other
`$(shell ...)`, `$(wildcard ...)` or function makes the condition UNKNOWN (it probes the machine: is NCCL
installed, is there a cudnn-frontend folder). `define ... endef` bodies are not read.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, field


class Branch(enum.Enum):
    TAKEN = "taken"
    NOT_TAKEN = "not taken"
    UNKNOWN = "unknown"


_DIRECTIVE = re.compile(r"^\s*(?:(else)\s*)?(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$|^\s*(else|endif)\b\s*(?:#.*)?$")
_DEFINE = re.compile(r"^\s*(?:override\s+)?define\s+\S")
_ENDEF = re.compile(r"^\s*endef\b")
_ASSIGN = re.compile(r"^\s*(?:override\s+|export\s+)?([A-Za-z_][\w.]*)\s*(:::=|::=|:=|\+=|\?=|!=|=)\s*(.*)$")
_REFERENCE = re.compile(r"\$(?:\(([A-Za-z_][\w.]*)\)|\{([A-Za-z_][\w.]*)\}|([A-Za-z_]))")
_UNAME = re.compile(r"\$[({]shell\s+uname(?:\s+-s)?\s*[)}]")
_UNKNOWN = object()  # a variable whose value porter cannot know


@dataclass
class _Frame:
    state: Branch  # of the branch being read
    decided: bool = False  # an earlier branch was taken: the rest are not
    unknown: bool = False  # an earlier branch's condition was unknown: the rest are at best unknown
    parent: Branch = Branch.TAKEN


@dataclass
class _Make:
    variables: dict[str, object] = field(default_factory=dict)

    def expand(self, text: str) -> str | None:
        """`text` with the variables replaced; None when a function or an unknown variable is in it."""
        text = _UNAME.sub("Linux", text)
        for _ in range(8):  # nested references: $(A) holding $(B)
            unknown = False

            def value(m: re.Match) -> str:
                nonlocal unknown
                v = self.variables.get(m.group(1) or m.group(2) or m.group(3), "")
                if v is _UNKNOWN:
                    unknown = True
                    return ""
                return str(v)

            new = _REFERENCE.sub(value, text)
            if unknown:
                return None
            if new == text:
                break
            text = new
        return None if "$(" in text or "${" in text else text

    def assign(self, name: str, op: str, raw: str, state: Branch) -> None:
        if state is Branch.NOT_TAKEN:
            return
        value = raw.split("#", 1)[0].strip()
        if state is Branch.UNKNOWN or op == "!=":
            self.variables[name] = _UNKNOWN  # assigned or not, depending on what porter cannot see
            return
        if op == "?=" and name in self.variables:
            return
        expanded = self.expand(value)
        if expanded is None:
            # a recursive `=` keeps its references for later; what they reference is often known by then
            self.variables[name] = value if op == "=" and "$(shell" not in value and "$(call" not in value else _UNKNOWN
            return
        if op == "+=":
            old = self.variables.get(name, "")
            self.variables[name] = _UNKNOWN if old is _UNKNOWN else f"{old} {expanded}".strip()
        else:
            self.variables[name] = expanded

    def condition(self, kind: str, args: str) -> Branch:
        args = args.split("#", 1)[0].strip()
        if kind in ("ifdef", "ifndef"):
            name = self.expand(args)
            if name is None:
                return Branch.UNKNOWN
            v = self.variables.get(name.strip(), "")
            if v is _UNKNOWN:
                return Branch.UNKNOWN
            defined = bool(str(v).strip())
            return Branch.TAKEN if defined == (kind == "ifdef") else Branch.NOT_TAKEN
        pair = _operands(args)
        if pair is None:
            return Branch.UNKNOWN
        left, right = (self.expand(x) for x in pair)
        if left is None or right is None:
            return Branch.UNKNOWN
        equal = left.strip() == right.strip()
        return Branch.TAKEN if equal == (kind == "ifeq") else Branch.NOT_TAKEN


def _operands(args: str) -> tuple[str, str] | None:
    """`(a,b)`, `"a" "b"` or `'a' 'b'`; the comma at parenthesis depth 0 splits the first form."""
    if args.startswith("("):
        depth, inner = 0, args[1:]
        for i, ch in enumerate(inner):
            if ch in "({":
                depth += 1
            elif ch in ")}":
                if depth == 0:
                    body = inner[:i]
                    break
                depth -= 1
        else:
            return None
        depth = 0
        for i, ch in enumerate(body):
            if ch in "({":
                depth += 1
            elif ch in ")}":
                depth -= 1
            elif ch == "," and depth == 0:
                return body[:i], body[i + 1 :]
        return None
    m = re.match(r"""^(["'])(.*?)\1\s+(["'])(.*?)\3""", args)
    return (m.group(2), m.group(4)) if m else None


def _combined(frames: list[_Frame]) -> Branch:
    if not frames:
        return Branch.TAKEN
    top = frames[-1]
    if top.parent is Branch.NOT_TAKEN or top.state is Branch.NOT_TAKEN:
        return Branch.NOT_TAKEN
    if top.parent is Branch.UNKNOWN or top.state is Branch.UNKNOWN:
        return Branch.UNKNOWN
    return Branch.TAKEN


def conditioned_lines(text: str) -> Iterator[tuple[str, Branch]]:
    """Each line of the Makefile (continuations already joined) that is not a directive, with whether make reads
    it. Unbalanced conditionals end where the file does."""
    make = _Make()
    frames: list[_Frame] = []
    in_define = False
    for line in text.splitlines():
        if in_define:
            in_define = not _ENDEF.match(line)
            continue
        if _DEFINE.match(line):
            in_define = True
            continue
        m = _DIRECTIVE.match(line)
        if m and not line.startswith("\t"):
            chained, kind, args, bare = m.group(1), m.group(2), m.group(3), m.group(4)
            if kind and not chained:  # a new conditional
                frames.append(_Frame(make.condition(kind, args), parent=_combined(frames)))
            elif frames and (chained or bare == "else"):
                top = frames[-1]
                top.decided = top.decided or top.state is Branch.TAKEN
                top.unknown = top.unknown or top.state is Branch.UNKNOWN
                if top.decided:
                    top.state = Branch.NOT_TAKEN
                else:
                    state = make.condition(kind, args) if chained else Branch.TAKEN
                    top.state = Branch.UNKNOWN if top.unknown and state is not Branch.NOT_TAKEN else state
            elif frames and bare == "endif":
                frames.pop()
            continue
        state = _combined(frames)
        if (a := _ASSIGN.match(line)) and not line.startswith("\t"):
            make.assign(a.group(1), a.group(2), a.group(3), state)
        yield line, state

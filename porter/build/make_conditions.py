"""Which lines of a Makefile `make` would read, as far as porter can tell without running it.

GNU make's conditionals (`ifeq`/`ifneq`/`ifdef`/`ifndef`, `else`, `else ifeq ...`, `endif`) are followed with the
variables the Makefile itself assigns, every other variable empty (a plain `make` on Linux: `$(OS)` is empty,
`$(CI)` is not `true`). `$(shell uname)` and `$(shell uname -s)` read `Linux`, the system ROCm runs on; any other
`$(shell ...)`, `$(wildcard ...)` or function makes the condition UNKNOWN (it probes the machine: is NCCL
installed, is there a cudnn-frontend folder). `define ... endef` bodies are not read.

`source_mentions` says, for each source file a Makefile names, whether a plain `make` reads any of those
mentions: a source named only in branches not taken, or only as a prerequisite of rules whose targets expand to
nothing (llm.c's `$(NVCC_CUDNN): llmc/cudnn_att.cpp`, where `NVCC_CUDNN` is set only with `USE_CUDNN=1`), is
not built by that make.
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


def conditioned_lines(text: str, make: _Make | None = None) -> Iterator[tuple[str, Branch]]:
    """Each line of the Makefile (continuations already joined) that is not a directive, with whether make reads
    it. Unbalanced conditionals end where the file does. `make` holds the variables as read so far (for callers
    that expand a line when it is yielded)."""
    make = make if make is not None else _Make()
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


# a rule line: targets, one or two colons (not an assignment's `:=`/`::=`), prerequisites
_RULE = re.compile(r"^([^:=#\t][^:=#]*?)\s*::?(?![:=])(.*)$")
_SOURCE_WORD = re.compile(r"(?<![\w$./\\-])((?:[\w.+-]+/)*[\w.+-]+\.(?:cu|hip|cpp|cc|cxx|c))(?![\w.])")


@dataclass
class Mention:
    """How a plain `make` reads a source file the Makefile names."""

    read: bool = False  # some mention is read (a branch taken or unknown, a rule with targets)
    compiled: bool = False  # a read rule has it as its first prerequisite (`$<`), or a read recipe names it


@dataclass
class _Line:
    text: str
    live: bool  # a plain make reads it: its branch taken or unknown; a rule's targets (and so its recipe) not empty
    recipe: bool
    rule: bool
    prerequisites: str  # of the rule this line is, or whose recipe it belongs to (before any `;`)


def _read_lines(text: str) -> Iterator[_Line]:
    """The Makefile's lines with what make does with them; rules and recipes as make pairs them."""
    make = _Make()
    rule_live, prerequisites = True, ""
    for line, state in conditioned_lines(text.replace("\\\n", " "), make):
        live = state is not Branch.NOT_TAKEN
        recipe = line.startswith("\t")
        rule = None if recipe or _ASSIGN.match(line) else _RULE.match(line)
        if recipe:
            live = live and rule_live  # a recipe is read with its rule
        elif rule is not None:
            targets = make.expand(rule.group(1))
            rule_live = live = live and (targets is None or bool(targets.strip()))
            prerequisites = rule.group(2).split(";", 1)[0]
        yield _Line(line, live, recipe, rule is not None, prerequisites)


def source_mentions(text: str) -> dict[str, Mention]:
    """Each source path the Makefile names literally (as written, relative to its folder) -> how `make` reads
    it. Assignments and other lines count where their branch is taken or unknown; a rule's prerequisites and
    recipe count unless its targets expand to nothing."""
    mentions: dict[str, Mention] = {}
    for line in _read_lines(text):
        first = next(iter(line.prerequisites.split()), None) if line.rule else None  # a rule's `$<`
        for m in _SOURCE_WORD.finditer(line.text.split("#", 1)[0]):
            mention = mentions.setdefault(m.group(1), Mention())
            mention.read = mention.read or line.live
            mention.compiled = mention.compiled or (line.live and (line.recipe or m.group(1) == first))
    return mentions


def recipe_options(text: str) -> dict[str, list[str]]:
    """Each source a read recipe compiles (named in it, or the rule's prerequisites through `$<`/`$^`) -> the
    recipe's other words after the command (`nvcc -DUSE_NVTX -o manual_nvtx manual_nvtx.cu`: flags for that unit
    alone, which the flag variables do not carry). Words holding make references are left out."""
    options: dict[str, list[str]] = {}
    for line in _read_lines(text):
        if not (line.recipe and line.live):
            continue
        words = line.text.split("#", 1)[0].split()
        prerequisites = [m.group(1) for m in _SOURCE_WORD.finditer(line.prerequisites)]
        sources = [m.group(1) for m in _SOURCE_WORD.finditer(" ".join(words))]
        if "$<" in words:
            sources += prerequisites[:1]
        if "$^" in words or "$+" in words:
            sources += prerequisites
        flags = [w for w in words[1:] if "$" not in w and not _SOURCE_WORD.fullmatch(w)]
        for source in dict.fromkeys(sources):
            options.setdefault(source, []).extend(flags)
    return options

"""The token-level layout of a C/C++/CUDA file, found with C-speed regular expressions (pure, no tree).

The translator asks the layout what the tokens alone can decide — is this offset inside a comment or a literal,
is this identifier a member after `.`/`->`, is it the name of a `#define` — and where the file's top-level
pieces (functions, classes, declarations, directives) start and end, so tree-sitter parses only the pieces
whose meaning needs the grammar (see porter.translate). Offsets are byte offsets into the original source.
"""

from __future__ import annotations

import bisect
import enum
import functools
import re
from dataclasses import dataclass

# comments, raw strings, string literals and character literals; a character literal must not follow a hex digit
# (C++14 digit separators: 1'000'000) and is at most a few characters long
SKIPPABLE = re.compile(
    rb"//(?:\\\r?\n|[^\n])*"
    rb"|/\*.*?(?:\*/|\Z)"
    rb'|(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"([^()\\\s"]{0,16})\(.*?\)\1"'
    rb'|"(?:\\.|[^"\\\n])*"'
    rb"|(?<![0-9A-Fa-f_])'(?:\\.|[^'\\\n]){1,8}'",
    re.DOTALL,
)
# a preprocessor directive (with continuation lines) or a brace, on the text with comments and literals blanked
EVENTS = re.compile(rb"^[ \t]*#(?:\\\r?\n|[^\n])*|[{}]", re.MULTILINE)
SYSTEM_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include(?:_next)?[ \t]*(<[^>\n]*>)", re.MULTILINE)
DIRECTIVE = re.compile(rb"^[ \t]*#(?:\\\r?\n|[^\n])*", re.MULTILINE)
# a scope whose braces hold top-level items: namespace x {, namespace {, extern "C" {  (literals are blanked)
TRANSPARENT_OPENER = re.compile(rb'(?:\bnamespace(?:\s+[A-Za-z_][\w:\s]*)?|\bextern\s*"\s*")\s*$')
CLASS_HEAD = re.compile(rb"\b(?:struct|class|union|enum)\b")
# what makes a name a member the tokens cannot see: class bodies (member declarations) and constructor
# initializer lists (`) : member(x)`); a ternary's `) :` also matches, which only costs a parse
MEMBER_CONTEXT = re.compile(rb"\b(?:struct|class|union)\b|\)\s*:(?!:)")
DEFINE_BEFORE = re.compile(rb"#[ \t]*define[ \t]+$")
DEFINED_TEST_BEFORE = re.compile(rb"(?:^[ \t]*#[ \t]*(?:ifdef|ifndef|elifdef|elifndef)[ \t]+|\bdefined[ \t]*\(?[ \t]*)$",
                                 re.MULTILINE)


class PieceKind(enum.Enum):
    DIRECTIVE = "directive"  # a top-level preprocessor line
    SCOPE = "scope"  # `namespace x {`, `extern "C" {` or the `}` closing one
    DECLARATION = "declaration"  # top-level text without braces: globals, prototypes, typedefs
    FUNCTION = "function"  # a braced item whose head has a parameter list
    DATA = "data"  # a class/struct/union/enum body or a braced initializer


@dataclass(frozen=True)
class Piece:
    start: int
    end: int
    kind: PieceKind


class Layout:
    """Comments, literals and top-level pieces of one source file."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        starts, ends, pieces, pos = [], [], [], 0
        for m in SKIPPABLE.finditer(source):
            s, e = m.span()
            starts.append(s)
            ends.append(e)
            pieces.append(source[pos:s])
            # keep a literal's quotes (extern "C" stays recognisable), blank everything inside; comments blank whole
            pieces.append(b" " * (e - s) if source[s] == 47 else source[s:s + 1] + b" " * (e - s - 2) + source[e - 1:e])
            pos = e
        pieces.append(source[pos:])
        # comments and literals blanked to spaces, same length: braces and directives can be found with regexes
        self.code = b"".join(pieces) if starts else source
        for m in SYSTEM_INCLUDE.finditer(self.code):  # <path> of an #include is a literal too
            i = bisect.bisect_left(starts, m.start(1))
            starts.insert(i, m.start(1))
            ends.insert(i, m.end(1))
        self._skip_starts, self._skip_ends = starts, ends

    # -- what the tokens decide ---------------------------------------------------------------------------
    def in_comment_or_literal(self, offset: int) -> bool:
        i = bisect.bisect_right(self._skip_starts, offset) - 1
        return i >= 0 and offset < self._skip_ends[i]

    def is_member(self, start: int) -> bool:
        """`x.name`, `p->name`, `.name = v`: the previous token is `.` or `->`."""
        before = self.code[max(0, start - 64) : start].rstrip()
        if not ((before.endswith(b".") and not before.endswith(b"..")) or before.endswith(b"->")):
            return False
        if b"\n" not in self.code[start - (64 if start >= 64 else start) + len(before) : start]:
            return True
        # the `.` ends an earlier line: a member only when that line is not a directive (tokens do not cross one)
        dot = start - (64 if start >= 64 else start) + len(before) - 1
        line = self.code[self.code.rfind(b"\n", 0, dot) + 1 : dot]
        return not line.lstrip().startswith(b"#")

    def is_define_name(self, start: int) -> bool:
        return DEFINE_BEFORE.search(self.code, max(0, start - 64), start) is not None

    def is_defined_test(self, start: int) -> bool:
        """`#ifdef X`, `#ifndef X`, `defined(X)`: only whether X is defined matters."""
        line_start = self.code.rfind(b"\n", 0, start) + 1
        return DEFINED_TEST_BEFORE.search(self.code, line_start, start) is not None

    @functools.cached_property
    def directive_spans(self) -> list[tuple[int, int]]:
        return [m.span() for m in DIRECTIVE.finditer(self.code)]

    # -- top-level pieces ---------------------------------------------------------------------------------
    @functools.cached_property
    def pieces(self) -> list[Piece] | None:
        """The file's top-level pieces in order, covering it exactly; None when the braces do not balance
        (macros that open scopes, conditional braces): then only a full parse can say what the file means."""
        code = self.code
        out: list[Piece] = []
        start = 0  # start of the piece being gathered
        scopes: list[bool] = []  # one per open brace: True for a transparent scope (namespace, extern "C")
        depth = 0  # open non-transparent braces
        kind = PieceKind.DATA

        def declaration(end: int) -> None:
            if end > start:
                out.append(Piece(start, end, PieceKind.DECLARATION))

        for m in EVENTS.finditer(code):
            at = m.start()
            first = code[at]
            if first in (123, 125) and m.end() - at == 1:  # { or }
                if first == 123:
                    if depth == 0:
                        head = code[start:at]
                        if TRANSPARENT_OPENER.search(head):
                            semi = code.rfind(b";", start, at)
                            if semi >= 0:
                                declaration(semi + 1)
                                start = semi + 1
                            out.append(Piece(start, at + 1, PieceKind.SCOPE))
                            start = at + 1
                            scopes.append(True)
                            continue
                        semi = code.rfind(b";", start, at)
                        if semi >= 0:  # globals before the item are pieces of their own
                            declaration(semi + 1)
                            start = semi + 1
                            head = code[start:at]
                        paren = head.find(b"(")
                        if CLASS_HEAD.search(head, 0, paren if paren >= 0 else len(head)) or paren < 0 \
                                or head.rstrip().endswith(b"="):
                            kind = PieceKind.DATA
                        else:
                            kind = PieceKind.FUNCTION
                    scopes.append(False)
                    depth += 1
                    continue
                if not scopes:
                    return None  # a } that closes nothing
                if scopes.pop():
                    declaration(at)
                    out.append(Piece(at, at + 1, PieceKind.SCOPE))
                    start = at + 1
                    continue
                depth -= 1
                if depth == 0:
                    end = at + 1
                    if kind is PieceKind.DATA:  # `struct S {...} s;`, `int a[] = {...};`: the declaration ends at ;
                        semi = code.find(b";", end)
                        if semi >= 0 and not any(c in code[end:semi] for c in (b"{", b"}", b"#")):
                            end = semi + 1
                    out.append(Piece(start, end, kind))
                    start = end
                continue
            # a preprocessor directive
            if depth == 0:
                line_start = at + (len(m.group()) - len(m.group().lstrip(b" \t")))
                declaration(line_start)
                out.append(Piece(line_start, m.end(), PieceKind.DIRECTIVE))
                start = m.end()
        if scopes:
            return None  # braces left open
        declaration(len(code))
        return out

    def member_context(self, start: int, end: int) -> bool:
        return MEMBER_CONTEXT.search(self.code, start, end) is not None


class LineIndex:
    """Byte offset -> 0-based row and column (tree-sitter points), 1-based lines for reports."""

    def __init__(self, source: bytes) -> None:
        self._starts = [0, *(m.end() for m in re.finditer(rb"\n", source))]

    def row(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset) - 1

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def column(self, offset: int) -> int:
        return offset - self._starts[self.line(offset) - 1] + 1

    def point(self, offset: int) -> tuple[int, int]:
        row = self.row(offset)
        return row, offset - self._starts[row]

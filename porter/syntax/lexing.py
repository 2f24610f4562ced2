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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

# comments, string literals and character literals (and the opener of a raw string, whose end _skippable finds with
# bytes.find: a lazy regex would rescan the rest of the file for every opener that is never closed). Every branch
# starts with a literal character, so the regex engine skips ahead at C speed. A character literal must not follow a
# hex digit (C++14 digit separators: 1'000'000) and is at most a few characters long; a raw string's u8/L/u/U prefix
# stays outside the span.
_COMMENT_OR_LITERAL = (rb"/(?:/(?:\\\r?\n|[^\n])*|\*.*?(?:\*/|\Z))"
                       rb'|"(?:\\.|[^"\\\n])*"'
                       rb"|'(?<![0-9A-Fa-f_]')(?:\\.|[^'\\\n]){1,8}'")
SKIPPABLE = re.compile(_COMMENT_OR_LITERAL, re.DOTALL)
# a raw string's closer `)delim"`: a delimiter holds no `(`, `)`, backslash, space or quote, so closers never overlap
# and every `)delim"` in the text is one match of this
RAW_CLOSER = re.compile(rb'\)([^()\\\s"]{0,16})"')
SKIPPABLE_OR_RAW_OPENER = re.compile(rb'(?P<raw>R"(?P<delim>[^()\\\s"]{0,16})\()|' + _COMMENT_OR_LITERAL, re.DOTALL)


def _skippable(source: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of every comment and literal, in order; linear even on raw-string openers never closed."""
    if b'R"' not in source:
        for m in SKIPPABLE.finditer(source):
            yield m.span()
        return
    closers: dict[bytes, list[int]] | None = None  # delimiter -> offsets of every `)delim"`, found in one pass
    pos = 0
    while (m := SKIPPABLE_OR_RAW_OPENER.search(source, pos)) is not None:
        if m.group("raw") is None:
            yield m.span()
            pos = m.end()
            continue
        delim = m.group("delim")
        if closers is None:
            closers = {}
            for c in RAW_CLOSER.finditer(source):
                closers.setdefault(c.group(1), []).append(c.start())
        # the first `)delim"` after the opener (a search per opener would rescan the file for each unclosed one)
        offsets = closers.get(delim, [])
        i = bisect.bisect_left(offsets, m.end())
        end = offsets[i] if i < len(offsets) else -1
        if end < 0:
            pos = m.start() + 1  # not a raw string: its `"` may still open an ordinary one
            continue
        yield m.start(), end + len(delim) + 2
        pos = end + len(delim) + 2


# a preprocessor directive with its continuation lines, found from the newline before it (a file's first line is
# looked at separately); on the text with comments and literals blanked
DIRECTIVE = re.compile(rb"\n[ \t]*#(?:\\\r?\n|[^\n])*")
FIRST_DIRECTIVE = re.compile(rb"[ \t]*#(?:\\\r?\n|[^\n])*")
SYSTEM_INCLUDE = re.compile(rb"[ \t]*#[ \t]*include(?:_next)?[ \t]*(<[^>\n]*>)")
BRACE = re.compile(rb"[{}]")
CONDITIONAL = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b")
DEFINE_NAME = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
# a scope whose braces hold top-level items: namespace x {, namespace {, extern "C" {  (literals are blanked)
TRANSPARENT_OPENER = re.compile(rb'(?:\bnamespace(?:\s+[A-Za-z_][\w:\s]*)?|\bextern\s*"\s*")\s*$')
CLASS_HEAD = re.compile(rb"\b(?:struct|class|union|enum)\b")
# what makes a name a member the tokens cannot see: class bodies (member declarations) and constructor
# initializer lists (`) : member(x)`); a ternary's `) :` also matches, which only costs a parse
CLASS_KEYWORDS = tuple(re.compile(k + rb"\b") for k in (b"struct", b"class", b"union"))  # literal prefix: fast scan
CTOR_INITIALIZER = re.compile(rb"\)\s*:(?!:)")
DEFINED_TEST_BEFORE = re.compile(rb"(?:^[ \t]*#[ \t]*(?:ifdef|ifndef|elifdef|elifndef)[ \t]+|\bdefined[ \t]*\(?[ \t]*)$",
                                 re.MULTILINE)


def splice(source: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """`source` with each (start, end, text) replacing its span; the edits sorted and not overlapping."""
    out, pos = [], 0
    for start, end, text in edits:
        out += [source[pos:start], text]
        pos = end
    out.append(source[pos:])
    return b"".join(out)


def in_spans(starts: list[int], ends: list[int], offset: int) -> bool:
    """Whether `offset` falls in one of the sorted, disjoint spans [starts[i], ends[i])."""
    i = bisect.bisect_right(starts, offset) - 1
    return i >= 0 and offset < ends[i]


def first_char_alternation(words: list[str], lookbehind: str = "") -> str:
    r"""A regex matching any of `words`, grouped by first character, so the regex engine rejects most positions after
    one character instead of trying every word there (each branch starts with a literal). `lookbehind`, a character
    class such as r"[\w.]", forbids a character of that class right before a word; it is checked after the first
    character, where it keeps the literal first."""
    groups: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return "(?:" + "|".join(
        re.escape(first) + (f"(?<!{lookbehind}{re.escape(first)})" if lookbehind else "") + "(?:" + "|".join(rests) + ")"
        for first, rests in groups.items()
    ) + ")"


class PieceKind(enum.Enum):
    DIRECTIVE = "directive"  # a top-level preprocessor line
    SCOPE = "scope"  # `namespace x {`, `extern "C" {` or the `}` closing one
    DECLARATION = "declaration"  # top-level text without braces: globals, prototypes, typedefs
    FUNCTION = "function"  # a braced item whose head has a parameter list
    DATA = "data"  # a class/struct/union/enum body or a braced initializer


class Piece(NamedTuple):
    """A top-level piece (a tuple: a file has hundreds, made again for each mapped layout)."""

    start: int
    end: int
    kind: PieceKind


class Layout:
    """Comments, literals, directives and top-level pieces of one source file."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        starts, ends, parts, pos = [], [], [], 0
        for s, e in _skippable(source):
            starts.append(s)
            ends.append(e)
            parts.append(source[pos:s])
            # keep a literal's quotes (extern "C" stays recognisable), blank everything inside; comments blank whole
            parts.append(b" " * (e - s) if source[s] == 47 else source[s:s + 1] + b" " * (e - s - 2) + source[e - 1:e])
            pos = e
        parts.append(source[pos:])
        # comments and literals blanked to spaces, same length: braces and directives can be found with regexes
        self.code = b"".join(parts) if starts else source
        paths: list[tuple[int, int]] = []  # the <path> of an #include: a literal too
        if b"include" in self.code:
            for s, e in self.directive_spans:
                m = SYSTEM_INCLUDE.match(self.code, s, e)
                if m is not None:
                    paths.append(m.span(1))
        if paths:  # merged once (inserting each into the sorted spans would be quadratic in the includes)
            merged = sorted([*zip(starts, ends, strict=True), *paths])
            starts, ends = [s for s, _ in merged], [e for _, e in merged]
        self._skip_starts, self._skip_ends = starts, ends
        self._include_starts = [s for s, _ in paths]  # sorted: directives come in file order
        self._include_ends = [e for _, e in paths]

    @functools.cached_property
    def directive_spans(self) -> list[tuple[int, int]]:
        """(start, end) of every preprocessor directive line, continuations included."""
        code = self.code
        if b"#" not in code:
            return []
        first = FIRST_DIRECTIVE.match(code)
        return ([first.span()] if first else []) + [(m.start() + 1, m.end()) for m in DIRECTIVE.finditer(code)]

    @functools.cached_property
    def _defines(self) -> dict[int, str]:
        """Offset -> name of every name a `#define` line defines."""
        out = {}
        for s, e in self.directive_spans:
            m = DEFINE_NAME.match(self.code, s, e)
            if m is not None:
                out[m.start(1)] = m.group(1).decode("ascii")
        return out

    @functools.cached_property
    def define_name_offsets(self) -> frozenset[int]:
        return frozenset(self._defines)

    @functools.cached_property
    def defined_macros(self) -> frozenset[str]:
        """The names this file #defines."""
        return frozenset(self._defines.values())

    # -- what the tokens decide ---------------------------------------------------------------------------
    def in_comment_or_literal(self, offset: int) -> bool:
        return in_spans(self._skip_starts, self._skip_ends, offset)

    def in_directive(self, offset: int) -> bool:
        spans = self.directive_spans
        i = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
        return i >= 0 and offset < spans[i][1]

    def in_include_path(self, offset: int) -> bool:
        return in_spans(self._include_starts, self._include_ends, offset)

    def is_member(self, start: int) -> bool:
        """`x.name`, `p->name`, `.name = v`: the previous token is `.` or `->`."""
        code = self.code
        if start == 0 or code[start - 1] not in _MEMBER_OR_SPACE:
            return False  # the common case: decided by one byte
        window = max(0, start - 64)
        before = code[window:start].rstrip()
        if not ((before.endswith(b".") and not before.endswith(b"..")) or before.endswith(b"->")):
            return False
        dot = window + len(before) - 1
        if b"\n" not in code[dot:start]:
            return True
        # the `.` ends an earlier line: a member only when that line is not a directive (tokens do not cross one)
        return not code[code.rfind(b"\n", 0, dot) + 1 : dot].lstrip().startswith(b"#")

    def is_define_name(self, start: int) -> bool:
        return start in self.define_name_offsets

    def is_defined_test(self, start: int) -> bool:
        """`#ifdef X`, `#ifndef X`, `defined(X)`: only whether X is defined matters."""
        line_start = self.code.rfind(b"\n", 0, start) + 1
        return DEFINED_TEST_BEFORE.search(self.code, line_start, start) is not None

    def member_contexts(self) -> list[int]:
        """Sorted offsets of what makes a name a member the tokens cannot see: the class keywords (class bodies hold
        member declarations) and the `) :` of constructor initializer lists (`) : member(x)`; a ternary's `) :`
        also counts, which only costs a parse)."""
        code = self.code
        out = [m.start() for k in CLASS_KEYWORDS for m in k.finditer(code)
               if m.start() == 0 or code[m.start() - 1] not in _IDENTIFIER_BYTES]
        if b":" in code:
            out += [m.start() for m in CTOR_INITIALIZER.finditer(code)]
        out.sort()
        return out

    # -- top-level pieces ---------------------------------------------------------------------------------
    @functools.cached_property
    def pieces(self) -> list[Piece] | None:
        """The file's top-level pieces in order, covering it exactly; None when a brace is left open at the end
        (conditional braces, macros that close blocks) or parentheses, brackets or #if/#endif do not pair up: then
        only a full parse can say what the file means (and tree-sitter's errors become the file's warning).
        Namespaces opened or closed by macros only leave a stray top-level brace, which becomes a scope piece."""
        code = self.code
        directives = self.directive_spans
        if directives:  # braces inside directives (`#define BEGIN {`) are not the file's structure
            parts, pos = [], 0
            for s, e in directives:
                parts += [code[pos:s], b" " * (e - s)]
                pos = e
            parts.append(code[pos:])
            structure = b"".join(parts)
        else:
            structure = code
        if structure.count(b"(") != structure.count(b")") or structure.count(b"[") != structure.count(b"]"):
            return None  # text tree-sitter cannot make sense of without seeing all of it
        conditionals = [CONDITIONAL.match(code, s, e) for s, e in directives]
        opened = sum(1 for m in conditionals if m is not None and m.group(1) in (b"if", b"ifdef", b"ifndef"))
        if opened != sum(1 for m in conditionals if m is not None and m.group(1) == b"endif"):
            return None
        directive_starts = [s for s, _ in directives]
        out: list[Piece] = []
        start = 0  # start of the piece being gathered
        scopes: list[bool] = []  # one per open brace: True for a transparent scope (namespace, extern "C")
        depth = 0  # open non-transparent braces
        kind = PieceKind.DATA

        def gap(end: int, item: bool = True) -> int:
            """Top-level text in [start, end): declarations and directives, up to the head of the item that starts
            at `end` (a directive inside a head, `template <...>` / `#ifdef X` / `__device__`, stays in the item)."""
            pos = start
            semi = structure.rfind(b";", pos, end)
            head = semi + 1 if semi >= 0 else pos
            for i in range(bisect.bisect_left(directive_starts, pos), bisect.bisect_left(directive_starts, end)):
                s, e = directives[i]
                if item and s >= head and structure[head:s].strip():
                    break
                if s > pos:
                    out.append(Piece(pos, s, PieceKind.DECLARATION))
                out.append(Piece(s, e, PieceKind.DIRECTIVE))
                pos = e
                head = max(head, e)
            if item and head > pos:
                out.append(Piece(pos, head, PieceKind.DECLARATION))  # globals before the item
                pos = head
            return pos

        for m in BRACE.finditer(structure):
            at = m.start()
            if structure[at] == 123:  # {
                if depth == 0:
                    start = gap(at)
                    head = structure[start:at]
                    if TRANSPARENT_OPENER.search(head, max(0, len(head) - 256)):  # bounded: heads can be long
                        out.append(Piece(start, at + 1, PieceKind.SCOPE))
                        start = at + 1
                        scopes.append(True)
                        continue
                    paren = head.find(b"(")
                    if paren < 0 or CLASS_HEAD.search(head, 0, paren) or head.rstrip().endswith(b"="):
                        kind = PieceKind.DATA
                    else:
                        kind = PieceKind.FUNCTION
                scopes.append(False)
                depth += 1
                continue
            # a } that closes nothing closes a scope a macro opened (`BEGIN_NAMESPACE`): top level too
            if not scopes or scopes.pop():
                start = gap(at, item=False)
                if at > start:
                    out.append(Piece(start, at, PieceKind.DECLARATION))
                out.append(Piece(at, at + 1, PieceKind.SCOPE))
                start = at + 1
                continue
            depth -= 1
            if depth == 0:
                end = at + 1
                if kind is PieceKind.DATA:  # `struct S {...} s;`, `int a[] = {...};`: the declaration ends at ;
                    semi = structure.find(b";", end)
                    if semi >= 0 and not any(c in structure[end:semi] for c in (b"{", b"}", b"#")) \
                            and not any(end <= d < semi for d in directive_starts[bisect.bisect_left(directive_starts, end):][:1]):
                        end = semi + 1
                out.append(Piece(start, end, kind))
                start = end
        if depth:
            return None  # braces left open (a scope a macro closes, `END_NAMESPACE`, is fine)
        start = gap(len(code), item=False)
        if len(code) > start:
            out.append(Piece(start, len(code), PieceKind.DECLARATION))
        return out


_MEMBER_OR_SPACE = frozenset(b". \t\r\n>")
_IDENTIFIER_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class LineIndex:
    """Byte offset -> 1-based line and column for reports, 0-based (row, column) points for tree-sitter.

    Lookups come in passes of increasing offsets (includes, then identifiers...), so a line is found by counting
    newlines from the previous lookup at C speed; only lookups that keep jumping back build a table of line starts."""

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._last_offset = 0
        self._last_line = 1
        self._starts: list[int] | None = None
        self._restarts = 0

    def line(self, offset: int) -> int:
        if offset < self._last_offset:  # a new pass over the file
            if self._restarts < 8:
                self._restarts += 1
                self._last_offset, self._last_line = 0, 1
            else:  # lookups that jump about: a table of line starts
                if self._starts is None:
                    self._starts = [0, *(m.end() for m in re.finditer(rb"\n", self._source))]
                return bisect.bisect_right(self._starts, offset)
        self._last_line += self._source.count(b"\n", self._last_offset, offset)
        self._last_offset = offset
        return self._last_line

    def column(self, offset: int) -> int:
        return offset - self._source.rfind(b"\n", 0, offset)

    def point(self, offset: int) -> tuple[int, int]:
        return self.line(offset) - 1, self.column(offset) - 1


@dataclass
class MappedLayout:
    """The blanked code and top-level pieces of a text made from a lexed one by edits, found without lexing it
    again: what the hazard scan of a translated file needs (`code` and `pieces`, as a Layout has them)."""

    text: bytes
    code: bytes
    pieces: list[Piece]

    def with_insertion(self, text: bytes) -> MappedLayout | None:
        """This layout for `text`, which is self.text with whole directive lines inserted at the top level (the
        shims' #include lines, one per shim); None when `text` is not that."""
        layout: MappedLayout | None = self
        for _ in range(_MAX_INSERTED_LINES + 1):
            if layout is None or len(text) == len(layout.text):
                return layout if layout is not None and text == layout.text else None
            layout = layout._with_line(text)
        return None

    def _with_line(self, text: bytes) -> MappedLayout | None:
        """This layout with the first line of `text` that self.text lacks inserted, where `text` has it."""
        if len(text) <= len(self.text):
            return None
        lo, hi, old = 0, len(self.text), memoryview(self.text)
        while lo < hi:  # the first differing offset, by halving (each test a memcmp, no copy)
            mid = (lo + hi + 1) // 2
            if text.startswith(old[:mid]):
                lo = mid
            else:
                hi = mid - 1
        at = text.rfind(b"\n", 0, lo) + 1  # lines are inserted whole: at the start of the line that differs
        stop = text.find(b"\n", at)
        if stop < 0:
            return None
        inserted = text[at:stop + 1]
        if not inserted.lstrip(b" \t").startswith(b"#") or (at and self.code[at - 1:at] != self.text[at - 1:at]) \
                or self.text[max(0, at - 3):at].rstrip(b"\r\n").endswith(b"\\"):
            return None  # not a directive, inside a comment or a literal, or continuing the line before
        grown = len(inserted)
        i = bisect.bisect_right([p.start for p in self.pieces], at) - 1
        piece = self.pieces[i]
        if piece.kind not in (PieceKind.DECLARATION, PieceKind.DIRECTIVE) or (piece.kind is PieceKind.DIRECTIVE
                                                                             and at != piece.start):
            return None
        line = Layout(inserted)
        pieces = self.pieces[:i]
        if at > piece.start:
            pieces.append(Piece(piece.start, at, piece.kind))
        pieces.append(Piece(at, at + grown, PieceKind.DIRECTIVE))
        if piece.end > at:
            pieces.append(Piece(at + grown, piece.end + grown, piece.kind))
        pieces += [Piece(p.start + grown, p.end + grown, p.kind) for p in self.pieces[i + 1:]]
        return MappedLayout(self.text[:at] + inserted + self.text[at:], self.code[:at] + line.code + self.code[at:],
                            pieces)


_MAX_INSERTED_LINES = 16  # more differences than a file has shims: not an insertion of lines


_LEXICAL_BYTES = (b'"', b"'", b"/*", b"//", b"\\", b"#", b"R\"")


def map_layout(layout: Layout, edits: list, output: bytes) -> MappedLayout | None:
    """The layout of `output`, made from layout.source by the non-overlapping, sorted (start, end, text) `edits`:
    None when an edit could change the lexical structure (its text has quotes, a comment, a directive; it spans
    a piece boundary) or the layout has no pieces."""
    pieces = layout.pieces
    if pieces is None:
        return None
    source, code = layout.source, layout.code
    parts, pos = [], 0
    starts = [p.start for p in pieces]
    shifted: list[int] = []  # for each edit, the output offset of its start
    delta = 0
    plain: dict[bytes, bool] = {}  # per distinct edit text: free of what would change the lexical structure
    i, last = 0, len(pieces) - 1
    for start, end, text in edits:
        ok = plain.get(text)
        if ok is None:
            ok = plain[text] = not any(b in text for b in _LEXICAL_BYTES)
        if not ok:
            return None
        if start < end and code[start:end] != source[start:end]:  # a blanked literal (an #include "path" renamed)
            if code[start:end].strip():
                return None  # partly a literal or a comment
            text = b" " * len(text)
        while i < last and starts[i + 1] <= start:  # the piece the edit starts in (edits come sorted)
            i += 1
        if end > pieces[i].end:
            return None  # an edit across a piece boundary
        parts.append(code[pos:start])
        parts.append(text)
        pos = end
        shifted.append(start + delta)
        delta += len(text) - (end - start)
    parts.append(code[pos:])
    new_code = b"".join(parts)
    if len(new_code) != len(output):
        return None
    # a boundary moves by the edits before it; an insertion at a boundary goes into the piece that starts there
    edit_starts = [e[0] for e in edits]
    deltas, total = [0], 0
    for start, end, text in edits:
        total += len(text) - (end - start)
        deltas.append(total)

    def moved(offset: int) -> int:
        return offset + deltas[bisect.bisect_left(edit_starts, offset)]

    mapped = [Piece(moved(p.start), moved(p.end), p.kind) for p in pieces]
    return MappedLayout(output, new_code, mapped)


def split_top_level(text: str, opening: str = "([{<", closing: str = ")]}>") -> list[str]:
    """`text` split at the commas outside the given brackets, each part stripped (an empty last part dropped):
    `"a, f(b, c), {d, e}"` -> ["a", "f(b, c)", "{d, e}"]."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


"""The hazard scan of a file, parsing only the top-level pieces where a rule can fire and what those consult.

`scan_source` parses the whole file; `scan_pieces` gives the same findings from a tree of some of the file's
top-level pieces (porter.syntax's `Layout.pieces`: functions, classes, declarations, directives). `porter convert`
lists the hazards still open in every file it writes this way, without parsing each output whole.

Why the findings are the same:
1. Anchors. Every hit sits on a node (a call, an operator, a declaration...) and needs text in that node's piece:
   a shuffle needs `__shfl`, a lane-mask finding a `_sync` builtin, warp arithmetic `%`, `&`, `/` or `>>` before
   32, 31 or 5, a warp-size-looking name or a parenthesis, a launch-bounds or shared-memory finding `<<<` with a
   block size or dynamic size that is not a decimal literal within the target's limits, and so on (`_ANCHORS`,
   `_anchor_offsets`). Pieces with such text (on the text with comments and literals blanked) are parsed, with all
   directives, namespace braces and blank pieces (the newlines that end directives).
2. Facts detectors gather by iterating over the whole file are kept whole by also parsing what may add to them:
   lane-named words and the lane idioms `x % 32`, `x & 31` (lane variables, lane-indexed subscripts),
   directives inside functions, cooperative-groups aliases and using-declarations, `wall_clock64` and the
   clock-rate names, every use of an API name flagged for this ROCm.
3. Facts detectors look up by name are recorded while they run (`_RecordingContext`): constants, a variable's
   first declaration, lane variables, lane-sized arrays, threadIdx-derived variables (when consulted, every
   assignment elsewhere whose value names threadIdx & co. or a derived variable), names in the file's top-level
   scope. When a piece that was not parsed may define a recorded name (a const declaration of it, any mention, an
   assignment from a derived variable...), it is added and the scan runs again, until nothing is missing.
Files whose braces, parentheses or #if/#endif do not pair up (no pieces), and files whose pieces tree-sitter
cannot parse without errors (its recovery depends on the text around), are parsed whole. One case is known to
escape rule 3: a threadIdx-derived variable set through a multi-statement lambda in another piece (the lexical test
reads a value up to its `;`). tests/test_scan_pieces.py and scripts/compare_scan_modes.py hold both ways to
identical findings on the examples, goldens, the benchmark corpus and real header trees, as CUDA and as HIP.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from functools import cached_property

import tree_sitter

from porter import syntax
from porter.scan.context import LANE_NAME, WARP_NAME, SourceContext, call_name, text, unparen
from porter.scan.detectors import WARP_SIZE_NAME, _api_map
from porter.syntax import Layout, LineIndex, PieceKind, first_char_alternation
from porter.targets import TargetProfile
from porter.translate import RocmVersion

WORD = re.compile(rb"[A-Za-z_]\w*")
_GAP = rb"[\s\\]*"  # what may sit between two tokens in blanked code: spaces, newlines, line continuations
# Text that makes its piece an anchor. Each pattern starts with a literal, which the regex engine finds at C speed.
_ANCHORS = tuple(re.compile(p) for p in (
    rb"__(?:shfl|ballot|activemask|match_a|any|all|uni_sync|reduce_|syncwarp|lane_id|popc|ffs|clz|brev|"
    rb"threadfence_system|launch_bounds__|asm|hip_get_thread_idx_x)",
    rb"asm", rb"shared", rb"fp8", rb"wmma", rb"nvcuda", rb"texture", rb"surface", rb"tex[123C]", rb"surf[123]",
    rb"BindTexture", rb"BindSurface", rb"TextureReference", rb"SurfaceReference", rb"TextureAlignmentOffset",
    rb"FuncSetAttribute", rb"hipLaunchKernel", rb"thread_block_tile", rb"clock", rb"ClockRate",
    rb"cuda" + _GAP + rb"::",
))
THREAD_WORDS = frozenset({"threadIdx", "blockDim", "__lane_id", "__hip_get_thread_idx_x", "hipThreadIdx_x",
                          "hipBlockDim_x"})  # what SourceContext.mentions_thread looks for besides derived variables
_CG_ANCHORS = tuple(re.compile(p) for p in (
    rb"cooperative_groups", rb"tiled_partition", rb"cluster_group", rb"synchronize", rb"wait", rb"invoke_one",
    rb"reduce", rb"inclusive_scan", rb"exclusive_scan", rb"memcpy_async", rb"this_cluster",
))
# warp arithmetic: an operator (checked in _anchor_offsets) before 32, 31, 5, a hex or binary number, a name with
# `warp` in it (every WARP_SIZE_NAME has) or a parenthesis
_ARITH = re.compile(rb"[%&/>]" + _GAP + rb"(\(|(?:32|31|5|0[xXbB][0-9a-fA-F]+)[uUlL]*(?![\w.])|\w*[wW][aA][rR][pP]\w*)")
_ARITH_VALUES = frozenset({5, 31, 32})
_NUMBER_SUFFIX = re.compile(rb"[uUlL]+$")
_SHIFT_ONE = re.compile(rb"1[uU]?" + _GAP + rb"<<(?![<=])")  # `1 << lane` (PL004)
_LAUNCH = re.compile(rb"<<<")
_DIRECTIVE = re.compile(rb"#[ \t]*(define|include)\b[ \t]*(\w*)")
_DIRECTIVE_PATHS = (b"cooperative_groups", b"cuda/", b"mma.h")  # the headers PC001, PX001 and PM001 name
_DEVICE = re.compile(rb"__(?:device|global)__")
_CONST = re.compile(rb"const(?:expr)?\b")
_ASSIGN_OP = rb"(?:[-+*/%&|^]|<<|>>)?=(?!=)"
_SUBSCRIPT_ASSIGN = re.compile(rb"\]" + _GAP + _ASSIGN_OP)  # `a[i] += ...`: a step of a reduction (PY002)
# lane idioms (SourceContext.is_lane_expr): `x % 32` (any right operand that may be 32: a name, a parenthesis),
# `x & 31`, `x & 0x1f`, `x & (warpSize - 1)`
_LANE_IDIOMS = (re.compile(rb"%" + _GAP + rb"(?:32|0[xXbB]|[A-Za-z_(])"),
                re.compile(rb"&" + _GAP + rb"(?:31|0x1[fF]|\()"))
# an assignment or initialisation of a name: `x = v`, `x op= v`, `T x(v)`, `T x{v}` (a call after a name, `*`,
# `&`, `>` or `,` is taken too: a superset)
_ASSIGNMENT = re.compile(rb"(?<![\w.])([A-Za-z_]\w*)" + _GAP + _ASSIGN_OP + rb"|[\w>*&,]" + _GAP +
                         rb"(?<![\w.])([A-Za-z_]\w*)" + _GAP + rb"[({]")
_LOWER_LANE_OR_WARP = (b"lane", b"lid", b"warp", b"wid")  # every LANE_NAME / WARP_NAME word has one (lower case)
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_SUBSCRIPT_AFTER = re.compile(_GAP + rb"\[")
_MOD_NAME = re.compile(rb"%" + _GAP + rb"([A-Za-z_]\w*)")
_SIZE_WORD = re.compile(rb"(?<![\w])[A-Za-z_]\w*")  # a name, not the suffix of a number (32u, 0x20)
_MAX_ROUNDS = 8  # re-runs after which the file is scanned whole (each adds pieces; a file has few such chains)


def scan_pieces(source: bytes, path: str, target: TargetProfile, rocm: RocmVersion | None = None,
                layout: Layout | None = None, names: Iterable[str] | None = None) -> list:
    """The findings `scan_source` gives, parsing only what the rules need (pure: no I/O).

    `layout`: the file's layout when the caller has it (its pieces and its text with comments and literals
    blanked). `names`: a superset of the identifiers in the file that the API map knows (the translator's
    candidates), which spares finding every distinct word."""
    from porter.scan import _findings, scan_source

    if layout is None:
        if not _may_fire(source, target, rocm, names):
            return []  # nothing in the whole text a rule could fire on: not even lexed
        layout = Layout(source)
    pieces = layout.pieces
    if pieces is None:
        return scan_source(source, path, target, rocm)
    plan = _Plan(source, layout.code, pieces, target, rocm, names)
    if not plan.anchored:
        return []  # no piece holds anything a rule can fire on
    lines = LineIndex(source)
    for _ in range(_MAX_ROUNDS):
        ranges = plan.ranges()
        tree = syntax.parse_ranges(source, [(s, e, lines.point(s), lines.point(e)) for s, e in ranges])
        if tree.root_node.has_error:
            break  # what tree-sitter's error recovery makes of a piece can depend on its neighbours: parse whole
        ctx = _RecordingContext(source, path, tree=tree, api_names=names)
        findings = _findings(ctx, path, target, rocm)
        if not plan.add_missing(ctx):
            return findings
    return scan_source(source, path, target, rocm)


def _may_fire(text: bytes, target: TargetProfile, rocm: RocmVersion | None, names: Iterable[str] | None) -> bool:
    """Whether any anchor (or what makes one with other text of its piece) is anywhere in `text`."""
    if any(pattern.search(text) for pattern in _ANCHORS):
        return True
    if b"cooperative_groups" in text and any(pattern.search(text) for pattern in _CG_ANCHORS):
        return True
    if any(pattern.search(text) for pattern in _LANE_IDIOMS) or next(_anchor_offsets(text, target), None) is not None:
        return True
    lower = text.lower()
    if b"#" in text and (b"warp" in lower or any(p in text for p in _DIRECTIVE_PATHS)):
        return True
    if (b"warp" in lower and _CONST.search(text)) or (b"lane" in lower or b"lid" in lower):
        return True  # PW005's const declarations; lane-named words
    if _DEVICE.search(text) and _count(_SUBSCRIPT_ASSIGN, text) >= 3:
        return True
    return bool(_flagged_offsets(text, rocm, names))


def _count(pattern: re.Pattern[bytes], text: bytes) -> int:
    return sum(1 for _ in pattern.finditer(text))


def scan_translated(output: bytes, path: str, target: TargetProfile, rocm: RocmVersion | None, translation) -> list:
    """The hazards still open in a translated file (`translation`: the TranslationResult it came from, whose
    output_layout and known_names spare lexing it again); a shim include added since is taken into account."""
    from porter.scan import scan_source

    facts = translation.output_facts
    if facts is None:
        return scan_pieces(output, path, target, rocm)
    if facts.parse_errors:
        return scan_source(output, path, target, rocm)  # its pieces would parse with errors too: parse it whole
    layout = facts.layout
    if layout is not None:
        layout = layout.with_insertion(output)
    return scan_pieces(output, path, target, rocm, layout=layout, names=facts.known_names)


class _EveryName(set):
    """A set that holds every name: what _Plan._constant_names gives when it cannot tell."""

    def __contains__(self, key: object) -> bool:
        return True


_EVERY_NAME = _EveryName()


class _Plan:
    """Which pieces of one file to parse."""

    def __init__(self, source: bytes, code: bytes, pieces: list, target: TargetProfile, rocm: RocmVersion | None,
                 names: Iterable[str] | None) -> None:
        self.source, self.code, self.pieces = source, code, pieces
        self.starts = [p.start for p in pieces]
        self.needed = [False] * len(pieces)
        self._lower: bytes | None = None
        self._consts: dict[int, set[str]] = {}
        mark = self._mark
        for pattern in _ANCHORS:
            for m in pattern.finditer(code):
                mark(m.start())
        if b"cooperative_groups" in source:
            for pattern in _CG_ANCHORS:
                for m in pattern.finditer(code):
                    mark(m.start())
        for offset in _flagged_offsets(code, rocm, names):
            mark(offset)
        for offset in _anchor_offsets(code, target):
            mark(offset)
        self._directives()
        self._devices_and_constants()
        self._lane_idioms()
        self.anchored = any(self.needed)
        if self.anchored:  # the frame: directives, namespace braces, blank pieces (the newlines ending directives)
            for i, p in enumerate(pieces):
                if p.kind in (PieceKind.DIRECTIVE, PieceKind.SCOPE) or (
                        p.kind is PieceKind.DECLARATION and not code[p.start:p.end].strip()):
                    self.needed[i] = True

    def _piece_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def _mark(self, offset: int) -> None:
        self.needed[bisect.bisect_right(self.starts, offset) - 1] = True

    @property
    def lower(self) -> bytes:
        if self._lower is None:
            self._lower = self.code.lower()
        return self._lower

    def _directives(self) -> None:
        """A `#define` of a warp-size-looking name (PW005), an #include of a header a rule names, and every
        #define/#include inside a function or class (constants and includes the tree would see there)."""
        code = self.code
        for m in _DIRECTIVE.finditer(code):
            i = self._piece_at(m.start())
            if self.pieces[i].kind is not PieceKind.DIRECTIVE:
                self.needed[i] = True
            elif m.group(1) == b"define":
                self.needed[i] = self.needed[i] or _warp_size_word(m.group(2))
            else:
                end = code.find(b"\n", m.start())
                line = self.source[m.start():end if end >= 0 else len(code)]
                self.needed[i] = self.needed[i] or any(p in line for p in _DIRECTIVE_PATHS)

    def _devices_and_constants(self) -> None:
        """`constexpr int kWarpSize = 32;` (PW005) and device functions with three assignments to a subscript
        (a warp-synchronous reduction, PY002)."""
        code = self.code
        consts = {self._piece_at(m.start()) for m in _CONST.finditer(code)}
        if consts:
            for word, at in _words_with(self.lower, code, (b"warp",)):
                i = self._piece_at(at)
                if i in consts and _warp_size_word(word):
                    self.needed[i] = True
        devices = {self._piece_at(m.start()) for m in _DEVICE.finditer(code)}
        if devices:
            steps: dict[int, int] = {}
            for m in _SUBSCRIPT_ASSIGN.finditer(code):
                i = self._piece_at(m.start())
                steps[i] = steps.get(i, 0) + 1
            for i, n in steps.items():
                if n >= 3 and i in devices:
                    self.needed[i] = True

    def _lane_idioms(self) -> None:
        """Lane-named words and the lane idioms: where lane variables and lane-indexed subscripts come from.

        `x % name` is a lane idiom only when the right operand may be 32 (SourceContext.is_lane_expr): `warpSize`,
        a `sizeof`, or a name the file may define as a constant (SourceContext.evaluate knows no other names). A
        right operand that starts with any other name evaluates to nothing (`n`, `n[i]`, `n.x`, `f(n)`)."""
        code = self.code
        for m in _LANE_IDIOMS[0].finditer(code):
            name = _MOD_NAME.match(code, m.start())  # the right operand starts with a name (not 32, 0x1f...)
            if name is not None and name.group(1) not in (b"warpSize", b"sizeof") \
                    and name.group(1).decode("ascii") not in self._constant_names:
                continue
            self._mark(m.start())
        for m in _LANE_IDIOMS[1].finditer(code):
            self._mark(m.start())
        for word, at in _words_with(self.lower, self.code, (b"lane", b"lid")):
            if LANE_NAME.match(word.decode("ascii")):
                self._mark(at)

    @cached_property
    def _constant_names(self) -> set[str]:
        """A superset of the names SourceContext.constant_texts may hold: every word of a const/constexpr
        declaration (_const_words) and every name a #define defines, anywhere in the file."""
        names: set[str] = set()
        for i in {self._piece_at(m.start()) for m in _CONST.finditer(self.code)}:
            names |= self._const_words(i)
        for m in _DIRECTIVE.finditer(self.code):
            if m.group(1) == b"define":
                if not m.group(2):
                    return _EVERY_NAME  # a #define whose name this regex does not see (after a continuation)
                names.add(m.group(2).decode("ascii"))
        return names

    def _may_size_32(self, start: int) -> bool:
        """Whether the brackets opening at `start` (after `[`) may hold an array size of 32: evaluate gives a
        value only when every name in the expression is a constant (a sizeof aside), so a name that is none
        rules it out. Text up to the first `]`: its names are among the whole expression's."""
        close = self.code.find(b"]", start)
        if close < 0:
            return True
        inside = self.code[start:close]
        return b"sizeof" in inside or all(w.decode("ascii") in self._constant_names for w in _SIZE_WORD.findall(inside))

    def ranges(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for p, needed in zip(self.pieces, self.needed, strict=True):
            if needed:
                if out and out[-1][1] == p.start:
                    out[-1] = (out[-1][0], p.end)
                else:
                    out.append((p.start, p.end))
        return out

    # -- what the detectors looked up ---------------------------------------------------------------------
    def add_missing(self, ctx: _RecordingContext) -> bool:
        """Mark the pieces not parsed that may define what the detectors looked up; whether any was added."""
        if all(self.needed):
            return False  # the whole file is parsed: nothing can be missing
        before = sum(self.needed)
        code = self.code
        constants = ctx.looked_up_constants
        for i, _at in self._unparsed_uses(constants):
            if not self.needed[i] and constants & self._const_words(i):  # `const int N = 32;` in another piece
                self.needed[i] = True
        for i, _at in self._unparsed_uses(ctx.looked_up_declarations):
            self.needed[i] = True  # the first declaration (or parameter) of the name in the file wins
        known = set(ctx.__dict__.get("lane_sized_arrays", ()))
        for i, at in self._unparsed_uses(ctx.looked_up_arrays | known):
            end = at + self._word_length(at)
            bracket = _SUBSCRIPT_AFTER.match(code, end)
            if bracket is None:
                continue
            if code[at:end].decode("ascii") in known or self._may_size_32(bracket.end()):
                self.needed[i] = True  # a subscript of a lane-sized array, or a declaration that may make one
        for name in ctx.looked_up_lanes:  # an assignment that may make the name a lane variable
            for m in _assigning(name).finditer(code):
                i = self._piece_at(m.start())
                if not self.needed[i] and _lane_value(code, m.end(), self.pieces[i].end):
                    self.needed[i] = True
        if "lane_sized_arrays" in ctx.__dict__:  # a lane variable indexing an array in another piece
            for i, at in self._unparsed_uses(set(ctx.lane_vars)):
                if b"[" in self._statement_before(i, at):
                    self.needed[i] = True
        if "thread_vars" in ctx.__dict__:  # assignments from threadIdx or a derived variable make more of them
            for i, at in self._unparsed_uses(THREAD_WORDS | ctx.thread_vars):
                self.needed[i] = self.needed[i] or self._in_assigned_value(i, at)
        if ctx.root_scope_consulted:  # lane/warp-named words in the file's top-level scope
            for word, at in _words_with(self.lower, code, _LOWER_LANE_OR_WARP):
                i = self._piece_at(at)
                if not self.needed[i] and self.pieces[i].kind is not PieceKind.FUNCTION and _lane_or_warp_word(word):
                    self.needed[i] = True
        return sum(self.needed) > before

    def _unparsed_uses(self, names: set[str]) -> Iterator[tuple[int, int]]:
        """(piece, offset) of the uses of `names` in pieces that are not parsed (none in a piece once it is)."""
        if not names:
            return
        pattern = _names_pattern(frozenset(names))
        runs, start = [], None  # searched run by run of pieces not parsed
        for i, needed in enumerate([*self.needed, True]):
            if not needed and start is None:
                start = i
            elif needed and start is not None:
                runs.append((self.pieces[start].start, self.pieces[i - 1].end))
                start = None
        for begin, end in runs:
            for m in pattern.finditer(self.code, begin, end):
                i = self._piece_at(m.start())
                if not self.needed[i]:
                    yield i, m.start()

    def _word_length(self, at: int) -> int:
        end = at
        while end < len(self.code) and self.code[end] in _WORD_BYTES:
            end += 1
        return end - at

    def _statement_before(self, i: int, at: int) -> bytes:
        start = max(self.code.rfind(b";", self.pieces[i].start, at) + 1, self.pieces[i].start)
        return self.code[start:at]

    def _in_assigned_value(self, i: int, at: int) -> bool:
        """Whether the use at `at` may be in the value of an assignment or initialisation (its statement has one
        before it)."""
        before = self._statement_before(i, at)
        return any(c in before for c in (b"=", b"(", b"{")) and _ASSIGNMENT.search(before) is not None

    def _const_words(self, i: int) -> set[str]:
        """The words of piece i's const/constexpr declarations, from the keyword to the statement's end; a
        `const` in a parameter list (a `)` closes a parenthesis opened before it) declares no constant."""
        found = self._consts.get(i)
        if found is None:
            found = self._consts[i] = set()
            code, end = self.code, self.pieces[i].end
            for m in _CONST.finditer(code, self.pieces[i].start, end):
                stop = min([at for at in (code.find(c, m.end(), end) for c in (b";", b"{", b"}")) if at >= 0] or [end])
                statement, depth = code[m.end():stop], 0
                for ch in statement:
                    depth += 1 if ch == 40 else -1 if ch == 41 else 0
                    if depth < 0:
                        break
                if depth >= 0:
                    found.update(w.decode("ascii") for w in WORD.findall(statement))
        return found


@functools.lru_cache(maxsize=4096)
def _assigning(name: str) -> re.Pattern[bytes]:
    """Assignments and initialisations of `name` (what _ASSIGNMENT finds for it), searched from its first letter."""
    raw = name.encode()
    first, rest = re.escape(raw[:1]), re.escape(raw[1:])
    word = first + rb"(?<![\w.]" + first + rb")" + rest + rb"(?!\w)"
    return re.compile(word + _GAP + rb"(?:" + _ASSIGN_OP + rb"|[({])")


def _lane_value(code: bytes, start: int, end: int) -> bool:
    """Whether the value from `start` to the statement's end may be a lane expression (SourceContext.lane_vars:
    `%`, `&`, `__lane_id` or a lane-named word)."""
    stop = code.find(b";", start, end)
    value = code[start:stop if stop >= 0 else end]
    lower = value.lower()
    return b"%" in value or b"&" in value or b"__lane_id" in value or b"lane" in lower or b"lid" in lower


def _words_with(lower: bytes, code: bytes, needles: tuple[bytes, ...]) -> Iterator[tuple[bytes, int]]:
    """(word, start) of every word containing one of the lower-case `needles` in any case."""
    seen: set[int] = set()
    for needle in needles:
        at = lower.find(needle)
        while at >= 0:
            start, end = at, at + len(needle)
            while start > 0 and code[start - 1] in _WORD_BYTES:
                start -= 1
            while end < len(code) and code[end] in _WORD_BYTES:
                end += 1
            if start not in seen and not code[start:start + 1].isdigit():
                seen.add(start)
                yield code[start:end], start
            at = lower.find(needle, end)


@functools.lru_cache(maxsize=256)
def _names_pattern(names: frozenset[str]) -> re.Pattern[bytes]:
    return re.compile(first_char_alternation(sorted(names), lookbehind=r"\w").encode() + rb"(?!\w)")


def _flagged_offsets(code: bytes, rocm: RocmVersion | None, names: Iterable[str] | None) -> list[int]:
    """Offsets of the uses of API names with no HIP counterpart or too new for this ROCm (their first use in the
    file is a finding)."""
    api_map = _api_map()
    if api_map is None:
        return []
    words = names if names is not None else {w.decode("ascii") for w in set(WORD.findall(code))}
    flagged = set()
    for name in words:
        entry = api_map.lookup(name)
        if entry is not None and (entry.unsupported or (rocm is not None and not entry.available_in(rocm))):
            flagged.add(name)
    if not flagged:
        return []
    return [m.start() for m in _names_pattern(frozenset(flagged)).finditer(code)]


@functools.lru_cache(maxsize=1 << 16)
def _lane_or_warp_word(word: bytes) -> bool:
    w = word.decode("ascii")
    return LANE_NAME.match(w) is not None or WARP_NAME.match(w) is not None


@functools.lru_cache(maxsize=1 << 16)
def _warp_size_word(word: bytes) -> bool:
    return WARP_SIZE_NAME.search(word.decode("ascii")) is not None


def _anchor_offsets(code: bytes, target: TargetProfile) -> Iterator[int]:
    """Offsets of the anchors that are not words: warp arithmetic, `1 << lane`, launches a rule may flag."""
    for m in _ARITH.finditer(code):
        at = m.start()
        op = code[at]
        if op == 62 and (code[at - 1:at] != b">" or code[at - 2:at - 1] == b">"):
            continue  # `>` alone (a comparison, `->`) or the end of `<<<...>>>`: only `>>` shifts
        if op == 38 and code[at - 1:at] == b"&":
            continue  # `&&`
        operand = m.group(1)
        if operand == b"(" or (operand[0] > 57 and _warp_size_word(operand)) or _literal(operand) in _ARITH_VALUES:
            yield at
    for m in _SHIFT_ONE.finditer(code):
        if code[m.start() - 1:m.start()] not in _WORD_OR_DOT:
            yield m.start()
    for m in _LAUNCH.finditer(code):
        if not _launch_is_quiet(code, m.end(), target):
            yield m.start()


_WORD_OR_DOT = frozenset(bytes([c]) for c in _WORD_BYTES | {46})


def _literal(token: bytes) -> int | None:
    try:
        return int(_NUMBER_SUFFIX.sub(b"", token), 0)
    except ValueError:
        return None


def _launch_is_quiet(code: bytes, start: int, target: TargetProfile) -> bool:
    """Whether a `<<<...>>>` launch cannot trip a launch-bounds or shared-memory rule: its block size and dynamic
    shared memory are plain decimal literals within the target's limits (anything else is parsed)."""
    end = code.find(b">>>", start)
    if end < 0 or end - start > 512:
        return False
    config = code[start:end]
    if any(c in config for c in (b"<", b">", b"{", b";", b"[", b"'")):
        return False
    if b"(" in config:  # split at the commas outside parentheses
        args, depth, last = [], 0, 0
        for i, ch in enumerate(config):
            if ch == 40:  # (
                depth += 1
            elif ch == 41:  # )
                depth -= 1
            elif ch == 44 and depth == 0:  # ,
                args.append(config[last:i])
                last = i + 1
        args.append(config[last:])
        if depth != 0:
            return False
    else:
        args = config.split(b",")
    if len(args) < 2:
        return False
    for arg, limit in zip(args[1:3], (target.max_threads_per_block, target.lds_bytes), strict=False):
        value = arg.strip(b" \t\r\n\\")
        if not value.isdigit() or int(value) > limit:
            return False
    return True


class _Recorded(dict):
    """A dict that notes every key it is asked about."""

    def __init__(self, data: dict, log: set[str]) -> None:
        super().__init__(data)
        self._log = log

    def get(self, key, default=None):
        self._log.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self._log.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._log.add(key)  # type: ignore[arg-type]
        return super().__contains__(key)


class _RecordedSet(set):
    """A set that notes every member it is asked about."""

    def __init__(self, data: set, log: set[str]) -> None:
        super().__init__(data)
        self._log = log

    def __contains__(self, key: object) -> bool:
        self._log.add(key)  # type: ignore[arg-type]
        return super().__contains__(key)


def _may_index_lanes(index: tree_sitter.Node) -> bool:
    """What detectors._is_lane_index may take for a lane index (a superset, without working out lane variables):
    a name, `__lane_id()`, or a `%` or `&` expression."""
    index = unparen(index)
    if index.type == "identifier":
        return True
    if index.type == "call_expression":
        return call_name(index) == "__lane_id"
    if index.type == "binary_expression":
        return text(index.child_by_field_name("operator")) in ("%", "&")
    return False


class _RecordingContext(SourceContext):
    """A SourceContext that notes the names looked up in what it gathers from the whole file."""

    def __init__(self, *args, **kwargs) -> None:
        self.looked_up_constants: set[str] = set()
        self.looked_up_declarations: set[str] = set()
        self.looked_up_lanes: set[str] = set()
        self.looked_up_arrays: set[str] = set()
        self.root_scope_consulted = False
        super().__init__(*args, **kwargs)

    @cached_property
    def constant_texts(self) -> dict[str, str]:
        return _Recorded(SourceContext.constant_texts.func(self), self.looked_up_constants)

    @cached_property
    def declared_types(self) -> dict:
        return _Recorded(SourceContext.declared_types.func(self), self.looked_up_declarations)

    @cached_property
    def lane_vars(self) -> set[str]:
        return _RecordedSet(SourceContext.lane_vars.func(self), self.looked_up_lanes)

    @cached_property
    def lane_sized_arrays(self) -> dict:
        arrays = SourceContext.lane_sized_arrays.func(self)
        # what the detector would look up were an array declared in a piece not parsed: the arrays of every
        # lane-indexed subscript here, and the lane variables that may index one in another piece
        for sub in self.all_of("subscript_expression"):
            indices = sub.child_by_field_name("indices")
            index = indices.named_children[0] if indices is not None and indices.named_children else None
            if index is not None and _may_index_lanes(index):
                self.looked_up_arrays.add(text(sub.child_by_field_name("argument")))
        return arrays

    def warp_context(self, node: tree_sitter.Node) -> bool:
        if self.function_of(node) is None:
            self.root_scope_consulted = True  # decided by the lane/warp names outside every function
        return super().warp_context(node)

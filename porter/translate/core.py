"""The deterministic CUDA→HIP translator: `translate(source, options) -> TranslationResult`.

Pure: bytes in, bytes and facts out; no file system access. Identifiers are found with a fast lexical pass and
edited by byte range, which keeps layout, comments and unrelated bytes exactly as they were — including bytes that
are not valid UTF-8 and CRLF line endings.

Which identifiers are code (not a comment, a literal, a member or a macro's own name) is decided by the tree-sitter
tree wherever the grammar can see more than the tokens: class bodies and constructor initializers (member names),
the arguments of `cudaMemcpyToSymbol` and friends, `<<<>>>` launches being rewritten, and every function the hazard
fixes look at. tree-sitter parses just those top-level pieces (`Parser.included_ranges`, so node offsets stay file
offsets) plus the file's directives and declarations; elsewhere the tokens decide (porter.syntax.lexing), which is where
the grammar would decide the same. Files whose braces do not balance are parsed whole. `full_parse` parses every
file whole; tests hold both ways to the same output.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

import tree_sitter

from porter import syntax
from porter.syntax import Layout, LineIndex, PieceKind, first_char_alternation, in_spans, splice
from porter.translate.call_shapes import call_of, call_shapes, shape_call, struct_init_edits, struct_orders
from porter.translate.device_props import device_prop_edits
from porter.translate.inline_ptx import Rewrite, looks_like_ptx, rewrite_in_macro, rewrite_with_string_macros
from porter.translate.inline_ptx import rewrite as rewrite_inline_ptx
from porter.translate.mapping import (
    CUDA_LOOKING,
    ApiMap,
    HeaderEntry,
    defined_types,
    load_api_map,
    shim_covers,
)
from porter.translate.options import (
    Conversion,
    LaunchSyntax,
    Reason,
    RocmVersion,
    TranslateOptions,
    TranslationResult,
    Unconverted,
)
from porter.translate.overloads import HIP_TYPEDEFS, collapsed_overloads, collapsing_types
from porter.translate.pasted_macros import find_pasted_macros, unpaste
from porter.translate.vector_ops import may_define_vector_operators, vector_operator_edits

IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
INCLUDE_HINT = re.compile(rb"^[ \t]*#[ \t]*include", re.MULTILINE)
INCLUDE_PATH = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(<[^>\n]*>|"[^"\n]*")', re.MULTILINE)
ASM_KEYWORD = re.compile(rb"(?<![A-Za-z0-9_])(?:asm|__asm__|__asm)(?![A-Za-z0-9_])")
ASM_STATEMENT = re.compile(rb"\s*(?:(?:volatile|__volatile__|inline|goto)\b\s*)*\(")
CUDA_LOOKING_BYTES = re.compile(CUDA_LOOKING.pattern.encode())
# the `a::b::` right before an identifier (the search window ends at the identifier)
QUALIFIER = re.compile(rb"(?<![A-Za-z0-9_:])((?:[A-Za-z_][A-Za-z0-9_]*\s*::\s*)+)$")
NAMESPACE_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*((?:::)?\s*[A-Za-z_][\w:\s]*?)\s*;")

# node types whose identifiers are never CUDA API uses
SKIP_NODE_TYPES = frozenset({"comment", "string_literal", "char_literal", "raw_string_literal", "string_content",
                             "escape_sequence", "field_identifier", "system_lib_string", "concatenated_string"})
RENAMABLE_NODE_TYPES = frozenset({"identifier", "type_identifier", "namespace_identifier", "primitive_type",
                                  "statement_identifier", "sized_type_specifier"})
DEFINITION_PARENTS = frozenset({"preproc_def", "preproc_function_def"})
HUGE_FILE_BYTES = 32 * 1024 * 1024
_PRIMITIVE_LIBRARIES = ("thrust/", "cub/", "hipcub/", "rocprim/")  # headers of libraries built on rocPRIM


class Edit(NamedTuple):
    """Replace source[start:end] by text (a tuple: hundreds of thousands are made per megabyte)."""

    start: int
    end: int
    text: bytes


def translate(source: bytes, options: TranslateOptions | None = None, api_map: ApiMap | None = None) -> TranslationResult:
    options = options or TranslateOptions()
    joined, launches = join_spaced_launches(source)
    joined, linkage = space_linkage_specs(joined)
    api_map = api_map or load_api_map()
    macros = options.pasted_macros if options.pasted_macros is not None else find_pasted_macros([joined])
    joined, unpasted = unpaste(joined, macros, lambda name: name in api_map.apis)
    result = _Translation(joined, options, api_map).run()
    if launches or unpasted or linkage:
        result.conversions.extend(Conversion("launch", "<< < ... >> >", "<<< ... >>>", line) for line in launches)
        result.conversions.extend(Conversion("syntax", 'extern "C"__global__', 'extern "C" __global__', line)
                                  for line in linkage)
        result.conversions.extend(Conversion("macro-paste", "prefix##name", "whole name", line) for line in unpasted)
        result.conversions.sort(key=lambda c: c.line)
    return result


# an unported enumerator's case label: `case NAME:` and where its statements may end (the next label or the switch's end)
_CASE_BEFORE = re.compile(rb"\bcase[ \t]+$")
# status and error enumerators of the CUDA libraries: values an API returns, so comparing a result with one HIP
# lacks has a fixed answer
_STATUS_ENUMERATOR = re.compile(r"^(?:cudaError\w+|CUDA_ERROR_\w+|CU\w+_STATUS_\w+|CUFFT_\w*(?:ERROR|LICENSE)\w*|"
                                r"CURAND_STATUS_\w+|NVRTC_ERROR_\w+|NVJPEG_STATUS_\w+)$")
# `texture<T, dim, mode> name` followed by `;`, `,`, `=` or constructor arguments
_TEXTURE_DECLARATION = re.compile(rb"\s*<[^;{}()]*>\s*[A-Za-z_]\w*\s*[;,=(]")
# the name a typedef or an alias declaration introduces (no braces or parentheses: not a struct body, not a function
# pointer), on the text with comments and literals blanked
_ALIAS_DECLARATOR = re.compile(rb"\btypedef\b[^;{}()#]*?\b([A-Za-z_]\w*)[ \t]*;|\busing[ \t]+([A-Za-z_]\w*)[ \t]*=")
_STORAGE_BEFORE = re.compile(rb"\b(?:static|extern)\s+$")
_TRANSPARENT_SCOPE = re.compile(rb"(?:\bnamespace(?:\s+[\w:]+)?|\bextern\s*\"[^\"]*\")\s*$")


# what makes a .cu file need the runtime nvcc includes into it: a launch, a kernel, a CUDA runtime name
_GPU_CODE = re.compile(rb"<<<|\b(?:__global__|__device__|__shared__|__constant__|dim3|cuda[A-Z]\w*)\b")
# an include that brings the runtime, or may (a project header): then nothing is added
_RUNTIME_BRINGER = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"|<(?:cuda|hip/|cooperative_groups|curand_kernel|'
                              rb'thrust/|cub/|mma\.h|cuda_fp16|cuda_bf16))', re.M)


def _needs_implicit_runtime(source: bytes) -> bool:
    return _RUNTIME_BRINGER.search(source) is None and _GPU_CODE.search(source) is not None


# a device printf and an argument that is a thread coordinate alone (_printf_coordinates)
_PRINTF_CALL = re.compile(rb"(?<![\w.])printf\s*\(")
_COORDINATE_ARGUMENT = re.compile(rb"\s*((?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz])\s*")


def _at_file_scope(code: bytes, offset: int) -> bool:
    """Whether every brace open at `offset` is a namespace's or an `extern "C"` block's."""
    opened: list[bool] = []  # per open brace: transparent scope
    for m in re.finditer(rb"[{}]", code[:offset]):
        if m.group() == b"{":
            opened.append(bool(_TRANSPARENT_SCOPE.search(code, max(0, m.start() - 128), m.start())))
        elif opened:
            opened.pop()
    return all(opened)


_EQUALITY_BEFORE = re.compile(rb"[!=]=\s*\(?\s*$")
_EQUALITY_AFTER = re.compile(rb"\s*\)?\s*[!=]=(?!=)")
_LABEL_END = re.compile(rb"[ \t]*:(?!:)")
_LABEL_FOLLOWS = re.compile(rb"\s*(?:case\b|default\s*:)")
_NEXT_LABEL = re.compile(rb"\bcase\b|\bdefault\s*:|\}")
_JUMP_BEFORE = re.compile(rb"(?:^|[;{}:])\s*(?:return\b[^;{}]*|break|continue|goto\s+\w+|throw\b[^;{}]*);$")


# nvcc reads `k << <g, b >> > (args)` (a formatter's spacing) as a launch; clang's chevrons are single tokens
_SPACED_OPENER = re.compile(rb"<[ \t]*<[ \t]*<(?!<)")
_SPACED_CLOSER = re.compile(rb">[ \t]*>[ \t]*>(?=\s*\()")
_LAUNCH_CONFIG_END = re.compile(rb"[;{}]|>[ \t]*>[ \t]*>")


def join_spaced_launches(source: bytes) -> tuple[bytes, list[int]]:
    """`<< <` ... `>> >` (spaces between the chevrons) joined into `<<<` ... `>>>`; with the lines changed.

    Only where the spaced opener follows a kernel's name or template arguments and its closer comes before the next
    `;`, `{` or `}` and is followed by the argument list; `operator<< <T>` (explicit template arguments of an
    operator) and text in comments and literals stay."""
    if not re.search(rb"<[ \t]+<", source):  # cheap test first: nearly every file has none
        return source, []
    layout = Layout(source)
    lines = LineIndex(source)
    edits: list[tuple[int, int, bytes]] = []
    for m in _SPACED_OPENER.finditer(source):
        if m.group() == b"<<<" or layout.in_comment_or_literal(m.start()):
            continue
        before = source[max(0, m.start() - 256) : m.start()].rstrip()  # the kernel's name or `operator` ends it
        if not before or not (before[-1:].isalnum() or before[-1:] in b"_>") or re.search(rb"\boperator$", before):
            continue
        end = _LAUNCH_CONFIG_END.search(source, m.end())
        if end is None or not _SPACED_CLOSER.match(source, end.start()):
            continue
        edits += [(m.start(), m.end(), b"<<<"), (end.start(), end.end(), b">>>")]
    if not edits:
        return source, []
    return splice(source, edits), [lines.line(start) for start, _, text in edits if text == b"<<<"]


# `extern "C"__global__`: nvcc reads the qualifier after the linkage string; clang lexes `"C"__global__` as one
# user-defined literal ("string literal with user-defined suffix cannot be used here")
_GLUED_LINKAGE = re.compile(rb'\bextern[ \t]*"C(?:\+\+)?"(?=[A-Za-z_])')


def space_linkage_specs(source: bytes) -> tuple[bytes, list[int]]:
    """A space after each `extern "C"` glued to the next word; with the lines changed."""
    found = list(_GLUED_LINKAGE.finditer(source))
    if not found:
        return source, []
    layout, lines = Layout(source), LineIndex(source)
    found = [m for m in found if not layout.in_comment_or_literal(m.start())]
    if not found:
        return source, []
    return splice(source, [(m.end(), m.end(), b" ") for m in found]), [lines.line(m.start()) for m in found]


# a name right after one of these is neither a member (`.x`, `->x`) nor a #define's name (which follows a space)
_ORDINARY_BEFORE_NAME = frozenset({b"(", b",", b"[", b"=", b"!", b"&", b"*", b"<", b"{", b";", b"+", b"-", b"|", b"~", b"?"})
_ORDINARY_OR_SPACE = _ORDINARY_BEFORE_NAME | {b" ", b"\t", b"\n", b"\r"}
_MEMBER_ENDS = frozenset({b".", b">"})  # the token before may be `.` or `->`
_MAY_END_QUALIFIER = frozenset({b":", b" ", b"\t", b"\n", b"\r"})  # the byte before `a::name`'s name
_BLANKS = frozenset({b" ", b"\t", b"\n", b"\r", b"\\", b"\f", b"\v"})


def _crlf_cut(source: bytes, end: int) -> bool:
    return end > 0 and source[end - 1 : end + 1] == b"\r\n"


def _scan():
    """The scan stage, which owns the hazard fixes. It imports this stage's types, so it is imported on first use."""
    from porter import scan

    return scan


@functools.cache
def _cg_member_pattern(names: tuple[str, ...]) -> re.Pattern[bytes]:
    return re.compile(rb"(?:\.|->)\s*(" + "|".join(names).encode() + rb")\s*\(")


_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGIT_BYTES = frozenset(b"0123456789")


@functools.lru_cache(maxsize=256)
def _prefix_pattern(prefixes: frozenset[bytes]) -> re.Pattern[bytes]:
    """The rest of a word from any of `prefixes` on (each match runs to the word's end)."""
    return re.compile(first_char_alternation(sorted(p.decode("ascii") for p in prefixes)).encode() + rb"[A-Za-z0-9_]*")


def _after_digits_only(code: bytes, start: int) -> bool:
    """Whether the word characters right before `start` are all digits (then IDENTIFIER starts a token there)."""
    i = start - 1
    while i >= 0 and code[i] in _DIGIT_BYTES:
        i -= 1
    return i < 0 or code[i] not in _WORD_BYTES


class OutputFacts:
    """What the translation knows about its output that the hazard scan can reuse: the layout, mapped from the
    source's through the edits, and a superset of the identifiers in it that the API map knows (the source's
    candidates and the words the edits brought in), and whether the translator's parse met errors (the scan then
    parses the whole file rather than pieces it would parse with errors too). Worked out on first use: --check
    and --diff never ask."""

    def __init__(self, output: bytes, layout: Layout | None, edits: list[Edit], names: frozenset[str],
                 parse_errors: bool = False) -> None:
        self._output, self._layout, self._edits, self._names = output, layout, edits, names
        self.parse_errors = parse_errors  # tree-sitter could not parse what the translator parsed of the file

    @functools.cached_property
    def layout(self) -> syntax.MappedLayout | None:
        return syntax.map_layout(self._layout, self._edits, self._output) if self._layout is not None else None

    @functools.cached_property
    def known_names(self) -> frozenset[str]:
        inserted = {word.decode("ascii") for text in {e.text for e in self._edits} for word in IDENTIFIER.findall(text)}
        return self._names | inserted


class _Translation:
    def __init__(self, source: bytes, options: TranslateOptions, api_map: ApiMap) -> None:
        self.source = source
        self.options = options
        self.map = api_map
        self.edits: list[Edit] = []
        self.result = TranslationResult(output=source)
        self.tree: tree_sitter.Tree | None = None
        # the byte ranges self.tree covers (sorted): there the tree decides, elsewhere the tokens
        self._parsed_starts: list[int] = []
        self._parsed_ends: list[int] = []
        self._defined: set[str] | None = None  # names this file defines, collected on first need
        self._aliases: dict[str, str] | None = None  # namespace cg = cooperative_groups;
        self._reported: set[tuple[str, int]] = set()
        self._user_defined_cache: dict[str, bool] = {}
        self._names: set[str] = set()  # the distinct candidate names
        self._shaped: set[str] = set()  # candidate names with call shapes
        self._claimed: set[int] = set()  # identifier offsets a rewrite already renamed
        self._keep = self._claimed  # also the CUDA-only spots left as written (dynamic parallelism)
        self._types_defined: frozenset[str] | None = None  # the types the file defines itself (_user_type)

    @functools.cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.source)  # only files with something to report pay for the line index

    @functools.cached_property
    def layout(self) -> Layout:
        return Layout(self.source)

    # -- driver -------------------------------------------------------------------------------------------
    def run(self) -> TranslationResult:
        candidates = self._candidates()
        self._collapsing = collapsing_types(self.map, self._names) if candidates else frozenset()
        self._shaped = (call_shapes().keys() | struct_orders().keys()) & self._names
        wants_launch = self.options.launch_syntax is LaunchSyntax.HIP and b"<<<" in self.source
        wants_fixes = self.options.hazard_fixes and _scan().may_need_fix(self.source)
        cg_calls = self._cg_member_offsets()
        wants_vector_ops = may_define_vector_operators(self.source)
        wants_device_props = b"cudaDeviceProp" in self.source
        self._implicit_runtime = self.options.nvcc_source and _needs_implicit_runtime(self.source)
        wants_printf = (b"printf" in self.source and (b"Idx" in self.source or b"Dim" in self.source)
                        and self._coordinates_are_structs())
        if not (candidates or wants_launch or wants_fixes or wants_vector_ops or cg_calls or self._implicit_runtime
                or wants_printf
                or self._has_include_to_rewrite()
                or (b"asm" in self.source and ASM_KEYWORD.search(self.source))):
            self.result.output_facts = OutputFacts(self.source, None, [], frozenset(self._names))
            return self.result  # nothing CUDA here: skip the parse entirely (cheapest checks first)
        if len(self.source) > HUGE_FILE_BYTES:
            self.result.warnings.append(
                f"file is {len(self.source) // (1024 * 1024)} MiB: translated lexically without a syntax tree"
            )
        else:
            self._parse(candidates, wants_launch, wants_fixes, cg_calls)
        self._includes()
        self._dynamic_parallelism()
        if wants_launch:
            self._launches()
        if wants_fixes:
            self._hazard_fixes()
        if cg_calls:
            self._cg_member_calls(cg_calls)
        if self._shaped and self.tree is not None:
            self._call_shapes(candidates)
        if candidates and b"case" in self.source:
            self._unported_case_labels(candidates)
        if candidates and b"=" in self.source:
            self._unported_status_comparisons(candidates)
        if candidates and b"texture" in self.source and not self._image_support():
            self._texture_reference_declarations(candidates)
        if candidates and (b"typedef" in self.source or b"using" in self.source):
            self._alias_declarators(candidates)
        self._identifiers(candidates)
        if self._collapsing and self.tree is not None:
            self._collapsed_overloads()
        if wants_vector_ops:
            self._vector_operators()
        if wants_device_props:
            self._device_props()
        if wants_printf:
            self._printf_coordinates()
        self._inline_asm()  # after the renames: they apply inside the operands it moves
        self.result.output = self._apply()
        self.result.conversions.sort(key=lambda c: c.line)
        self.result.unconverted.sort(key=lambda u: (u.line, u.column))
        return self.result

    def _parse(self, candidates: list[tuple[int, int, str]], wants_launch: bool, wants_fixes: bool,
               cg_calls: list[tuple[int, str]]) -> None:
        """Parse the pieces whose meaning needs the grammar (all of the file when its braces do not balance)."""
        pieces = None if self.options.full_parse else self.layout.pieces
        if pieces is None:
            self.tree = syntax.parse(self.source)
            self._parsed_starts, self._parsed_ends = [0], [len(self.source)]
        else:
            ranges = self._ranges_to_parse(pieces, candidates, wants_launch, wants_fixes, [o for o, _ in cg_calls])
            if not ranges:
                return
            lines = self.lines
            # a range ending inside a CRLF (a directive's span stops before its \n): tree-sitter takes
            # `#include "x"\r` at the end of a range for an unterminated directive, while `#include "x"` is fine
            ranges = [(s, e - 1 if _crlf_cut(self.source, e) else e) for s, e in ranges]
            self.tree = syntax.parse_ranges(
                self.source, [(s, e, lines.point(s), lines.point(e)) for s, e in ranges]
            )
            self._parsed_starts = [s for s, _ in ranges]
            self._parsed_ends = [e for _, e in ranges]
        if self.tree.root_node.has_error:
            error_lines = syntax.error_lines(self.tree, limit=5)
            self.result.warnings.append(
                "tree-sitter could not parse part of this file (lines "
                + ", ".join(map(str, error_lines))
                + "); translated those parts lexically (best effort)"
            )

    def _ranges_to_parse(self, pieces: list, candidates: list[tuple[int, int, str]], wants_launch: bool,
                         wants_fixes: bool, cg_at: list[int]) -> list[tuple[int, int]]:
        """The byte ranges to parse: every piece that needs the tree, plus — when the hazard fixes run, since
        they evaluate constants and macros — the file's directives, scopes and declarations."""
        layout, source = self.layout, self.source
        symbol_args = self.map.symbol_args
        starts = list(map(itemgetter(0), candidates))
        symbol_starts = [c[0] for c in candidates if c[2] in symbol_args] if symbol_args.keys() & self._names else []
        if self._shaped:  # calls whose arguments change with the shape (porter/data/call_shapes.toml)
            symbol_starts = sorted(symbol_starts + [c[0] for c in candidates if c[2] in self._shaped])
        # where each reason to parse occurs, found once per file; a piece needs the tree when one falls inside it
        member_at = layout.member_contexts() if candidates else []
        launch_at = [m.start() for m in re.finditer(rb"<<<", source)] if wants_launch else []
        asm_at = [m.start() for m in ASM_KEYWORD.finditer(source)] if b"asm" in source else []
        fix_at = _scan().fix_trigger_offsets(source) if wants_fixes else []
        collapse_at = [c[0] for c in candidates if c[2] in self._collapsing] if self._collapsing else []
        if any(self.map.apis[n].hip in HIP_TYPEDEFS for n in self._collapsing):
            # f(CUdeviceptr) collides with f(void*): the definitions taking the plain type are needed too
            collapse_at = sorted(collapse_at + [m.start() for m in re.finditer(rb"\bvoid\s*\*", source)])

        def inside(offsets: list[int], s: int, e: int) -> bool:
            i = bisect.bisect_left(offsets, s)
            return i < len(offsets) and offsets[i] < e

        needed: list[tuple[int, int]] = []
        any_needed = False
        for piece in pieces:
            s, e = piece.start, piece.end
            wanted = ((inside(member_at, s, e) and inside(starts, s, e)) or inside(symbol_starts, s, e)
                      or inside(launch_at, s, e) or inside(fix_at, s, e) or inside(collapse_at, s, e)
                      or inside(cg_at, s, e) or inside(asm_at, s, e))
            any_needed = any_needed or wanted
            if wanted or piece.kind in (PieceKind.DIRECTIVE, PieceKind.SCOPE, PieceKind.DECLARATION):
                needed.append((s, e))  # the frame around parsed pieces is cheap, and what constants come from
            elif wants_fixes and piece.kind is PieceKind.DATA and not inside(member_at, s, e):
                needed.append((s, e))  # enums and initializers: constants the fixes may evaluate
        if not any_needed:
            return []
        merged: list[tuple[int, int]] = []
        for s, e in needed:
            if merged and merged[-1][1] == s:
                merged[-1] = (merged[-1][0], e)
            else:
                merged.append((s, e))
        return merged

    def _parsed(self, offset: int) -> bool:
        """Whether the tree covers `offset` (there the tree decides)."""
        return in_spans(self._parsed_starts, self._parsed_ends, offset)

    @property
    def _parsed_whole(self) -> bool:
        return self._parsed_starts == [0] and self._parsed_ends == [len(self.source)]

    def _has_include_to_rewrite(self) -> bool:
        """An #include of a CUDA header (or of a renamed file): decided on the text, before any parse."""
        if INCLUDE_HINT.search(self.source) is None:
            return False
        renamed = {old.rsplit("/", 1)[-1] for old, _ in self.options.renamed}
        for m in INCLUDE_PATH.finditer(self.source):
            path = m.group(1)[1:-1].decode("utf-8", "replace")
            if self.map.header(path) is not None or self._looks_like_cuda_header(path) or path.rsplit("/", 1)[-1] in renamed:
                return True
        return False

    def _candidates(self) -> list[tuple[int, int, str]]:
        """(start, end, name) of every identifier that the map knows or that looks like CUDA.

        The distinct identifiers of a file are few: filter those at C speed, then locate only the hits — in the
        text with comments and literals blanked, so those never become candidates.
        """
        known = self.map.byte_keys
        only = self.map.cuda_only_bytes_re
        hits = {i for i in set(IDENTIFIER.findall(self.source))
                if i in known or CUDA_LOOKING_BYTES.match(i) or (only is not None and only.fullmatch(i))}
        if not hits:
            return []
        names = {h: h.decode("ascii") for h in hits}
        self._names = set(names.values())
        code = self.layout.code
        # The words that start like a hit (its first two characters: a handful of prefixes, cuda/cu/__...), found
        # at C speed and kept when they are a hit and a token of their own. Which token counts matches what this
        # did before: a hit right after digits (`9cudaFoo`) was a token to IDENTIFIER, which decided in files with
        # many hits for their size, and not to the `\b`-bounded regex of the names used in the others.
        after_digits = len(hits) * 2000 >= len(code)
        out = []
        for m in _prefix_pattern(frozenset(h[:2] for h in hits)).finditer(code):
            word = m.group()
            if word not in names:
                continue
            start = m.start()
            if start and code[start - 1] in _WORD_BYTES and not (after_digits and _after_digits_only(code, start)):
                continue  # the end of a longer word
            out.append((start, m.end(), names[word]))
        return out

    # -- context ------------------------------------------------------------------------------------------
    def _is_user_defined(self, name: str) -> bool:
        """Names the project defines itself (macros, functions, types) are the user's, not CUDA's."""
        known = self._user_defined_cache.get(name)
        if known is None:
            known = self._user_defined_cache[name] = self._find_user_definition(name)
        return known

    def _find_user_definition(self, name: str) -> bool:
        if name in self.options.user_symbols:
            return True
        if name in self.layout.defined_macros:
            return True  # the common case (CUDA_CHECK-style macros), found without a tree query
        if self._defined is None:
            self._defined = set()
            if len(self.source) <= HUGE_FILE_BYTES:
                # definitions can be anywhere in the file: this query needs all of it parsed
                whole = self.tree if self._parsed_whole else None
                root = (whole or syntax.parse(self.source)).root_node
                for _, nodes in syntax.matches(syntax.load_query("definitions"), root):
                    self._defined.update(n.text.decode("utf-8", "replace") for n in nodes.get("name", []))
        return name in self._defined

    # Is the identifier at [start, end) code (not a comment, literal, member or macro name)? The tree decides inside
    # the parsed pieces, the tokens elsewhere; _identifiers unrolls the common cases of the token test.
    def _is_code_by_tree(self, start: int, end: int) -> bool:
        if self.layout.in_include_path(start):
            return False  # tree-sitter can misread an indented `#  include <x.h>` inside #if as a template
        node = self.tree.root_node.descendant_for_byte_range(start, end)
        if node is None:
            return True
        kind = node.type
        if kind in SKIP_NODE_TYPES:
            return False
        if kind in RENAMABLE_NODE_TYPES:
            if not self._may_follow_define(start):
                return True  # not a #define's name: skip node.parent, which tree-sitter finds by walking from the root
            parent = node.parent
            return not (parent is not None and parent.type in DEFINITION_PARENTS and parent.child_by_field_name("name") == node)
        if kind in ("preproc_arg", "ERROR") or node.is_error or node.has_error:
            return self._is_code_by_tokens(start, end)  # macro bodies and what tree-sitter could not parse
        # a keyword-like token the grammar knows (e.g. __grid_constant__): leave it
        return kind == "identifier"

    def _may_follow_define(self, start: int) -> bool:
        """Whether the tokens before `start` end with `define` (then the name may be a #define's: the grammar's
        `#define` needs no line start, so the lexer's directive lines do not decide it). Comments are blanked in
        the layout's code; whitespace and line continuations may sit between `define` and the name."""
        code = self.layout.code
        if code[start - 1 : start] not in _BLANKS:
            return False  # the common case: a name right after `(`, `,`, `.`... (a #define's name follows a blank)
        low = max(0, start - 128)
        before = code[low:start].rstrip(b" \t\r\n\\\f\v")
        return before.endswith(b"define") or (not before and low > 0)  # only blanks in the window: cannot tell

    def _is_code_by_tokens(self, start: int, end: int) -> bool:
        layout = self.layout
        # (candidates come from the text with comments and literals blanked: only an include's <path> is left)
        return not (layout.is_member(start) or layout.is_define_name(start) or layout.in_include_path(start)
                    # the grammar's keywords (`__grid_constant__`) are not API uses; in a directive they are names
                    or (self.source[start:end] in syntax.keywords() and not layout.in_directive(start)))

    # -- identifiers --------------------------------------------------------------------------------------
    def _identifiers(self, candidates: list[tuple[int, int, str]]) -> None:
        simple: dict[str, tuple[bytes, str, str] | None] = {}  # per name: a plain rename needing no more checks
        unmapped_names: dict[str, bool] = {}  # per name without an entry: whether its uses are reported
        edits, conversions = self.edits, self.result.conversions
        count, line, line_at = self.source.count, 1, 0  # line number of offset line_at
        parsed_starts, parsed_ends = self._parsed_starts, self._parsed_ends
        keyword_names = {n for n in self._names if n.encode() in syntax.keywords()}
        layout = self.layout
        code, in_include_path, define_names = layout.code, layout.in_include_path, layout.define_name_offsets
        claimed = self._claimed
        for start, end, name in candidates:
            if claimed and start in claimed:
                continue
            # _is_code and the `::` test, unrolled for the common cases (one byte or one short strip decides)
            before = code[start - 1 : start]
            if parsed_starts and (i := bisect.bisect_right(parsed_starts, start) - 1) >= 0 and start < parsed_ends[i]:
                if not self._is_code_by_tree(start, end):
                    continue
                maybe_qualified = before in _MAY_END_QUALIFIER
            elif name in keyword_names or before not in _ORDINARY_OR_SPACE:
                if not self._is_code_by_tokens(start, end):
                    continue
                maybe_qualified = before in _MAY_END_QUALIFIER
            elif before in _ORDINARY_BEFORE_NAME:
                if in_include_path(start):
                    continue
                maybe_qualified = False
            else:  # whitespace before: look at the token before it
                stripped = code[start - 24 if start > 24 else 0 : start].rstrip()
                if not stripped or stripped[-1:] in _MEMBER_ENDS or start in define_names:
                    if not self._is_code_by_tokens(start, end):
                        continue
                elif in_include_path(start):
                    continue
                maybe_qualified = not stripped or stripped.endswith(b"::")
            if maybe_qualified and self._qualified(start, end, name):
                continue
            plan = simple.get(name, False)
            if plan is False:
                plan = simple[name] = self._plain_rename(name)
            if plan is not None:
                if plan[0]:
                    edits.append(Edit(start, end, plan[0]))
                    line += count(b"\n", line_at, start)  # lines.line(start), inline: the loop's hottest call
                    line_at = start
                    conversions.append(Conversion(plan[1], name, plan[2], line))
                continue
            entry = self.map.apis.get(name)
            if entry is None:
                namespace = self.map.namespaces.get(name)
                if namespace is not None and self._is_namespace_use(start, end):
                    entry = namespace
            if entry is not None and name in self.map.ocp_fp8 and self._fp8_format() != "fnuz":
                entry = self.map.ocp_fp8[name]
            if (name in self.map.no_image or name in self.map.no_image_agent) and not self._image_support():
                if name == "texture" and not re.match(rb"\s*<", self.source[end : end + 64]):
                    continue  # a variable or member named `texture`, not CUDA's texture<T, dim, mode> template
                if name in self.map.no_image_agent:
                    what = self.map.no_image_agent[name]
                    self._unconverted(name, start, Reason.NEEDS_AGENT, "texture",
                                      f"{what} on {self.options.target}: this GPU has no image support (HIP marks "
                                      f"the texture API unavailable there) and porter's texture shim does not "
                                      f"cover {what}; read the data from ordinary memory instead (recipe: "
                                      f"prompts/textures_no_image.md.j2)")
                    continue
                entry = self.map.no_image[name]
            if entry is None:
                unmapped = unmapped_names.get(name)
                if unmapped is None:  # decided by the name alone: once per name (CUDA_CHECK comes up on every line)
                    unmapped = unmapped_names[name] = bool(
                        (CUDA_LOOKING.match(name) or self.map.cuda_only(name)) and not self._is_user_defined(name))
                if unmapped:
                    self._unconverted(name, start, Reason.NOT_MAPPED, "", "porter has no mapping for this identifier")
                continue
            if entry.unsupported is not None:
                self._unconverted(name, start, Reason.NO_HIP_EQUIVALENT, entry.family, entry.unsupported)
                continue
            assert entry.hip is not None
            if not entry.available_in(self.options.rocm) and not shim_covers(entry.hip, self.options.rocm):
                self._unconverted(
                    name, start, Reason.NEWER_ROCM, entry.family,
                    f"{entry.hip} first appears in ROCm {entry.since}; targeting ROCm {self.options.rocm} needs a shim",
                )
            if name in self.map.defined_only and not self._is_defined_test(start, end):
                self._unconverted(name, start, Reason.NEEDS_AGENT, entry.family, self.map.defined_only[name])
                if (stand_in := self.map.value_stand_ins.get(name)) is not None:
                    self.edits.append(Edit(start, end, stand_in.encode()))
                    self.result.conversions.append(Conversion(entry.family, name, stand_in, self.lines.line(start)))
                continue
            if entry.hip != name:
                self.edits.append(Edit(start, end, entry.hip.encode()))
                self.result.conversions.append(Conversion(entry.family, name, entry.hip, self.lines.line(start)))
            if name in self.map.symbol_args:
                self._wrap_symbol_argument(start, end, self.map.symbol_args[name])

    def _plain_rename(self, name: str) -> tuple[bytes, str, str] | None:
        """(new bytes or b"" when unchanged, family, hip) for a name whose every code use is renamed the same way
        with nothing to report; None when uses need the checks in _identifiers."""
        entry = self.map.apis.get(name)
        if entry is not None and entry.kind == "type" and entry.hip and entry.hip != name and self._user_type(name):
            self.result.warnings.append(f"{name} is the project's own type here (it defines it), not CUDA's: kept, "
                                        f"not renamed to {entry.hip}")
            return (b"", entry.family, name)
        if (entry is None or not entry.hip or entry.unsupported is not None or name in self.map.ocp_fp8
                or name in self.map.no_image or name in self.map.no_image_agent
                or name in self.map.defined_only or name in self.map.symbol_args
                or not entry.available_in(self.options.rocm)):
            return None
        return (entry.hip.encode() if entry.hip != name else b"", entry.family, entry.hip)

    def _user_type(self, name: str) -> bool:
        """The project defines a type of this CUDA name itself (CUDA by Example's `struct cuComplex {...}` for its
        Julia set): in this file, or in a header of the tree."""
        if name in self.options.user_types:
            return True
        if self._types_defined is None:
            self._types_defined = defined_types(self.source)  # once per file: most files name no such type
        return name in self._types_defined

    def _qualified(self, start: int, end: int, name: str) -> bool:
        """`cg::reduce`, `thrust::cuda::par`: entries keyed by a qualified name (namespace aliases resolved).

        Returns True when the qualified entry settled this identifier. The namespace itself (cub::) is renamed by
        its own entry, so a qualified entry only reports what HIP lacks or renames a nested namespace."""
        if not self.source[max(0, start - 8) : start].rstrip().endswith(b"::"):
            return False  # the common case, decided without a regex
        m = QUALIFIER.search(self.source, max(0, start - 160), start)
        if m is None:
            return False
        head, _, rest = m.group(1).decode("ascii").partition("::")
        scope = "::".join(filter(None, (self._namespace_aliases().get(head, head), rest.rstrip(":").rstrip())))
        scope = re.sub(r"\s+", "", scope)
        full = f"{scope}::{name}"
        entry = self.map.apis.get(full) or self.map.namespaces.get(full)
        if entry is None:
            return False
        if entry.unsupported is not None:
            member = re.match(rb"\s*::\s*(\w+)", self.source[end : end + 80]) if entry.kind == "namespace" else None
            inner = self.map.apis.get(f"{full}::{member.group(1).decode()}") if member else None
            if inner is None or inner.unsupported is not None:  # `cuda::std::atomic`: a shim provides that part
                self._unconverted(full, start, Reason.NO_HIP_EQUIVALENT, entry.family, entry.unsupported)
            return True
        new = (entry.hip or name).rsplit("::", 1)[-1]
        if new != name:
            self.edits.append(Edit(start, end, new.encode()))
            self.result.conversions.append(Conversion(entry.family, full, entry.hip or new, self.lines.line(start)))
        return name not in self.map.apis and name not in self.map.namespaces

    def _namespace_aliases(self) -> dict[str, str]:
        if self._aliases is None:
            self._aliases = {a.decode(): re.sub(r"\s+", "", t.decode()).lstrip(":")
                             for a, t in NAMESPACE_ALIAS.findall(self.source)}
        return self._aliases

    def _fp8_format(self) -> str:
        from porter.targets import resolve_target

        return resolve_target(self.options.target).fp8_format

    def _image_support(self) -> bool:
        from porter.targets import resolve_target

        return resolve_target(self.options.target).image_support

    def _is_defined_test(self, start: int, end: int) -> bool:
        """`#ifdef X`, `#ifndef X`, `defined(X)`: only whether X is defined matters."""
        return self.layout.is_defined_test(start)

    def _is_namespace_use(self, start: int, end: int) -> bool:
        """`cub::X`, `namespace cub = ...`, `using namespace cub;` — not a variable that happens to be called cub."""
        rest = self.source[end : end + 64].lstrip()
        if rest.startswith(b"::"):
            return True
        before = self.source[max(0, start - 32) : start].rstrip()
        return before.endswith(b"namespace") or (before.endswith(b"=") and b"namespace" in self.source[start - 64 : start])

    def _wrap_symbol_argument(self, start: int, end: int, index: int) -> None:
        """cudaMemcpyToSymbol(sym, ...) -> hipMemcpyToSymbol(HIP_SYMBOL(sym), ...)."""
        if self.tree is None or not self._parsed(start):
            return  # a macro body, or a file too big to parse
        node = self.tree.root_node.descendant_for_byte_range(start, end)
        call = node.parent if node is not None else None
        while call is not None and call.type == "qualified_identifier":
            call = call.parent
        if call is None or call.type != "call_expression":
            return
        args = call.child_by_field_name("arguments")
        if args is None or len(args.named_children) <= index:
            return
        arg = args.named_children[index]
        if arg.text.startswith(b"HIP_SYMBOL"):
            return
        if arg.type == "string_literal":
            self._string_symbol(arg.start_byte, arg.end_byte, arg.text)
            return
        self.edits.append(Edit(arg.start_byte, arg.start_byte, b"HIP_SYMBOL("))
        self.edits.append(Edit(arg.end_byte, arg.end_byte, b")"))
        self.result.conversions.append(Conversion("symbol", arg.text.decode("utf-8", "replace"), "HIP_SYMBOL", self.lines.line(start)))

    def _string_symbol(self, start: int, end: int, text: bytes) -> None:
        """cudaMemcpyToSymbol("c_table", ...): CUDA before 5.0 took the variable's name as a string; HIP (and CUDA
        since 5.0) take the variable. The name of a `__constant__`/`__device__` variable of this file becomes
        HIP_SYMBOL(name); any other string is reported (HIP_SYMBOL("x") compiles and fails at run time)."""
        name = text[1:-1]
        declared = re.compile(rb"\b__(?:constant|device)__\b[^;{}()]*\b" + re.escape(name) + rb"\s*[\[;=]")
        if re.fullmatch(rb"[A-Za-z_]\w*", name) and declared.search(self.layout.code):
            self.edits.append(Edit(start, end, b"HIP_SYMBOL(" + name + b")"))
            self.result.conversions.append(Conversion("symbol", text.decode("utf-8", "replace"),
                                                      f"HIP_SYMBOL({name.decode()})", self.lines.line(start)))
            return
        self._unconverted(text.decode("utf-8", "replace"), start, Reason.NEEDS_AGENT, "runtime",
                          "a device symbol named by a string (removed in CUDA 5.0): pass the __constant__/__device__ "
                          "variable itself; HIP_SYMBOL of a string compiles and fails at run time")

    def _alias_declarators(self, candidates: list[tuple[int, int, str]]) -> None:
        """`typedef hipArray cudaArray;`, `using cudaStream_t = hipStream_t;`: a project's own compatibility layer
        declares the CUDA name. It stays declared as written (its uses are translated all the same): renamed, it
        would redefine HIP's type or porter's shim type (`typedef hipArray porter_tex_array;`) as another one."""
        starts = {s for s, _, _ in candidates}
        for m in _ALIAS_DECLARATOR.finditer(self.layout.code):
            start = m.start(1) if m.group(1) is not None else m.start(2)
            if start in starts:
                self._claimed.add(start)

    def _unported_case_labels(self, candidates: list[tuple[int, int, str]]) -> None:
        """`case CUFFT_LICENSE_ERROR: return "...";`: an enumerator HIP lacks cannot occur in HIP's enum, so its case
        can never be taken; the label and its statements (up to the next label) go under `#if 0`. Only where nothing
        falls into it: the case starts the switch or follows a jump (return, break, continue, goto, throw); a label
        stacked on another (`case A: case X:`) loses only itself. Helper headers' error-string switches need this."""
        source, code, layout = self.source, self.layout.code, self.layout
        for start, end, name in candidates:
            entry = self.map.apis.get(name)
            if entry is None or entry.hip is not None or entry.kind not in ("enum", "enumerator", "constant"):
                continue
            label = _CASE_BEFORE.search(code, max(0, start - 32), start)
            after = _LABEL_END.match(code, end)
            if label is None or after is None or layout.in_directive(start):
                continue
            before = code[max(0, label.start() - 4096) : label.start()].rstrip()
            follows = _LABEL_FOLLOWS.match(code, after.end())
            if before.endswith(b":") and not before.endswith(b"::"):
                stop = after.end()  # stacked label: the statements belong to the label before it too
            elif before.endswith(b"{") or _JUMP_BEFORE.search(before):
                nxt = _NEXT_LABEL.search(code, after.end())
                if nxt is None or b"{" in code[after.end() : nxt.start()]:
                    continue  # a block in the case: leave it to the compiler and the agent
                stop = nxt.start()
            else:
                continue
            if follows is not None and stop != after.end():
                stop = after.end()
            line_start = source.rfind(b"\n", 0, label.start()) + 1
            opener = b"#if 0  // porter: " + name.encode() + b" has no HIP equivalent, so this case cannot occur\n"
            at = line_start if not source[line_start : label.start()].strip() else label.start()
            self.edits.append(Edit(at, at, opener if at == line_start else b"\n" + opener))
            stop_line = source.rfind(b"\n", 0, stop) + 1
            if source[stop_line:stop].strip():
                self.edits.append(Edit(stop, stop, b"\n#endif\n"))
            else:
                self.edits.append(Edit(stop_line, stop_line, b"#endif\n"))
            self._claimed.add(start)
            self.result.conversions.append(Conversion("case-label", f"case {name}:", "#if 0", self.lines.line(start)))

    def _unported_status_comparisons(self, candidates: list[tuple[int, int, str]]) -> None:
        """`if (status == CUFFT_LICENSE_ERROR)`: no HIP call returns a status HIP does not define, so the comparison
        is false (`!=`: true) whatever the result. The enumerator becomes `porter_unported_status`
        (porter_unported_status.h), which compares so; the other operand is still evaluated. Only status and error
        enumerators (what APIs return), only as an operand of `==`/`!=`; any other use stays reported."""
        code, layout = self.layout.code, self.layout
        for start, end, name in candidates:
            if start in self._claimed or not _STATUS_ENUMERATOR.match(name):
                continue
            entry = self.map.apis.get(name)
            if entry is None or entry.hip is not None or entry.kind not in ("enum", "enumerator", "constant"):
                continue
            if layout.in_directive(start) or not (_EQUALITY_BEFORE.search(code, max(0, start - 16), start)
                                                   or _EQUALITY_AFTER.match(code, end)):
                continue
            self.edits.append(Edit(start, end, b"porter_unported_status"))
            self._claimed.add(start)
            self.result.conversions.append(Conversion("unported-status", name, "porter_unported_status",
                                                      self.lines.line(start)))

    def _texture_reference_declarations(self, candidates: list[tuple[int, int, str]]) -> None:
        """`texture<float, 1, cudaReadModeElementType> tex;` at file scope, for a target without image support:
        `static __device__ porter_tex_ref<float, 1, hipReadModeElementType> tex;` (porter_texture.h). The reference
        lives on the device, so kernels read it under its own name; a bind copies the host's fields there. Other
        uses (a parameter `texture<float>& t`) only change the type's name."""
        code = self.layout.code
        for start, end, name in candidates:
            if name != "texture" or start in self._claimed or self.layout.in_directive(start):
                continue
            if not _TEXTURE_DECLARATION.match(code, end) or not _at_file_scope(code, start):
                continue
            before = code[max(0, start - 32) : start]
            prefix = b"__device__ " if _STORAGE_BEFORE.search(before) else b"static __device__ "
            self.edits.append(Edit(start, end, prefix + b"porter_tex_ref"))
            self._claimed.add(start)
            self.result.conversions.append(Conversion("texture-shim", "texture<...> (texture reference)",
                                                      prefix.decode() + "porter_tex_ref<...>", self.lines.line(start)))

    def _unconverted(self, name: str, offset: int, reason: Reason, family: str, detail: str) -> None:
        if reason in (Reason.NO_HIP_EQUIVALENT, Reason.NOT_MAPPED) and (feature := self.map.cuda_only(name)):
            reason, family, detail = Reason.NO_HIP_EQUIVALENT, "cuda-only", feature.detail  # the way out, not "no HIP"
        line = self.lines.line(offset)
        if (name, line) in self._reported:
            return
        self._reported.add((name, line))
        self.result.unconverted.append(Unconverted(name, line, self.lines.column(offset), reason, family, detail))

    # -- includes -----------------------------------------------------------------------------------------
    def _includes(self) -> None:
        """`#include <cuda_runtime.h>` -> `#include <hip/hip_runtime.h>`; a directive is a line of tokens, so the
        layout finds it (not inside a comment) and the path is edited between its delimiters."""
        renamed = dict(self.options.renamed)
        layout = self.layout
        included: set[str] = set()  # HIP headers the file includes so far (after translation)
        for m in INCLUDE_PATH.finditer(self.source):
            if layout.in_comment_or_literal(m.start(1) - 1) or layout.in_comment_or_literal(m.start()):
                continue  # inside a block comment
            start, end = m.span(1)
            path = self.source[start + 1 : end - 1].decode("utf-8", "replace")
            new = renamed.get(path) or self._renamed_by_basename(path, renamed)
            if new is not None:
                self._replace_include(start, end, new, "rename", path)
                continue
            entry = self.map.header(path)
            if entry is None and self.source[start : start + 1] == b'"' and not self._is_local_header(path):
                entry = self._vendored_library_header(path)
            if entry is not None and self.source[start : start + 1] == b'"' and self._is_local_header(path):
                # `#include "cuda.h"` naming the project's own src/cuda.h (darknet's): a quoted include finds
                # the project's file first, so it is not CUDA's header
                included.add(path)
                self.result.warnings.append(f'#include "{path}" (line {self.lines.line(start)}) is kept: the '
                                            f"project has its own {Path(path).name}, which a quoted include finds "
                                            "before CUDA's")
                continue
            if entry is None:
                included.add(path)
                if self._looks_like_cuda_header(path) and not self._is_local_header(path):
                    self._unconverted(path, start, Reason.NOT_MAPPED, "header", "no HIP header known for this CUDA header")
                continue
            hip = entry.hip_for(self.options.rocm)
            if entry.unsupported is not None:
                self._unconverted(path, start, Reason.NO_HIP_EQUIVALENT, entry.family, entry.unsupported)
            elif hip and hip != path:
                if entry.needs and entry.needs not in included:
                    self._include_before(m.start(), entry.needs, path)
                    included.add(entry.needs)
                self._replace_include(start, end, hip, "header", path)
            if hip:
                included.add(hip)
        if any(p.startswith(_PRIMITIVE_LIBRARIES) for p in included):
            self._libraries_know_target()
        if self._implicit_runtime:
            self._implicit_runtime_include()

    def _vendored_library_header(self, path: str) -> HeaderEntry | None:
        """`#include "cub/cub/cub.cuh"` or `"third_party/thrust/thrust/sort.h"`: a copy of CUB or Thrust the project
        keeps as a submodule (not in the tree being ported), named by a path that ends in the library's own. The HIP
        library's header replaces it as it would the system one (rocThrust keeps Thrust's paths)."""
        parts = path.split("/")
        for i in range(len(parts) - 2, 0, -1):  # the innermost library folder: thrust/thrust/sort.h's second
            if parts[i] in ("cub", "thrust"):
                tail = "/".join(parts[i:])
                entry = self.map.header(tail)
                if entry is None and parts[i] == "thrust":
                    entry = HeaderEntry(tail, tail, "thrust")
                if entry is not None:
                    return entry
        return None

    def _coordinates_are_structs(self) -> bool:
        """ROCm 5.x: threadIdx.x and friends are structs with a conversion (clang 15 cannot pass them to a device
        printf's `...`: "cannot compile this non-scalar arg to printf yet"); ROCm 6.4's compiler converts them."""
        rocm = self.options.rocm
        return rocm is not None and rocm < RocmVersion(6, 0)

    def _printf_coordinates(self) -> None:
        """`printf("%u", threadIdx.x)` -> `printf("%u", (unsigned int)threadIdx.x)`: CUDA's type for the
        coordinate, spelled out, where an argument is a coordinate alone (in an expression it converts anyway)."""
        code = self.layout.code
        for m in _PRINTF_CALL.finditer(code):
            depth, start = 1, m.end()
            for i in range(m.end(), min(len(code), m.end() + 4096)):
                c = code[i]
                if c in (40, 91, 123):  # ( [ {
                    depth += 1
                elif c in (41, 93, 125):  # ) ] }
                    depth -= 1
                if (c == 44 and depth == 1) or depth == 0:
                    arg = _COORDINATE_ARGUMENT.fullmatch(code, start, i)
                    if arg is not None and start != m.end():
                        self.edits.append(Edit(arg.start(1), arg.start(1), b"(unsigned int)"))
                        self.result.conversions.append(Conversion(
                            "signature", arg.group(1).decode(), f"(unsigned int){arg.group(1).decode()}",
                            self.lines.line(arg.start(1))))
                    start = i + 1
                if depth == 0 or c == 59:  # the call's end, or a `;` of a call that never closed
                    break

    def _implicit_runtime_include(self) -> None:
        """nvcc's implicit `#include <cuda_runtime.h>` of a .cu file, spelled out as HIP's: hipcc includes no HIP
        runtime by itself, so a file that calls the runtime or launches a kernel with no include to bring it
        fails (`use of undeclared identifier 'hipDeviceSynchronize'`, `__hipPushCallConfiguration`)."""
        at = syntax.include_position(self.source.decode("latin-1"), "hip/hip_runtime.h")
        if at is None:
            return
        newline = b"\r\n" if b"\r\n" in self.source[:4096] else b"\n"
        before = b"" if at == 0 or self.source[at - 1 : at] == b"\n" else newline
        self.edits.append(Edit(at, at, before + b"#include <hip/hip_runtime.h>" + newline))
        self.result.conversions.append(Conversion("header", "cuda_runtime.h (nvcc's implicit include)",
                                                  "hip/hip_runtime.h", self.lines.line(at)))

    def _libraries_know_target(self) -> None:
        """hipCUB/rocThrust sit on rocPRIM, which must know the target: say so when the ROCm ported for predates it."""
        from porter.targets import resolve_target

        target = resolve_target(self.options.target)
        rocm = self.options.rocm
        if target.libraries_since and rocm is not None and rocm < RocmVersion.parse(target.libraries_since):
            self.result.warnings.append(
                f"hipCUB/rocThrust/rocPRIM code: rocPRIM in ROCm {rocm} does not know {target.arch} (its libraries "
                f"arrive with ROCm {target.libraries_since}), so this file will not compile for {target.arch} with "
                f"that ROCm; build for another target or use ROCm {target.libraries_since} or later")

    def _include_before(self, directive: int, header: str, old: str) -> None:
        """`#include <header>` on a line of its own before the directive at `directive` (same line ending)."""
        line_end = self.source.find(b"\n", directive)
        newline = b"\r\n" if line_end > 0 and self.source[line_end - 1 : line_end] == b"\r" else b"\n"
        at = self.source.rfind(b"\n", 0, directive) + 1
        self.edits.append(Edit(at, at, b"#include <" + header.encode() + b">" + newline))
        self.result.conversions.append(Conversion("header", old, f"{header} first", self.lines.line(directive)))

    @staticmethod
    def _looks_like_cuda_header(path: str) -> bool:
        base = path.rsplit("/", 1)[-1]
        return bool(CUDA_LOOKING.match(base)) or (base.startswith(("cuda", "cu", "nv")) and base.endswith((".h", ".cuh", ".hpp")))

    def _is_local_header(self, path: str) -> bool:
        """A header the project ships itself (e.g. its own cuda_utils.h) is not a CUDA header HIP lacks."""
        base = path.rsplit("/", 1)[-1]
        return base in self.options.local_headers or any(path == old or path.endswith("/" + old) for old, _ in self.options.renamed)

    @staticmethod
    def _renamed_by_basename(path: str, renamed: dict[str, str]) -> str | None:
        head, _, base = path.rpartition("/")
        new = renamed.get(base)
        if new is None:
            return None
        return f"{head}/{new.rpartition('/')[2]}" if head else new.rpartition("/")[2]

    def _replace_include(self, start: int, end: int, new: str, family: str, old: str) -> None:
        self.edits.append(Edit(start + 1, end - 1, new.encode()))
        self.result.conversions.append(Conversion(family, old, new, self.lines.line(start)))

    # -- overloads that collapse -----------------------------------------------------------------------------
    def _collapsed_overloads(self) -> None:
        """Two definitions that differ in CUDA and agree in HIP (`f(cudaError_t)`, `f(CUresult)`): keep the first,
        disable the other with #if 0 and say why (porter.translate.overloads)."""
        found = tree_sitter.QueryCursor(syntax.query("(function_definition) @f")).captures(self.tree.root_node)
        definitions = sorted(found.get("f", []), key=lambda n: n.start_byte)
        hip_type = lambda name: self.map.apis[name].hip  # noqa: E731
        for c in collapsed_overloads(definitions, self.source, self._collapsing, hip_type):
            line, kept_line = self.lines.line(c.node.start_byte), self.lines.line(c.kept_node.start_byte)
            what = (f"{c.name}{c.cuda_signature} repeats {c.kept} (line {kept_line}) in HIP, "
                    f"where both take {c.hip_signature}")
            if self._disable(c.node, f"porter: {what}; that one is kept"):
                self.result.conversions.append(
                    Conversion("overload", f"{c.name}{c.cuda_signature}", f"disabled (#if 0): same as line {kept_line}", line))
                self.result.warnings.append(f"line {line}: {what}: disabled with #if 0")
            else:
                self.result.warnings.append(f"line {line}: {what}: keep one of them (they collide when compiled)")

    def _disable(self, node: tree_sitter.Node, why: str) -> bool:
        """Wrap the lines of `node` in `#if 0` ... `#endif` when it has its lines to itself."""
        source = self.source
        begin = source.rfind(b"\n", 0, node.start_byte) + 1
        finish = source.find(b"\n", node.end_byte)
        finish = len(source) if finish < 0 else finish + 1
        if source[begin : node.start_byte].strip() or source[node.end_byte : finish].strip():
            return False
        newline = b"\r\n" if source[begin:finish].endswith(b"\r\n") else b"\n"
        self.edits.append(Edit(begin, begin, b"#if 0  // " + why.encode() + newline))
        self.edits.append(Edit(finish, finish, (b"" if source[:finish].endswith(b"\n") else newline) + b"#endif" + newline))
        return True

    # -- kernel launches ----------------------------------------------------------------------------------
    def _launches(self) -> None:
        """kernel<<<g, b, shm, s>>>(args) -> hipLaunchKernelGGL(kernel, dim3(g), dim3(b), shm, s, args)."""
        if self.tree is None:  # only a file too big to parse has launches and no tree
            self._unconverted("<<<>>>", self.source.find(b"<<<"), Reason.NEEDS_AGENT, "launch",
                              "file too big to parse: launches were left as <<<>>>")
            return
        for node in self._nodes_at(re.finditer(rb"<<<", self.source), "kernel_call_syntax"):
            if node.start_byte in self._keep:
                continue  # a launch from device code (dynamic parallelism): reported, not rewritten
            call = node.parent
            if call is None or call.type != "call_expression":
                continue
            function = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            config = node.named_children
            if function is None or args is None or not 2 <= len(config) <= 4:
                self._unconverted("<<<>>>", node.start_byte, Reason.NEEDS_AGENT, "launch", "kernel launch porter could not parse")
                continue
            name_open, name_close = (b"HIP_KERNEL_NAME(", b")") if function.type == "template_function" else (b"", b"")
            e = self.edits
            e.append(Edit(function.start_byte, function.start_byte, b"hipLaunchKernelGGL(" + name_open))
            e.append(Edit(function.end_byte, config[0].start_byte, name_close + b", dim3("))
            e.append(Edit(config[0].end_byte, config[1].start_byte, b"), dim3("))
            tail = b")"
            if len(config) == 2:
                tail += b", 0, 0"
            e.append(Edit(config[1].end_byte, config[1].end_byte, tail))
            if len(config) == 3:
                e.append(Edit(config[2].end_byte, config[2].end_byte, b", 0"))
            if args.named_children:
                e.append(Edit(config[-1].end_byte, args.start_byte + 1, b", "))
            else:  # k<<<g, b>>>( ) -> ...dim3(b), 0, 0)
                e.append(Edit(config[-1].end_byte, args.end_byte, b")"))
            kernel = function.text.decode("utf-8", "replace")
            self.result.conversions.append(Conversion("launch", f"{kernel}<<<...>>>", "hipLaunchKernelGGL", self.lines.line(call.start_byte)))

    # -- cooperative-groups members HIP lacks ---------------------------------------------------------------
    def _cg_member_offsets(self) -> list[tuple[int, str]]:
        """(offset, name) of each `.name(` / `->name(` call of a cooperative-groups member the ROCm may lack, in a
        file that uses cooperative groups (decided on the text, before any parse)."""
        if b"cooperative_groups" not in self.source or not self.map.cg_members:
            return []
        names = sorted(n for n, m in self.map.cg_members.items() if m.missing_in(self.options.rocm))
        if not names or not any(n.encode() in self.source for n in names):
            return []
        pattern = _cg_member_pattern(tuple(names))
        return [(m.start(1), m.group(1).decode()) for m in pattern.finditer(self.layout.code)]

    def _cg_member_calls(self, calls: list[tuple[int, str]]) -> None:
        """`g.name(args)` -> `porter_cg::name(g, args)` (`p->name()` -> `porter_cg::name(*p)`): the shim calls the
        group's own member where its type has one, so the rewrite is safe on any ROCm."""
        if self.tree is None:
            return
        for offset, name in calls:
            if not self._parsed(offset):
                continue  # a macro body or a file too big to parse: the build's error goes to the rule fixer
            node = self.tree.root_node.descendant_for_byte_range(offset, offset + len(name))
            member = node.parent if node is not None and node.type == "field_identifier" else None
            call = member.parent if member is not None and member.type == "field_expression" else None
            if call is None or call.type != "call_expression" or call.child_by_field_name("function") != member:
                continue
            receiver, args = member.child_by_field_name("argument"), call.child_by_field_name("arguments")
            arrow = member.child_by_field_name("operator")
            if receiver is None or args is None or arrow is None:
                continue
            count = sum(1 for c in args.named_children if c.type != "comment")
            if count != self.map.cg_members[name].args:
                continue  # another method of the same name (std::bitset::any() takes none)
            deref = b"*" if arrow.type == "->" else b""
            self.edits.append(Edit(receiver.start_byte, receiver.start_byte, b"porter_cg::" + name.encode() + b"(" + deref))
            self.edits.append(Edit(receiver.end_byte, args.start_byte + 1, b", " if count else b""))
            self.result.conversions.append(
                Conversion("cooperative_groups", f".{name}()", f"porter_cg::{name}", self.lines.line(offset)))

    # -- CUDA-only features found by structure -------------------------------------------------------------
    def _dynamic_parallelism(self) -> None:
        """`<<<>>>` launches and device-runtime calls inside __global__/__device__ (not __host__) functions: CUDA's
        dynamic parallelism, which ROCm lacks. Reported with the way out and left as they are."""
        source = self.source
        if (b"__global__" not in source and b"__device__" not in source) or not self.map.device_runtime:
            return
        # a device-runtime call is a token of the file, so its name is among the candidates' (unless unlisted)
        unlisted = self.map.device_runtime_unlisted
        runtime = [n for n in self.map.device_runtime
                   if n in self._names or (n in unlisted and n.encode() in source)]
        if b"<<<" not in source and not runtime:
            return
        feature = next((f for f in self.map.cuda_only_names.values() if f.id == "dynamic-parallelism"), None)
        if feature is None:
            return
        code = self.layout.code
        calls = re.compile(rb"(?<![\w.>:])(" + "|".join(sorted(runtime)).encode() + rb")\s*\(") if runtime else None
        for body_start, end in self._device_only_bodies():
            for m in re.finditer(rb"<<<", code[body_start:end]):
                at = body_start + m.start()  # where the launch's kernel_call_syntax node starts
                self._keep.add(at)
                self._unconverted("<<<>>>", at, Reason.NO_HIP_EQUIVALENT, "cuda-only",
                                  "a kernel launch in device code: " + feature.detail)
            if calls is not None:
                for m in calls.finditer(code, body_start, end):
                    self._keep.add(m.start(1))
                    self._unconverted(m.group(1).decode(), m.start(1), Reason.NO_HIP_EQUIVALENT, "cuda-only",
                                      "the CUDA device runtime, called from device code: " + feature.detail)

    def _device_only_bodies(self) -> Iterator[tuple[int, int]]:
        """(body start, end) of each top-level function declared __global__, or __device__ without __host__."""
        code = self.layout.code
        pieces = self.layout.pieces
        if pieces is not None:
            spans = [(p.start, p.end) for p in pieces if p.kind is PieceKind.FUNCTION]
        else:  # braces that do not pair up: ask the whole file's tree
            tree = self.tree if self._parsed_whole and self.tree is not None else syntax.parse(self.source)
            spans = [(n.start_byte, n.end_byte) for n in tree.root_node.children if n.type == "function_definition"]
        for start, end in spans:
            brace = code.find(b"{", start, end)
            if brace < 0:
                continue
            head = code[start:brace]
            if re.search(rb"\b__global__\b", head) or (re.search(rb"\b__device__\b", head)
                                                        and not re.search(rb"\b__host__\b", head)):
                yield brace, end

    # -- calls whose argument lists differ ---------------------------------------------------------------------
    def _call_shapes(self, candidates: list[tuple[int, int, str]]) -> None:
        assert self.tree is not None
        orders = struct_orders()
        for start, end, name in candidates:
            if name not in self._shaped or not self._parsed(start) or not self._is_code_by_tree(start, end):
                continue
            if name in self.map.no_image and not self._image_support():
                continue  # the texture shim takes CUDA's own signature, defaults included
            node = self.tree.root_node.descendant_for_byte_range(start, end)
            if name in orders:
                edits = struct_init_edits(node, name) if node is not None else []
                if edits:
                    self.edits.extend(Edit(*e) for e in edits)
                    self.result.conversions.append(Conversion(
                        "signature", f"{name}{{...}}", f"{orders[name].make}(...) (HIP orders the fields differently)",
                        self.lines.line(start)))
                continue
            call = call_of(node) if node is not None else None
            if call is None or call.child_by_field_name("function") is None \
                    or not (call.child_by_field_name("function").start_byte <= start < call.child_by_field_name("function").end_byte):
                continue
            shaped = shape_call(call, name, self.options.rocm)
            if shaped is None:
                continue
            if shaped.refused:
                self._unconverted(name, start, Reason.NEEDS_AGENT, "signature", shaped.refused)
                continue
            self.edits.extend(Edit(*e) for e in shaped.edits)
            line = self.lines.line(start)
            if shaped.replaced:  # nothing inside the call is translated (or reported) on its own any more
                self._claimed.update(s for s, _, _ in candidates if call.start_byte <= s < call.end_byte)
            if shaped.renamed_to is not None:
                self.edits.append(Edit(start, end, shaped.renamed_to.encode()))
                self._claimed.add(start)
                self.result.conversions.append(Conversion("signature", name, shaped.renamed_to, line))
            self.result.conversions.append(Conversion("signature", f"{name}(...)", shaped.done, line))

    # -- user operators HIP's vector types already define -----------------------------------------------------
    def _vector_operators(self) -> None:
        found = vector_operator_edits(self.source, self.layout, self.lines.line, self.lines.column, self.options.rocm)
        self.edits.extend(Edit(*e) for e in found.edits)
        self.result.conversions.extend(found.conversions)
        for u in found.unconverted:
            if (u.name, u.line) not in self._reported:
                self._reported.add((u.name, u.line))
                self.result.unconverted.append(u)

    def _device_props(self) -> None:
        found = device_prop_edits(self.source, self.layout, self.lines.line, self.lines.column, self.options.rocm)
        self.edits.extend(Edit(*e) for e in found.edits)
        self.result.conversions.extend(found.conversions)
        self.result.warnings.extend(found.warnings)
        for u in found.unconverted:
            if (u.name, u.line) not in self._reported:
                self._reported.add((u.name, u.line))
                self.result.unconverted.append(u)

    # -- what needs a person or the agent -----------------------------------------------------------------
    def _inline_asm(self) -> None:
        """Inline PTX the table knows (porter/data/ptx.toml) becomes HIP; the rest is reported, naming the
        instruction that stopped it."""
        if b"asm" not in self.source:
            return
        layout = self.layout
        # the renames so far, by position: an asm's operands take those inside them (_edited_text)
        self._renames = sorted(self.edits, key=itemgetter(0, 1))
        self._rename_starts = [e.start for e in self._renames]
        for m in ASM_KEYWORD.finditer(self.source):
            if layout.in_comment_or_literal(m.start()) or not ASM_STATEMENT.match(self.source, m.end()):
                continue
            statement, found = self._asm_statement(m.start())
            span = (statement.start_byte, statement.end_byte) if statement is not None else None
            replacement = None
            if found is None and (in_macro := rewrite_in_macro(self.source, m.start(), self._edited_text)) is not None:
                span, found, replacement = in_macro
            if found is None and (by_text := self._asm_with_macro_constraints(m.start())) is not None:
                span, found = by_text
            if span is None or found is None:
                self._unconverted("asm", m.start(), Reason.NEEDS_AGENT, "inline-asm",
                                  "inline PTX has no HIP translation: rewrite with HIP intrinsics or __builtin_amdgcn_*")
                continue
            if found.statements is None:
                if found.instructions and not looks_like_ptx(found.instructions) and not self._in_device_code(m.start()):
                    continue  # host assembly (x86 `cpuid`, `rdtsc`): the host compiler assembles it as before
                self._unconverted("asm", m.start(), Reason.NEEDS_AGENT, "inline-asm",
                                  f"inline PTX `{found.missing}` has no HIP translation ({found.why}): rewrite "
                                  "with HIP intrinsics or __builtin_amdgcn_*")
                continue
            start, end = span  # (renames inside it are in the operands' text; _apply drops the overlapped edits)
            text = replacement if replacement is not None else found.text()
            self.edits.append(Edit(start, end, text.encode()))
            self.result.conversions.append(Conversion("inline-ptx", "asm: " + "; ".join(found.instructions),
                                                      text, self.lines.line(m.start())))

    def _asm_statement(self, offset: int) -> tuple[tree_sitter.Node | None, Rewrite | None]:
        """The statement an asm expression at `offset` stands as, and its HIP rewrite (None, None: the tree does
        not cover it, the asm is part of a larger expression, or CUDA names in its operands need translating)."""
        if self.tree is None or not self._parsed(offset):
            return None, None
        node = self.tree.root_node.descendant_for_byte_range(offset, offset + 3)
        while node is not None and node.type != "gnu_asm_expression":
            node = node.parent
        statement = node.parent if node is not None else None
        if statement is None or statement.type != "expression_statement" or statement.named_child_count != 1:
            return None, None
        if statement.has_error:
            return None, None
        return statement, rewrite_inline_ptx(node, self.source, self._edited_text)

    def _asm_with_macro_constraints(self, offset: int) -> tuple[tuple[int, int], Rewrite] | None:
        """`asm(... : __PTR(ptr))` with `#define __PTR "l"` in the file: read through the macro (inline_ptx)."""
        found = rewrite_with_string_macros(self.source, offset)
        if found is None or self._renames_within(offset, found[0]):
            return None  # (renames inside it would be lost)
        return (offset, found[0]), found[1]

    def _renames_within(self, start: int, end: int) -> list[Edit]:
        i = bisect.bisect_left(self._rename_starts, start)
        out = []
        while i < len(self._renames) and self._renames[i].start < end:
            if self._renames[i].end <= end:
                out.append(self._renames[i])
            i += 1
        return out

    def _edited_text(self, start: int, end: int) -> str:
        """source[start:end] with the edits that fall inside it applied (an asm operand's renamed names)."""
        out, pos = [], start
        for e in self._renames_within(start, end):
            if e.start < pos:
                continue
            out += [self.source[pos : e.start], e.text]
            pos = e.end
        out.append(self.source[pos:end])
        return b"".join(out).decode("utf-8", "replace")

    def _in_device_code(self, offset: int) -> bool:
        return any(start <= offset < end for start, end in self._device_only_bodies())

    def _nodes_at(self, found: Iterator[re.Match], node_type: str) -> Iterator[tree_sitter.Node]:
        """The enclosing `node_type` node of each regex hit (the tree says what the text really is)."""
        assert self.tree is not None
        seen: set[int] = set()
        for m in found:
            if not self._parsed(m.start()):
                continue
            node = self.tree.root_node.descendant_for_byte_range(m.start(), m.end())
            while node is not None and node.type != node_type:
                node = node.parent
            if node is not None and node.start_byte not in seen:
                seen.add(node.start_byte)
                yield node

    def _hazard_fixes(self) -> None:
        """The safe mechanical hazard fixes (porter.scan.fixes), found on the same tree and merged as edits.

        Their patterns (masks, lane arithmetic, shuffle loops, clocks) read the same in CUDA and in HIP.
        """
        if self.tree is None:
            return
        from porter.targets import resolve_target

        for fix in _scan().hazard_fix_edits(self.source, self.tree, resolve_target(self.options.target), self.options.rocm):
            if not self._parsed_whole and fix.before.startswith("#define") and not self._only_parsed_uses(fix.before.split()[1]):
                continue  # a mask macro also used where the tree did not look: widening it may not be safe
            self.edits.append(Edit(fix.start, fix.end, fix.new.encode()))
            self.result.conversions.append(Conversion("hazard-fix", fix.before, fix.after, fix.line))

    def _only_parsed_uses(self, name: str) -> bool:
        uses = re.finditer(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])", self.layout.code)
        return all(self._parsed(m.start()) for m in uses)

    # -- output -------------------------------------------------------------------------------------------
    def _apply(self) -> bytes:
        if not self.edits:
            self._describe_output(self.source, [])
            return self.source
        self.edits.sort(key=itemgetter(0, 1))  # stable: zero-width inserts at one offset keep their order
        out, pos, kept = [], 0, []
        for edit in self.edits:
            if edit.start < pos:  # overlapping edit: keep the first, it covers this one
                continue
            out.append(self.source[pos : edit.start])
            out.append(edit.text)
            kept.append(edit)
            pos = edit.end
        out.append(self.source[pos:])
        output = b"".join(out)
        self._describe_output(output, kept)
        return output

    def _describe_output(self, output: bytes, kept: list[Edit]) -> None:
        """What the hazard scan of the output can reuse (worked out only if it is asked for)."""
        layout = self.__dict__.get("layout")  # not lexed (nothing CUDA in it): the scan lexes it if it must
        errors = self.tree is not None and self.tree.root_node.has_error
        self.result.output_facts = OutputFacts(output, layout, kept, frozenset(self._names), errors)

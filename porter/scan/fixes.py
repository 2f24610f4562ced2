"""Safe, mechanical hazard fixes applied to already-translated HIP text (pure).

Only patterns whose intent is unambiguous are rewritten; everything else stays a finding for the report:
- 32-bit full-warp masks in *_sync builtins -> the 64-bit all-lanes mask HIP's builtins take (literals, and
  `#define FULL_MASK 0xffffffff` when the macro is used for nothing else)
- lane / warp-index arithmetic on threadIdx.x with literal 32/31/5 -> warpSize
- shuffle loops starting at 16 (or bounded by 32) -> warpSize / 2 (warpSize)
- clock()/clock64() in device code -> wall_clock64()
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import tree_sitter

from porter.scan.context import SourceContext, text, unparen
from porter.scan.detectors import Hit, lane_masks, shuffle_loops, timing, warp_arithmetic
from porter.targets import TargetProfile
from porter.translate import Conversion, RocmVersion

FULL_MASK_64 = "0xffffffffffffffffULL"


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    old: str
    new: str
    line: int
    before: str  # what the report shows: the whole expression around the edit
    after: str


def _edit(node: tree_sitter.Node, new: str, context: tree_sitter.Node | None = None) -> Edit:
    """Replace `node` by `new`; `context` (an ancestor) is what the conversion record shows."""
    old = text(node)
    shown = context if context is not None else node
    before = " ".join(text(shown).split())
    lo, hi = node.start_byte - shown.start_byte, node.end_byte - shown.start_byte
    whole = shown.text or b""
    after = " ".join((whole[:lo] + new.encode() + whole[hi:]).decode("utf-8", "replace").split())
    return Edit(node.start_byte, node.end_byte, old, new, node.start_point.row + 1, before, after)


_THREAD_X = frozenset({"threadIdx.x", "hipThreadIdx_x"})


def _is_thread_x(ctx: SourceContext, node: tree_sitter.Node) -> bool:
    """`threadIdx.x`, or a variable every assignment of which is exactly `threadIdx.x` (`int tid = threadIdx.x;`)."""
    node = unparen(node)
    if text(node).replace(" ", "") in ("threadIdx.x", "hipThreadIdx_x"):
        return True
    if node.type != "identifier":
        return False
    values = ctx.assigned_value_texts(text(node))
    return bool(values) and values <= _THREAD_X


def _warp_edits(ctx: SourceContext, hit: Hit) -> list[Edit]:
    if hit.severity == "note":
        return []  # weak signal (no warp context): could be a 32-wide tile
    node = hit.node
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    op = text(node.child_by_field_name("operator"))
    if left is None or right is None or right.type != "number_literal" or not _is_thread_x(ctx, left):
        return []
    if op in ("%", "/"):
        return [_edit(right, "warpSize", node)]
    if op == "&":
        return [_edit(right, "(warpSize - 1)", node)]
    if op == ">>":
        return [_edit(node, f"({text(left)} / warpSize)")]
    return []


def _mask_define_edits(ctx: SourceContext, mask_args: list[tree_sitter.Node]) -> list[Edit]:
    """`#define FULL_MASK 0xffffffff` used only as the mask of *_sync builtins → widen the define itself."""
    as_mask = Counter(text(n) for n in mask_args if n.type == "identifier")
    if not as_mask:
        return []  # no macro used as a mask: skip counting every name in the file
    uses = {name: len(ctx.names_equal(name)) for name in as_mask}
    edits = []
    for define in ctx.nodes("define"):
        name_node, value = define.child_by_field_name("name"), define.child_by_field_name("value")
        name = text(name_node)
        literal = ctx.constant_texts.get(name, "")
        if value is None or not as_mask[name] or as_mask[name] != uses[name] - 1:
            continue  # unused as a mask, or also used for something else
        if re.fullmatch(r"0[xX][fF]{8}[uU]?", literal) and text(value).lstrip().startswith(literal):
            start = value.start_byte + text(value).index(literal)
            old = f"#define {name} {literal}"
            edits.append(
                Edit(
                    start,
                    start + len(literal),
                    literal,
                    FULL_MASK_64,
                    define.start_point.row + 1,
                    old,
                    f"#define {name} {FULL_MASK_64}",
                )
            )
    return edits


# ROCm 5.x declares wall_clock64() for the device pass only, so a kernel calling it fails the host pass there
# (checked against the local ROCm 5.2 headers; newer HIP declares it for both passes).
WALL_CLOCK_HOST_DECLARED = RocmVersion(6, 0)


FIXED_RULES = frozenset({"PL001", "PW001", "PW002", "PW003", "PW007", "PK001"})  # the rules _edits turns into edits


def _edits(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> list[Edit]:
    edits: list[Edit] = []
    mask_args = []
    for hit in lane_masks(ctx, target, None):
        if hit.rule == "PL001" and hit.node.type == "number_literal":
            edits.append(_edit(hit.node, FULL_MASK_64, hit.node.parent.parent))
        elif hit.rule == "PL001":
            mask_args.append(hit.node)
    edits += _mask_define_edits(ctx, mask_args)
    for hit in warp_arithmetic(ctx, target, None):
        edits += _warp_edits(ctx, hit)
    for hit in shuffle_loops(ctx, target, None):
        if hit.node.type != "number_literal":
            continue
        if hit.rule == "PW003":
            edits.append(_edit(hit.node, "warpSize / 2", hit.node.parent))
        elif hit.rule == "PW007":
            edits.append(
                _edit(hit.node, "warpSize" if text(hit.node) == "32" else "warpSize / 2", hit.node.parent)
            )
    wall_clock_ok = rocm is None or rocm >= WALL_CLOCK_HOST_DECLARED
    for hit in timing(ctx, target, None) if wall_clock_ok else ():
        if hit.rule == "PK001":
            fn = hit.node.child_by_field_name("function")
            if fn is not None:
                edits.append(_edit(fn, "wall_clock64", hit.node))
    return edits


# Text every fixable pattern contains (masks, lane/warp arithmetic, shuffle loops, clocks): files and functions
# without any of it skip the detectors, which walk the tree in Python. One regex per trigger: each starts with a
# literal, which the regex engine finds at C speed (one alternation of them scans several times slower).
FIX_TRIGGERS = (
    re.compile(rb"0[xX][fF]{8}(?![0-9a-fA-F])"),
    re.compile(rb"[%/&>]\s*(?:32|31|5)\b"),
    re.compile(rb"__shfl"),
    re.compile(rb"clock(?<![A-Za-z0-9_]clock)(?:64)?\s*\("),
)


def may_need_fix(source: bytes) -> bool:
    return any(trigger.search(source) for trigger in FIX_TRIGGERS)


def fix_trigger_offsets(source: bytes) -> list[int]:
    """Sorted offsets of every fix trigger in `source`."""
    return sorted(m.start() for trigger in FIX_TRIGGERS for m in trigger.finditer(source))


def hazard_fix_edits(
    source: bytes, tree: tree_sitter.Tree, target: TargetProfile, rocm: RocmVersion | None = None
) -> list[Edit]:
    """The fixes as byte-range edits of `source` parsed as `tree` (the translator merges them with its own)."""
    if not may_need_fix(source):
        return []
    context = SourceContext(source, "<fix>", tree=tree, rules=FIXED_RULES, query="hazard_fixes")
    return sorted(set(_edits(context, target, rocm)), key=lambda e: e.start)


def apply_hazard_fixes(
    source: bytes, target: TargetProfile, rocm: RocmVersion | None = None
) -> tuple[bytes, list[Conversion]]:
    """Rewrite the unambiguous hazards of `source` for `target`; returns the new text and one Conversion per fix.

    `rocm` (None: newest) only gates fixes whose replacement older HIP headers lack (wall_clock64 before 6.0).
    """
    ctx = SourceContext(source, "<fix>", rules=FIXED_RULES, query="hazard_fixes")
    out = bytearray(source)
    applied: list[Edit] = []
    last_start = len(source) + 1
    for edit in sorted(set(_edits(ctx, target, rocm)), key=lambda e: e.start, reverse=True):
        if edit.end > last_start:
            continue  # overlaps a later edit: keep the first, the scan on the output reports the rest
        out[edit.start : edit.end] = edit.new.encode()
        last_start = edit.start
        applied.append(edit)
    conversions = [
        Conversion(family="hazard-fix", cuda=e.before, hip=e.after, line=e.line) for e in reversed(applied)
    ]
    return bytes(out), conversions

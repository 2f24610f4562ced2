"""Whether a kernel depends on its block size, and whether a launch site can be rewritten for another one.

A block-size change is marked safe only when none of these holds (each gives the reason shown to the user):
  - a static `__shared__` array has a dimension sized from the block: it mentions a name the launch's block
    expression uses, or equals the block size, one of its dimensions, or the block size over 32 or 64; or the
    launch's dynamic LDS size is written with the block size (`THREADS * sizeof(float)`, `256 * 4`);
  - the kernel has literal lane or warp arithmetic on thread indices (`% 32`, `& 31`, `/ 32`, `>> 5`, and the
    64-lane forms) or an integer literal equal to the block size, a block dimension or half the block size;
  - the kernel uses a name from the launch's block expression (`BLOCK_SIZE`), or never reads `blockDim` while it
    reads `threadIdx` (its indexing then assumes the launch's block size);
  - the kernel reads `blockIdx` outside `blockIdx * blockDim` (per-block output sized from the grid);
  - `__launch_bounds__(N)` forbids the new size (N smaller than it), or the block is 2-D or 3-D;
  - the launch site cannot be rewritten to keep the work the same: the grid is neither a ceiling division by the
    block size (`(n + B - 1) / B`, a function-like macro that computes one) nor fixed with a grid-stride kernel.
Device functions the kernel calls are not looked into; a kernel that hands `threadIdx` to one is unsafe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from porter import syntax
from porter.tune.launches import Evaluator, Kernel, LaunchSite, Symbols, Unknown, Value, text

_LANE_LITERALS = {"%": {"32", "64"}, "&": {"31", "63", "0x1f", "0x1F", "0x3f", "0x3F"}, "/": {"32", "64"},
                  ">>": {"5", "6"}}
_THREAD_WORDS = re.compile(r"\b(threadIdx|__lane_id|hipThreadIdx_[xyz]|tid|lane\w*|warp\w*)\b")
_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class KernelSafety:
    safe: bool
    reasons: tuple[str, ...]


def _names(node: tree_sitter.Node | None) -> set[str]:
    return set(_IDENT.findall(text(node))) if node is not None else set()


def _is_shared(decl: tree_sitter.Node) -> bool:
    return any(c.type == "type_qualifier" and text(c) == "__shared__" for c in decl.children)


def _is_extern(decl: tree_sitter.Node) -> bool:
    return any(c.type == "storage_class_specifier" and text(c) == "extern" for c in decl.children)


def kernel_safety(kernel: Kernel, launch: LaunchSite, symbols: Symbols) -> KernelSafety:
    """Reasons the kernel (at this launch) depends on its block size; none means a new block size is safe."""
    reasons: list[str] = []
    body = kernel.body
    block = launch.block.value
    if body is None:
        return KernelSafety(False, ("the kernel's body is not in this file",))
    if block is None:
        return KernelSafety(False, ("the block size is unknown",))
    if block.dims[1:] != (1, 1):
        reasons.append(f"the block is {block.describe()}: porter changes 1-D blocks only")
    b = block.dims[0]
    sized = {b, b // 2, b // 32, b // 64} - {0, 1}
    block_names = _names(launch.block_node) - {"dim3"}
    ev = Evaluator(symbols, {}, None, 0)
    body_text = text(body)
    for decl in syntax.walk(body, "declaration"):
        if not _is_shared(decl) or _is_extern(decl):
            continue
        for d in syntax.walk(decl, "array_declarator"):
            size = d.child_by_field_name("size")
            if size is None:
                continue
            if _names(size) & (block_names | set(kernel_template_params(kernel))):
                reasons.append(f"`__shared__ {_short(text(decl))}` is sized from the block size")
                break
            try:
                value = ev.value(size, 0).total
            except Unknown:
                continue
            if value in sized:
                reasons.append(f"`__shared__ {_short(text(decl))}` has {value} entries, as many as the block's "
                               f"{b} threads suggest")
                break
    for node in syntax.walk(body, "binary_expression"):
        op = text(node.child_by_field_name("operator"))
        right = text(node.child_by_field_name("right")).strip()
        if op in _LANE_LITERALS and right in _LANE_LITERALS[op] and \
                _THREAD_WORDS.search(text(node.child_by_field_name("left"))):
            reasons.append(f"literal lane/warp arithmetic `{_short(text(node))}` (line {node.start_point.row + 1})")
            break
    for node in syntax.walk(body, "number_literal"):
        try:
            value = ev.value(node, 0).total
        except Unknown:
            continue
        if value >= 32 and (value == b or value == b // 2):
            reasons.append(f"the literal {text(node)} (line {node.start_point.row + 1}) matches the block size {b}")
            break
    if launch.shmem_node is not None and (_names(launch.shmem_node) & block_names
                                          or (launch.shmem.value is not None and b in _factors(launch.shmem.value.total, launch.shmem_node))):
        reasons.append(f"the dynamic LDS size `{_short(text(launch.shmem_node))}` follows the block size")
    used = block_names & set(_IDENT.findall(body_text))
    if used:
        reasons.append(f"the kernel uses {', '.join(sorted(used))}, the launch's block size")
    if re.search(r"\bthreadIdx\b|hipThreadIdx_", body_text) and not re.search(r"\bblockDim\b|hipBlockDim_", body_text):
        reasons.append("the kernel reads threadIdx but never blockDim: its indexing assumes the block size")
    if re.search(r"\bblockIdx\b", body_text):
        stripped = re.sub(r"blockIdx\s*\.\s*([xyz])\s*\*\s*blockDim\s*\.\s*\1|blockDim\s*\.\s*([xyz])\s*\*\s*blockIdx\s*\.\s*\2",
                          "", body_text)
        if re.search(r"\bblockIdx\b", stripped):
            reasons.append("the kernel uses blockIdx on its own (per-block results depend on the grid)")
    if kernel.launch_bounds_text and kernel.launch_bounds is None:
        reasons.append(f"`{kernel.launch_bounds_text}` is not a constant porter can evaluate")
    return KernelSafety(not reasons, tuple(dict.fromkeys(reasons)))


def _factors(total: int, node: tree_sitter.Node) -> set[int]:
    """The integer literals of a dynamic-LDS expression (`256 * sizeof(float)` -> {256}); the total is not one."""
    return {int(text(n)) for n in syntax.walk(node, "number_literal") if text(n).isdigit()}


def kernel_template_params(kernel: Kernel) -> list[str]:
    if not kernel.is_template or kernel.node.parent is None:
        return []
    params = kernel.node.parent.child_by_field_name("parameters")
    out = []
    for p in params.named_children if params is not None else []:
        name = p.child_by_field_name("declarator") or p.child_by_field_name("name")
        if name is not None:
            out.append(text(name))
    return out


def bounds_allow(kernel: Kernel, size: int) -> str | None:
    """Why `__launch_bounds__` forbids blocks of `size`, or None."""
    if kernel.launch_bounds is not None and size > kernel.launch_bounds:
        return f"`{kernel.launch_bounds_text}` forbids blocks of more than {kernel.launch_bounds} threads"
    return None


# --- rewriting the launch site -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SiteRewrite:
    """How to change a launch to blocks of a new size: byte-range replacements, or why it cannot be done."""

    edits: tuple[tuple[int, int, bytes], ...]
    reason: str | None = None


def _grid_stride(kernel: Kernel) -> bool:
    return kernel.body is not None and bool(re.search(r"\bgridDim\s*\.\s*x\b", text(kernel.body)))


def rewrite_site(launch: LaunchSite, kernel: Kernel, new_block: int, symbols: Symbols) -> SiteRewrite:
    """Edits that launch `kernel` with `new_block` threads per block covering the same work, or the reason not."""
    block_node, grid_node = launch.block_node, launch.grid_node
    old = launch.block.value
    if block_node is None or grid_node is None or old is None:
        return SiteRewrite((), "the launch's block or grid is missing")
    b = old.dims[0]
    block_edit = (block_node.start_byte, block_node.end_byte, _block_text(block_node, new_block))
    if not (_names(grid_node) & (_names(block_node) - {"dim3"})) and str(b) not in text(grid_node):
        if _grid_stride(kernel):
            return SiteRewrite((block_edit,))  # a fixed grid over a grid-stride loop: only the block changes
        return SiteRewrite((), "the grid does not follow from the block size and the kernel has no grid-stride loop")
    if grid_node.type == "identifier":
        return SiteRewrite((), f"the grid comes from the variable `{text(grid_node)}`; change it where it is set")
    replaced = _replace_block_in_grid(grid_node, block_node, b, new_block)
    if replaced is None:
        return SiteRewrite((), f"the grid `{_short(text(grid_node))}` is not a ceiling division porter can rewrite")
    if not _same_coverage(launch, symbols, grid_node, replaced, b, new_block):
        return SiteRewrite((), f"the grid `{_short(text(grid_node))}` does not compute ceil(work / block)")
    return SiteRewrite((block_edit, (grid_node.start_byte, grid_node.end_byte, replaced.encode())))


def _block_text(block_node: tree_sitter.Node, new_block: int) -> bytes:
    if block_node.type == "call_expression" and text(block_node.child_by_field_name("function")) == "dim3":
        return f"dim3({new_block})".encode()
    return str(new_block).encode()


def _replace_block_in_grid(grid: tree_sitter.Node, block: tree_sitter.Node, old: int, new: int) -> str | None:
    """The grid's text with the block size (its name, its literal, and `B - 1` literals) set to `new`."""
    source = text(grid)
    base = grid.start_byte
    names = _names(block) - {"dim3"}
    if block.type == "call_expression":  # dim3(threads): the name inside
        args = block.child_by_field_name("arguments")
        named = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        names = _names(named[0]) if len(named) == 1 else set()
    pieces: list[tuple[int, int, str]] = []
    for node in syntax.walk(grid, "identifier", "number_literal"):
        s, e = node.start_byte - base, node.end_byte - base
        if node.type == "identifier" and text(node) in names:
            pieces.append((s, e, str(new)))
        elif node.type == "number_literal" and text(node) in (str(old), str(old - 1)):
            pieces.append((s, e, str(new) if text(node) == str(old) else str(new - 1)))
    if not pieces:
        return None
    raw = grid.text or b""
    out, pos = [], 0
    for s, e, replacement in sorted(pieces):
        out.append(raw[pos:s].decode("utf-8", "replace"))
        out.append(replacement)
        pos = e
    out.append(raw[pos:].decode("utf-8", "replace"))
    return "".join(out) if source else None


def _same_coverage(launch: LaunchSite, symbols: Symbols, grid: tree_sitter.Node, new_text: str, old: int,
                   new: int) -> bool:
    """Whether both grids cover the same work W for sample values of the grid's unknown names: the old grid says
    W is in ((g_old - 1) * old, g_old * old], the new one ((g_new - 1) * new, g_new * new]; those must overlap."""
    from porter.tune.launches import _parse_expression

    free = set(launch.grid.unknown_names)
    if any(n.endswith("()") or n.startswith("sizeof(") for n in free):
        return False
    new_node = _parse_expression(new_text)
    if new_node is None:
        return False
    for sample in (1, 7, 100, 1000, 4097, 65536, 1 << 20, 1000003) if free else (0,):
        try:
            ev = launch.evaluator_with({name: Value((sample, 1, 1)) for name in free})
            g_old, g_new = ev.value(grid, 0).total, ev.value(new_node, 0).total
        except (Unknown, ZeroDivisionError, OverflowError, ValueError):
            return False
        if max((g_old - 1) * old, (g_new - 1) * new) >= min(g_old * old, g_new * new):
            return False
    return True


def _short(value: str, limit: int = 48) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"

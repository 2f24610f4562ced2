"""Hazard detectors: each looks at the captured nodes of one file and yields hits (rule ID, node, fields).

Detectors reason over the tree: a literal 32 is only a warp-size hazard when it meets threadIdx/lane/warp values or
a shuffle, never because it is a 32 (32-wide tiles and `n % 32` on data stay quiet).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter

from porter.scan.context import (
    MASK_RESULT_CALLS,
    SHUFFLES,
    TYPE_SIZES,
    WARP_CALLS,
    SourceContext,
    arguments,
    call_name,
    call_qualifier,
    declarator_name,
    strip_templates,
    text,
    unparen,
    walk,
)
from porter.targets import TargetProfile
from porter.translate import RocmVersion, looks_like_ptx, rewrite_inline_ptx, rewrite_with_string_macros


@dataclass
class Hit:
    rule: str
    node: tree_sitter.Node
    fields: dict[str, object] = field(default_factory=dict)
    severity: str | None = None  # overrides the rule's default (e.g. a weaker signal)


Detector = Callable[[SourceContext, TargetProfile, RocmVersion | None], Iterator[Hit]]
DETECTORS: list[Detector] = []


def detector(fn: Detector) -> Detector:
    DETECTORS.append(fn)
    return fn


FULL_MASK_32 = 0xFFFFFFFF
# the *_sync builtins take a lane mask as their first argument (__syncwarp's is optional and handled apart)
SYNC_MASKED = frozenset(n for n in WARP_CALLS if n.endswith("_sync"))
WARP_SIZE_NAME = re.compile(r"(?i)warp_?size|warp_?sz|threads_?per_?warp|lanes_?per_?warp|^k?warp$")


def short(node: tree_sitter.Node | str, limit: int = 60) -> str:
    value = " ".join((text(node) if not isinstance(node, str) else node).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


# --- warp-size ------------------------------------------------------------------------------------------


def lane_or_warp_target(node: tree_sitter.Node) -> str:
    """Name of the variable an expression is stored into (`int lane = <node>;` → 'lane'), else ''."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is None:
        return ""
    if parent.type == "init_declarator":
        return declarator_name(parent.child_by_field_name("declarator"))
    if parent.type == "assignment_expression":
        left = parent.child_by_field_name("left")
        return text(left) if left is not None and left.type == "identifier" else ""
    return ""


_WARP_OPERATORS = {"%": 32, "&": 31, "/": 32, ">>": 5}  # operator -> the warp-size-derived right operand


@detector
def warp_arithmetic(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    if target.wavefront == 32:
        return
    for node in ctx.nodes("binary"):
        operator = node.child_by_field_name("operator")
        wanted = _WARP_OPERATORS.get(operator.type) if operator is not None else None
        if wanted is None:
            continue  # most binary expressions: decided by the operator's node type, no text decoded
        op = operator.type
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if (
            left is None
            or right is None
            or right.type not in ("number_literal", "identifier", "parenthesized_expression")
        ):
            continue
        if ctx.evaluate(right) != wanted or text(right) in ("warpSize",):
            continue
        if right.type == "identifier" and not WARP_SIZE_NAME.search(text(right)) and text(right) != "31":
            continue  # `x % TILE` with TILE == 32: a tile width, not a warp size
        if not ctx.mentions_thread(left):
            continue
        stored = lane_or_warp_target(node)
        confident = ctx.warp_context(node) or bool(stored)
        lhs = short(left, 40)
        if op in ("%", "&"):
            suggest = f"{lhs} % warpSize" if op == "%" else f"{lhs} & (warpSize - 1)"
            yield Hit("PW001", node, {"expr": short(node), "suggest": suggest}, None if confident else "note")
        else:
            yield Hit(
                "PW002",
                node,
                {"expr": short(node), "suggest": f"{lhs} / warpSize"},
                None if confident else "note",
            )


def shuffle_calls(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [c for c in walk(node, "call_expression") if call_name(c) in SHUFFLES]


def loop_variable(ctx: SourceContext, loop: tree_sitter.Node) -> tuple[str, tree_sitter.Node | None]:
    """(name, initial value node) of `for (int v = X; ...)` or `for (v = X; ...)`."""
    init = loop.child_by_field_name("initializer")
    if init is None:
        return "", None
    if init.type == "declaration":
        for decl in init.children_by_field_name("declarator"):
            if decl.type == "init_declarator":
                return declarator_name(decl.child_by_field_name("declarator")), decl.child_by_field_name(
                    "value"
                )
    if init.type == "assignment_expression":
        return text(init.child_by_field_name("left")), init.child_by_field_name("right")
    return "", None


@detector
def shuffle_loops(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    if target.wavefront == 32:
        return
    shuffles = [call for call, name in ctx.calls if name in SHUFFLES]
    if not shuffles:
        return  # every hit needs a shuffle in the loop body
    for loop in ctx.nodes("for"):
        body = loop.child_by_field_name("body")
        if body is None:
            continue
        in_body = ctx.within(shuffles, body)
        if not in_body:
            continue
        var, start = loop_variable(ctx, loop)
        if not var or start is None:
            continue
        uses = [c for c in in_body if any(text(a) == var or _mentions(a, var) for a in arguments(c)[1:])]
        if not uses:
            continue
        update = " ".join(text(loop.child_by_field_name("update")).split())
        cond = loop.child_by_field_name("condition")
        halving = re.fullmatch(
            rf"{re.escape(var)}\s*(>>=\s*1|/=\s*2|=\s*{re.escape(var)}\s*(>>\s*1|/\s*2))", update
        )
        doubling = re.fullmatch(
            rf"{re.escape(var)}\s*(<<=\s*1|\*=\s*2|=\s*{re.escape(var)}\s*(<<\s*1|\*\s*2))", update
        )
        if halving and ctx.evaluate(start) == 16:
            yield Hit("PW003", start, {"var": var, "call": short(uses[0])})
        elif doubling and cond is not None and cond.type == "binary_expression":
            bound = cond.child_by_field_name("right")
            op = text(cond.child_by_field_name("operator"))
            if (op == "<" and ctx.evaluate(bound) == 32) or (op == "<=" and ctx.evaluate(bound) == 16):
                yield Hit("PW007", bound, {"var": var, "bound": short(bound)})


def _mentions(node: tree_sitter.Node, name: str) -> bool:
    return any(text(n) == name for n in walk(node, "identifier"))


@detector
def shuffle_literals(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    if target.wavefront == 32:
        return
    for call, name in ctx.calls:
        if name not in SHUFFLES:
            continue
        args = arguments(call)
        first = 1 if name.endswith("_sync") else 0
        width_at = first + 2
        if len(args) > width_at and ctx.evaluate(args[width_at]) == 32:
            yield Hit("PW004", args[width_at], {"call": short(call), "width": 32})
        if (
            name in ("__shfl_down_sync", "__shfl_xor_sync", "__shfl_down", "__shfl_xor")
            and len(args) > first + 1
        ):
            offset = args[first + 1]
            if offset.type == "number_literal" and ctx.evaluate(offset) == 16:
                yield Hit("PW008", offset, {"call": short(call)})


@detector
def warp_size_constants(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    if target.wavefront == 32:
        return
    for define in ctx.nodes("define"):
        name = text(define.child_by_field_name("name"))
        if WARP_SIZE_NAME.search(name) and ctx.evaluate(ctx.constant_texts.get(name)) == 32:
            yield Hit("PW005", define, {"name": name, "value": 32})
    for decl in ctx.nodes("declaration"):
        quals = {text(c) for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")}
        if not quals & {"const", "constexpr"}:
            continue
        for init in decl.children_by_field_name("declarator"):
            if init.type != "init_declarator":
                continue
            name = declarator_name(init.child_by_field_name("declarator"))
            if WARP_SIZE_NAME.search(name) and ctx.evaluate(init.child_by_field_name("value")) == 32:
                yield Hit("PW005", init, {"name": name, "value": 32})


@detector
def lane_sized_arrays(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    if target.wavefront == 32:
        return
    arrays = ctx.lane_sized_arrays
    if not arrays:
        return
    reported: set[str] = set()
    for sub in ctx.all_of("subscript_expression"):
        name = text(sub.child_by_field_name("argument"))
        if name not in arrays or name in reported:
            continue
        index_list = sub.child_by_field_name("indices")
        index = index_list.named_children[0] if index_list is not None and index_list.named_children else None
        if index is None:
            continue
        if _is_lane_index(ctx, index):
            reported.add(name)
            yield Hit("PW006", arrays[name], {"name": name, "size": 32, "index": short(index, 30)})


def _is_lane_index(ctx: SourceContext, index: tree_sitter.Node) -> bool:
    index = unparen(index)
    if ctx.is_lane_expr(index):
        return True
    return index.type == "identifier" and text(index) in ctx.lane_vars


_BIT_CALLS = frozenset({"__popc", "__ffs", "__clz", "__brev"})


# --- lane-mask ------------------------------------------------------------------------------------------


@detector
def lane_masks(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for call, name in ctx.calls:
        if name not in SYNC_MASKED and name not in _BIT_CALLS:
            continue
        args = arguments(call)
        if (
            name in SYNC_MASKED
            and args
            and ctx.evaluate(args[0]) == FULL_MASK_32
            and not _is_64bit_literal(args[0])
        ):
            yield Hit("PL001", args[0], {"call": short(call), "mask": short(args[0], 24)})
        if name in _BIT_CALLS and args and ctx.wants("PL003") and _is_mask_value(ctx, args[0]):
            suggest = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll"}[
                name
            ]
            yield Hit("PL003", call, {"call": short(call), "suggest": f"{suggest}(...)"})
    for var, value, node in ctx.assignments if ctx.wants("PL002") else ():
        value = unparen(value)
        if value.type != "call_expression" or call_name(value) not in MASK_RESULT_CALLS:
            continue
        type_text, _decl = ctx.declared_types.get(var, ("", None))
        if _is_32bit_type(type_text):
            yield Hit("PL002", node, {"call": call_name(value), "type": type_text, "name": var})
    if target.wavefront == 32 or not ctx.wants("PL004"):
        return
    for node in ctx.nodes("binary"):
        if text(node.child_by_field_name("operator")) != "<<":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "number_literal":
            continue
        if text(left).lower() in ("1", "1u") and _is_lane_index(ctx, right):
            yield Hit("PL004", node, {"expr": short(node)})


def _is_64bit_literal(node: tree_sitter.Node) -> bool:
    if node.type != "number_literal":
        return False
    value = text(node).lower()
    return "ll" in value or (value.startswith("0x") and len(value.rstrip("ul")) > 10)


def _is_32bit_type(type_text: str) -> bool:
    words = type_text.replace("const", "").replace("volatile", "").split()
    return words in (
        ["int"],
        ["unsigned"],
        ["unsigned", "int"],
        ["uint32_t"],
        ["int32_t"],
        ["uint"],
        ["signed"],
    )


def _is_mask_value(ctx: SourceContext, node: tree_sitter.Node) -> bool:
    node = unparen(node)
    if node.type == "call_expression":
        return call_name(node) in MASK_RESULT_CALLS
    if node.type == "identifier":
        return any(
            unparen(value).type == "call_expression" and call_name(unparen(value)) in MASK_RESULT_CALLS
            for value, _ in ctx.assignments_by_name.get(text(node), ())
        )
    return False


# --- inline-asm and tensor cores --------------------------------------------------------------------------

PTX_MATRIX = re.compile(r"\b(w?mma\.[\w.]*|wgmma\.[\w.]*|ldmatrix[\w.]*|stmatrix[\w.]*)")


@detector
def inline_asm(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for node in ctx.nodes("asm"):
        strings = [c for c in node.named_children if c.type in ("string_literal", "concatenated_string")]
        body = (
            " ".join("".join(text(c) for c in walk(strings[0], "string_content")).split())
            if strings
            else short(node)
        )
        if _looks_like_amdgpu(body):
            continue  # already-ported code with GCN assembly
        if not looks_like_ptx(tuple(i.strip() for i in body.split(";") if i.strip())):
            continue  # host assembly (x86 `rdtsc`, `cpuid`): the host compiler assembles it
        ported = rewrite_inline_ptx(node, ctx.source) if node.type == "gnu_asm_expression" else None
        if (ported is None or ported.statements is None) and (node.has_error or node.parent is None
                                                              or node.parent.has_error):
            by_macro = rewrite_with_string_macros(ctx.source, node.start_byte)  # `: __PTR(ptr)`
            ported = by_macro[1] if by_macro is not None else ported
        if ported is not None and ported.statements is not None:
            yield Hit("PA002", node, {"snippet": short(node, 50), "hip": " ".join(ported.text().split())[:120]})
            if match := PTX_MATRIX.search(body):  # rewritten, but to shuffles and vector arithmetic
                yield Hit("PM003", node, {"instr": match.group(1)})
            continue
        yield Hit("PA001", node, {"snippet": short(node, 50)})
        match = PTX_MATRIX.search(body)
        if match:
            yield Hit("PM002", node, {"instr": match.group(1)})


def _looks_like_amdgpu(body: str) -> bool:
    return bool(re.match(r"\s*(s_|v_|ds_|buffer_|global_|flat_)", body))


@detector
def tensor_cores(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    """WMMA ports to porter_wmma.h, which computes on ordinary lanes: one finding per file (its include, else the
    first use) says the tiles run without matrix cores."""
    for node in ctx.nodes("include"):
        path = text(node.child_by_field_name("path")).strip('<>"')
        if path in ("mma.h", "crt/mma.h"):
            yield Hit("PM001", node, {"name": f"#include <{path}>"})
            return
    for node in ctx.nodes("qualified"):
        if node.parent is not None and node.parent.type == "qualified_identifier":
            continue
        name = strip_templates(text(node))
        if name.startswith(("wmma::", "nvcuda::wmma::", "nvcuda::")):
            yield Hit("PM001", node, {"name": short(name, 40)})
            return


# --- shared memory --------------------------------------------------------------------------------------


def shared_bytes(ctx: SourceContext, decl: tree_sitter.Node) -> int | None:
    """Bytes of one static __shared__ declaration, None when unknown or dynamic (extern / [])."""
    if "extern" in {text(c) for c in decl.children if c.type == "storage_class_specifier"}:
        return None
    type_node = decl.child_by_field_name("type")
    element = TYPE_SIZES.get(" ".join(text(type_node).split())) if type_node is not None else None
    if element is None:
        return None
    total = 0
    for declarator in decl.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator")
        count = 1
        while declarator is not None and declarator.type == "array_declarator":
            size = declarator.child_by_field_name("size")
            dim = ctx.evaluate(size) if size is not None else None
            if dim is None:
                return None
            count *= dim
            declarator = declarator.child_by_field_name("declarator")
        total += count * element
    return total


def is_shared(decl: tree_sitter.Node) -> bool:
    return any(c.type == "type_qualifier" and text(c) == "__shared__" for c in decl.children) or any(
        c.type == "attribute_specifier" and "shared" in text(c) for c in decl.children
    )


@detector
def shared_memory(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    per_kernel: dict[int, int] = {}
    kernels = {}
    for decl in ctx.nodes("declaration") if b"shared" in ctx.source else ():
        if b"shared" not in (decl.text or b"") or not is_shared(decl):
            continue  # is_shared needs `shared` in the text: a byte search first
        size = shared_bytes(ctx, decl)
        fn = ctx.function_of(decl)
        if size is None or fn is None or not fn.is_kernel:
            continue
        per_kernel[fn.node.id] = per_kernel.get(fn.node.id, 0) + size
        kernels[fn.node.id] = fn
    for fn_id, size in per_kernel.items():
        if size > target.lds_bytes:
            fn = kernels[fn_id]
            declarator = fn.node.child_by_field_name("declarator")
            yield Hit("PS001", declarator or fn.node, {"kernel": fn.name, "bytes": size})
    for call, name in ctx.calls:
        config = ctx.launch_config(call)
        if len(config) >= 3:
            dyn = ctx.evaluate(config[2])
            if dyn is not None and dyn > target.lds_bytes:
                yield Hit("PS002", config[2], {"kernel": _launched(call), "bytes": dyn})
        if name in ("cudaFuncSetAttribute", "hipFuncSetAttribute"):
            args = arguments(call)
            if len(args) == 3 and "MaxDynamicSharedMemorySize" in text(args[1]):
                value = ctx.evaluate(args[2])
                if value is not None and value > target.lds_bytes:
                    yield Hit("PS003", call, {"call": short(call), "bytes": value})
        if name in ("hipLaunchKernelGGL", "hipLaunchKernelEx") and len(arguments(call)) >= 4:
            dyn = ctx.evaluate(arguments(call)[3])
            if dyn is not None and dyn > target.lds_bytes:
                yield Hit("PS002", arguments(call)[3], {"kernel": text(arguments(call)[0]), "bytes": dyn})


def _launched(call: tree_sitter.Node) -> str:
    fn = call.child_by_field_name("function")
    return strip_templates(text(fn)) if fn is not None else "?"


# --- launch bounds --------------------------------------------------------------------------------------


def block_threads(ctx: SourceContext, node: tree_sitter.Node) -> int | None:
    """Threads per block of a launch's block argument: 256, dim3(16, 16), or a `dim3 b(…)` variable."""
    node = unparen(node)
    if node.type == "call_expression" and call_name(node) == "dim3":
        dims = [ctx.evaluate(a) for a in arguments(node)]
    elif node.type == "identifier" and text(node) in ctx.declared_types:
        type_text, decl = ctx.declared_types[text(node)]
        if "dim3" not in type_text:
            return ctx.evaluate(node)
        dims = []
        for init in decl.children_by_field_name("declarator"):
            if declarator_name(init) != text(node):
                continue
            args = init.child_by_field_name("value")
            if args is not None and args.type == "call_expression":
                args = args.child_by_field_name("arguments")
            if args is not None and args.type in ("argument_list", "initializer_list"):
                dims = [ctx.evaluate(a) for a in args.named_children]
        if not dims:
            return None
    else:
        dims = [ctx.evaluate(node)]
    if not dims or any(d is None for d in dims):
        return None
    total = 1
    for d in dims:
        total *= d  # type: ignore[operator]
    return total


@detector
def launch_bounds(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for node in ctx.nodes("launch_bounds"):
        args = [c for c in node.named_children if c.type not in ("comment",)]
        if args:
            threads = ctx.evaluate(args[0])
            if threads is not None and threads > target.max_threads_per_block:
                yield Hit("PB001", node, {"what": f"`{short(node)}`", "threads": threads})
        if len(args) >= 2:
            yield Hit("PB002", node, {"expr": short(node)})
    for call, name in ctx.calls:
        config = ctx.launch_config(call)
        block = config[1] if len(config) >= 2 else None
        if block is None and name == "hipLaunchKernelGGL" and len(arguments(call)) >= 3:
            block = arguments(call)[2]
        if block is None:
            continue
        threads = block_threads(ctx, block)
        if threads is not None and threads > target.max_threads_per_block:
            yield Hit("PB001", block, {"what": f"launch of `{_launched(call)}`", "threads": threads})


# --- texture references ---------------------------------------------------------------------------------

TEX_FETCH = re.compile(
    r"^(tex1Dfetch|tex[123]D(Layered)?(Lod|Grad)?|texCubemap\w*|tex2Dgather|surf[123]D(read|write)\w*)$"
)
TEX_BIND = frozenset(
    {
        "cudaBindTexture",
        "cudaBindTexture2D",
        "cudaBindTextureToArray",
        "cudaBindTextureToMipmappedArray",
        "cudaUnbindTexture",
        "cudaGetTextureReference",
        "cudaGetTextureAlignmentOffset",
        "cudaBindSurfaceToArray",
        "cudaGetSurfaceReference",
        "hipBindTexture",
        "hipBindTexture2D",
        "hipBindTextureToArray",
        "hipBindTextureToMipmappedArray",
        "hipUnbindTexture",
        "hipGetTextureReference",
        "hipGetTextureAlignmentOffset",
    }
)


# a fetch is a call of the plain or templated name (`tex2D<float>(obj, x, y)`), not a member of the same name
IMAGE_CALLEE_TYPES = frozenset({"identifier", "template_function", "qualified_identifier"})


@detector
def texture_references(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    refs: set[str] = set()
    for decl in ctx.nodes("declaration"):
        type_node = decl.child_by_field_name("type")
        if type_node is None or type_node.type != "template_type":
            continue
        if text(type_node.child_by_field_name("name")) in ("texture", "surface"):
            names = [declarator_name(d) for d in decl.children_by_field_name("declarator")]
            refs.update(n for n in names if n)
            yield Hit("PT001", decl, {"decl": short(decl, 50)})
    for call, name in ctx.calls:
        if name not in TEX_BIND and not TEX_FETCH.match(name):
            continue
        args = arguments(call)
        fn = call.child_by_field_name("function")
        if (
            TEX_FETCH.match(name)
            and args
            and text(args[0]) in refs
            and fn is not None
            and fn.type == "identifier"
        ):
            yield Hit("PT002", call, {"call": short(call), "name": text(args[0])})
        elif name in TEX_BIND:
            yield Hit("PT003", call, {"name": name})
        if TEX_FETCH.match(name) and not target.image_support and fn is not None and fn.type in IMAGE_CALLEE_TYPES:
            yield Hit("PT004", call, {"call": short(call)})


# --- cooperative groups ---------------------------------------------------------------------------------

CG_MISSING = {
    "synchronize": "call `.sync()` on the group",
    "wait": "memcpy_async completes on return in HIP; drop the wait or restructure",
    "wait_prior": "memcpy_async completes on return in HIP; drop the wait or restructure",
    "invoke_one": "elect a lane explicitly (`if (g.thread_rank() == 0)`) and broadcast with a shuffle",
    "invoke_one_broadcast": "elect a lane explicitly (`if (g.thread_rank() == 0)`) and broadcast with a shuffle",
    "reduce_update_async": "reduce with `cg::reduce`/shuffles, then update with an atomic",
    "reduce_store_async": "reduce with `cg::reduce`/shuffles, then store",
}
CG_RECENT = frozenset(
    {"reduce", "inclusive_scan", "exclusive_scan", "memcpy_async", "this_cluster", "cluster_group"}
)
CG_HEADERS = ("cooperative_groups/reduce.h", "cooperative_groups/scan.h", "cooperative_groups/memcpy_async.h")


def cg_namespaces(ctx: SourceContext) -> set[str]:
    names = {"cooperative_groups", "::cooperative_groups"}
    for node in ctx.all_of("namespace_alias_definition"):
        ids = [text(c) for c in node.named_children]
        if len(ids) >= 2 and ids[-1].lstrip(":") == "cooperative_groups":
            names.add(ids[0])
    return names


@detector
def cooperative_groups(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for node in ctx.nodes("include"):
        path = text(node.child_by_field_name("path")).strip('<>"')
        if path in CG_HEADERS:
            yield Hit("PC001", node, {"header": f"#include <{path}>"})
    if b"cooperative_groups" not in ctx.source:
        # no namespace, alias or using-declaration can name cooperative groups: only tile types remain
        yield from _tile_types(ctx, target)
        return
    namespaces = cg_namespaces(ctx)
    using = any("cooperative_groups" in text(n) for n in ctx.all_of("using_declaration"))
    for call, name in ctx.calls:
        qualifier = call_qualifier(call)
        is_cg = qualifier in namespaces or (
            not qualifier and using and call.child_by_field_name("function").type != "field_expression"
        )
        if not is_cg:
            continue
        if name in CG_MISSING:
            yield Hit(
                "PC002",
                call,
                {"name": f"{qualifier + '::' if qualifier else ''}{name}", "suggest": CG_MISSING[name]},
            )
        elif name in CG_RECENT:
            yield Hit("PC003", call, {"name": f"{qualifier + '::' if qualifier else ''}{name}"})
        if name == "tiled_partition":
            size = _tile_size(ctx, call)
            if size is not None and size > target.wavefront:
                yield Hit("PC004", call, {"expr": short(call), "size": size})
    for node in ctx.nodes("qualified"):
        value = strip_templates(text(node))
        if value.rsplit("::", 1)[-1] == "cluster_group" and value.rsplit("::", 1)[0] in namespaces:
            yield Hit("PC003", node, {"name": value})
    yield from _tile_types(ctx, target)


def _tile_types(ctx: SourceContext, target: TargetProfile) -> Iterator[Hit]:
    for node in ctx.nodes("template_type"):
        if text(node.child_by_field_name("name")) == "thread_block_tile":
            args = node.child_by_field_name("arguments")
            size = ctx.evaluate(args.named_children[0]) if args is not None and args.named_children else None
            if size is not None and size > target.wavefront:
                yield Hit("PC004", node, {"expr": short(node), "size": size})


def _tile_size(ctx: SourceContext, call: tree_sitter.Node) -> int | None:
    fn = call.child_by_field_name("function")
    for node in walk(fn, "template_argument_list") if fn is not None else []:
        if node.named_children:
            return ctx.evaluate(node.named_children[0])
    args = arguments(call)
    return ctx.evaluate(args[1]) if len(args) >= 2 else None


# --- FP8 ------------------------------------------------------------------------------------------------

FP8_OCP = re.compile(r"^__(nv|hip)_fp8(x[24])?_e[45]m[23]$")
FP8_FNUZ = re.compile(r"^__hip_fp8(x[24])?_e[45]m[23]_fnuz$")
_FP8_TEXT = re.compile(rb"fp8")


@detector
def fp8_types(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    seen: set[str] = set()
    for node in ctx.names_at(_FP8_TEXT):
        name = text(node)
        if name in seen or not name.startswith("__") or "fp8" not in name:
            continue
        ocp, fnuz = bool(FP8_OCP.match(name)), bool(FP8_FNUZ.match(name))
        if not (ocp or fnuz):
            continue
        seen.add(name)
        if target.fp8_format == "none":
            yield Hit("PF003", node, {"name": name})
        elif ocp and target.fp8_format == "fnuz":
            yield Hit("PF001", node, {"name": name})
        elif fnuz and target.fp8_format == "ocp":
            yield Hit("PF002", node, {"name": name})


# --- timing ---------------------------------------------------------------------------------------------


@detector
def timing(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    uses_wall_clock = False
    for call, name in ctx.calls:
        fn = call.child_by_field_name("function")
        if (
            name in ("clock", "clock64")
            and fn is not None
            and fn.type == "identifier"
            and ctx.in_device_code(call)
        ):
            yield Hit("PK001", call, {"call": short(call)})
        uses_wall_clock |= name == "wall_clock64"
    if not uses_wall_clock or not ctx.wants("PK002"):
        return
    for node in ctx.names_at(_CLOCK_RATE_TEXT):
        if text(node) in ("hipDeviceAttributeClockRate", "cudaDevAttrClockRate"):
            yield Hit("PK002", node, {"name": text(node)})
    for node in ctx.all_of("field_expression"):
        if text(node.child_by_field_name("field")) == "clockRate":
            yield Hit("PK002", node, {"name": short(node)})


_CLOCK_RATE_TEXT = re.compile(rb"hipDeviceAttributeClockRate|cudaDevAttrClockRate")


# --- libcu++ --------------------------------------------------------------------------------------------

# cuda::atomic, cuda::atomic_ref, cuda::pipeline, cuda::barrier and cuda::memcpy_async are not here: porter's shims
# (porter_cuda_atomic.h, porter_cuda_pipeline.h) provide them; a barrier is PX002, for how its waits differ
LIBCUDACXX = {
    "atomic_thread_fence": "use __threadfence()/__threadfence_block()/__threadfence_system()",
    "annotated_ptr": "drop the access-property annotation",
    "access_property": "drop the access-property annotation",
    "apply_access_property": "drop the call",
    "discard_memory": "drop the call",
}
LIBCUDACXX_HEADERS = (
    "cuda/annotated_ptr",
    "cuda/memory_resource",
)


@detector
def libcudacxx(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for node in ctx.nodes("include"):
        path = text(node.child_by_field_name("path")).strip('<>"')
        if path in LIBCUDACXX_HEADERS:
            yield Hit(
                "PX001",
                node,
                {"name": f"#include <{path}>", "suggest": "remove the include once its uses are ported"},
            )
    seen: set[tuple[int, str]] = set()
    for node in ctx.nodes("qualified"):
        if node.parent is not None and node.parent.type == "qualified_identifier":
            continue
        parts = strip_templates(text(node)).lstrip(":").split("::")
        if parts == ["cuda", "barrier"] and (node.start_point.row, "barrier") not in seen:
            seen.add((node.start_point.row, "barrier"))
            yield Hit("PX002", node, {"name": "cuda::barrier"})
            continue
        if len(parts) != 2 or parts[0] != "cuda" or parts[1] not in LIBCUDACXX:
            continue
        key = (node.start_point.row, parts[1])
        if key in seen:
            continue
        seen.add(key)
        yield Hit("PX001", node, {"name": "cuda::" + parts[1], "suggest": LIBCUDACXX[parts[1]]})


# --- sync semantics -------------------------------------------------------------------------------------


@detector
def sync_semantics(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    for call, name in ctx.calls:
        if name != "__syncwarp" and name != "__threadfence_system":
            continue
        args = arguments(call)
        if name == "__syncwarp" and args:
            mask = ctx.evaluate(args[0])
            if mask is not None and mask not in (FULL_MASK_32, 2**64 - 1, -1):
                yield Hit("PY001", call, {"call": short(call)})
        elif name == "__threadfence_system":
            yield Hit("PY003", call, {})
    assignments = ctx.all_of("assignment_expression")
    for fn in ctx.functions:
        if not fn.is_device or "__syncwarp" in fn.warp_calls:
            continue
        steps: dict[str, list[tuple[int, tree_sitter.Node]]] = {}
        for stmt in ctx.within(assignments, fn.node):
            found = _reduction_step(ctx, stmt)
            if found:
                steps.setdefault(found[0], []).append((found[1], stmt))
        for array, items in steps.items():
            offsets = sorted({o for o, _ in items}, reverse=True)
            if len(offsets) < 3 or _is_volatile(ctx, fn.node, array):
                continue
            yield Hit("PY002", items[0][1], {"array": array, "offsets": ", ".join(map(str, offsets))})


def _reduction_step(ctx: SourceContext, stmt: tree_sitter.Node) -> tuple[str, int] | None:
    """`a[i] += a[i + K]` / `a[i] = a[i] + a[i + K]` → (a, K) for K in 32..1."""
    left = stmt.child_by_field_name("left")
    right = stmt.child_by_field_name("right")
    if left is None or right is None or left.type != "subscript_expression":
        return None
    array = text(left.child_by_field_name("argument"))
    for sub in walk(right, "subscript_expression"):
        if text(sub.child_by_field_name("argument")) != array:
            continue
        for binary in walk(sub, "binary_expression"):
            if text(binary.child_by_field_name("operator")) == "+":
                offset = ctx.evaluate(binary.child_by_field_name("right"))
                if offset in (32, 16, 8, 4, 2, 1):
                    return array, offset
    return None


def _is_volatile(ctx: SourceContext, function: tree_sitter.Node, name: str) -> bool:
    """Is `name` declared volatile in `function` (parameter or local), or else at file scope?"""
    for decl in walk(function, "parameter_declaration", "declaration"):
        if any(declarator_name(d) == name for d in decl.children_by_field_name("declarator")):
            return "volatile" in text(decl)
    _type_text, decl = ctx.declared_types.get(name, ("", None))
    return decl is not None and "volatile" in text(decl)


# --- unsupported APIs (porter.translate.mapping) --------------------------------------------------------------------


def _api_map():
    try:
        from porter.translate import load_api_map
    except ImportError:
        return None
    try:
        return load_api_map()
    except Exception:  # the map is optional here: a broken map must not break scanning
        return None


@detector
def unsupported_apis(ctx: SourceContext, target: TargetProfile, rocm: RocmVersion | None) -> Iterator[Hit]:
    api_map = _api_map()
    if api_map is None:
        return
    # the distinct words of the text are few: look those up, then find the first identifier spelled so
    firsts = []
    for name in ctx.api_words:
        entry = api_map.lookup(name)
        if entry is not None and (entry.unsupported or (rocm is not None and not entry.available_in(rocm))):
            node = ctx.first_name(name)
            if node is not None:
                firsts.append((node.start_byte, name, node, entry))
    firsts.sort(key=lambda item: item[0])
    for _, name, node, entry in firsts:
        if entry.unsupported:
            detail = f" ({entry.unsupported})" if entry.unsupported not in ("", "true") else ""
            yield Hit(
                "PU001",
                node,
                {"name": name, "detail": detail, "suggest": entry.note or "rewrite this part by hand"},
            )
        elif rocm is not None and not entry.available_in(rocm):
            yield Hit("PU002", node, {"name": name, "hip": entry.hip, "since": entry.since, "rocm": rocm})

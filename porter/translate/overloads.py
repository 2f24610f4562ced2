"""Overloads that collapse: CUDA types that are distinct in CUDA but one type in HIP (pure).

`cudaError_t` and `CUresult` are two enums in CUDA and both `hipError_t` in HIP; so are the runtime and driver
forms of arrays, limits, cache configs, memory advice and many more (the groups come from the API map: every
HIP type that more than one CUDA type maps to). A helper overloaded for both — an error-string function, a check
macro's helper, an `operator<<` — becomes a redefinition once translated. `collapsed_overloads` finds, in one
file's tree, the function definitions of one scope whose parameter types differ in CUDA and agree in HIP; the
translator keeps the first of each group and disables the others with `#if 0`, saying why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import tree_sitter

from porter.translate.mapping import ApiMap

TOKEN = re.compile(r"[A-Za-z_]\w*|\S")
SCOPES = {"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"}
BRANCHES = {"preproc_else", "preproc_elif", "preproc_elifdef"}
PREPROC_IFS = {"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"}


# HIP types that are typedefs of plain C++ types (HIP's headers: `typedef void* hipDeviceptr_t;`), so a CUDA type
# mapped to one collides with the plain type too: copy(CUdeviceptr, ...) against copy(void*, ...)
HIP_TYPEDEFS: dict[str, tuple[str, ...]] = {"hipDeviceptr_t": ("void", "*")}


def collapsing_types(api_map: ApiMap, names: Iterable[str]) -> frozenset[str]:
    """The CUDA type names among `names` whose HIP type another of them also maps to, or whose HIP type is a
    typedef of a plain type (HIP_TYPEDEFS)."""
    by_hip: dict[str, set[str]] = {}
    for name in names:
        entry = api_map.apis.get(name)
        if entry is not None and entry.kind == "type" and entry.hip:
            by_hip.setdefault(entry.hip, set()).add(name)
    return frozenset(n for hip, group in by_hip.items() if len(group) > 1 or hip in HIP_TYPEDEFS for n in group)


@dataclass(frozen=True)
class Collapse:
    """A definition that repeats an earlier one once translated: `node` is disabled, `kept` stays."""

    node: tree_sitter.Node  # the definition to disable (its template_declaration when it has one)
    kept_node: tree_sitter.Node
    name: str  # as CUDA spells it (an explicit specialization's arguments included)
    cuda_signature: str  # the parameter types as CUDA spells them
    kept: str  # the kept definition's name and parameter types, as CUDA spells them
    hip_signature: str


def _function_declarator(node: tree_sitter.Node) -> tree_sitter.Node | None:
    d = node.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    return d


def _declared_name(declarator: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The identifier a parameter declares (under pointers, references and arrays), if it names one."""
    while declarator is not None and declarator.type not in ("identifier", "field_identifier"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator") or c.type == "identifier"), None)
        declarator = inner
    return declarator


def _parameter_tokens(param: tree_sitter.Node, source: bytes) -> list[str]:
    """A parameter's type as tokens: its text without the declared name and any default value."""
    start, end = param.start_byte, param.end_byte
    cut = []
    name = _declared_name(param.child_by_field_name("declarator"))
    if name is not None:
        cut.append((name.start_byte, name.end_byte))
    default = param.child_by_field_name("default_value")
    if default is not None:
        eq = source.rfind(b"=", start, default.start_byte)
        cut.append((eq if eq >= 0 else default.start_byte, default.end_byte))
    text, pos = [], start
    for s, e in sorted(cut):
        text.append(source[pos:s])
        pos = e
    text.append(source[pos:end])
    return TOKEN.findall(b"".join(text).decode("utf-8", "replace"))


def _signature(fn: tree_sitter.Node, source: bytes) -> tuple[str, list[list[str]], list[str]] | None:
    declarator = _function_declarator(fn)
    if declarator is None:
        return None
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name is None or params is None:
        return None
    tokens = [_parameter_tokens(p, source) for p in params.named_children if p.type.endswith("parameter_declaration")]
    # what follows the parameter list (const, noexcept, ref-qualifiers) is part of an overload's signature
    tail = TOKEN.findall(source[params.end_byte : declarator.end_byte].decode("utf-8", "replace"))
    return name.text.decode("utf-8", "replace"), tokens, tail


def _scope(fn: tree_sitter.Node) -> tuple[str, ...]:
    out = []
    node = fn.parent
    while node is not None:
        if node.type in SCOPES:
            name = node.child_by_field_name("name")
            out.append(f"{node.type}:{name.text.decode('utf-8', 'replace') if name else ''}")
        node = node.parent
    return tuple(reversed(out))


def _exclusive(a: tree_sitter.Node, b: tree_sitter.Node) -> bool:
    """Whether `a` and `b` sit in different branches of one #if: never compiled together."""
    ancestors: dict[int, tree_sitter.Node] = {}
    node = a
    while node is not None:
        ancestors[node.id] = node
        node = node.parent
    child_b, node = b, b.parent
    while node is not None and node.id not in ancestors:
        child_b, node = node, node.parent
    if node is None or node.type not in PREPROC_IFS:
        return False
    child_a = a
    while child_a.parent is not None and child_a.parent.id != node.id:
        child_a = child_a.parent
    return child_a.id != child_b.id and (child_a.type in BRANCHES or child_b.type in BRANCHES)


def _conditions(node: tree_sitter.Node) -> int:
    """How many #if/#ifdef branches `node` sits in."""
    count, node = 0, node.parent
    while node is not None:
        count += node.type in PREPROC_IFS or node.type in BRANCHES
        node = node.parent
    return count


def _outermost(fn: tree_sitter.Node) -> tree_sitter.Node:
    return fn.parent if fn.parent is not None and fn.parent.type == "template_declaration" else fn


def collapsed_overloads(definitions: Iterable[tree_sitter.Node], source: bytes, collapsing: frozenset[str],
                        hip_type: Callable[[str], str | None]) -> Iterator[Collapse]:
    """Definitions (function_definition nodes, in source order) that repeat an earlier one of the same scope
    once every collapsing type is spelled as HIP spells it."""
    seen: dict[tuple, list[tuple[tree_sitter.Node, tuple]]] = {}
    for fn in definitions:
        sig = _signature(fn, source)
        if sig is None:
            continue
        name, params, tail = sig
        name_tokens = TOKEN.findall(name)  # `f<cudaError_t>` (an explicit specialization) collapses too
        # a definition without collapsing types still takes part: f(void*) is what f(CUdeviceptr) becomes

        def in_hip(tokens: list[str]) -> tuple[str, ...]:
            out: list[str] = []
            for i, t in enumerate(tokens):
                hip = (hip_type(t) or t) if t in collapsing else t
                plain = HIP_TYPEDEFS.get(hip)
                # `const CUdeviceptr` is `void* const`, not `const void*`: such a spelling stays as it is
                if plain is not None and "const" not in tokens[max(0, i - 1) : i + 2]:
                    out += plain
                else:
                    out.append(hip)
            return tuple(out)

        hip = tuple(in_hip(p) for p in params)
        outer = _outermost(fn)
        template = outer.child_by_field_name("parameters") if outer is not fn else None
        key = (_scope(fn), in_hip(name_tokens), template.text if template is not None else None, hip, tuple(tail))
        cuda = (tuple(name_tokens), *(tuple(p) for p in params))
        for earlier, earlier_cuda in seen.get(key, []):
            if earlier_cuda != cuda and not _exclusive(earlier, fn):
                if _conditions(earlier) > _conditions(fn):  # keep the one compiled in more configurations
                    yield Collapse(_outermost(earlier), outer, _join(earlier_cuda[0]), _show(earlier_cuda[1:]),
                                   _join(cuda[0]) + _show(cuda[1:]), _show(hip))
                else:
                    yield Collapse(outer, _outermost(earlier), _join(cuda[0]), _show(cuda[1:]),
                                   _join(earlier_cuda[0]) + _show(earlier_cuda[1:]), _show(hip))
                break
        else:
            seen.setdefault(key, []).append((fn, cuda))


def _show(params: tuple[tuple[str, ...], ...]) -> str:
    return "(" + ", ".join(_join(p) for p in params) + ")"


def _join(tokens: tuple[str, ...]) -> str:
    out = ""
    for t in tokens:
        if out and (t[0].isalnum() or t[0] == "_") and (out[-1].isalnum() or out[-1] == "_"):
            out += " "
        out += t
    return out

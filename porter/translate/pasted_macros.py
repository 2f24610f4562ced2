"""Check macros that paste an API prefix onto their argument, undone so the translator sees whole names.

`#define cuda(fn) check(cuda##fn)`, called as `cuda(Malloc(&p, n))`, is a common idiom (The CUDA Handbook writes
every runtime call so; `cuda(...)`, `CUDA_CALL(...)` with `cuda##__VA_ARGS__` elsewhere). The call site names no
CUDA identifier, so nothing would be translated there, and HIP's names do not always keep CUDA's suffix
(`cudaEventCreate` with flags is `hipEventCreateWithFlags`; a shim's name starts with `porter_`). So before
translation the paste is undone, consistently across the tree: each call site gets the whole name
(`cuda(cudaMalloc(&p, n))`, translated from then on like any call) and each definition pastes nothing
(`check(fn)`). A definition that pastes HIP's prefix (a project's own HIP header beside its CUDA one) is undone too;
a macro whose definitions paste different CUDA prefixes is left as it is, unless one of them is the macro's
own name (`cu` pasting `cu`). Pure: bytes in, bytes out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from porter.syntax import Layout, LineIndex, splice
from porter.translate.options import PastedMacro

# the prefixes of CUDA's APIs a macro may paste, and HIP's (which name no CUDA call: compatible with any)
CUDA_PREFIXES = ("cuda", "cu", "cublasLt", "cublas", "cufft", "curand", "cusparse", "cusolverDn", "cusolverSp",
                 "cusolver", "nvrtc", "nccl")
HIP_PREFIXES = ("hip", "hipblasLt", "hipblas", "hipfft", "hiprand", "hipsparse", "hipsolver", "hiprtc", "rccl")
_PREFIX = "|".join(sorted(CUDA_PREFIXES + HIP_PREFIXES, key=len, reverse=True))
# `#define NAME(params) body`, continuation lines included (on the text with comments and literals blanked)
_DEFINITION = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()\n]*)\)((?:\\\r?\n|[^\n])*)", re.M)
# `prefix ## param` where the pasted name ends there (`cuda##event##Start_` builds a variable's name: not a call)
_PASTE = re.compile(rb"(?<![\w#])(" + _PREFIX.encode() + rb")[ \t]*##[ \t]*([A-Za-z_]\w*)\b(?![ \t]*##)")
_IDENTIFIER = re.compile(rb"\s*([A-Za-z_]\w*)")


@dataclass(frozen=True)
class _Definition:
    name: str
    index: int
    prefix: str
    span: tuple[int, int]  # the `prefix ## param` text


def _definitions(code: bytes) -> list[_Definition]:
    found: list[_Definition] = []
    for m in _DEFINITION.finditer(code):
        if b"##" not in m.group(3):
            continue
        params = [p.strip() for p in m.group(2).decode("ascii", "replace").split(",")]
        names = {("__VA_ARGS__" if p == "..." else p): i for i, p in enumerate(params)}
        for paste in _PASTE.finditer(code, m.start(3), m.end(3)):
            param = paste.group(2).decode("ascii")
            if param in names:
                found.append(_Definition(m.group(1).decode("ascii"), names[param], paste.group(1).decode("ascii"),
                                         paste.span()))
    return found


def find_pasted_macros(sources: Iterable[bytes]) -> tuple[PastedMacro, ...]:
    """The pasting macros a set of files defines, agreed across them: one CUDA prefix and one argument per name (a
    name defined with different ones is left out); HIP-prefix definitions alone name no CUDA call and are ignored."""
    seen: dict[str, set[tuple[int, str]]] = {}
    for source in sources:
        if b"##" not in source:
            continue
        for d in _definitions(Layout(source).code):
            seen.setdefault(d.name, set()).add((d.index, d.prefix))
    agreed = []
    for name, uses in sorted(seen.items()):
        cuda = {(i, p) for i, p in uses if p in CUDA_PREFIXES}
        if len(cuda) > 1 and len(named := {(i, p) for i, p in cuda if p == name}) == 1:
            cuda = named  # a macro named for the prefix it pastes (`cu`), one stray definition pasting another
        hip = {p for _, p in uses if p in HIP_PREFIXES}
        if len(cuda) == 1 and len({i for i, _ in uses}) == 1:
            index, prefix = next(iter(cuda))
            agreed.append(PastedMacro(name, index, prefix, next(iter(hip)) if len(hip) == 1 else None))
    return tuple(agreed)


def unpaste(source: bytes, macros: tuple[PastedMacro, ...],
            known: Callable[[str], bool] = lambda name: True) -> tuple[bytes, list[int]]:
    """The source with each macro's paste undone (definitions paste nothing, calls name the whole identifier), and
    the lines of the calls changed. `known` says whether a whole name is CUDA's: one that is not (the project's
    own `cudaFoo`, with a `hipFoo` beside it for its HIP branch) takes the HIP prefix where the project's HIP
    definition pastes one."""
    if not macros:
        return source, []
    by_name = {m.name: m for m in macros}
    calls = re.compile(rb"(?<![\w.>:#])(" + "|".join(re.escape(n) for n in by_name).encode() + rb")\s*\(")
    if calls.search(source) is None:  # most files: no use and no definition (a short name like `cu` is everywhere)
        return source, []
    layout = Layout(source)
    code = layout.code
    edits: list[tuple[int, int, bytes]] = []
    for d in _definitions(code):
        macro = by_name.get(d.name)
        if macro is not None and macro.index == d.index:
            edits.append((d.span[0], d.span[1], _PASTE.match(code, *d.span).group(2)))
    lines = LineIndex(source)
    changed: list[int] = []
    for m in calls.finditer(code):
        if layout.in_directive(m.start()):  # a definition, or a use inside another macro (its argument is a parameter)
            continue
        macro = by_name[m.group(1).decode("ascii")]
        start = _argument_start(code, m.end(), macro.index)
        if start is None:
            continue
        word = _IDENTIFIER.match(code, start)
        if word is None:
            continue
        prefix = macro.prefix
        if macro.hip_prefix is not None and not known(prefix + word.group(1).decode("ascii")):
            prefix = macro.hip_prefix
        edits.append((word.start(1), word.start(1), prefix.encode()))
        changed.append(lines.line(m.start()))
    if not edits:
        return source, []
    return splice(source, sorted(edits)), sorted(set(changed))


def _argument_start(code: bytes, after_paren: int, index: int) -> int | None:
    """Offset of argument `index` of the call whose `(` ends at `after_paren`, or None (too few arguments, or the
    parentheses do not close in the file)."""
    depth, arg, pos, n = 0, 0, after_paren, len(code)
    if index == 0:
        return after_paren
    while pos < n:
        c = code[pos]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            if depth == 0:
                return None
            depth -= 1
        elif c == 44 and depth == 0:  # ','
            arg += 1
            if arg == index:
                return pos + 1
        pos += 1
    return None


__all__ = ["PastedMacro", "find_pasted_macros", "unpaste"]

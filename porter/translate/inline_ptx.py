"""Inline PTX rewritten to HIP (porter/data/ptx.toml): `asm("mov.u32 %0, %%laneid;" : "=r"(lane))` becomes
`lane = __lane_id()`, a `ld.global.nc.v4.f32` a float4 load, `lop3.b32` a call into porter_ptx.h.

An asm statement is rewritten only when every instruction in its template is one the table knows and every
operand is one this module can read; otherwise `rewrite` says which instruction stopped it, for the report. Pure:
a tree-sitter `gnu_asm_expression` in, the replacement text (or the reason there is none) out.
"""

from __future__ import annotations

import codecs
import functools
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import tree_sitter

from porter import syntax


@dataclass(frozen=True)
class PtxTable:
    special: dict[str, str]
    special_missing: dict[str, str]
    alu: dict[str, str]
    statements: dict[str, str]
    types: dict[str, str]
    vectors: dict[str, str]
    cache_hints: frozenset[str]
    scopes: dict[str, str]
    atomics: dict[str, str]
    mma: dict  # shapes, accumulators, bits, registers
    comparisons: dict[str, str]
    local_registers: dict[str, tuple[str, str]]


@functools.cache
def ptx_table() -> PtxTable:
    raw = tomllib.loads(resources.files("porter").joinpath("data", "ptx.toml").read_text("utf-8"))
    memory = raw["memory"]
    return PtxTable(raw["special_registers"], raw["special_registers_missing"], raw["alu"], raw["statements"],
                    raw["types"], raw["vectors"], frozenset(memory["cache_hints"]), memory["scopes"],
                    memory["atomics"], raw["mma"], raw["comparisons"],
                    {k: (v[0], v[1]) for k, v in raw["local_registers"].items()})


@dataclass(frozen=True)
class Operand:
    constraint: str  # without the modifiers: "r", "l", "f", "h", "d", "n"
    output: bool
    text: str  # the C++ expression


@dataclass(frozen=True)
class Rewrite:
    """The C++ statements that replace an asm statement (None: it stays), the PTX instructions it held, and
    where there is no rewrite, the instruction that stopped it and why."""

    statements: tuple[str, ...] | None
    instructions: tuple[str, ...]
    missing: str = ""
    why: str = ""

    def text(self) -> str:
        """One C++ statement (a block where it takes several), to stand where the asm statement stood."""
        assert self.statements is not None
        if not self.statements:
            return "(void)0;"
        if len(self.statements) == 1:
            return self.statements[0] + ("" if self.statements[0].startswith("{") else ";")
        return "{ " + " ".join(s if s.startswith("{") else s + ";" for s in self.statements) + " }"


_REF = re.compile(r"%(\d+|\[[A-Za-z_][A-Za-z0-9_]*\])")
_SIMPLE_EXPR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|->)[A-Za-z_][A-Za-z0-9_]*|\[[^\[\]]*\])*")
_INTEGER = re.compile(r"-?(?:0[xX][0-9A-Fa-f]+|\d+)[Uu]?")
_FLOAT_HEX = re.compile(r"0[fF]([0-9A-Fa-f]{8})")
_DOUBLE_HEX = re.compile(r"0[dD]([0-9A-Fa-f]{16})")
_ADDRESS = re.compile(r"\[\s*(\x00\d+\x00)\s*(?:\+\s*(-?(?:0[xX][0-9A-Fa-f]+|\d+)))?\s*\]")
_C_TYPE_BITS = {"h": 16, "r": 32, "l": 64}


class _Unsupported(Exception):
    def __init__(self, instruction: str, why: str) -> None:
        super().__init__(why)
        self.instruction, self.why = instruction, why


def rewrite(node: tree_sitter.Node, source: bytes,
            text_of: Callable[[int, int], str] | None = None) -> Rewrite:
    """The HIP statement(s) for the asm expression `node`, or why it stays PTX. `text_of(start, end)` gives an
    operand expression's text (the translator passes the source with its renames applied)."""
    template = _template(node, source)
    if template is None:
        return Rewrite(None, (), "asm", "the template is not a plain string literal (a macro in it?)")
    shown = tuple(_split_instructions(template.replace("%%", "%")))
    if not shown:
        return Rewrite(None, shown, "asm", "the template is empty")
    operands = _operands(node, source, text_of)
    if operands is None:
        return Rewrite(None, shown, _opcode(shown[0]), "an operand has a constraint porter does not read")
    named = {name: i for i, (name, _) in enumerate(operands) if name}
    ops = [op for _, op in operands]
    memory_clobber = any(c == "memory" for c in _clobbers(node, source))
    # operand references become \x00N\x00 so that `%%` can turn into `%` without touching them
    try:
        marked = _REF.sub(lambda m: f"\x00{_ref_index(m.group(1), named, len(ops))}\x00", template)
    except _Unsupported as e:
        return Rewrite(None, shown, _opcode(shown[0]), e.why)
    instructions = _split_instructions(marked.replace("%%", "%"))
    try:
        instructions, declarations = _local_registers(instructions, ops)
        statements = declarations + [s for i in instructions for s in _instruction(i, ops, memory_clobber)]
    except _Unsupported as e:
        return Rewrite(None, shown, _opcode(_shown(e.instruction)), e.why)
    repeated = [op.text for i, op in enumerate(ops) if marked.count(f"\x00{i}\x00") > 1 and _has_effects(op.text)]
    if repeated:
        return Rewrite(None, shown, _opcode(shown[0]),
                       f"operand `{repeated[0]}` is used more than once and may have side effects")
    return Rewrite(tuple(statements), shown)


def _split_instructions(template: str) -> list[str]:
    """The instructions of a template: separated by `;` or a newline, blank ones left out."""
    return [i.strip() for i in template.replace("\n", ";").split(";") if i.strip()]


def _opcode(instruction: str) -> str:
    return instruction.split(" ")[0]


_REG_DECL = re.compile(r"\.reg\s+\.(\w+)\s+(.+)")
_REG_NAME = re.compile(r"([A-Za-z_$][\w$]*)(?:<(\d+)>)?")


def _local_registers(instructions: list[str], ops: list[Operand]) -> tuple[list[str], list[str]]:
    """A `{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }` block: the braces go, each local register
    becomes a C++ local (appended to `ops` as an operand of its kind, its name in the instructions replaced by the
    operand's mark). (the instructions left, the locals' declarations)."""
    flat: list[str] = []
    for ins in instructions:  # braces open and close blocks, alone or around an instruction
        ins = ins.strip()
        while ins.startswith("{") and not ins.startswith("{\x00"):
            ins = ins[1:].strip()
        while ins.endswith("}") and not re.search(r"\{[^{}]*\}$", ins):
            ins = ins[:-1].strip()
        if ins:
            flat.append(ins)
    names: dict[str, int] = {}
    declarations: list[str] = []
    body = []
    for ins in flat:
        m = _REG_DECL.fullmatch(ins)
        if not m:
            body.append(ins)
            continue
        local_types = ptx_table().local_registers
        if m.group(1) not in local_types:
            raise _Unsupported(ins, f"a `.reg .{m.group(1)}` register is not rewritten")
        kind, c_type = local_types[m.group(1)]
        for decl in (d.strip() for d in m.group(2).split(",")):
            n = _REG_NAME.fullmatch(decl)
            if not n:
                raise _Unsupported(ins, f"register declaration `{decl}` is not one porter reads")
            for name in ([n.group(1)] if n.group(2) is None else [f"{n.group(1)}{k}" for k in range(int(n.group(2)))]):
                c_name = "porter_" + re.sub(r"\W", "_", name)
                names[name] = len(ops)
                ops.append(Operand(kind, True, c_name))
                declarations.append(f"{c_type} {c_name} = {'false' if kind == 'p' else '0'}")
    if not names:
        return body, []
    pattern = re.compile(r"(?<![\w$%.])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w$])")
    return [pattern.sub(lambda m: f"\x00{names[m.group(1)]}\x00", ins) for ins in body], declarations


def _has_effects(expr: str) -> bool:
    return "++" in expr or "--" in expr or "(" in expr or re.search(r"(?<![=!<>])=(?!=)", expr) is not None


_DOTLESS_PTX = frozenset({"trap", "exit", "ret", "brkpt", "pmevent", "nanosleep", "bra"})


def looks_like_ptx(instructions: tuple[str, ...]) -> bool:
    """PTX opcodes carry dotted qualifiers (`mov.u32`, `membar.gl`) but for a few; x86's (`cpuid`, `movl`) do not."""
    return any("." in _opcode(i) or _opcode(i) in _DOTLESS_PTX or i.startswith(("{", "@")) for i in instructions)


def _shown(instruction: str) -> str:
    return re.sub(r"\x00(\d+)\x00", r"%\1", instruction)


def _ref_index(ref: str, named: dict[str, int], count: int) -> int:
    if ref.startswith("["):
        if ref[1:-1] not in named:
            raise _Unsupported("asm", f"operand {ref} is not declared")
        return named[ref[1:-1]]
    if int(ref) >= count:
        raise _Unsupported("asm", f"operand %{ref} is not declared")
    return int(ref)


def _template(node: tree_sitter.Node, source: bytes) -> str | None:
    code = node.child_by_field_name("assembly_code")
    if code is None:
        return None
    literals = [code] if code.type == "string_literal" else list(code.named_children)
    parts = []
    for lit in literals:
        if lit.type != "string_literal":
            return None  # a macro or raw string in the template
        text = source[lit.start_byte : lit.end_byte].decode("utf-8", "replace")
        if not (text.startswith('"') and text.endswith('"')):
            return None  # u8"", L"" prefixes
        parts.append(codecs.decode(text[1:-1], "unicode_escape"))
    return "".join(parts)


def _operands(node: tree_sitter.Node, source: bytes,
              text_of: Callable[[int, int], str] | None) -> list[tuple[str, Operand]] | None:
    out: list[tuple[str, Operand]] = []
    for field in ("output_operands", "input_operands"):
        lst = node.child_by_field_name(field)
        if lst is None:
            continue
        for op in lst.named_children:
            if op.type not in ("gnu_asm_output_operand", "gnu_asm_input_operand"):
                continue
            constraint_node, value = op.child_by_field_name("constraint"), op.child_by_field_name("value")
            if constraint_node is None or value is None:
                return None
            symbol = op.child_by_field_name("symbol")
            raw = source[constraint_node.start_byte + 1 : constraint_node.end_byte - 1].decode()
            letters = raw.lstrip("=+&")
            if letters not in ("r", "l", "h", "f", "d", "n"):
                return None
            text = (text_of(value.start_byte, value.end_byte) if text_of is not None
                    else source[value.start_byte : value.end_byte].decode("utf-8", "replace"))
            out.append((source[symbol.start_byte : symbol.end_byte].decode() if symbol else "",
                        Operand(letters, field == "output_operands", text)))
    return out


def _clobbers(node: tree_sitter.Node, source: bytes) -> list[str]:
    lst = node.child_by_field_name("clobbers")
    if lst is None:
        return []
    return [source[c.start_byte + 1 : c.end_byte - 1].decode() for c in lst.named_children if c.type == "string_literal"]


def _split_operands(rest: str) -> list[str]:
    return syntax.split_top_level(rest, "{[", "}]")


def _instruction(text: str, ops: list[Operand], memory_clobber: bool) -> list[str]:
    table = ptx_table()
    if m := re.match(r"@(!?)(\x00\d+\x00)\s+(.+)", text):  # `@p instr`: under a local predicate register
        guard = _operand(m.group(2), ops, text)
        if guard.constraint != "p":
            raise _Unsupported(text, "the guard is not a predicate register")
        inner = _instruction(m.group(3), ops, memory_clobber)
        body = " ".join(s if s.startswith("{") else s + ";" for s in inner) or "(void)0;"
        return [f"if ({'!' if m.group(1) else ''}{guard.text}) {{ {body} }}"]
    if text.startswith(("{", "}", "@", ".reg", ".pragma")) or text.endswith(":"):
        raise _Unsupported(text, "predicates, labels and register blocks are not rewritten")
    opcode, _, rest = text.partition(" ")
    opcode, rest = opcode.strip(), rest.strip()
    args = _split_operands(rest) if rest else []
    if opcode in table.statements:
        return _statement(opcode, args, ops, text)
    head = opcode.split(".")[0]
    if opcode.startswith("cp.async."):
        return _fenced(_cp_async(opcode, args, ops, text), memory_clobber)
    if head == "ldmatrix":
        return _fenced(_ldmatrix(opcode, args, ops, text), memory_clobber)
    if head == "mma":
        return [_mma(opcode, args, ops, text)]
    if head in ("setp", "selp"):
        return [_predicate(opcode, args, ops, text)]
    if head in ("ld", "st"):
        return _fenced(_load_store(opcode, args, ops, text), memory_clobber)
    if head in ("red", "atom"):
        return _fenced(_atomic(opcode, args, ops, text), memory_clobber)
    if head == "shfl":
        return [_shuffle(opcode, args, ops, text)]
    if head == "mov" and len(args) == 2 and (args[0].startswith("{") or args[1].startswith("{")):
        return _pack(opcode, args, ops, text)
    template = table.alu.get(opcode)
    if template is None:
        raise _Unsupported(text, "not in porter's table of PTX rewrites")
    used = {int(i) for i in re.findall(r"\{(\d+)\}", template)}
    if used != set(range(len(args))):
        raise _Unsupported(text, f"`{opcode}` with {len(args)} operands is not the form porter rewrites")
    element = opcode.rsplit(".", 1)[-1]
    c_type = table.types.get(element, "")
    classes = {_operand(a, ops, text).constraint for a in args if a.startswith("\x00")}
    if head == "mov":
        return [_mov(args, ops, text, c_type)]
    if head != "cvt" and c_type and (classes & {"f", "d"}) and not element.startswith("f"):
        raise _Unsupported(text, f"`{opcode}` on float operands (a bit trick) is not rewritten")
    if head != "cvt" and element.startswith("f") and classes - {"f", "d", "n"}:
        raise _Unsupported(text, f"`{opcode}` on integer operands is not rewritten")
    dest = _lvalue(args[0], ops, text)
    values = [dest] + [_rvalue(a, ops, text, c_type) for a in args[1:]]
    return [template.format(*values)]


_BITS_AS = {("r", "f"): "__uint_as_float", ("f", "r"): "__float_as_uint", ("l", "d"): "__longlong_as_double",
            ("d", "l"): "__double_as_longlong"}


def _mov(args: list[str], ops: list[Operand], text: str, c_type: str) -> str:
    """mov copies bits: between a float and an integer operand it is a reinterpretation, not a conversion."""
    dest = _lvalue(args[0], ops, text)
    source = _rvalue(args[1], ops, text, c_type)
    to = _operand(args[0], ops, text).constraint
    if args[1].startswith("\x00"):
        frm = _operand(args[1], ops, text).constraint
        if frm != to:
            if (frm, to) not in _BITS_AS:
                raise _Unsupported(text, f"mov between `{frm}` and `{to}` operands is not rewritten")
            return f"{dest} = {_BITS_AS[(frm, to)]}({source})"
        if to not in ("f", "d"):  # an "l" operand may hold a pointer
            return f"{dest} = (__typeof__({dest}))({source})"
    return f"{dest} = {source}"


def _statement(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    hip = ptx_table().statements[opcode]
    if opcode.startswith(("bar", "barrier")):
        if len(args) != 1:
            raise _Unsupported(text, "a barrier with a thread count (named barrier) has no HIP counterpart")
        return [hip]
    if opcode.startswith("prefetch"):
        return []  # a hint; the address expression has no side effects worth keeping
    if "{0}" in hip:
        if len(args) != 1:
            raise _Unsupported(text, f"`{opcode}` with {len(args)} operands is not the form porter rewrites")
        return [hip.format(_rvalue(args[0], ops, text, "unsigned int"))]
    if args:
        raise _Unsupported(text, f"`{opcode}` with operands is not the form porter rewrites")
    return [hip]


def _fenced(statements: list[str], memory_clobber: bool) -> list[str]:
    """A "memory" clobber keeps the compiler from moving memory accesses across the asm: so does a signal fence."""
    if not memory_clobber:
        return statements
    fence = "__atomic_signal_fence(__ATOMIC_SEQ_CST)"
    return [fence, *statements, fence]


def _operand(arg: str, ops: list[Operand], text: str) -> Operand:
    m = re.fullmatch(r"\x00(\d+)\x00", arg)
    if not m:
        raise _Unsupported(text, f"operand `{_shown(arg)}` is not an asm operand")
    return ops[int(m.group(1))]


def _lvalue(arg: str, ops: list[Operand], text: str) -> str:
    op = _operand(arg, ops, text)
    if not op.output:
        raise _Unsupported(text, f"the destination `{_shown(arg)}` is an input operand")
    return op.text if _SIMPLE_EXPR.fullmatch(op.text) else f"({op.text})"


def _rvalue(arg: str, ops: list[Operand], text: str, c_type: str) -> str:
    table = ptx_table()
    if arg.startswith("\x00"):
        op = _operand(arg, ops, text)
        return op.text if _SIMPLE_EXPR.fullmatch(op.text) else f"({op.text})"
    if arg in table.special:
        hip = table.special[arg]
        return f"static_cast<{c_type}>({hip})" if c_type else hip
    if arg in table.special_missing:
        raise _Unsupported(text, table.special_missing[arg])
    if arg.startswith("%"):
        raise _Unsupported(text, f"PTX register `{arg}` has no HIP counterpart in porter's table")
    if m := _FLOAT_HEX.fullmatch(arg):
        return f"__uint_as_float(0x{m.group(1)}u)"
    if m := _DOUBLE_HEX.fullmatch(arg):
        return f"__longlong_as_double(0x{m.group(1)}ll)"
    if _INTEGER.fullmatch(arg):
        return arg if arg.lower().endswith("u") or arg.startswith("-") else arg + "u"
    raise _Unsupported(text, f"operand `{_shown(arg)}` is not one porter reads")


def _qualifiers(opcode: str) -> tuple[str, list[str]]:
    parts = opcode.split(".")
    return parts[0], parts[1:]


def _address(arg: str, ops: list[Operand], text: str, c_type: str, const: bool, shared: bool = False) -> str:
    """A C++ pointer to `c_type` for `[%0]` / `[%0+8]`; `shared`: the operand is a shared-window address (32- or
    64-bit, from __cvta_generic_to_shared or cvta.to.shared), made a pointer by porter_ptx_warp.h's conversion."""
    m = _ADDRESS.fullmatch(arg)
    if not m:
        raise _Unsupported(text, f"address `{_shown(arg)}` is not an operand plus an optional offset")
    op = _operand(m.group(1), ops, text)
    qual = "const " if const else ""
    if shared:
        if op.constraint not in ("r", "l"):
            raise _Unsupported(text, "the shared-memory address is not an integer operand")
        window = _window_address(arg, ops, text)
        return f"({qual}{c_type}*)__cvta_shared_to_generic({window})"
    if op.constraint != "l":
        raise _Unsupported(text, "a 32-bit address (a shared-memory window offset) is not rewritten")
    base = op.text if _SIMPLE_EXPR.fullmatch(op.text) else f"({op.text})"
    if m.group(2):
        return f"({qual}{c_type}*)((const char*)({base}) + {m.group(2)})"
    return f"({qual}{c_type}*)({base})"


def _access(quals: list[str], text: str) -> tuple[str, list[str], str, str | None, str | None, bool]:
    """(element type, vector shape, state space, ordering, scope, volatile) from ld/st qualifiers."""
    table = ptx_table()
    space, order, scope, volatile, vector = "generic", None, None, False, ""
    for q in quals[:-1]:
        if q in ("global", "shared", "local", "const", "param", "shared::cta", "shared::cluster"):
            space = q
        elif q in ("weak",):
            pass
        elif q in ("relaxed", "acquire", "release"):
            order = q
        elif q in ("cta", "gpu", "sys"):
            scope = q
        elif q == "volatile":
            volatile = True
        elif q in ("v2", "v4", "v8"):
            vector = q
        elif q not in table.cache_hints:
            raise _Unsupported(text, f"`.{q}` is not a qualifier porter rewrites")
    element = quals[-1] if quals else ""
    if element not in table.types:
        raise _Unsupported(text, f"element type `.{element}` is not one porter rewrites")
    if space not in ("global", "generic", "shared", "shared::cta"):
        raise _Unsupported(text, f"`.{space}` accesses are not rewritten (only global, generic and shared addresses)")
    return element, [vector] if vector else [], space, order, scope, volatile


def _load_store(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    table = ptx_table()
    head, quals = _qualifiers(opcode)
    if len(quals) >= 2 and quals[-1] in ("v2", "v4") and quals[-2] in table.types:
        quals = [*quals[:-2], quals[-1], quals[-2]]  # `ld.global.cg.f32.v2`, which ptxas takes as `.v2.f32`
    element, vector, space, order, scope, volatile = _access(quals, text)
    shared = space.startswith("shared")
    if shared and (order or scope):
        raise _Unsupported(text, f"`{opcode}`: ordered shared-memory accesses are not rewritten")
    if len(args) != 2:
        raise _Unsupported(text, f"`{opcode}` with {len(args)} operands (a cache policy?) is not rewritten")
    data, where = (args[0], args[1]) if head == "ld" else (args[1], args[0])
    first = _split_operands(data.strip()[1:-1])[0] if data.startswith("{") else data
    constraint = _operand(first, ops, text).constraint if first.startswith("\x00") else ""
    if element.startswith("b") and constraint in ("f", "d"):  # float bits moved as .b32/.b64
        element = {"f": "f32", "d": "f64"}[constraint]
        if int(quals[-1][1:]) != (32 if constraint == "f" else 64):
            raise _Unsupported(text, f"`{opcode}` into a `{constraint}` operand is not rewritten")
    elif element.startswith("f") != (constraint in ("f", "d")) and constraint:
        raise _Unsupported(text, f"`{opcode}` with a `{constraint}` operand is not rewritten")
    scalar = table.types[element]
    # .cg (cached in L2 only) and .cv (fetched again) loads see what other blocks wrote: on AMD, whose L1 is not
    # coherent between compute units, that takes a device-scope (system-scope for .cv) relaxed atomic load
    coherent = None if head != "ld" or order or volatile or shared else (
        "__HIP_MEMORY_SCOPE_SYSTEM" if "cv" in quals else "__HIP_MEMORY_SCOPE_AGENT" if "cg" in quals else None)
    if vector:
        count = int(vector[0][1:])
        # .v8 (sm_100's 256-bit accesses, 32-bit elements only) as two 4-element halves
        shape = f"v{min(count, 4)}.{element}"
        if shape not in table.vectors or (count == 8 and table.types[element] not in ("unsigned int", "int", "float")):
            raise _Unsupported(text, f"`{opcode}` is not a vector access porter rewrites")
        vtype = table.vectors[shape]
        parts = _split_operands(data.strip()[1:-1]) if data.startswith("{") else []
        if len(parts) != count:
            raise _Unsupported(text, "the vector operand does not list one operand per lane")
        address = _address(where, ops, text, vtype, head == "ld", shared)
        if volatile:
            raise _Unsupported(text, "volatile vector accesses are not rewritten")
        if (head == "ld" and coherent) or order:
            # PTX models a vector access as one access per element, in no set order: element by element
            if order and order != "relaxed" and (order == "acquire") != (head == "ld"):
                raise _Unsupported(text, f"`.{order}` on `{head}` is not a PTX form porter rewrites")
            hip_scope = table.scopes.get(scope or "gpu") if order else coherent
            if hip_scope is None:
                raise _Unsupported(text, f"scope `.{scope}` is not rewritten")
            memory_order = {None: "__ATOMIC_RELAXED", "relaxed": "__ATOMIC_RELAXED", "acquire": "__ATOMIC_ACQUIRE",
                            "release": "__ATOMIC_RELEASE"}[order]
            base = _ADDRESS.fullmatch(where)
            if base is None or _has_effects(_operand(base.group(1), ops, text).text):
                raise _Unsupported(text, "the address of an ordered or coherent vector access is read once per "
                                         "element here")
            each = _address(where, ops, text, scalar, False)
            if head == "ld":
                return ["{ " + " ".join(f"{_lvalue(p, ops, text)} = __hip_atomic_load(({each}) + {k}, {memory_order}, "
                                       f"{hip_scope});" for k, p in enumerate(parts)) + " }"]
            return ["{ " + " ".join(f"__hip_atomic_store(({each}) + {k}, {_rvalue(p, ops, text, scalar)}, "
                                   f"{memory_order}, {hip_scope});" for k, p in enumerate(parts)) + " }"]
        halves = [parts[i : i + 4] for i in range(0, count, 4)]
        if head == "ld":
            if count < 8:
                lanes = ["x", "y", "z", "w"][:count]
                dests = [_lvalue(p, ops, text) for p in parts]
                return ["{ const " + vtype + " porter_v = *(" + address + "); "
                        + "; ".join(f"{d} = porter_v.{lane}" for d, lane in zip(dests, lanes, strict=True)) + "; }"]
            loads = []
            for h, half in enumerate(halves):
                name = f"porter_v{h}"
                loads.append(f"const {vtype} {name} = ({address})[{h}]; "
                             + " ".join(f"{_lvalue(p, ops, text)} = {name}.{lane};"
                                        for p, lane in zip(half, "xyzw", strict=True)))
            return ["{ " + " ".join(loads) + " }"]
        if count < 8:
            values = [_rvalue(p, ops, text, scalar) for p in parts]
            return [f"*({address}) = make_{vtype}({', '.join(values)})"]
        return ["{ " + " ".join(f"({address})[{h}] = make_{vtype}({', '.join(_rvalue(p, ops, text, scalar) for p in half)});"
                                for h, half in enumerate(halves)) + " }"]
    if order and order != "relaxed" and (order == "acquire") != (head == "ld"):
        raise _Unsupported(text, f"`.{order}` on `{head}` is not a PTX form porter rewrites")
    if order:
        hip_scope = table.scopes.get(scope or "gpu")
        if hip_scope is None:
            raise _Unsupported(text, f"scope `.{scope}` is not rewritten")
        memory_order = {"relaxed": "__ATOMIC_RELAXED", "acquire": "__ATOMIC_ACQUIRE", "release": "__ATOMIC_RELEASE"}[order]
        address = _address(where, ops, text, scalar, False)
        if head == "ld":
            return [f"{_lvalue(data, ops, text)} = __hip_atomic_load({address}, {memory_order}, {hip_scope})"]
        return [f"__hip_atomic_store({address}, {_rvalue(data, ops, text, scalar)}, {memory_order}, {hip_scope})"]
    if coherent:
        address = _address(where, ops, text, scalar, False)
        return [f"{_lvalue(data, ops, text)} = __hip_atomic_load({address}, __ATOMIC_RELAXED, {coherent})"]
    qualified = f"volatile {scalar}" if volatile else scalar
    address = _address(where, ops, text, qualified, head == "ld", shared)
    if head == "ld":
        return [f"{_lvalue(data, ops, text)} = *({address})"]
    return [f"*({address}) = static_cast<{scalar}>({_rvalue(data, ops, text, scalar)})"]


def _atomic(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    table = ptx_table()
    head, quals = _qualifiers(opcode)
    op = next((q for q in quals if q in table.atomics), None)
    element = quals[-1] if quals else ""
    if op is None or element not in table.types or (element == "f64" and op != "add"):
        raise _Unsupported(text, f"`{opcode}` is not an atomic porter rewrites")
    scope = None
    for q in quals:
        if q in (op, element, "global", "gpu", "relaxed"):
            continue
        if q in ("cta", "sys"):
            scope = q
        else:
            raise _Unsupported(text, f"`.{q}` on `{head}` is not rewritten (only relaxed global atomics)")
    name = table.atomics[op]
    if scope == "cta":
        name += "_block"
    elif scope == "sys":
        if op != "add":
            raise _Unsupported(text, f"`{opcode}`: only add has a _system form on every ROCm porter supports")
        name += "_system"
    scalar = table.types[element]
    if scalar in ("unsigned char", "signed char", "unsigned short", "short"):
        raise _Unsupported(text, f"`{opcode}`: HIP has no {element} atomics")
    if element.startswith("b"):  # .b32/.b64: HIP's atomics take unsigned
        scalar = {"unsigned int": "unsigned int", "unsigned long long": "unsigned long long"}[scalar]
    values_at = 1 if head == "red" else 2
    expected = values_at + (2 if op == "cas" else 1)
    if len(args) != expected:
        raise _Unsupported(text, f"`{opcode}` with {len(args)} operands is not the form porter rewrites")
    address = _address(args[values_at - 1], ops, text, scalar, False)
    values = [f"static_cast<{scalar}>({_rvalue(a, ops, text, scalar)})" for a in args[values_at:]]
    call = f"{name}({address}, {', '.join(values)})"
    if head == "red":
        return [call]
    return [f"{_lvalue(args[0], ops, text)} = {call}"]


def _pack(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    """`mov.b32 %0, {%1, %2}` (pack two halves, the first the low one) and `mov.b32 {%0, %1}, %2` (unpack)."""
    bits = {"mov.b32": 32, "mov.b64": 64, "mov.u32": 32, "mov.u64": 64}.get(opcode)
    if bits is None:
        raise _Unsupported(text, f"`{opcode}` with a vector operand is not rewritten")
    whole_type = "unsigned int" if bits == 32 else "unsigned long long"
    if args[1].startswith("{"):
        parts = _split_operands(args[1].strip()[1:-1])
        halves = [_operand(p, ops, text) for p in parts]
        if len(parts) != 2 or any(_C_TYPE_BITS.get(h.constraint) != bits // 2 for h in halves):
            raise _Unsupported(text, "the packed halves are not two operands of half the width")
        half_type = "unsigned short" if bits == 32 else "unsigned int"
        lo, hi = (_rvalue(p, ops, text, half_type) for p in parts)
        return [f"{_lvalue(args[0], ops, text)} = static_cast<{whole_type}>(static_cast<{half_type}>({lo})) | "
                f"(static_cast<{whole_type}>(static_cast<{half_type}>({hi})) << {bits // 2})"]
    parts = _split_operands(args[0].strip()[1:-1])
    halves = [_operand(p, ops, text) for p in parts]
    if len(parts) != 2 or any(_C_TYPE_BITS.get(h.constraint) != bits // 2 for h in halves):
        raise _Unsupported(text, "the unpacked halves are not two operands of half the width")
    half_type = "unsigned short" if bits == 32 else "unsigned int"
    whole = _rvalue(args[1], ops, text, whole_type)
    lo, hi = (_lvalue(p, ops, text) for p in parts)
    if _has_effects(whole):  # read once, as the asm operand was
        return [f"{{ const {whole_type} porter_w = {whole}; {lo} = static_cast<{half_type}>(porter_w); "
                f"{hi} = static_cast<{half_type}>(porter_w >> {bits // 2}); }}"]
    return [f"{lo} = static_cast<{half_type}>(static_cast<{whole_type}>({whole}))",
            f"{hi} = static_cast<{half_type}>(static_cast<{whole_type}>({whole}) >> {bits // 2})"]


def _predicate(opcode: str, args: list[str], ops: list[Operand], text: str) -> str:
    """setp.<cmp>.<type> p, a, b (integers and floats, ordered comparisons) and selp.<type> d, a, b, p."""
    parts = opcode.split(".")
    c_type = ptx_table().types.get(parts[-1], "")
    if not c_type or len(parts) != (3 if parts[0] == "setp" else 2):
        raise _Unsupported(text, f"`{opcode}` is not a form porter rewrites")
    if parts[0] == "setp":
        comparisons = ptx_table().comparisons
        if len(args) != 3 or "|" in args[0] or parts[1] not in comparisons:
            raise _Unsupported(text, f"`{opcode}` is not a comparison porter rewrites")
        if _operand(args[0], ops, text).constraint != "p":
            raise _Unsupported(text, "setp's destination is not a predicate register")
        a, b = (f"static_cast<{c_type}>({_rvalue(x, ops, text, c_type)})" for x in args[1:])
        return f"{_lvalue(args[0], ops, text)} = {a} {comparisons[parts[1]]} {b}"
    if len(args) != 4 or _operand(args[3], ops, text).constraint != "p":
        raise _Unsupported(text, f"`{opcode}` without a predicate register is not rewritten")
    a, b = (_rvalue(x, ops, text, c_type) for x in args[1:3])
    return f"{_lvalue(args[0], ops, text)} = {_rvalue(args[3], ops, text, '')} ? {a} : {b}"


def _window_address(arg: str, ops: list[Operand], text: str) -> str:
    """`[%0]` or `[%0+16]` with a shared-window (or global) address operand, 32- or 64-bit, as an integer."""
    m = _ADDRESS.fullmatch(arg)
    if not m:
        raise _Unsupported(text, f"address `{_shown(arg)}` is not an operand plus an optional offset")
    op = _operand(m.group(1), ops, text)
    if op.constraint not in ("r", "l"):
        raise _Unsupported(text, f"address operand `{op.text}` is not an integer or pointer operand")
    base = op.text if _SIMPLE_EXPR.fullmatch(op.text) else f"({op.text})"
    return f"{base} + {m.group(2)}" if m.group(2) else base


def _cp_async(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    """cp.async.{ca,cg}.shared.global [dst], [src], bytes[, src_bytes][, policy] -> porter_ptx_warp.h's copy, done at
    once (commit_group and wait_group then have nothing to wait for)."""
    quals = opcode.split(".")[2:]
    if quals in (["commit_group"], ["wait_all"]) and not args:
        return []
    if quals == ["wait_group"] and len(args) == 1 and (
            _INTEGER.fullmatch(args[0]) or (args[0].startswith("\x00") and _operand(args[0], ops, text).constraint == "n")):
        return []
    if (len(quals) < 3 or quals[0] not in ("ca", "cg") or quals[1] not in ("shared", "shared::cta")
            or quals[2] != "global"):
        raise _Unsupported(text, f"`{opcode}` is not a cp.async form porter rewrites (bulk copies and mbarriers stay)")
    extra = quals[3:]
    if any(q not in ("L2::64B", "L2::128B", "L2::256B", "L2::cache_hint") for q in extra):
        raise _Unsupported(text, f"`{opcode}` has a qualifier porter does not rewrite")
    rest = args[3:-1] if "L2::cache_hint" in extra else args[3:]  # the cache policy, a hint, goes
    if len(args) < 3 or len(rest) > 1:
        raise _Unsupported(text, f"`{opcode}` with {len(args)} operands is not the form porter rewrites")
    size = _rvalue(args[2], ops, text, "unsigned int")
    if not _INTEGER.fullmatch(args[2]) and _operand(args[2], ops, text).constraint != "n":
        raise _Unsupported(text, "the copy size is not a constant")
    src_size = f", {_rvalue(rest[0], ops, text, 'unsigned int')}" if rest else ""
    return [f"porter_cp_async({_window_address(args[0], ops, text)}, {_window_address(args[1], ops, text)}, "
            f"{size}{src_size})"]


def _ldmatrix(opcode: str, args: list[str], ops: list[Operand], text: str) -> list[str]:
    """ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16 {d...}, [addr] -> porter_ptx_warp.h's shuffles."""
    quals = set(opcode.split(".")[1:])
    count = next((int(q[1]) for q in quals if q in ("x1", "x2", "x4")), 0)
    trans = "trans" in quals
    known = {"sync", "aligned", "m8n8", "b16", "trans", "x1", "x2", "x4"}
    if (not count or not {"sync", "aligned", "m8n8", "b16"} <= quals or len(quals & {"shared", "shared::cta"}) != 1
            or quals - known - {"shared", "shared::cta"}):
        raise _Unsupported(text, f"`{opcode}` is not an ldmatrix form porter rewrites")
    if len(args) != 2 or not args[0].startswith("{"):
        raise _Unsupported(text, f"`{opcode}` with these operands is not the form porter rewrites")
    dests = [_lvalue(d, ops, text) for d in _split_operands(args[0].strip()[1:-1])]
    if len(dests) != count or any(_operand(d, ops, text).constraint != "r"
                                  for d in _split_operands(args[0].strip()[1:-1])):
        raise _Unsupported(text, f"`{opcode}` needs {count} 32-bit destination operands")
    address = _window_address(args[1], ops, text)
    sets = " ".join(f"{d} = porter_m[{k}];" for k, d in enumerate(dests))
    return [f"{{ unsigned porter_m[{count}]; porter_ldmatrix<{'true' if trans else 'false'}>(porter_m, {address}); {sets} }}"]


def _mma(opcode: str, args: list[str], ops: list[Operand], text: str) -> str:
    """mma.sync on a 16x8 tile -> porter_ptx_warp.h's porter_mma_m16n8 (shuffles and vector arithmetic)."""
    table = ptx_table().mma
    shapes, accumulators, bits, registers = table["shapes"], table["accumulators"], table["bits"], table["registers"]
    quals = opcode.split(".")[1:]
    satfinite = "satfinite" in quals
    quals = [q for q in quals if q != "satfinite"]
    if len(quals) != 9 or quals[:2] != ["sync", "aligned"] or quals[3:5] != ["row", "col"] or quals[2] not in shapes:
        raise _Unsupported(text, f"`{opcode}` is not an mma.sync form porter rewrites (m16n8k8/k16/k32, row.col)")
    shape, (d_type, a_type, b_type, c_type) = quals[2], quals[5:]
    k = int(shape.split("k")[1])
    signed_pair = {a_type, b_type} <= {"s8", "u8"}
    if (a_type not in shapes[shape] or (b_type != a_type and not signed_pair)
            or d_type not in accumulators[a_type] or c_type != d_type  # (ptxas: .dtype as .ctype for m16n8)
            or (satfinite and d_type != "s32")):
        raise _Unsupported(text, f"`{opcode}`: this combination of types is not one porter rewrites")
    if len(args) != 4 or not all(a.startswith("{") for a in args):
        raise _Unsupported(text, f"`{opcode}` needs four register lists")
    groups = [_split_operands(a.strip()[1:-1]) for a in args]
    a_regs, b_regs = k // 2 * bits[a_type] // 32, k // 4 * bits[b_type] // 32
    wanted = [2 if d_type == "f16" else 4, a_regs, b_regs, 2 if c_type == "f16" else 4]
    if [len(g) for g in groups] != wanted:
        raise _Unsupported(text, f"`{opcode}` takes {wanted} registers for d, a, b, c")

    def bits_in(arg: str) -> str:  # an A or B register: 32 bits of packed elements
        if arg.startswith("\x00") and _operand(arg, ops, text).constraint == "f":
            return f"__float_as_uint({_rvalue(arg, ops, text, '')})"
        return f"static_cast<unsigned>({_rvalue(arg, ops, text, 'unsigned int')})"

    def acc_in(arg: str, kind: str) -> str:
        constraint = _operand(arg, ops, text).constraint if arg.startswith("\x00") else ""
        value = _rvalue(arg, ops, text, "" if kind == "f32" else "unsigned int")
        if kind == "f32":
            return f"__uint_as_float({value})" if constraint == "r" else value
        return f"static_cast<{registers[kind]}>({value})"

    def acc_out(arg: str, k: int) -> str:
        constraint = _operand(arg, ops, text).constraint
        if d_type == "f32" and constraint == "r":
            return f"{_lvalue(arg, ops, text)} = __float_as_uint(porter_d[{k}]);"
        if (d_type == "f32") != (constraint == "f"):
            raise _Unsupported(text, f"the destination `{_shown(arg)}` is not a `{d_type}` register")
        return f"{_lvalue(arg, ops, text)} = porter_d[{k}];"

    tags = ", ".join(f"porter_mma_{t}" for t in (d_type, a_type, b_type, c_type))
    d_c, c_c = registers[d_type], registers[c_type]
    return ("{ " + f"{d_c} porter_d[{wanted[0]}]; "
            + f"const unsigned porter_a[{a_regs}] = {{{', '.join(bits_in(a) for a in groups[1])}}}; "
            + f"const unsigned porter_b[{b_regs}] = {{{', '.join(bits_in(b) for b in groups[2])}}}; "
            + f"const {c_c} porter_c[{wanted[3]}] = {{{', '.join(acc_in(c, c_type) for c in groups[3])}}}; "
            + f"porter_mma_m16n8<{k}, {tags}, {'true' if satfinite else 'false'}>(porter_d, porter_a, porter_b, porter_c); "
            + " ".join(acc_out(d, i) for i, d in enumerate(groups[0])) + " }")


_SHUFFLES = {"bfly": "__shfl_xor", "down": "__shfl_down", "up": "__shfl_up", "idx": "__shfl"}


def _shuffle(opcode: str, args: list[str], ops: list[Operand], text: str) -> str:
    """shfl[.sync].{bfly,down,up,idx}.b32 d, a, b, c[, membermask] -> CUDA's __shfl_*[_sync] (which porter then
    ports like user-written ones): c packs the segment mask ((32 - width) << 8) and the clamp (31, or 0 for up)."""
    parts = opcode.split(".")
    synced = "sync" in parts
    mode = next((q for q in parts if q in _SHUFFLES), None)
    if mode is None or parts[-1] != "b32" or len(parts) != (4 if synced else 3):
        raise _Unsupported(text, f"`{opcode}` is not a shuffle porter rewrites")
    if len(args) != (5 if synced else 4) or "|" in args[0]:
        raise _Unsupported(text, f"`{opcode}` with {len(args)} operands (or a predicate output) is not rewritten")
    c = args[3]
    if not _INTEGER.fullmatch(c):
        raise _Unsupported(text, "the shuffle's clamp and segment operand is not a constant")
    packed = int(c.rstrip("uU"), 0)
    width = 32 - ((packed >> 8) & 0x1f)
    if width not in (1, 2, 4, 8, 16, 32) or (packed & 0x1f) != (0 if mode == "up" else 0x1f) or packed >> 13:
        raise _Unsupported(text, f"clamp and segment `{c}` is not what __shfl_*(..., width) produces")
    dest, value = _operand(args[0], ops, text), _operand(args[1], ops, text)
    if dest.constraint != value.constraint or dest.constraint not in ("r", "f"):
        raise _Unsupported(text, "a shuffle between different operand kinds is not rewritten")
    call = _SHUFFLES[mode] + ("_sync" if synced else "")
    lane = _rvalue(args[2], ops, text, "unsigned int")
    head = f"{_member_mask(args[4], ops, text)}, " if synced else ""
    return f"{_lvalue(args[0], ops, text)} = {call}({head}{_rvalue(args[1], ops, text, '')}, {lane}, {width})"


def _member_mask(arg: str, ops: list[Operand], text: str) -> str:
    """HIP's *_sync functions take 64-bit masks: all 32 lanes become all lanes (as porter's hazard fix does for the
    same literal written by hand), another mask is widened."""
    if _INTEGER.fullmatch(arg) and int(arg.rstrip("uU"), 0) == 0xFFFFFFFF:
        return "0xffffffffffffffffULL"
    return f"static_cast<unsigned long long>({_rvalue(arg, ops, text, 'unsigned int')})"


_STRING_MACRO = re.compile(rb'^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+("[^"\\\n]*")[ \t]*(?://[^\n]*|/\*[^\n]*)?$', re.M)
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/|[()]', re.S)


@functools.lru_cache(maxsize=8)
def string_macros(source: bytes) -> dict[bytes, bytes]:
    """Object-like macros defined as one string literal (`#define __PTR "l"`). A name defined both "l" and "r" (a
    pointer constraint chosen by `#if __LP64__`) reads "l": ROCm hosts are 64-bit. Other conflicts are left out."""
    if b"define" not in source:
        return {}
    values: dict[bytes, set[bytes]] = {}
    for m in _STRING_MACRO.finditer(source):
        values.setdefault(m.group(1), set()).add(m.group(2))
    out = {}
    for name, found in values.items():
        if len(found) == 1:
            out[name] = next(iter(found))
        elif found == {b'"l"', b'"r"'}:
            out[name] = b'"l"'
    return out


def _closing_paren(text: bytes, start: int) -> tuple[int, list[tuple[int, int]]]:
    """The end of the parenthesis the first `(` from `start` opens (-1: none), counted outside literals and
    comments, and the spans of the literals and comments before it."""
    depth, spans = 0, []
    for m in _TOKEN.finditer(text, text.find(b"(", start)):
        token = m.group()
        if token == b"(":
            depth += 1
        elif token == b")":
            depth -= 1
            if depth == 0:
                return m.end(), spans
        else:
            spans.append((m.start(), m.end()))
    return -1, spans


_WRAPPER_HEAD = b"void porter_asm() { "


def _parsed_asm_statement(statement: bytes) -> tuple[tree_sitter.Node, bytes] | None:
    """`statement` (an asm statement, its `;` included) parsed inside a function: its asm node and the text the
    node's offsets refer to (the statement at len(_WRAPPER_HEAD)), or None where it does not parse as one."""
    wrapper = _WRAPPER_HEAD + statement + b" }"
    node = syntax.parse(wrapper).root_node.descendant_for_byte_range(len(_WRAPPER_HEAD), len(_WRAPPER_HEAD) + 3)
    while node is not None and node.type != "gnu_asm_expression":
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "expression_statement" or node.parent.has_error:
        return None
    return node, wrapper


def rewrite_with_string_macros(source: bytes, offset: int) -> tuple[int, Rewrite] | None:
    """An asm statement at `offset` whose operands spell their constraint with a macro of the file (LULESH's
    `: __PTR(ptr)` with `#define __PTR "l"`), which the grammar cannot read: the statement is read again with the
    macro's string in place of its name. (end of the statement, its rewrite), or None."""
    macros = string_macros(source)
    if not macros:
        return None
    end, spans = _closing_paren(source, offset)  # the parenthesis closing the asm's
    semicolon = re.compile(rb"\s*;").match(source, end) if end > 0 else None
    if semicolon is None:
        return None
    names = re.compile(rb"\b(" + b"|".join(re.escape(n) for n in macros) + rb")(?=\s*\()")
    pieces, pos = [], offset
    for hit in names.finditer(source, offset, end):
        if any(s <= hit.start() < e for s, e in spans):
            continue  # inside the template or a comment
        pieces += [source[pos : hit.start()], macros[hit.group(1)]]
        pos = hit.end()
    if not pieces:
        return None
    parsed = _parsed_asm_statement(b"".join(pieces) + source[pos : semicolon.end()])
    return (semicolon.end(), rewrite(*parsed)) if parsed is not None else None


_DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define\b", re.M)


def rewrite_in_macro(source: bytes, offset: int,
                     text_of: Callable[[int, int], str] | None = None) -> tuple[tuple[int, int], Rewrite, str] | None:
    """An asm statement in a `#define`'s body (`#define CP_ASYNC_CG(dst, src, n) asm volatile("cp.async..." ...)`),
    which the grammar keeps as text: read again as a statement with the continuations blanked (same length, so
    offsets hold). ((start, end) in `source`, its rewrite, the text to put there), or None. The asm followed by
    `;` in the body is replaced with it; the asm ending the body becomes `do { ... } while (0)`, so that the
    macro's uses keep their own `;`. `text_of` gives an operand's text by offsets in `source`."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    while line_start > 0 and source[max(0, line_start - 3) : line_start - 1].rstrip(b"\r").endswith(b"\\"):
        line_start = source.rfind(b"\n", 0, line_start - 1) + 1  # the line before continues into this one
    if not _DEFINE_LINE.match(source, line_start):
        return None
    body_end = offset
    while True:  # the macro ends at the first line that does not end with a backslash
        nl = source.find(b"\n", body_end)
        if nl < 0:
            body_end = len(source)
            break
        if not source[body_end:nl].rstrip(b"\r").endswith(b"\\"):
            body_end = nl
            break
        body_end = nl + 1
    body = re.sub(rb"\\\r?\n", lambda m: b" " * len(m.group()), source[offset:body_end])
    end, _ = _closing_paren(body, 0)
    if end < 0:
        return None
    semicolon = re.compile(rb"\s*;").match(body, end)
    tail = body[semicolon.end() if semicolon else end :].strip()
    if not semicolon and tail:
        return None  # the asm is part of a larger expression
    parsed = _parsed_asm_statement(body[:end] + b";")
    if parsed is None:
        return None
    node, wrapper = parsed
    shift = offset - len(_WRAPPER_HEAD)
    params = _macro_parameters(source, line_start)

    def operand_text(a: int, b: int) -> str:  # a macro parameter may stand for any expression: parenthesized
        text = text_of(a + shift, b + shift) if text_of is not None else wrapper[a:b].decode("utf-8", "replace")
        return f"({text})" if text.strip() in params else text

    found = rewrite(node, wrapper, operand_text)
    if found.statements is None:
        return (offset, offset + end), found, ""
    text = " ".join(found.text().split("\n"))
    if semicolon:
        return (offset, offset + semicolon.end()), found, text
    return (offset, offset + end), found, f"do {{ {text} }} while (0)"


def _macro_parameters(source: bytes, define_start: int) -> frozenset[str]:
    m = re.compile(rb"[ \t]*#[ \t]*define[ \t]+\w+\(([^)]*)\)").match(source, define_start)
    return frozenset(p.strip() for p in m.group(1).decode("utf-8", "replace").split(",")) if m else frozenset()

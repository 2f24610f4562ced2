"""Kernels and launch sites of a source file, with the launch configuration resolved where constants decide it.

Reads trees from the parse stage (porter.syntax). A launch is `kernel<<<grid, block, shmem, stream>>>(...)` or
`hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)`. Its grid, block and dynamic shared memory are
evaluated from integer literals, `#define`s (object-like and function-like), `const`/`constexpr` globals, enum
constants, local variables that are initialized once and never assigned again, `dim3(...)`, `sizeof(type)`,
`min`/`max` and + - * / % << >> & | ^ ?: on them, through the project's own headers. Anything else is unknown,
with the names that stopped it; `--assume NAME=VALUE` supplies those.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter

from porter import syntax
from porter.tune.model import sizeof_table

Dim3 = tuple[int, int, int]
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)(?:[uU]?(?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)$")
_MIN_MAX = {"min": min, "max": max, "std::min": min, "std::max": max, "fminf": min, "fmaxf": max}
_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b), "%": lambda a, b: a - int(a / b) * b, "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b, "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a and b)), "||": lambda a, b: int(bool(a or b)),
}
MAX_DEPTH = 24


def text(node: tree_sitter.Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


class Unknown(Exception):
    """An expression porter cannot evaluate; `names` are the identifiers that stopped it."""

    def __init__(self, reason: str, names: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.names = names


@dataclass(frozen=True)
class Value:
    """A resolved expression: an integer, or three for a dim3."""

    dims: Dim3
    is_dim3: bool = False

    @property
    def total(self) -> int:
        return self.dims[0] * self.dims[1] * self.dims[2]

    def describe(self) -> str:
        if not self.is_dim3 or self.dims[1:] == (1, 1):
            return str(self.dims[0])
        return "x".join(str(d) for d in (self.dims if self.dims[2] != 1 else self.dims[:2]))


@dataclass(frozen=True)
class Resolved:
    """What one launch argument came to: a value, or why not."""

    expr: str
    value: Value | None
    reason: str = ""
    unknown_names: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.value is not None

    def describe(self) -> str:
        if self.value is not None:
            return self.value.describe()
        return f"unknown ({', '.join(self.unknown_names)})" if self.unknown_names else "unknown"


@dataclass
class Kernel:
    name: str
    file: str
    line: int  # the definition's first line (1-based)
    end_line: int
    node: tree_sitter.Node
    is_template: bool
    launch_bounds: int | None  # first __launch_bounds__ argument, when it evaluates
    launch_bounds_text: str | None
    body: tree_sitter.Node | None
    insert_at: int  # byte offset where a __launch_bounds__ would go (before the kernel's name)


@dataclass
class LaunchSite:
    kernel: str
    file: str
    line: int
    syntax: str  # "chevron" or "hipLaunchKernelGGL"
    node: tree_sitter.Node
    grid_node: tree_sitter.Node | None
    block_node: tree_sitter.Node | None
    shmem_node: tree_sitter.Node | None
    template_args: tuple[str, ...]  # as evaluated where possible ("256"), else their text
    grid: Resolved
    block: Resolved
    shmem: Resolved
    function: tree_sitter.Node | None = None  # the enclosing function
    grid_variable_uses: int = 0  # launches in the function using the grid variable (when it is one)
    evaluator: Evaluator | None = None  # the launch's scope, to evaluate other expressions there

    def evaluator_with(self, assumptions: dict[str, Value]) -> Evaluator:
        base = self.evaluator
        if base is None:
            raise Unknown("no scope")
        return Evaluator(base.symbols, {**base.assumptions, **assumptions}, base.function, base.before, base.locals,
                         base.assigned, base.parameters)


@dataclass
class SourceFacts:
    path: str
    source: bytes
    tree: tree_sitter.Tree
    kernels: list[Kernel] = field(default_factory=list)
    launches: list[LaunchSite] = field(default_factory=list)


# --- file-scope symbols --------------------------------------------------------------------------------------------

@dataclass
class Symbols:
    """Names a launch configuration may use: #defines, constants, enum values (from a file and its local headers)."""

    objects: dict[str, str] = field(default_factory=dict)  # name -> expression text
    functions: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)  # macro -> (params, body)

    def merge(self, other: Symbols) -> None:
        for k, v in other.objects.items():
            self.objects.setdefault(k, v)
        for k, f in other.functions.items():
            self.functions.setdefault(k, f)


def _strip_comments(value: str) -> str:
    value = re.sub(r"/\*.*?\*/", " ", value, flags=re.S)
    value = re.sub(r"//.*", "", value)
    return value.replace("\\\n", " ").strip()


def file_symbols(tree: tree_sitter.Tree) -> Symbols:
    out = Symbols()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "preproc_def":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None:
                out.objects.setdefault(text(name), _strip_comments(text(value)))
        elif kind == "preproc_function_def":
            name, params, value = (node.child_by_field_name(f) for f in ("name", "parameters", "value"))
            if name is not None and params is not None and value is not None:
                names = tuple(text(p) for p in params.named_children if p.type == "identifier")
                out.functions.setdefault(text(name), (names, _strip_comments(text(value))))
        elif kind == "declaration" and _is_constant(node):
            for init in node.children_by_field_name("declarator"):
                if init.type == "init_declarator":
                    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
                    if name is not None and name.type == "identifier" and value is not None:
                        out.objects.setdefault(text(name), text(value))
        elif kind == "enumerator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None:
                out.objects.setdefault(text(name), text(value))
        if kind in ("function_definition",):
            continue  # locals are resolved per launch, not as file constants
        stack.extend(reversed(node.children))
    return out


def _is_constant(decl: tree_sitter.Node) -> bool:
    quals = {text(c) for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")}
    return bool(quals & {"const", "constexpr"})


# --- evaluation ----------------------------------------------------------------------------------------------------

@functools.cache
def _parse_expression(expr: str) -> tree_sitter.Node | None:
    tree = syntax.parse(f"int __porter_value = ({expr});\n".encode())
    decl = tree.root_node.named_children[0] if tree.root_node.named_children else None
    init = decl.child_by_field_name("declarator") if decl is not None else None
    value = init.child_by_field_name("value") if init is not None else None
    if value is None or tree.root_node.has_error:
        return None
    return value


class Evaluator:
    """Integer values of launch-configuration expressions in one function's scope."""

    def __init__(self, symbols: Symbols, assumptions: dict[str, Value], function: tree_sitter.Node | None,
                 before: int, locals_: dict[str, list[tuple[int, tree_sitter.Node, str]]] | None = None,
                 assigned: dict[str, int] | None = None, parameters: frozenset[str] = frozenset()) -> None:
        self.symbols = symbols
        self.assumptions = assumptions
        self.function = function
        self.before = before
        self.locals = locals_ or {}
        self.assigned = assigned or {}
        self.parameters = parameters
        self.sizeof = sizeof_table()

    def resolve(self, node: tree_sitter.Node | None) -> Resolved:
        if node is None:
            return Resolved("", None, "absent")
        try:
            return Resolved(text(node), self.value(node, 0))
        except Unknown as exc:
            return Resolved(text(node), None, exc.reason, exc.names)
        except (ZeroDivisionError, OverflowError, ValueError, RecursionError):
            return Resolved(text(node), None, "not a constant expression")

    def value(self, node: tree_sitter.Node, depth: int, bound: dict[str, Value] | None = None) -> Value:
        if depth > MAX_DEPTH:
            raise Unknown("too deep")
        kind = node.type
        if kind == "number_literal":
            return Value((_int_literal(text(node)), 1, 1))
        if kind in ("identifier", "type_identifier", "qualified_identifier", "field_identifier"):
            return self.name(text(node), depth, bound)
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) != 1:
                raise Unknown("comma expression")
            return self.value(inner[0], depth + 1, bound)
        if kind == "binary_expression":
            op = text(node.child_by_field_name("operator"))
            if op not in _BINARY:
                raise Unknown(f"operator {op}")
            left = self.value(node.child_by_field_name("left"), depth + 1, bound)
            right = self.value(node.child_by_field_name("right"), depth + 1, bound)
            return Value((_BINARY[op](_scalar(left), _scalar(right)), 1, 1))
        if kind == "unary_expression":
            op = text(node.child_by_field_name("operator"))
            operand = _scalar(self.value(node.child_by_field_name("argument"), depth + 1, bound))
            table = {"-": -operand, "+": operand, "~": ~operand, "!": int(not operand)}
            if op not in table:
                raise Unknown(f"operator {op}")
            return Value((table[op], 1, 1))
        if kind == "conditional_expression":
            cond = _scalar(self.value(node.child_by_field_name("condition"), depth + 1, bound))
            branch = node.child_by_field_name("consequence" if cond else "alternative")
            if branch is None:
                raise Unknown("conditional")
            return self.value(branch, depth + 1, bound)
        if kind == "sizeof_expression":
            inner = node.child_by_field_name("type")
            name = " ".join(text(inner).split()) if inner is not None else ""
            if name in self.sizeof:
                return Value((self.sizeof[name], 1, 1))
            raise Unknown(f"sizeof({name or text(node)})", (f"sizeof({name})",) if name else ())
        if kind == "cast_expression":
            return self.value(node.child_by_field_name("value"), depth + 1, bound)
        if kind == "call_expression":
            return self.call(node, depth, bound)
        if kind == "field_expression":
            base = self.value(node.child_by_field_name("argument"), depth + 1, bound)
            field_name = text(node.child_by_field_name("field"))
            if base.is_dim3 and field_name in ("x", "y", "z"):
                return Value((base.dims["xyz".index(field_name)], 1, 1))
            raise Unknown(text(node), (text(node),))
        if kind in ("argument_list", "initializer_list", "parameter_list"):  # dim3 b(16, 16) / dim3 b{16, 16}
            return self.dim3(node.named_children, depth, bound)
        if kind == "type_descriptor":  # a template argument: k<BLOCK>
            return self.name(text(node).strip(), depth + 1, bound)
        if kind == "parameter_declaration":  # `dim3 b(kTile, kTile)`: parsed as a function declaration
            return self.value(_only_child(node), depth + 1, bound)
        raise Unknown(f"{kind.replace('_', ' ')} `{_short(text(node))}`")

    def dim3(self, args: list[tree_sitter.Node], depth: int, bound: dict[str, Value] | None) -> Value:
        args = [a for a in args if a.type != "comment"]
        if not 1 <= len(args) <= 3:
            raise Unknown("dim3 with no arguments")
        dims = [_scalar(self.value(a, depth + 1, bound)) for a in args] + [1, 1]
        return Value((dims[0], dims[1], dims[2]), is_dim3=True)

    def call(self, node: tree_sitter.Node, depth: int, bound: dict[str, Value] | None) -> Value:
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        args = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        name = text(fn)
        if fn is not None and fn.type == "template_function":
            base = text(fn.child_by_field_name("name"))
            if base in ("static_cast", "std::size_t") and len(args) == 1:
                return self.value(args[0], depth + 1, bound)
            name = base
        if name == "dim3":
            return self.dim3(args, depth, bound)
        if name in _MIN_MAX and len(args) == 2:
            a, b = (_scalar(self.value(x, depth + 1, bound)) for x in args)
            return Value((_MIN_MAX[name](a, b), 1, 1))
        if name in self.symbols.functions:
            params, body = self.symbols.functions[name]
            if len(params) != len(args):
                raise Unknown(f"{name}: {len(args)} arguments for {len(params)} parameters")
            values = {p: self.value(a, depth + 1, bound) for p, a in zip(params, args, strict=True)}
            expr = _parse_expression(body)
            if expr is None:
                raise Unknown(f"macro {name}", (name,))
            return self.value(expr, depth + 1, values)
        raise Unknown(f"call to {name}()", (f"{name}()",))

    def name(self, name: str, depth: int, bound: dict[str, Value] | None) -> Value:
        if bound and name in bound:
            return bound[name]
        short = name.rsplit("::", 1)[-1]
        for key in (name, short):
            if key in self.assumptions:
                return self.assumptions[key]
        local = self._local(short)
        if local is not None:
            return self.value(local, depth + 1)
        if short in self.parameters:
            raise Unknown(f"{short} is a parameter of the enclosing function", (short,))
        if short in self.assigned:
            raise Unknown(f"{short} is assigned at line {self.assigned[short]}", (short,))
        expr_text = self.symbols.objects.get(name, self.symbols.objects.get(short))
        if expr_text is None:
            raise Unknown(f"{short} is not a constant porter can see", (short,))
        expr = _parse_expression(expr_text)
        if expr is None:
            raise Unknown(f"{short} = {expr_text}", (short,))
        return self.value(expr, depth + 1)

    def _local(self, name: str) -> tree_sitter.Node | None:
        """The initializer of a local declared before the launch and never assigned again."""
        if name in self.assigned:
            return None
        candidates = [(at, value) for at, value, _kind in self.locals.get(name, []) if at < self.before]
        return candidates[-1][1] if candidates else None


def _only_child(node: tree_sitter.Node) -> tree_sitter.Node:
    named = [c for c in node.named_children if c.type != "comment"]
    if len(named) != 1:
        raise Unknown(f"`{_short(text(node))}`")
    return named[0]


def _short(value: str, limit: int = 40) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _int_literal(value: str) -> int:
    value = value.replace("'", "")
    m = _INT.match(value)
    if not m:
        raise Unknown(f"literal {value}")
    digits = m.group(1)
    if digits.lower().startswith("0x"):
        return int(digits, 16)
    if digits.lower().startswith("0b"):
        return int(digits[2:], 2)
    if len(digits) > 1 and digits.startswith("0"):
        return int(digits, 8)
    return int(digits)


def _scalar(value: Value) -> int:
    if value.is_dim3 and value.dims[1:] != (1, 1):
        raise Unknown("a dim3 in arithmetic")
    return value.dims[0]


def parse_assumptions(items: list[str]) -> dict[str, Value]:
    """`NAME=VALUE` (VALUE an integer, or `16x16` / `16,16,4` for a dim3); raises ValueError for anything else."""
    out: dict[str, Value] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip().lower()
        if not sep or not re.fullmatch(r"[A-Za-z_][\w:]*", name):
            raise ValueError(f"--assume {item!r}: expected NAME=VALUE, e.g. --assume n=1048576")
        parts = re.split(r"[x,]", raw)
        try:
            dims = [int(p, 0) for p in parts]
        except ValueError:
            raise ValueError(f"--assume {item!r}: {raw!r} is not an integer (or 16x16 for a dim3)") from None
        if not 1 <= len(dims) <= 3 or any(d < 0 for d in dims):
            raise ValueError(f"--assume {item!r}: give one to three non-negative integers")
        out[name] = Value(tuple(([*dims, 1, 1])[:3]), is_dim3=len(dims) > 1)  # type: ignore[arg-type]
    return out


# --- kernels and launches ------------------------------------------------------------------------------------------

def declarator_name(node: tree_sitter.Node | None) -> str:
    while node is not None and node.type not in ("identifier", "field_identifier", "qualified_identifier",
                                                 "destructor_name", "operator_name"):
        node = node.child_by_field_name("declarator")
    return text(node).rsplit("::", 1)[-1] if node is not None else ""


def kernels_of(tree: tree_sitter.Tree, path: str, symbols: Symbols) -> list[Kernel]:
    out = []
    for fn in syntax.walk(tree.root_node, "function_definition"):
        if not any(c.type == "__global__" for c in fn.children):
            continue
        bounds = next((c for c in fn.children if c.type == "launch_bounds"), None)
        bound_value = None
        bounds_text = None
        if bounds is not None:
            bounds_text = text(bounds)
            args = [c for c in bounds.named_children if c.type != "comment"]
            if args:
                resolved = Evaluator(symbols, {}, None, 0).resolve(args[0])
                bound_value = resolved.value.total if resolved.value else None
        parent = fn.parent
        is_template = parent is not None and parent.type == "template_declaration"
        declarator = fn.child_by_field_name("declarator")  # `__global__ void __launch_bounds__(B) name(...)`
        out.append(Kernel(
            name=declarator_name(fn.child_by_field_name("declarator")), file=path, line=fn.start_point.row + 1,
            end_line=fn.end_point.row + 1, node=fn, is_template=is_template, launch_bounds=bound_value,
            launch_bounds_text=bounds_text, body=fn.child_by_field_name("body"),
            insert_at=declarator.start_byte if declarator is not None else fn.start_byte,
        ))
    return out


@dataclass
class _Scope:
    locals: dict[str, list[tuple[int, tree_sitter.Node, str]]]
    assigned: dict[str, int]
    parameters: frozenset[str]


def _scope_of(function: tree_sitter.Node | None) -> _Scope:
    if function is None:
        return _Scope({}, {}, frozenset())
    locals_: dict[str, list[tuple[int, tree_sitter.Node, str]]] = {}
    for decl in syntax.walk(function, "declaration"):
        type_text = text(decl.child_by_field_name("type"))
        for d in decl.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                name = d.child_by_field_name("declarator")
                value = d.child_by_field_name("value")
                if name is not None and name.type == "identifier" and value is not None:
                    locals_.setdefault(text(name), []).append((d.start_byte, value, type_text))
            elif d.type == "function_declarator" and type_text == "dim3":  # dim3 b(x, y): the vexing parse
                name, params = d.child_by_field_name("declarator"), d.child_by_field_name("parameters")
                if name is not None and params is not None:
                    locals_.setdefault(text(name), []).append((d.start_byte, _dim3_call(params), type_text))
            elif d.type == "identifier" and type_text == "dim3":  # dim3 b; then b.x = ... : unknown
                locals_.setdefault(text(d), [])
    assigned: dict[str, int] = {}
    for node in syntax.walk(function, "assignment_expression", "update_expression"):
        target = node.child_by_field_name("left") if node.type == "assignment_expression" else \
            node.child_by_field_name("argument")
        while target is not None and target.type in ("field_expression", "subscript_expression"):
            target = target.child_by_field_name("argument")
        if target is not None and target.type == "identifier":
            assigned.setdefault(text(target), node.start_point.row + 1)
    params: set[str] = set()
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    plist = declarator.child_by_field_name("parameters") if declarator is not None else None
    for p in plist.named_children if plist is not None else []:
        name = declarator_name(p.child_by_field_name("declarator"))
        if name:
            params.add(name)
    return _Scope(locals_, assigned, frozenset(params))


def _dim3_call(params: tree_sitter.Node) -> tree_sitter.Node:
    """`dim3 b(x, y)` parsed as a declaration of a function: its parameter list holds the arguments."""
    return params


def _kernel_of_launch(call: tree_sitter.Node) -> tuple[str, tuple[tree_sitter.Node, ...]]:
    fn = call.child_by_field_name("function")
    return _kernel_name(fn)


def _kernel_name(node: tree_sitter.Node | None) -> tuple[str, tuple[tree_sitter.Node, ...]]:
    while node is not None:
        if node.type == "parenthesized_expression" or (node.type == "call_expression" and
                                                        text(node.child_by_field_name("function")) == "HIP_KERNEL_NAME"):
            inner = node.child_by_field_name("arguments") if node.type == "call_expression" else node
            named = [c for c in inner.named_children if c.type != "comment"] if inner is not None else []
            node = named[0] if named else None
            continue
        if node.type == "template_function":
            args = node.child_by_field_name("arguments")
            return text(node.child_by_field_name("name")).rsplit("::", 1)[-1], \
                tuple(c for c in args.named_children if c.type != "comment") if args is not None else ()
        if node.type in ("identifier", "qualified_identifier", "field_expression"):
            return text(node).rsplit("::", 1)[-1].rsplit(".", 1)[-1], ()
        if node.type == "cast_expression":  # (void*)kernel
            node = node.child_by_field_name("value")
            continue
        if node.type == "pointer_expression":  # &kernel
            node = node.child_by_field_name("argument")
            continue
        return text(node), ()
    return "?", ()


def _enclosing_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    return parent


def launches_of(tree: tree_sitter.Tree, path: str, symbols: Symbols, assumptions: dict[str, Value]) -> list[LaunchSite]:
    out = []
    scopes: dict[int, _Scope] = {}
    for call in syntax.walk(tree.root_node, "call_expression"):
        config = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
        fn_text = text(call.child_by_field_name("function"))
        if config is not None:
            args = [c for c in config.named_children if c.type != "comment"]
            name, targs = _kernel_of_launch(call)
            grid, block, shmem = ([*args, None, None, None])[:3]
            kind = "chevron"
        elif fn_text == "hipLaunchKernelGGL":
            arg_list = call.child_by_field_name("arguments")
            args = [c for c in arg_list.named_children if c.type != "comment"] if arg_list is not None else []
            if len(args) < 4:
                continue
            name, targs = _kernel_name(args[0])
            grid, block, shmem = args[1], args[2], args[3]
            kind = "hipLaunchKernelGGL"
        else:
            continue
        function = _enclosing_function(call)
        key = function.id if function is not None else -1
        if key not in scopes:
            scopes[key] = _scope_of(function)
        scope = scopes[key]
        ev = Evaluator(symbols, assumptions, function, call.start_byte, scope.locals, scope.assigned, scope.parameters)
        template_args = tuple(ev.resolve(a).describe() if ev.resolve(a).known else text(a) for a in targs)
        grid_uses = 0
        if grid is not None and grid.type == "identifier" and function is not None:
            grid_uses = sum(1 for n in syntax.walk(function, "identifier") if text(n) == text(grid))
        out.append(LaunchSite(
            kernel=name, file=path, line=call.start_point.row + 1, syntax=kind, node=call, grid_node=grid,
            block_node=block, shmem_node=shmem, template_args=template_args,
            grid=ev.resolve(grid), block=ev.resolve(block),
            shmem=ev.resolve(shmem) if shmem is not None else Resolved("0", Value((0, 1, 1))),
            function=function, grid_variable_uses=grid_uses, evaluator=ev,
        ))
    return out


def local_headers(source: bytes, path: Path, root: Path) -> list[Path]:
    out = []
    for m in _INCLUDE.finditer(source):
        rel = m.group(1).decode("utf-8", "replace")
        for base in (path.parent, root):
            candidate = (base / rel)
            if candidate.is_file():
                out.append(candidate.resolve())
                break
    return out


def symbols_for(path: Path, root: Path, tree: tree_sitter.Tree, source: bytes,
                cache: dict[Path, Symbols] | None = None, depth: int = 0) -> Symbols:
    """The file's own symbols, then those of the project headers it includes (first definition wins)."""
    cache = cache if cache is not None else {}
    symbols = file_symbols(tree)
    if depth > 8:
        return symbols
    for header in local_headers(source, path, root):
        if header not in cache:
            cache[header] = Symbols()  # cycle guard
            try:
                data = header.read_bytes()
            except OSError:
                continue
            cache[header] = symbols_for(header, root, syntax.parse(data), data, cache, depth + 1)
        symbols.merge(cache[header])
    return symbols


def source_facts(path: Path, rel: str, root: Path, source: bytes, assumptions: dict[str, Value],
                 cache: dict[Path, Symbols] | None = None) -> SourceFacts:
    tree = syntax.parse(source)
    symbols = symbols_for(path, root, tree, source, cache)
    return SourceFacts(rel, source, tree, kernels_of(tree, rel, symbols), launches_of(tree, rel, symbols, assumptions))

"""What the hazard detectors know about one source file: its tree, constants and the roles of its variables."""

from __future__ import annotations

import ast
import bisect
import functools
import keyword
import operator
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import tree_sitter

from porter import syntax

# byte sizes of the element types that shared-memory arrays commonly use
TYPE_SIZES = {
    "char": 1,
    "signed char": 1,
    "unsigned char": 1,
    "bool": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "__nv_fp8_e4m3": 1,
    "__nv_fp8_e5m2": 1,
    "__hip_fp8_e4m3": 1,
    "__hip_fp8_e5m2": 1,
    "__hip_fp8_e4m3_fnuz": 1,
    "__hip_fp8_e5m2_fnuz": 1,
    "short": 2,
    "unsigned short": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "half": 2,
    "__half": 2,
    "__nv_bfloat16": 2,
    "__hip_bfloat16": 2,
    "hip_bfloat16": 2,
    "bfloat16": 2,
    "int": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "signed": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "float": 4,
    "half2": 4,
    "__half2": 4,
    "__nv_bfloat162": 4,
    "__hip_bfloat162": 4,
    "char4": 4,
    "uchar4": 4,
    "long": 8,
    "unsigned long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "size_t": 8,
    "double": 8,
    "float2": 8,
    "int2": 8,
    "uint2": 8,
    "float3": 12,
    "int3": 12,
    "uint3": 12,
    "float4": 16,
    "int4": 16,
    "uint4": 16,
    "double2": 16,
    "longlong2": 16,
    "double4": 32,
}

WARP_CALLS = frozenset(
    {
        "__shfl",
        "__shfl_up",
        "__shfl_down",
        "__shfl_xor",
        "__shfl_sync",
        "__shfl_up_sync",
        "__shfl_down_sync",
        "__shfl_xor_sync",
        "__ballot",
        "__ballot_sync",
        "__any",
        "__any_sync",
        "__all",
        "__all_sync",
        "__uni_sync",
        "__activemask",
        "__match_any",
        "__match_all",
        "__match_any_sync",
        "__match_all_sync",
        "__syncwarp",
        "__lane_id",
        "__reduce_add_sync",
        "__reduce_min_sync",
        "__reduce_max_sync",
        "__reduce_and_sync",
        "__reduce_or_sync",
        "__reduce_xor_sync",
    }
)
SHUFFLES = frozenset(n for n in WARP_CALLS if n.startswith("__shfl"))
MASK_RESULT_CALLS = frozenset(
    {
        "__ballot",
        "__ballot_sync",
        "__activemask",
        "__match_any",
        "__match_all",
        "__match_any_sync",
        "__match_all_sync",
    }
)
LANE_NAME = re.compile(r"(?i)^(?:\w*_)?lane(?:_?id|_?idx|_?index)?$|^laneid$|^lid$")
WARP_NAME = re.compile(r"(?i)^(?:\w*_)?warp(?:_?id|_?idx|_?index|_?num)?$|^wid$")
_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)\b")
_SIZEOF = re.compile(r"sizeof\s*\(\s*([A-Za-z_][\w ]*?)\s*\)")
_SIZEOF_WORD = re.compile(r"sizeof$")
# every text mentions_thread recognises contains one of these (or a name from its set)
_THREAD_TEXTS = (
    "threadIdx",
    "blockDim",
    "__lane_id",
    "__hip_get_thread_idx_x",
    "hipThreadIdx_x",
    "hipBlockDim_x",
)
_NAME_TYPES = frozenset({"identifier", "type_identifier"})
_WORD = re.compile(rb"[A-Za-z_]\w*")
# case-insensitive `lane|warp|lid|wid` without re.I, which is several times slower
_LANE_OR_WARP = re.compile(rb"[lL][aA][nN][eE]|[wW][aA][rR][pP]|[lLwW][iI][dD]")
_LANE_OR_WARP_NEEDLES = (b"lane", b"warp", b"lid", b"wid")  # _LANE_OR_WARP's matches, lower-cased


def text(node: tree_sitter.Node | None) -> str:
    if node is None:
        return ""
    raw = node.text  # a new bytes object each time it is read: read once
    return raw.decode("utf-8", "replace") if raw is not None else ""


def call_name(call: tree_sitter.Node) -> str:
    """`foo`, `ns::foo`, `obj.foo` → the last name; template arguments dropped."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    if fn.type == "qualified_identifier":
        return strip_templates(text(fn)).rsplit("::", 1)[-1]
    if fn.type == "field_expression":
        return text(fn.child_by_field_name("field"))
    return text(fn)


def call_qualifier(call: tree_sitter.Node) -> str:
    """`cg` for `cg::reduce(...)`, `cooperative_groups::details` for nested; '' when unqualified."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "qualified_identifier":
        return ""
    return strip_templates(text(fn)).rsplit("::", 1)[0]


def strip_templates(value: str) -> str:
    out, depth = [], 0
    for ch in value:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).replace(" ", "")


def arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = call.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def launch_config(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The <<<grid, block, shmem, stream>>> arguments of a chevron launch ([] otherwise)."""
    for child in call.children:
        if child.type == "kernel_call_syntax":
            return [c for c in child.named_children if c.type != "comment"]
    return []


def ancestors(node: tree_sitter.Node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


_INDEXED_TYPES = frozenset(
    {
        "assignment_expression",
        "parameter_declaration",
        "subscript_expression",
        "field_expression",
        "namespace_alias_definition",
        "using_declaration",
    }
)


class _Unknown(Exception):
    pass


@dataclass
class FunctionInfo:
    node: tree_sitter.Node
    name: str
    is_kernel: bool
    is_device: bool
    warp_calls: set[str] = field(default_factory=set)


class SourceContext:
    """Parsed file plus the facts several detectors share (computed lazily, once)."""

    def __init__(self, source: bytes, path: str, captures: dict[str, list[tree_sitter.Node]] | None = None,
                 tree: tree_sitter.Tree | None = None, rules: frozenset[str] | None = None, query: str = "hazards",
                 api_names: Iterable[str] | None = None):
        self.source = source
        # a superset of the words of `source` the API map knows (the translator's): spares finding every word
        self._api_names = api_names
        self.path = path
        self.rules = rules  # the rules the caller wants hits for (None: all); detectors skip work for the others
        self._query = query  # porter/queries/<query>.scm: what one pass over the tree collects
        self.tree = tree if tree is not None else syntax.parse(source)  # the translator shares its tree
        self.root = self.tree.root_node
        self.captures: dict[str, list[tree_sitter.Node]] = captures or self._collect()
        self._eval_cache: dict[str, int | None] = {}
        self._value_texts: dict[str, frozenset[str]] = {}
        self._starts: dict[int, tuple[list[tree_sitter.Node], list[int]]] = {}

    def _collect(self) -> dict[str, list[tree_sitter.Node]]:
        out: dict[str, list[tree_sitter.Node]] = {}
        by_type: dict[str, list[tree_sitter.Node]] = defaultdict(list)
        # captures() returns each capture once, without building a dict per match
        for name, nodes in tree_sitter.QueryCursor(syntax.load_query(self._query)).captures(self.root).items():
            if name == "binary_operator":
                name, nodes = "binary", _binaries(nodes)
            elif name == "call":
                nodes = [n for n in nodes if _is_call_with_arguments(n)]
            nodes.sort(key=_span)
            if name == "indexed":
                for node in nodes:
                    by_type[node.type].append(node)
            else:
                out[name] = nodes
        self._by_type = by_type  # the same walk indexes all_of's node types
        return out

    def wants(self, rule: str) -> bool:
        return self.rules is None or rule in self.rules

    def nodes(self, capture: str) -> list[tree_sitter.Node]:
        if capture == "name":
            return self.all_names
        return self.captures.get(capture, [])

    @cached_property
    def _by_type(self) -> dict[str, list[tree_sitter.Node]]:
        out: dict[str, list[tree_sitter.Node]] = defaultdict(list)
        for node in tree_sitter.QueryCursor(_indexed_query()).captures(self.root).get("n", []):
            out[node.type].append(node)
        for nodes in out.values():
            nodes.sort(key=_span)
        return out

    @cached_property
    def all_names(self) -> list[tree_sitter.Node]:
        """Every identifier and type identifier (only the inventory wants them all; detectors use names_at)."""
        caps = tree_sitter.QueryCursor(_names_query()).captures(self.root)
        return sorted(caps.get("name", []), key=_span)

    def names_at(self, pattern: re.Pattern[bytes]) -> list[tree_sitter.Node]:
        """The identifiers / type identifiers the text matches of `pattern` fall in (in file order, each once).

        Searching the text and looking each hit up in the tree costs far less than capturing every identifier.
        """
        return self._names_at_spans((m.start(), m.end()) for m in pattern.finditer(self.source))

    def _names_at_spans(self, spans: Iterable[tuple[int, int]]) -> list[tree_sitter.Node]:
        out: list[tree_sitter.Node] = []
        last = -1
        root = self.root
        for start, end in spans:
            if start < last:
                continue  # a second hit inside the identifier already taken
            node = root.descendant_for_byte_range(start, end)
            if node is not None and node.type in _NAME_TYPES:
                out.append(node)
                last = node.end_byte
        return out

    def names_equal(self, name: str) -> list[tree_sitter.Node]:
        """The identifiers / type identifiers spelled exactly `name`."""
        return [n for n in self.names_at(_word(name)) if text(n) == name]

    def first_name(self, name: str) -> tree_sitter.Node | None:
        """The first identifier / type identifier spelled exactly `name`."""
        root = self.root
        for m in _word(name).finditer(self.source):
            node = root.descendant_for_byte_range(m.start(), m.end())
            if node is not None and node.type in _NAME_TYPES and text(node) == name:
                return node
        return None

    @cached_property
    def distinct_words(self) -> set[str]:
        """Every distinct word of the text: a superset of the identifiers' texts."""
        return {w.decode("utf-8", "replace") for w in set(_WORD.findall(self.source))}

    @property
    def api_words(self) -> Iterable[str]:
        """Words of the text the API map may know: the caller's superset when it gave one, else every word."""
        return self._api_names if self._api_names is not None else self.distinct_words

    def launch_config(self, call: tree_sitter.Node) -> list[tree_sitter.Node]:
        """launch_config(call), from one pass over the calls (none without `<<<` in the text)."""
        return self._launch_configs.get(call.id, []) if self._launch_configs else []

    @cached_property
    def _launch_configs(self) -> dict[int, list[tree_sitter.Node]]:
        if b"<<<" not in self.source:
            return {}
        out = {}
        for call in self.nodes("call"):
            config = launch_config(call)
            if config:
                out[call.id] = config
        return out

    def within(self, nodes: list[tree_sitter.Node], scope: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The nodes of `nodes` (one capture or all_of list, in file order) inside `scope`, in walk order.

        A bisect on byte offsets instead of a Python walk of the scope's subtree.
        """
        key = id(nodes)
        starts = self._starts.get(key)
        if starts is None or starts[0] is not nodes:
            starts = self._starts[key] = (nodes, [n.start_byte for n in nodes])
        lo = bisect.bisect_left(starts[1], scope.start_byte)
        hi = bisect.bisect_right(starts[1], scope.end_byte)
        out = [n for n in nodes[lo:hi] if n.end_byte <= scope.end_byte and _is_within(n, scope)]
        out.sort(key=_preorder)  # a walk visits an enclosing node before the nodes it starts with
        return out

    @cached_property
    def calls(self) -> list[tuple[tree_sitter.Node, str]]:
        """(call, call_name(call)) of every call, computed once for all detectors."""
        out = []
        for call in self.nodes("call"):
            fn = call.child_by_field_name("function")
            # call_name's common case, inline
            if fn is not None and fn.type == "identifier" and fn.text is not None:
                out.append((call, fn.text.decode("utf-8", "replace")))
            else:
                out.append((call, call_name(call)))
        return out

    def all_of(self, node_type: str) -> list[tree_sitter.Node]:
        """Every node of one of the _INDEXED_TYPES in the file (one walk, shared by all detectors)."""
        assert node_type in _INDEXED_TYPES, node_type
        if self._query != "hazards" and node_type not in self._by_type:  # a smaller query did not index it
            found = tree_sitter.QueryCursor(syntax.query(f"({node_type}) @n")).captures(self.root).get("n", [])
            self._by_type[node_type] = sorted(found, key=_span)
        return self._by_type.get(node_type, [])

    # --- constants -------------------------------------------------------------------------------

    @cached_property
    def constant_texts(self) -> dict[str, str]:
        """#define NAME value and const/constexpr integer declarations: name -> expression text."""
        out: dict[str, str] = {}
        for define in self.nodes("define"):
            name, value = define.child_by_field_name("name"), define.child_by_field_name("value")
            if name is not None and value is not None:
                out[text(name)] = _strip_comments(text(value))
        for decl in self.nodes("declaration"):
            quals = {
                text(c) for c in decl.children if c.type in ("type_qualifier", "storage_class_specifier")
            }
            if not quals & {"const", "constexpr"}:
                continue
            for init in decl.children_by_field_name("declarator"):
                if init.type == "init_declarator":
                    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
                    if name is not None and name.type == "identifier" and value is not None:
                        out.setdefault(text(name), text(value))
        return out

    def evaluate(self, expr: str | tree_sitter.Node | None, _depth: int = 0) -> int | None:
        """Integer value of a constant expression (literals, #define/constexpr names, sizeof, + - * / % << >> & |)."""
        if expr is None:
            return None
        value = text(expr) if not isinstance(expr, str) else expr
        if _depth == 0 and value in self._eval_cache:
            return self._eval_cache[value]  # the same few texts (32, blockDim.x, N) come up again and again
        try:
            result = self._eval_text(value, _depth)
        except (_Unknown, SyntaxError, ValueError, ZeroDivisionError, RecursionError, OverflowError):
            result = None
        if _depth == 0:
            self._eval_cache[value] = result
        return result

    def _eval_text(self, value: str, depth: int) -> int:
        if depth > 12:
            raise _Unknown
        value = value.strip()
        # what ast.parse would make of a plain decimal number or a plain name, without parsing
        if value.isdigit() and value.isascii():
            if value[0] == "0" and value.strip("0"):
                raise _Unknown  # 032: not a Python literal (C's octal)
            return int(value)
        if value.isidentifier() and value.isascii() and not keyword.iskeyword(value) and not _SIZEOF_WORD.match(value):
            inner = self.constant_texts.get(value)
            if inner is None:
                raise _Unknown
            return self._eval_text(inner, depth + 1)
        value = _SIZEOF.sub(lambda m: str(self._sizeof(m.group(1))), value)
        value = _SUFFIX.sub(r"\1", value)
        tree = ast.parse(value, mode="eval")
        return self._eval_ast(tree.body, depth)

    def _sizeof(self, type_name: str) -> int:
        size = TYPE_SIZES.get(" ".join(type_name.split()))
        if size is None:
            raise _Unknown
        return size

    def _eval_ast(self, node: ast.AST, depth: int) -> int:
        ops = {
            ast.Add: lambda a, b: a + b,
            ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b,
            ast.Div: lambda a, b: int(a / b),
            ast.FloorDiv: lambda a, b: a // b,
            ast.Mod: lambda a, b: a % b,
            ast.LShift: lambda a, b: a << b,
            ast.RShift: lambda a, b: a >> b,
            ast.BitAnd: lambda a, b: a & b,
            ast.BitOr: lambda a, b: a | b,
            ast.BitXor: lambda a, b: a ^ b,
        }
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            return node.value
        if isinstance(node, ast.Name):
            inner = self.constant_texts.get(node.id)
            if inner is None:
                raise _Unknown
            return self._eval_text(inner, depth + 1)
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](self._eval_ast(node.left, depth), self._eval_ast(node.right, depth))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Invert):
            operand = self._eval_ast(node.operand, depth)
            return (
                -operand
                if isinstance(node.op, ast.USub)
                else (~operand if isinstance(node.op, ast.Invert) else operand)
            )
        raise _Unknown

    # --- functions -------------------------------------------------------------------------------

    @cached_property
    def functions(self) -> list[FunctionInfo]:
        out = []
        for fn in self.nodes("function"):
            quals = {c.type for c in fn.children}
            declarator = fn.child_by_field_name("declarator")
            while declarator is not None and declarator.child_by_field_name("declarator") is not None:
                declarator = declarator.child_by_field_name("declarator")
            info = FunctionInfo(
                node=fn,
                name=text(declarator),
                is_kernel="__global__" in quals,
                is_device=bool(quals & {"__global__", "__device__"}),
            )
            out.append(info)
        self._fn_by_id = {f.node.id: f for f in out}
        # function_of's index: functions in walk order (an enclosing one before those it holds, which nest by span)
        # and, for each, the function around it; a lookup then bisects instead of asking tree-sitter for parents,
        # which it finds by walking down from the root (quadratic in the nesting depth)
        ordered = sorted(out, key=lambda f: _preorder(f.node))
        parents, stack = [], []
        for i, f in enumerate(ordered):
            while stack and ordered[stack[-1]].node.end_byte < f.node.end_byte:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(i)
        self._fn_ordered, self._fn_starts, self._fn_parents = ordered, [f.node.start_byte for f in ordered], parents
        for call, name in self.calls:
            if name in WARP_CALLS:
                fn = self.function_of(call)
                if fn is not None:
                    fn.warp_calls.add(name)
        return out

    def function_of(self, node: tree_sitter.Node) -> FunctionInfo | None:
        """The innermost function definition `node` is inside (not `node` itself)."""
        if "_fn_by_id" not in self.__dict__:
            _ = self.functions
        ordered, parents = self._fn_ordered, self._fn_parents
        # the last function starting at or before the node is the innermost around it or inside that one
        i = bisect.bisect_right(self._fn_starts, node.start_byte) - 1
        while i >= 0:
            fn = ordered[i]
            if fn.node.id != node.id and fn.node.start_byte <= node.start_byte and node.end_byte <= fn.node.end_byte \
                    and _is_within(node, fn.node):
                return fn
            i = parents[i]
        return None

    def in_device_code(self, node: tree_sitter.Node) -> bool:
        fn = self.function_of(node)
        return fn is not None and fn.is_device

    def warp_context(self, node: tree_sitter.Node) -> bool:
        """Does the code around `node` do warp-level work (warp builtins, lane/warp variables)?"""
        fn = self.function_of(node)
        if fn is not None and fn.warp_calls:
            return True
        scope = fn.node if fn is not None else self.root
        return scope.id in self._warp_named_scopes

    @cached_property
    def _warp_named_scopes(self) -> set[int]:
        """Ids of the functions (and the root) that mention a lane- or warp-named identifier."""
        out: set[int] = set()
        for n in self.lane_or_warp_names:
            if LANE_NAME.match(text(n)) or WARP_NAME.match(text(n)):
                fn = self.function_of(n)
                out.add(fn.node.id if fn is not None else self.root.id)
        return out

    # --- variable roles ----------------------------------------------------------------------------

    @cached_property
    def assignments(self) -> list[tuple[str, tree_sitter.Node, tree_sitter.Node]]:
        """(variable name, value node, declaration-or-assignment node) for `T x = v;` and `x = v;`."""
        out = []
        for decl in self.nodes("declaration"):
            for init in decl.children_by_field_name("declarator"):
                if init.type == "init_declarator":
                    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
                    if name is not None and name.type == "identifier" and value is not None:
                        out.append((text(name), value, decl))
        for node in self.all_of("assignment_expression"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                out.append((text(left), right, node))
        return out

    @cached_property
    def assignments_by_name(self) -> dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node]]]:
        """variable name -> [(value node, declaration-or-assignment node)] of `assignments`, in the same order."""
        out: dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node]]] = defaultdict(list)
        for name, value, node in self.assignments:
            out[name].append((value, node))
        return out

    def assigned_value_texts(self, name: str) -> frozenset[str]:
        """The texts (spaces removed) of every value assigned to `name`; found once per name, not once per use."""
        found = self._value_texts.get(name)
        if found is None:
            values = self.assignments_by_name.get(name, ())
            found = self._value_texts[name] = frozenset(text(v).replace(" ", "") for v, _node in values)
        return found

    @cached_property
    def thread_vars(self) -> set[str]:
        """Variables whose value derives from threadIdx (directly or through other such variables)."""
        derived: set[str] = set()
        # mentions_thread's text test, with each value's text and the fixed part of the test done once
        values = [(name, value, text(value)) for name, value, _node in self.assignments]
        values = [(name, value, vt, any(t in vt for t in _THREAD_TEXTS)) for name, value, vt in values]
        for _ in range(6):
            before = len(derived)
            for name, value, vt, thread_text in values:
                if (
                    name not in derived
                    and (thread_text or any(n in vt for n in derived))
                    and self._walk_mentions_thread(value, derived)
                ):
                    derived.add(name)
            if len(derived) == before:
                break
        return derived

    def mentions_thread(self, node: tree_sitter.Node, extra: set[str] | None = None) -> bool:
        value = text(node)
        # threadIdx.x itself (the common case) is found without working out which variables derive from it
        if any(t in value for t in _THREAD_TEXTS) and self._walk_mentions_thread(node, set()):
            return True
        names = extra if extra is not None else self.thread_vars
        if not any(name in value for name in names):
            return False  # none of what the walk looks for is even in the text
        return self._walk_mentions_thread(node, names)

    def _walk_mentions_thread(self, node: tree_sitter.Node, names: set[str]) -> bool:
        for n in syntax.walk(node, "identifier", "field_expression", "call_expression"):
            if n.type == "field_expression":
                if text(n.child_by_field_name("argument")) in ("threadIdx", "blockDim"):
                    return True
            elif n.type == "call_expression":
                if call_name(n) in ("__lane_id", "__hip_get_thread_idx_x", "hipThreadIdx_x"):
                    return True
            elif text(n) in names or text(n) in ("hipThreadIdx_x", "hipBlockDim_x"):
                return True
        return False

    @cached_property
    def lane_vars(self) -> set[str]:
        out = set()
        for name, value, _node in self.assignments:
            if LANE_NAME.match(name) or self.is_lane_expr(value):
                out.add(name)
        for n in self.lane_or_warp_names:
            if LANE_NAME.match(text(n)):
                out.add(text(n))
        return out

    @cached_property
    def lane_or_warp_names(self) -> list[tree_sitter.Node]:
        """The identifiers LANE_NAME or WARP_NAME may match: each contains lane, warp, lid or wid in some case."""
        # what names_at(_LANE_OR_WARP) finds: the needles never overlap, so their sorted hits are the regex's
        # matches, found by bytes.find on a lower-case copy (a case-blind regex is many times slower)
        lower = self.source.lower()
        hits = []
        for needle in _LANE_OR_WARP_NEEDLES:
            at = lower.find(needle)
            while at >= 0:
                hits.append((at, at + len(needle)))
                at = lower.find(needle, at + len(needle))
        hits.sort()
        return self._names_at_spans(hits)

    @cached_property
    def warp_vars(self) -> set[str]:
        out = set()
        for name, value, _node in self.assignments:
            if WARP_NAME.match(name) or self.is_warp_index_expr(value):
                out.add(name)
        return out

    def is_lane_expr(self, node: tree_sitter.Node) -> bool:
        node = _unparen(node)
        if node.type == "call_expression" and call_name(node) == "__lane_id":
            return True
        if node.type == "binary_expression":
            op = text(node.child_by_field_name("operator"))
            right = text(node.child_by_field_name("right"))
            if op == "%" and (right == "warpSize" or self.evaluate(right) == 32):
                return self.mentions_thread(node.child_by_field_name("left"))
            if op == "&" and (right in ("31", "0x1f", "0x1F", "(warpSize - 1)", "(warpSize-1)")):
                return self.mentions_thread(node.child_by_field_name("left"))
        return node.type == "identifier" and text(node) in self.lane_vars_cheap

    @cached_property
    def lane_vars_cheap(self) -> set[str]:
        return {text(n) for n in self.lane_or_warp_names if LANE_NAME.match(text(n))}

    def is_warp_index_expr(self, node: tree_sitter.Node) -> bool:
        node = _unparen(node)
        if node.type != "binary_expression":
            return False
        op = text(node.child_by_field_name("operator"))
        right = text(node.child_by_field_name("right"))
        if (op == "/" and (right == "warpSize" or self.evaluate(right) == 32)) or (
            op == ">>" and right == "5"
        ):
            return self.mentions_thread(node.child_by_field_name("left"))
        return False

    @cached_property
    def lane_sized_arrays(self) -> dict[str, tree_sitter.Node]:
        """name -> declarator of the one-dimensional arrays of 32 elements (the last declaration of a name wins)."""
        arrays: dict[str, tree_sitter.Node] = {}
        for decl in self.nodes("declaration"):
            for declarator in decl.children_by_field_name("declarator"):
                if declarator.type == "init_declarator":
                    declarator = declarator.child_by_field_name("declarator")
                if declarator is None or declarator.type != "array_declarator":
                    continue
                inner = declarator.child_by_field_name("declarator")
                if inner is None or inner.type == "array_declarator":
                    continue  # 2-D and up: tiles, not per-lane storage
                if self.evaluate(declarator.child_by_field_name("size")) == 32:
                    arrays[declarator_name(declarator)] = declarator
        return arrays

    @cached_property
    def declared_types(self) -> dict[str, tuple[str, tree_sitter.Node]]:
        """variable name -> (type text incl. qualifiers, declaration node); the first declaration wins."""
        out: dict[str, tuple[str, tree_sitter.Node]] = {}
        for decl in self.nodes("declaration") + self.all_of("parameter_declaration"):
            type_node = decl.child_by_field_name("type")
            if type_node is None:
                continue
            quals = " ".join(text(c) for c in decl.children if c.type == "type_qualifier")
            type_text = (quals + " " + text(type_node)).strip()
            for declarator in decl.children_by_field_name("declarator"):
                name = declarator_name(declarator)
                if name:
                    out.setdefault(name, (type_text, decl))
        return out


def _strip_comments(value: str) -> str:
    """preproc_arg keeps trailing comments and line continuations; constants want neither."""
    value = re.sub(r"/\*.*?\*/", " ", value, flags=re.S)
    value = re.sub(r"//.*", "", value)
    return value.replace("\\\n", " ").strip()


def declarator_name(node: tree_sitter.Node) -> str:
    while node is not None and node.type not in ("identifier", "field_identifier"):
        inner = node.child_by_field_name("declarator")
        if inner is None:
            return ""
        node = inner
    return text(node)


def _unparen(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _binaries(operators: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """The binary expressions whose operator is one of `operators` and that have a right operand (what the
    pattern `(binary_expression operator: [...] right: (_))` matches)."""
    out = []
    for op in operators:
        node = op.parent
        if node is not None and node.type == "binary_expression" and node.child_by_field_name("operator") == op:
            right = node.child_by_field_name("right")
            if right is not None and right.is_named:
                out.append(node)
    return out


def _is_call_with_arguments(call: tree_sitter.Node) -> bool:
    """What `(call_expression function: (_) arguments: (argument_list))` matches."""
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    return fn is not None and fn.is_named and args is not None and args.type == "argument_list"


_span = operator.attrgetter("start_byte", "end_byte")  # sort key: file order, inner before outer on ties


def _preorder(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _is_within(node: tree_sitter.Node, scope: tree_sitter.Node) -> bool:
    """Is `node` `scope` or one of its descendants? (Byte ranges alone can't tell an empty node at an edge.)"""
    start, end = node.start_byte, node.end_byte
    if start < end and scope.start_byte < start and end < scope.end_byte:
        return True
    while node is not None:
        if node == scope:
            return True
        node = node.parent
    return False


@functools.lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[bytes]:
    # the first character first, then the look-behind: a pattern that starts with a literal is searched at C speed
    raw = name.encode()
    first = re.escape(raw[:1])
    return re.compile(first + rb"(?<![\w$\x80-\xff]" + first + rb")" + re.escape(raw[1:]) + rb"(?![\w$\x80-\xff])")


@functools.cache
def _names_query() -> tree_sitter.Query:
    return syntax.query("[(type_identifier) (identifier)] @name")


@functools.cache
def _indexed_query() -> tree_sitter.Query:
    return syntax.query("[" + " ".join(f"({t})" for t in sorted(_INDEXED_TYPES)) + "] @n")


walk = syntax.walk
unparen = _unparen

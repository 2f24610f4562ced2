"""Calls whose argument lists differ between CUDA and HIP (issue 9, class 7), rewritten by porter/data/call_shapes.toml.

A shape matches a call by the CUDA name and the number of arguments, and casts an argument (CUDA's C++ overloads
take the kernel or a T**; HIP's take const void* or void**), appends CUDA's default for an argument HIP requires,
calls another HIP function (CUDA 12's changed signatures), drops CUDA 13's graph edge data where it is null, or
replaces a call that sets what HIP fixes at creation with the success status when it sets what the descriptor was
made with. Pure: a call node in, edits out.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

import tree_sitter

from porter import syntax
from porter.translate.options import RocmVersion

_NULL = frozenset({b"nullptr", b"NULL", b"0", b"0L", b"(void*)0", b"(void *)0", b"((void*)0)"})
_ALREADY_CAST = (b"(const void", b"(void", b"reinterpret_cast", b"static_cast", b"(const_cast", b"const_cast")


@dataclass(frozen=True)
class CallShape:
    cuda: str
    args: int | None
    before: RocmVersion | None
    why: str
    cast: tuple[int, str] | None = None
    append: str | None = None
    hip: str | None = None
    drop: int | None = None
    when_arg: tuple[int, str] | None = None
    same_as_made: tuple[str, int] | None = None
    noop: str | None = None
    insert: tuple[int, str] | None = None
    casts: tuple[tuple[int, str], ...] = ()  # several arguments cast, each unless already cast to that type

    def applies(self, args: list[tree_sitter.Node], rocm: RocmVersion | None) -> bool:
        if self.args is not None and len(args) != self.args:
            return False
        if self.when_arg is not None and (self.when_arg[0] >= len(args)
                                          or args[self.when_arg[0]].text.strip() != self.when_arg[1].encode()):
            return False
        return self.before is None or (rocm is not None and rocm < self.before)


@functools.cache
def call_shapes() -> dict[str, tuple[CallShape, ...]]:
    raw = tomllib.loads(resources.files("porter").joinpath("data", "call_shapes.toml").read_text("utf-8"))
    out: dict[str, list[CallShape]] = {}
    for row in raw["shape"]:
        cast, when, made, insert = row.get("cast"), row.get("when_arg"), row.get("same_as_made"), row.get("insert")
        out.setdefault(row["cuda"], []).append(CallShape(
            row["cuda"], row.get("args"), RocmVersion.parse(row["before"]) if row.get("before") else None, row["why"],
            (int(cast[0]), str(cast[1])) if cast else None, row.get("append"), row.get("hip"), row.get("drop"),
            (int(when[0]), str(when[1])) if when else None, (str(made[0]), int(made[1])) if made else None,
            row.get("noop"), (int(insert[0]), str(insert[1])) if insert else None,
            tuple((int(i), str(ty)) for i, ty in row.get("casts", ()))))
    return {name: tuple(shapes) for name, shapes in out.items()}


@dataclass(frozen=True)
class StructOrder:
    cuda: str
    make: str
    cuda_fields: tuple[str, ...]
    hip_fields: tuple[str, ...]


@functools.cache
def struct_orders() -> dict[str, StructOrder]:
    raw = tomllib.loads(resources.files("porter").joinpath("data", "call_shapes.toml").read_text("utf-8"))
    return {name: StructOrder(name, row["make"], tuple(row["cuda_fields"]), tuple(row["hip_fields"]))
            for name, row in raw.get("struct", {}).items()}


def _positional(lst: tree_sitter.Node) -> bool:
    elements = [c for c in lst.named_children if c.type != "comment"]
    return bool(elements) and not any(c.type in ("initializer_pair", "field_designator") for c in elements)


def struct_init_edits(type_node: tree_sitter.Node, name: str) -> list[tuple[int, int, bytes]]:
    """`T x = {a, b}`, `T x{a, b}`, `T xs[] = {{..}, {..}}`, `T{a, b}`, `(T){a, b}` with T a reordered struct:
    the element lists wrapped as `{make(a, b)}`."""
    order = struct_orders()[name]
    lists: list[tree_sitter.Node] = []
    parent = type_node.parent
    while parent is not None and parent.type in ("qualified_identifier", "type_descriptor"):
        parent = parent.parent
    if parent is None:
        return []
    if parent.type == "compound_literal_expression":
        value = parent.child_by_field_name("value")
        if value is not None and value.type == "initializer_list":
            lists.append(value)
    elif parent.type == "declaration" and parent.child_by_field_name("type") in (type_node, type_node.parent):
        for declarator in parent.children_by_field_name("declarator"):
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
            if value is None or value.type != "initializer_list":
                continue
            inner = declarator.child_by_field_name("declarator")
            if inner is not None and inner.type == "array_declarator":
                lists += [c for c in value.named_children if c.type == "initializer_list"]
            else:
                lists.append(value)
    edits = []
    for lst in lists:
        if not _positional(lst):
            continue
        elements = [c for c in lst.named_children if c.type != "comment"]
        if len(elements) > len(order.cuda_fields):
            continue
        edits += [(elements[0].start_byte, elements[0].start_byte, f"{order.make}(".encode()),
                  (elements[-1].end_byte, elements[-1].end_byte, b")")]
    return edits


@dataclass
class ShapeEdit:
    edits: list[tuple[int, int, bytes]]
    renamed_to: str | None  # the HIP name the call now uses, when the shape changes it
    done: str  # what was done, for the report
    refused: str | None = None  # why a shape could not be applied (reported)
    replaced: bool = False  # the edits replace the whole call (nothing inside it is translated on its own)


def call_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The call expression whose function is the identifier `node` (through a qualified name)."""
    call = node.parent
    while call is not None and call.type == "qualified_identifier":
        call = call.parent
    return call if call is not None and call.type == "call_expression" else None


def shape_call(call: tree_sitter.Node, name: str, rocm: RocmVersion | None) -> ShapeEdit | None:
    args_node = call.child_by_field_name("arguments")
    if args_node is None:
        return None
    args = [a for a in args_node.named_children if a.type != "comment"]
    shape = next((s for s in call_shapes().get(name, ()) if s.applies(args, rocm)), None)
    if shape is None:
        return None
    if shape.same_as_made is not None and shape.noop is not None:
        create, index = shape.same_as_made
        if _sets_what_it_was_made_with(call, args, create, index):
            return ShapeEdit([(call.start_byte, call.end_byte, shape.noop.encode())], None,
                             f"sets what {create} already set: {shape.noop} ({shape.why})", replaced=True)
        return ShapeEdit([], None, "", f"{name}({shape.when_arg[1] if shape.when_arg else '...'}): {shape.why}; "
                                       f"make the descriptor with this value instead (porter could not tell that "
                                       f"{create} in the same function already did)")
    edits: list[tuple[int, int, bytes]] = []
    done: list[str] = []
    if shape.drop is not None and shape.drop < len(args):
        arg = args[shape.drop]
        if arg.text.strip() not in _NULL:
            return ShapeEdit([], None, "", f"{name}: argument {shape.drop + 1} ({arg.text.decode('utf-8', 'replace')}) "
                                          f"is not null: {shape.why}; HIP takes the call without it")
        edits.append((args[shape.drop - 1].end_byte, arg.end_byte, b""))
        done.append(f"dropped the null argument {shape.drop + 1}")
    if shape.cast is not None and shape.cast[0] < len(args):
        arg = args[shape.cast[0]]
        if not arg.text.lstrip().startswith(_ALREADY_CAST):
            edits += _cast(arg, shape.cast[1])
            done.append(f"argument {shape.cast[0] + 1} cast to {shape.cast[1]}")
    for index, type_ in shape.casts:
        if index < len(args):
            arg = args[index]
            core = re.sub(rb"\s+", b"", arg.text)
            if not core.startswith((f"({type_})".replace(" ", "").encode(), f"(({type_})".replace(" ", "").encode())):
                edits += _cast(arg, type_)
                done.append(f"argument {index + 1} cast to {type_}")
    if shape.append is not None and args:
        edits.append((args[-1].end_byte, args[-1].end_byte, f", {shape.append}".encode()))
        done.append(f"appended CUDA's default {shape.append}")
    if shape.insert is not None and 0 < shape.insert[0] <= len(args):
        at = args[shape.insert[0] - 1].end_byte
        edits.append((at, at, f", {shape.insert[1]}".encode()))
        done.append(f"{shape.insert[1]} as argument {shape.insert[0] + 1}")
    if shape.hip is not None:
        done.append(f"calls {shape.hip}")
    if not edits and shape.hip is None:
        return None
    return ShapeEdit(edits, shape.hip, "; ".join(done) + f" ({shape.why})")


def _cast(arg: tree_sitter.Node, type_: str) -> list[tuple[int, int, bytes]]:
    return [(arg.start_byte, arg.start_byte, f"({type_})(".encode()), (arg.end_byte, arg.end_byte, b")")]


def _enclosing_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    while node.parent is not None and node.type != "function_definition":
        node = node.parent
    return node if node.type == "function_definition" else None


def _address_of(arg: tree_sitter.Node) -> bytes | None:
    """`x` for an argument `&x` (x an identifier)."""
    if arg.type == "pointer_expression" and arg.children and arg.children[0].type == "&":
        operand = arg.child_by_field_name("argument")
        if operand is not None and operand.type == "identifier":
            return operand.text
    return None


def _sets_what_it_was_made_with(call: tree_sitter.Node, args: list[tree_sitter.Node], create: str, index: int) -> bool:
    """The call passes `&v` (argument 2), `v` a local declared once with an initialiser and otherwise only read
    by `sizeof`, and every `create(&desc, ...)` of the same descriptor in the function passes that initialiser's
    text as argument `index`."""
    function = _enclosing_function(call)
    value = _address_of(args[2]) if len(args) > 2 else None
    desc = args[0].text.strip()
    if function is None or value is None:
        return False
    initial: bytes | None = None
    made: list[bytes] = []
    for node in syntax.walk(function, "identifier", "call_expression"):
        if node.type == "identifier" and node.text == value:
            parent = node.parent
            if parent is not None and parent.type == "init_declarator" and parent.child_by_field_name("declarator") == node:
                if initial is not None:
                    return False  # declared twice: which one is meant is past this reading
                initial = parent.child_by_field_name("value").text.strip()
            elif parent is not None and parent == args[2]:
                continue
            elif parent is None or not (parent.type in ("sizeof_expression", "parenthesized_expression")
                                        and _inside_sizeof(parent)):
                return False  # read or written elsewhere: it may change
        elif node.type == "call_expression" and (fn := node.child_by_field_name("function")) is not None \
                and fn.text == create.encode():
            made_args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            if made_args and _address_of(made_args[0]) == desc and len(made_args) > index:
                made.append(made_args[index].text.strip())
    return initial is not None and bool(made) and all(b" ".join(m.split()) == b" ".join(initial.split()) for m in made)


def _inside_sizeof(node: tree_sitter.Node | None) -> bool:
    while node is not None and node.type == "parenthesized_expression":
        node = node.parent
    return node is not None and node.type == "sizeof_expression"

"""tree-sitter parsing of CUDA/C++ sources (tree-sitter-cuda grammar)."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from importlib import resources

import tree_sitter
import tree_sitter_cuda

LANGUAGE = tree_sitter.Language(tree_sitter_cuda.language())
_local = threading.local()


def parser() -> tree_sitter.Parser:
    """One parser per thread: tree_sitter.Parser is not thread-safe."""
    p = getattr(_local, "parser", None)
    if p is None:
        p = _local.parser = tree_sitter.Parser(LANGUAGE)
    return p


def parse(source: bytes) -> tree_sitter.Tree:
    return parser().parse(source)


def parse_ranges(source: bytes, ranges: list[tuple[int, int, tuple[int, int], tuple[int, int]]]) -> tree_sitter.Tree:
    """Parse only the given (start byte, end byte, start point, end point) ranges of `source`, as if they were one
    text; nodes keep their offsets in the whole source. The ranges must be sorted and must not overlap."""
    p = parser()
    p.included_ranges = [tree_sitter.Range(sp, ep, s, e) for s, e, sp, ep in ranges]
    try:
        return p.parse(source)
    finally:
        p.included_ranges = [tree_sitter.Range((0, 0), (0xFFFFFFFF, 0xFFFFFFFF), 0, 0xFFFFFFFF)]


@functools.cache
def keywords() -> frozenset[bytes]:
    """Identifier-shaped tokens the grammar treats as keywords (`__global__`, `__grid_constant__`, `asm`...)."""
    names = (LANGUAGE.node_kind_for_id(i) for i in range(LANGUAGE.node_kind_count) if not LANGUAGE.node_kind_is_named(i))
    return frozenset(n.encode() for n in names if n and re.fullmatch(r"[A-Za-z_]\w*", n))


@functools.cache
def query(text: str) -> tree_sitter.Query:
    return tree_sitter.Query(LANGUAGE, text)


@functools.cache
def load_query(name: str) -> tree_sitter.Query:
    """A query kept as data: porter/queries/<name>.scm."""
    return query(resources.files("porter").joinpath("queries", f"{name}.scm").read_text("utf-8"))


def matches(q: tree_sitter.Query, node: tree_sitter.Node) -> list[tuple[int, dict[str, list[tree_sitter.Node]]]]:
    return tree_sitter.QueryCursor(q).matches(node)


def error_lines(tree: tree_sitter.Tree, limit: int = 20) -> list[int]:
    """1-based lines of ERROR / MISSING nodes (tree-sitter recovers; we report where it had to)."""
    lines: list[int] = []
    if not tree.root_node.has_error:
        return lines
    stack = [tree.root_node]
    while stack and len(lines) < limit:
        node = stack.pop()
        if not node.has_error:
            continue
        children = [c for c in node.children if c.has_error]
        if node.is_error or node.is_missing or not children:  # (a node missing a zero-width token flags itself)
            lines.append(node.start_point.row + 1)
            continue
        stack.extend(reversed(children))
    return lines


def walk(node: tree_sitter.Node, *types: str) -> Iterator[tree_sitter.Node]:
    """The nodes of those types under `node` (itself included), in preorder, by a cursor (no Python recursion)."""
    cursor = node.walk()
    down = True
    while True:
        if down:
            if cursor.node.type in types:
                yield cursor.node
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            down = True
        elif cursor.goto_parent():
            down = False
        else:
            return

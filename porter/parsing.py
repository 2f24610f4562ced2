"""tree-sitter parsing of CUDA/C++ sources (tree-sitter-cuda grammar)."""

from __future__ import annotations

import functools
import threading
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
        if node.is_error or node.is_missing:
            lines.append(node.start_point.row + 1)
            continue
        stack.extend(reversed(node.children))
    return lines

"""Parse stage: what a C/C++/CUDA file is made of, before anything is translated.

Takes source bytes. `lexing` gives the token layout (comments and literals, directives, `#define` names, member
access, the file's top-level pieces) with C-speed regexes and no tree; `trees` gives tree-sitter-cuda trees, of a
whole file or of chosen byte ranges, and the queries run over them. The translator and the scanner both read
files through this stage.
"""

from porter.syntax.includes import include_position, includes_unconditionally, insert_include
from porter.syntax.lexing import (
    Layout,
    LineIndex,
    MappedLayout,
    PieceKind,
    first_char_alternation,
    in_spans,
    map_layout,
    splice,
    split_top_level,
)
from porter.syntax.trees import (
    LANGUAGE,
    error_lines,
    keywords,
    load_query,
    matches,
    parse,
    parse_ranges,
    parser,
    query,
    walk,
)

__all__ = [
    "LANGUAGE", "Layout", "LineIndex", "MappedLayout", "PieceKind", "error_lines", "first_char_alternation", "in_spans",
    "include_position", "includes_unconditionally", "insert_include", "keywords", "load_query", "map_layout",
    "matches", "parse", "parse_ranges", "parser", "query", "splice", "split_top_level", "walk",
]

"""Where an `#include` goes: the parts of a file outside its conditional blocks, and an include put where every line
after it sees it. The translator uses it for nvcc's implicit `cuda_runtime.h`, the fixers for the headers an error
asks for."""

from __future__ import annotations

import re

_PRAGMA_ONCE_RE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b.*$", re.M)
_INCLUDE_RE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.M)
_CONDITIONAL_RE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b[ \t]*(\w*)", re.M)
_GUARD_DEFINE_RE = re.compile(r"\s*#[ \t]*define[ \t]+(\w+)")
_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def unconditional_spans(text: str) -> list[tuple[int, int]]:
    """The parts of `text` outside every #if/#ifdef/#ifndef block, an include guard not counting as one."""
    spans, depth, start, guard = [], 0, 0, None
    for m in _CONDITIONAL_RE.finditer(text):
        if m.group(1) == "endif":
            depth = max(depth - 1, 0)
            if (depth == 0 and guard is None) or (depth == 1 and guard is not None):
                start = m.end()
            continue
        if depth == 0 and guard is None and m.group(1) == "ifndef" and not spans and not _COMMENT_RE.sub(
                "", text[:m.start()]).strip():
            d = _GUARD_DEFINE_RE.match(text, m.end())
            if d and d.group(1) == m.group(2):  # `#ifndef X_H` `#define X_H` first in the file: a guard
                guard, depth, start = m.group(2), 1, d.end()
                continue
        if depth == (1 if guard is not None else 0):
            spans.append((start, m.start()))
        depth += 1
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if a < b]


def _within(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in spans)


def includes_unconditionally(text: str, header: str, spans: list[tuple[int, int]] | None = None) -> bool:
    spans = unconditional_spans(text) if spans is None else spans
    return any(_within(spans, m.start()) for m in re.finditer(rf'#\s*include\s*[<"]{re.escape(header)}[>"]', text))


def include_position(text: str, header: str) -> int | None:
    """Where `#include <header>` goes so every line after it sees it: before the first include outside
    conditionals (a file's only HIP include may sit under `#ifdef USE_NVTX`), after `#pragma once`, or first;
    None when the file already includes it outside conditionals."""
    spans = unconditional_spans(text)
    if includes_unconditionally(text, header, spans):
        return None
    if (m := _PRAGMA_ONCE_RE.search(text)) and _within(spans, m.start()):
        return min(m.end() + 1, len(text))
    for m in _INCLUDE_RE.finditer(text):
        if _within(spans, m.start()):
            return m.start()
    at = spans[0][0] if spans else 0
    return at + 1 if text[at : at + 1] == "\n" else at


def insert_include(text: str, header: str) -> str:
    """`text` with `#include <header>` where include_position puts it (unchanged when it is there already)."""
    at = include_position(text, header)
    if at is None:
        return text
    line = f"#include <{header}>\n"
    if at > 0 and text[at - 1] != "\n":
        line = "\n" + line  # after a last line without its newline
    return text[:at] + line + text[at:]

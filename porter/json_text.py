"""`json.dumps(obj, indent=N, default=str)`, the same text, a few times faster.

Python's json module formats indented output with its pure-Python encoder (the C one only writes compact
text), which makes writing a convert's report (megabytes of findings and conversions) cost about a tenth of a
no-build run. This writer joins the same pieces with plain recursion and leaves strings to the C escaper.
tests/test_json_text.py holds it to json.dumps.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]

_float_repr = float.__repr__
_int_repr = int.__repr__


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return _float_repr(value)


def _key(key: object) -> str:
    """A dict key as json writes it (it turns non-string scalars into strings; other keys are refused)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return _int_repr(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def dumps(obj: object, indent: int = 2, default: Callable[[object], object] = str) -> str:
    """What json.dumps(obj, indent=indent, default=default) returns (ensure_ascii, no sort_keys, no cycles)."""
    out: list[str] = []
    append = out.append
    step = " " * indent
    # per nesting level, the strings between items, made once: millions of pieces share them
    opens: list[tuple[str, str, str, str, str]] = []

    def level_strings(level: int) -> tuple[str, str, str, str, str]:
        while len(opens) <= level:
            n = len(opens)
            inner, outer = "\n" + step * (n + 1), "\n" + step * n
            opens.append(("[" + inner, "{" + inner, "," + inner, outer + "]", outer + "}"))
        return opens[level]

    def encode(value: object, level: int) -> None:
        if isinstance(value, str):
            append(encode_basestring_ascii(value))
        elif value is None:
            append("null")
        elif value is True:
            append("true")
        elif value is False:
            append("false")
        elif isinstance(value, int):
            append(_int_repr(value))
        elif isinstance(value, float):
            append(_float(value))
        elif isinstance(value, list | tuple):
            if not value:
                append("[]")
                return
            open_list, _, separator, close_list, _ = level_strings(level)
            append(open_list)
            first = True
            for item in value:
                if first:
                    first = False
                else:
                    append(separator)
                encode(item, level + 1)
            append(close_list)
        elif isinstance(value, dict):
            if not value:
                append("{}")
                return
            _, open_dict, separator, _, close_dict = level_strings(level)
            append(open_dict)
            first = True
            for key, item in value.items():
                if first:
                    first = False
                else:
                    append(separator)
                append(encode_basestring_ascii(_key(key)))
                append(": ")
                encode(item, level + 1)
            append(close_dict)
        else:
            encode(default(value), level)

    encode(obj, 0)
    return "".join(out)


__all__ = ["dumps"]

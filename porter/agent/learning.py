"""What porter learns from the tasks the agent fixed: the edit patterns of each fix (an identifier rewritten, an
include added, an argument cast), lessons for later tasks, and, when one pattern fixed several tasks, a candidate
rule in the format of porter/data/fixers.toml. Candidates go into the report for a maintainer to review; porter
never adds them to its rules by itself. Pure: file contents and messages in, records out."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
_CAST = re.compile(r"\b(static_cast|reinterpret_cast|const_cast)\s*<")
_MISSING_NAME = re.compile(r"(?:use of undeclared identifier|unknown type name|no template named) '(\w+)'")
_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")
_NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_assert"}
_KEYWORDS = {
    "auto", "bool", "char", "class", "const", "constexpr", "double", "float", "inline", "int", "long", "return",
    "short", "signed", "static", "struct", "unsigned", "void", "volatile", "template", "typename", "if", "else",
}
MAX_LESSON = 240


@dataclass(frozen=True)
class EditPattern:
    action: str  # "replace_ident" | "include" | "wrap_call_arg"
    old: str = ""  # replace_ident: the identifier replaced
    new: str = ""  # replace_ident: its replacement; include: the header as written
    call: str = ""  # wrap_call_arg: the function called ...
    arg: int = 0  # ... the argument (0-based) wrapped ...
    prefix: str = ""  # ... in this (`static_cast<T>(`), closed by `)`

    def describe(self) -> str:
        if self.action == "replace_ident":
            return f"`{self.old}` -> `{self.new}`"
        if self.action == "include":
            return f"added `#include {self.new}`"
        return f"wrapped argument {self.arg + 1} of `{self.call}` in `{self.prefix}...)`"


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _matching(text: str, start: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at `start`, or -1."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _enclosing_call(line: str, at: int) -> tuple[str, int] | None:
    """(function, argument index) of the call whose argument list holds position `at` of `line`."""
    depth, commas = 0, 0
    for i in range(at - 1, -1, -1):
        c = line[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                if c != "(":
                    return None
                name = re.search(r"([A-Za-z_]\w*)\s*$", line[:i])
                if not name or name.group(1) in _NOT_CALLS:
                    return None
                return name.group(1), commas
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
    return None


def _casts(old_lines: list[str], new_lines: list[str]) -> set[EditPattern]:
    """Call arguments wrapped in a cast: the new line is an old line with `cast<T>(` ... `)` around one argument."""
    olds = {re.sub(r"\s+", " ", line.strip()) for line in old_lines}
    found = set()
    for line in new_lines:
        for m in _CAST.finditer(line):
            close_angle = _matching(line, m.end() - 1, "<", ">")
            if close_angle < 0 or line[close_angle + 1 : close_angle + 2] != "(":
                continue
            close = _matching(line, close_angle + 1, "(", ")")
            if close < 0:
                continue
            unwrapped = line[: m.start()] + line[close_angle + 2 : close] + line[close + 1 :]
            if re.sub(r"\s+", " ", unwrapped.strip()) not in olds:
                continue
            call = _enclosing_call(line, m.start())
            if call is not None:
                prefix = f"{m.group(1)}<{line[m.end() : close_angle].strip()}>("
                found.add(EditPattern("wrap_call_arg", call=call[0], arg=call[1], prefix=prefix))
    return found


def edit_patterns(before: str | None, after: str | None) -> set[EditPattern]:
    """The edit patterns that turn `before` into `after`. A file created or deleted (None) has none: what a new
    helper header includes is no fix of an error."""
    if before is None or after is None:
        return set()
    old_text, new_text = before, after
    a, b = old_text.splitlines(), new_text.splitlines()
    found: set[EditPattern] = set()
    known_includes = {m.group(2) for line in a if (m := _INCLUDE.match(line))}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        old_lines, new_lines = a[i1:i2], b[j1:j2]
        for line in new_lines:
            m = _INCLUDE.match(line)
            if m and m.group(2) not in known_includes:
                written = f"<{m.group(2)}>" if m.group(1) == "<" else f'"{m.group(2)}"'
                found.add(EditPattern("include", new=written))
        if tag != "replace":
            continue
        old_tokens, new_tokens = _tokens("\n".join(old_lines)), _tokens("\n".join(new_lines))
        matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        for op, k1, k2, l1, l2 in matcher.get_opcodes():
            if op == "replace" and k2 - k1 == 1 and l2 - l1 == 1:
                old, new = old_tokens[k1], new_tokens[l1]
                if _IDENT.fullmatch(old) and _IDENT.fullmatch(new) and not {old, new} & _KEYWORDS:
                    found.add(EditPattern("replace_ident", old=old, new=new))
        found |= _casts(old_lines, new_lines)
    return found


@dataclass
class TaskLearning:
    task_id: str
    messages: list[str]  # the task's error messages
    patterns: set[EditPattern]


def _regex(messages: set[str]) -> str:
    return "|".join(_REGEX_SPECIAL.sub(r"\\\1", m) for m in sorted(messages))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40]


def _rule(pattern: EditPattern, tasks: list[TaskLearning]) -> dict | None:
    """The fixers.toml entry for a pattern seen in `tasks`, or None when no error message can key it."""
    ids = ", ".join(t.task_id for t in tasks)
    messages = [m for t in tasks for m in t.messages]
    if pattern.action == "replace_ident":
        keyed = {m for m in messages if f"'{pattern.old}'" in m}
        if not keyed:
            return None
        return {"table": "rule", "entry": {
            "id": f"suggested-rename-{_slug(pattern.old)}",
            "description": f"learned from agent tasks {ids}: {pattern.describe()}",
            "match": _regex(keyed), "action": "replace_ident", "ident": pattern.old, "replacement": pattern.new}}
    if pattern.action == "include":
        names = sorted({found.group(1) for m in messages if (found := _MISSING_NAME.search(m))})
        header = pattern.new[1:-1]
        if not names:
            return None
        return {"table": "include_for", "entry": {"pattern": f"^(?:{'|'.join(names)})$", "header": header},
                "description": f"learned from agent tasks {ids}: {pattern.describe()} (used by the missing-hip-include rule)"}
    keyed = {m for m in messages if f"'{pattern.call}'" in m}
    if not keyed:
        return None
    return {"table": "rule", "entry": {
        "id": f"suggested-cast-{_slug(pattern.call)}-arg{pattern.arg}",
        "description": f"learned from agent tasks {ids}: {pattern.describe()}",
        "match": _regex(keyed), "action": "wrap_call_arg", "locate": "line", "call": pattern.call,
        "arg": pattern.arg, "prefix": pattern.prefix, "suffix": ")"}}


def toml_entry(table: str, entry: dict, comment: str = "") -> str:
    """One `[[rule]]` / `[[include_for]]` table, as porter/data/fixers.toml writes them."""
    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        return json.dumps(str(v), ensure_ascii=False)  # a JSON string is a valid TOML basic string

    lines = [f"# {comment}"] if comment else []
    return "\n".join([*lines, f"[[{table}]]", *(f"{k} = {value(v)}" for k, v in entry.items())]) + "\n"


def suggest_rules(learned: list[TaskLearning], min_tasks: int = 2) -> list[dict]:
    """Candidate rules: each edit pattern that fixed at least `min_tasks` tasks, once."""
    seen: dict[EditPattern, list[TaskLearning]] = {}
    for task in learned:
        for pattern in task.patterns:
            seen.setdefault(pattern, []).append(task)
    out = []
    for pattern, tasks in sorted(seen.items(), key=lambda kv: (kv[0].action, kv[0].old, kv[0].new, kv[0].call)):
        if len({t.task_id for t in tasks}) < min_tasks:
            continue
        rule = _rule(pattern, tasks)
        if rule is None:
            continue
        comment = rule.pop("description", "") if rule["table"] == "include_for" else ""
        rule["toml"] = toml_entry(rule["table"], rule["entry"], comment)
        rule["seen_in"] = [t.task_id for t in tasks]
        rule["pattern"] = pattern.describe()
        out.append(rule)
    return out


def lesson(title: str, summary: str, patterns: set[EditPattern]) -> str:
    """One line for later tasks: what this task was and what fixed it."""
    text = f"{title}: {' '.join(summary.split())}"
    if patterns:
        text += " (" + "; ".join(sorted(p.describe() for p in patterns)[:3]) + ")"
    return text if len(text) <= MAX_LESSON else text[: MAX_LESSON - 3] + "..."

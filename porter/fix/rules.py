"""Rule-based fixers: deterministic source edits for recurring compile errors after translation.

Rules are data (porter/data/fixers.toml): a regex on the diagnostic plus one of the edit kinds below.
Edits are applied bottom-up per file so earlier positions stay valid; include insertions come last.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from porter.build import Diagnostic
from porter.files import atomic_write
from porter.fix import shims
from porter.syntax import includes_unconditionally, insert_include
from porter.translate import load_api_map

_NOTE_LOC_RE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): note: (?P<msg>.*)$")
_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class Rule:
    id: str
    description: str
    match: re.Pattern[str]
    action: str
    in_notes: bool
    params: dict


@dataclass(frozen=True)
class FixApplied:
    rule: str
    file: str
    line: int
    message: str  # the diagnostic it answered

    def as_dict(self) -> dict:
        return {"rule": self.rule, "file": self.file, "line": self.line, "message": self.message}


@functools.cache
def _data() -> dict:
    return tomllib.loads(resources.files("porter").joinpath("data/fixers.toml").read_text("utf-8"))


@functools.cache
def all_rules() -> tuple[Rule, ...]:
    out = []
    for row in _data()["rule"]:
        params = {k: v for k, v in row.items() if k not in ("id", "description", "match", "action", "in_notes")}
        out.append(Rule(row["id"], row.get("description", ""), re.compile(row["match"]), row["action"],
                        bool(row.get("in_notes")), params))
    return tuple(out)


@dataclass(frozen=True)
class Explanation:
    id: str
    message: str


@functools.cache
def _explain_rules() -> tuple[tuple[str, re.Pattern[str], str, bool], ...]:
    return tuple((row["id"], re.compile(row["match"]), row["message"], bool(row.get("in_notes")))
                 for row in _data().get("explain", []))


_NAMED_RE = re.compile(r"(?:'(?P<header>[\w./]+)' file not found|(?:unknown type name|use of undeclared identifier"
                       r"|no template named|no type named) '(?P<name>\w+)')")


def explain(diag: Diagnostic) -> Explanation | None:
    """What to do about an error no rule fixes (fixers.toml [[explain]]), if porter knows: also any error naming a
    CUDA-only feature's identifier or header (porter/data/cuda_only.toml), which porter leaves as written."""
    for rule_id, pattern, message, in_notes in _explain_rules():
        m = pattern.search(diag.message + ("\n" + "\n".join(diag.notes) if in_notes else ""))
        if m:
            return Explanation(rule_id, message.format(**{k: v or "" for k, v in m.groupdict().items()}))
    m = _NAMED_RE.search(diag.message)
    if m:
        feature = load_api_map().cuda_only(m["header"] or m["name"])
        if feature is not None:
            return Explanation(feature.id, feature.detail)
    return None


def header_for(ident: str) -> str | None:
    for row in _data().get("include_for", []):
        if re.search(row["pattern"], ident):
            return row["header"]
    return None


class _Tree:
    """Source texts being edited, loaded lazily, plus include/shim insertions deferred to the end."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.texts: dict[str, str] = {}
        self.original: dict[str, str] = {}
        self.includes: dict[str, list[str]] = defaultdict(list)
        self.shims: dict[str, set[str]] = defaultdict(set)

    def in_tree(self, rel: str) -> bool:
        if not rel or Path(rel).is_absolute() or rel.startswith("..") or rel.startswith(shims.OUT_DIRNAME + "/"):
            return False
        return (self.root / rel).is_file()

    def lines(self, rel: str) -> list[str]:
        if rel not in self.texts:
            # bytes as they are: CRLF and non-UTF-8 bytes must survive a rule's edit of another line
            text = (self.root / rel).read_bytes().decode("utf-8", "surrogateescape")
            self.texts[rel] = self.original[rel] = text
        return self.texts[rel].splitlines(keepends=True)

    def set_line(self, rel: str, line: int, new: str) -> None:
        lines = self.lines(rel)
        lines[line - 1] = new
        self.texts[rel] = "".join(lines)

    def write(self) -> list[str]:
        changed = []
        for rel, text in self.texts.items():
            for header in self.includes.get(rel, []):
                text = insert_include(text, header)
            if text != self.original[rel]:
                atomic_write(self.root / rel, text.encode("utf-8", "surrogateescape"))
                changed.append(rel)
        pending = {Path(rel): names for rel, names in self.shims.items() if names}
        if pending:
            done = shims.install_shims(self.root, list(pending), only=pending)
            changed.extend(r for r in done if r not in changed)
        return changed


_INCLUDED_FROM_RE = re.compile(r"^In file included from (?P<file>.+):(?P<line>\d+)$")


def _locations(diag: Diagnostic, tree: _Tree, requested_only: bool = False) -> list[tuple[str, int, int]]:
    """The diagnostic's own location (if in the tree), then the in-tree file that included a system header
    where the error is, then in-tree note locations."""
    out = []
    if not requested_only and diag.line and tree.in_tree(diag.file):
        out.append((diag.file, diag.line, diag.column))
    if not requested_only and not out:
        chain = [m for n in diag.notes if (m := _INCLUDED_FROM_RE.match(n)) and tree.in_tree(m["file"])]
        if chain:
            out.append((chain[-1]["file"], int(chain[-1]["line"]), 1))
    for note in diag.notes:
        m = _NOTE_LOC_RE.match(note)
        if m and tree.in_tree(m["file"]) and (not requested_only or "requested here" in m["msg"]):
            out.append((m["file"], int(m["line"]), int(m["col"])))
    return out


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i


def _arg_spans(text: str, open_paren: int) -> list[tuple[int, int]]:
    """Spans of the top-level arguments of the call whose '(' is at `open_paren` (template commas kept)."""
    spans, depth, angle, start, i = [], 0, 0, open_paren + 1, open_paren + 1
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_literal(text, i)
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                spans.append((start, i))
                return spans
            depth -= 1
        elif c == "<" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") and text[i + 1: i + 2] != "<":
            angle += 1
        elif c == ">" and angle and text[i - 1] != "-":
            angle -= 1
        elif c == "," and depth == 0 and angle == 0:
            spans.append((start, i))
            start = i + 1
        i += 1
    return []


def _expression_end(text: str, i: int) -> int:
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_literal(text, i)
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return i
            depth -= 1
        elif c in ";," and depth == 0:
            return i
        i += 1
    return i


# --- edit kinds: each returns True when it changed something -------------------------------------------


def _add_shim(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    if forced := rule.params.get("shim"):  # the rule names the shim (an overload HIP lacks for a name it has)
        locs = _locations(diag, tree)
        shim = shims.all_shims()[forced]
        if not locs or f"{shims.OUT_DIRNAME}/{shim.file}" in "".join(tree.lines(locs[0][0])) \
                or shim.name in tree.shims[locs[0][0]]:
            return False
        tree.shims[locs[0][0]].add(shim.name)
        return True
    ident, ns = m["ident"], m.groupdict().get("ns")
    names = {ident, f"{ns}::{ident}" if ns else ident}
    # a CUDA name the translator left because HIP lacks it, where a shim provides the HIP spelling
    renamed = "hip" + ident[4:] if ident.startswith("cuda") else None
    for shim in shims.all_shims().values():
        if names & set(shim.provides) or renamed in shim.provides:
            locs = _locations(diag, tree)
            if not locs:
                return False
            rel = locs[0][0]
            if renamed in shim.provides:
                text = "".join(tree.lines(rel))
                tree.texts[rel] = re.sub(rf"\b{ident}\b", renamed, text)
                tree.shims[rel].add(shim.name)
                return True
            if f"{shims.OUT_DIRNAME}/{shim.file}" in "".join(tree.lines(rel)) or shim.name in tree.shims[rel]:
                return False
            tree.shims[rel].add(shim.name)
            return True
    return False


def _add_include(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    table = rule.params.get("table")  # a name -> header table of fixers.toml ([thrust_header_for])
    header = _data()[table].get(m["ident"]) if table else header_for(m["ident"])
    locs = _locations(diag, tree)
    if header is None or not locs:
        return False
    rel = locs[0][0]
    text = "".join(tree.lines(rel))
    if includes_unconditionally(text, header) or header in tree.includes[rel]:
        return False  # an include under a conditional (`#ifdef USE_NVTX`) does not count
    tree.includes[rel].append(header)
    return True


def _macro_lines(rel: str, line: int, ident: str, tree: _Tree) -> list[tuple[str, int]]:
    """Definitions of macros used on `line` whose body mentions `ident` (one level, any file in the tree)."""
    used = set(re.findall(r"\b\w+\b", tree.lines(rel)[line - 1]))
    files = [rel, *(p.relative_to(tree.root).as_posix() for p in tree.root.rglob("*")
                    if p.suffix in (".h", ".hpp", ".cuh", ".hh", ".inl") and p.is_file())]
    out = []
    for f in dict.fromkeys(files):
        if not tree.in_tree(f):
            continue
        for n, text in enumerate(tree.lines(f), 1):
            d = _DEFINE_RE.match(text)
            if d and d.group(1) in used and d.group(1) != ident and re.search(rf"\b{ident}\b", text):
                out.append((f, n))
    return out


def _replace_ident(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    ident, repl = rule.params["ident"], rule.params["replacement"]
    word = re.compile(rf"\b{re.escape(ident)}\b")
    targets = [(f, ln) for f, ln, _ in _locations(diag, tree) if word.search(tree.lines(f)[ln - 1])]
    if not targets:
        locs = _locations(diag, tree)
        targets = _macro_lines(locs[0][0], locs[0][1], ident, tree) if locs else []
    changed = False
    for f, ln in dict.fromkeys(targets):
        text = tree.lines(f)[ln - 1]
        if _DEFINE_RE.match(text) and _DEFINE_RE.match(text).group(1) == ident:
            continue
        tree.set_line(f, ln, word.sub(repl, text))
        if shim := rule.params.get("shim"):
            tree.shims[f].add(shim)
        changed = True
    return changed


def _wrap_call_arg(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    p = rule.params
    call = re.compile(rf"\b(?:{p['call']})\s*\(")
    for f, ln, col in _locations(diag, tree, requested_only=p.get("locate") == "requested_here"):
        text = "".join(tree.lines(f))
        line_start = sum(len(x) for x in tree.lines(f)[: ln - 1])
        # the call at the column, else the first one on the line
        found = [c for c in call.finditer(text, line_start, line_start + len(tree.lines(f)[ln - 1]))]
        at_col = [c for c in found if c.start() == line_start + col - 1]
        for c in at_col or found[:1]:
            spans = _arg_spans(text, c.end() - 1)
            if len(spans) <= p["arg"]:
                continue
            a, b = spans[p["arg"]]
            arg = text[a:b]
            core = arg.strip()
            if (p.get("arg_contains") and p["arg_contains"] not in core) or core.startswith(
                    p.get("skip_if_starts") or p["prefix"]):
                continue
            lead = arg[: len(arg) - len(arg.lstrip())]
            trail = arg[len(arg.rstrip()):]
            new = text[:a] + lead + p["prefix"] + core + p["suffix"] + trail + text[b:]
            tree.texts[f] = new
            return True
    return False


def _replace_at_column(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    pattern = re.compile(rule.params["pattern"])
    for f, ln, col in _locations(diag, tree)[:1]:
        text = tree.lines(f)[ln - 1]
        hit = pattern.search(text, max(col - 1, 0))
        if hit:
            tree.set_line(f, ln, text[: hit.start()] + rule.params["replacement"] + text[hit.end():])
            return True
    return False


_LEFT_OPERAND_RE = re.compile(r"([A-Za-z_]\w*(?:(?:\.|->)\w+|\[[^\]]*\])*)\s*$")


def _void_ptr_arith(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    for f, ln, col in _locations(diag, tree)[:1]:
        text = tree.lines(f)[ln - 1]
        op = text[col - 1: col + 1]
        left = _LEFT_OPERAND_RE.search(text[: col - 1])
        if not left:
            return False
        name = left.group(1)
        if op in ("+=", "-="):
            new_left = f"reinterpret_cast<char*&>({name})"
        elif op[:1] in "+-" and op != "++" and op != "--":
            new_left = f"(static_cast<char*>({name}))"
        else:
            return False
        tree.set_line(f, ln, text[: left.start(1)] + new_left + text[left.end(1):])
        return True
    return False


def _cast_expression(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    for f, ln, col in _locations(diag, tree)[:1]:
        text = "".join(tree.lines(f))
        start = sum(len(x) for x in tree.lines(f)[: ln - 1]) + col - 1
        decl = re.compile(r"\w+\s*=(?!=)\s*").match(text, start)
        if decl:
            start = decl.end()
        end = _expression_end(text, start)
        expr = text[start:end].rstrip()
        if not expr or expr.startswith("reinterpret_cast"):
            return False
        tree.texts[f] = text[:start] + f"reinterpret_cast<{m['type']}>({expr})" + text[start + len(expr):]
        return True
    return False


def _replace_include(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    table = _data().get("hip_header_for", {})
    header = m["header"]
    if header not in table:
        return False
    for f, ln, _ in _locations(diag, tree)[:1]:
        text = tree.lines(f)[ln - 1]
        inc = re.match(rf'(\s*#\s*include\s*)[<"]{re.escape(header)}[>"](.*)$', text, re.S)
        if not inc:
            return False
        hip = table[header]
        already = hip and re.search(rf'#\s*include\s*[<"]{re.escape(hip)}[>"]', "".join(tree.lines(f)))
        new = "" if not hip or already else f"{inc.group(1)}<{hip}>{inc.group(2)}"
        tree.set_line(f, ln, new)
        return True
    return False


def _receiver_start(text: str, end: int) -> int:
    """Start of the postfix expression ending at `end` (`a`, `a.b`, `p->q[i]`, `f(x)`, `ns::t<4>(g)`), on one line."""
    i = end
    while True:
        while i > 0 and text[i - 1] in " \t":
            i -= 1
        if i > 0 and text[i - 1] in ")]":
            close, depth = text[i - 1], 0
            opener = "(" if close == ")" else "["
            j = i - 1
            while j >= 0:
                depth += text[j] == close
                depth -= text[j] == opener
                if depth == 0:
                    break
                j -= 1
            if j < 0:
                return end
            i = j
            if text[i - 1: i] == ">":  # template arguments before a call: f<32>(g)
                depth, j = 0, i - 1
                while j >= 0 and not (text[j] == "<" and depth == 1):
                    depth += text[j] == ">"
                    depth -= text[j] == "<"
                    j -= 1
                if j < 0:
                    return end
                i = j
            continue
        j = i
        while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
            j -= 1
        if j == i:
            return i
        i = j
        k = i
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if text[max(0, k - 2): k] in ("::", "->"):
            i = k - 2
        elif text[k - 1: k] == ".":
            i = k - 1
        else:
            return i


def _cg_member_call(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    """`g.member(args)` -> `porter_cg::member(g, args)` at the error's column (`p->member()` -> `(*p)`)."""
    member = m["member"]
    for f, ln, col in _locations(diag, tree)[:1]:
        text = tree.lines(f)[ln - 1]
        at = col - 1
        call = re.compile(rf"{member}\s*\(\s*").match(text, at)
        before = text[:at].rstrip()
        arrow = before.endswith("->")
        if call is None or not (arrow or before.endswith(".")):
            return False
        dot = len(before) - (2 if arrow else 1)
        start = _receiver_start(text, dot)
        receiver = text[start:dot].strip()
        if not receiver:
            return False
        has_args = text[call.end(): call.end() + 1] != ")"
        new = (text[:start] + f"porter_cg::{member}(" + ("*" if arrow else "") + receiver + (", " if has_args else "")
               + text[call.end():])
        tree.set_line(f, ln, new)
        tree.shims[f].add(rule.params["shim"])
        if rule.params.get("same_receiver_in_file") and not arrow and re.fullmatch(r"\w+", receiver):
            _same_receiver_calls(f, receiver, rule.params["same_receiver_in_file"], tree)
        return True


def _same_receiver_calls(f: str, receiver: str, members: str, tree: _Tree) -> None:
    """The other `receiver.member(` calls of the file, rewritten alike: the compiler reports a template's failure once
    per instantiation, so the next call with the same type would otherwise take another build round."""
    call = re.compile(rf"(?<![\w.>]){re.escape(receiver)}\s*\.\s*({members})\s*\(\s*")
    for n, line in enumerate(tree.lines(f), 1):
        new = call.sub(lambda c: f"porter_cg::{c[1]}({receiver}, ", line)
        if new != line:
            tree.set_line(f, n, new)


def _device_prop_member(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    """`prop.asyncEngineCount` on a hipDeviceProp_t that lacks it: the accessor of porter_device_props.h."""
    from porter.translate import device_prop_fields, rewrite_access

    name = m["field"]
    if name not in device_prop_fields():
        return False
    for f, ln, col in _locations(diag, tree)[:1]:
        lines = tree.lines(f)
        text = "".join(lines).encode("utf-8", "surrogateescape")
        line_start = len("".join(lines[: ln - 1]).encode("utf-8", "surrogateescape"))
        line_end = line_start + len(lines[ln - 1].encode("utf-8", "surrogateescape"))
        hits = [h for h in re.finditer(rb"(\.|->)\s*" + re.escape(name.encode()) + rb"\b", text[:line_end])
                if h.start() >= line_start]
        at_col = [h for h in hits if h.end() - len(name) == line_start + col - 1]
        for hit in at_col or hits[:1]:
            done = rewrite_access(text, hit.start(), hit.end(), hit.group(1) == b"->", name)
            if done is None:
                return False
            for s, e, new in sorted(done[1], reverse=True):
                text = text[:s] + new + text[e:]
            tree.texts[f] = text.decode("utf-8", "surrogateescape")
            tree.shims[f].add("porter_device_props")
            return True
    return False


def _host_default_argument(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    """`__global__ void k(const float* s = d_scale)` with a host variable: nvcc evaluates the default where the
    launch is (the host); clang checks it in the kernel's context. PORTER_HOST_DEFAULT (shim) keeps the variable for
    the host pass. Only a default argument of a kernel's parameter list: a kernel body using a host variable stays
    an error."""
    ident = m["ident"]
    for f, ln, col in _locations(diag, tree)[:1]:
        lines = tree.lines(f)
        pos = sum(len(x) for x in lines[: ln - 1]) + col - 1
        text = "".join(lines)
        if text[pos : pos + len(ident)] != ident:
            return False
        after = text[pos + len(ident) :].lstrip()
        before = text[:pos].rstrip()
        if not after or after[0] not in ",)" or not before.endswith("=") or before[-2:-1] in ("=", "!", "<", ">"):
            return False
        depth, i = 0, len(before) - 1
        while i >= 0:  # the parameter list's `(`
            c = before[i]
            if c == ")":
                depth += 1
            elif c == "(":
                if depth == 0:
                    break
                depth -= 1
            elif c in ";{}" and depth == 0:
                return False
            i -= 1
        head = before[max(before.rfind(";", 0, i), before.rfind("}", 0, i), before.rfind("{", 0, i)) + 1 : i]
        if i < 0 or not re.search(r"\b__global__\b", head):
            return False
        tree.texts[f] = text[:pos] + f"PORTER_HOST_DEFAULT({ident})" + text[pos + len(ident) :]
        tree.shims[f].add("porter_host_default")
        return True
    return False


_EXECUTION_SPACE = re.compile(r"\b__(?:host|device)__\b")
_ACCESS_LABEL = re.compile(r"\s*(?:(?:public|private|protected)\s*:(?!:)\s*)*")
_MEMBER_HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".hxx", ".inl", ".hip", ".cu", ".cpp")


def _member_execution_space(rule: Rule, diag: Diagnostic, m: re.Match, tree: _Tree) -> bool:
    """`class C { void f(); };` then `__device__ void C::f() {...}`: nvcc takes the definition's execution space,
    clang keeps host and device functions apart, so the definition matches no declaration. The declaration in the
    class gets the definition's `__device__`/`__host__` (only where it names none: then it was a host function
    that nothing could call on the GPU, and the definition says where it runs)."""
    member, owner = m["member"], m["owner"].rsplit("::", 1)[-1]
    for f, ln, col in _locations(diag, tree)[:1]:
        text = "".join(tree.lines(f))
        pos = sum(len(x) for x in tree.lines(f)[: ln - 1]) + col - 1
        head_start = max(text.rfind(";", 0, pos), text.rfind("}", 0, pos), text.rfind("{", 0, pos)) + 1
        spaces = " ".join(dict.fromkeys(_EXECUTION_SPACE.findall(text[head_start:pos])))
        if not spaces:
            return False
        for rel in [f, *_files_defining_class(tree, owner, f)]:
            if _qualify_member_declaration(tree, rel, owner, member, spaces):
                return True
    return False


def _files_defining_class(tree: _Tree, owner: str, first: str) -> list[str]:
    pattern = re.compile(rf"\b(?:class|struct)\s+{re.escape(owner)}\b")
    found = []
    for path in sorted(tree.root.rglob("*")):
        rel = path.relative_to(tree.root).as_posix()
        if (rel != first and path.suffix in _MEMBER_HEADER_SUFFIXES and tree.in_tree(rel)
                and pattern.search("".join(tree.lines(rel)))):
            found.append(rel)
    return found


def _qualify_member_declaration(tree: _Tree, rel: str, owner: str, member: str, spaces: str) -> bool:
    text = "".join(tree.lines(rel))
    for head in re.finditer(rf"\b(?:class|struct)\s+{re.escape(owner)}\b[^;{{]*\{{", text):
        depth, i, body_start = 1, head.end(), head.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[body_start : i - 1]
        for decl in re.finditer(rf"(?<![\w:.~>]){re.escape(member)}\s*\(", body):
            inner = body[: decl.start()]
            if inner.count("{") != inner.count("}"):
                continue  # inside a nested body, not a member declaration of this class
            start = max(inner.rfind(";"), inner.rfind("{"), inner.rfind("}")) + 1
            start += _ACCESS_LABEL.match(body, start).end() - start
            statement = body[start : decl.start()]
            if _EXECUTION_SPACE.search(statement) or "#" in statement:
                continue
            at = body_start + start
            tree.texts[rel] = text[:at] + spaces + " " + text[at:]
            return True
    return False


_ACTIONS = {
    "replace_include": _replace_include,
    "add_shim": _add_shim,
    "add_include": _add_include,
    "replace_ident": _replace_ident,
    "wrap_call_arg": _wrap_call_arg,
    "replace_at_column": _replace_at_column,
    "void_ptr_arith": _void_ptr_arith,
    "cast_expression": _cast_expression,
    "cg_member_call": _cg_member_call,
    "device_prop_member": _device_prop_member,
    "host_default_argument": _host_default_argument,
    "member_execution_space": _member_execution_space,
}


def _anchor(diag: Diagnostic) -> Diagnostic:
    """Errors clang prints without a location (inside a macro expansion) take their first note's location."""
    if diag.line:
        return diag
    for note in diag.notes:
        if m := _NOTE_LOC_RE.match(note):
            return Diagnostic(m["file"], int(m["line"]), int(m["col"]), diag.severity, diag.message, diag.notes)
    return diag


def apply_fixers(root: Path, diagnostics: list[Diagnostic],
                 rules: tuple[Rule, ...] | None = None) -> list[FixApplied]:
    """Apply the first matching rule to each error; files are written once at the end."""
    tree = _Tree(root.resolve())
    applied: list[FixApplied] = []
    errors = [_anchor(d) for d in diagnostics if d.severity in ("error", "fatal")]
    # bottom-up so column/line positions of later edits in a file are not shifted by earlier ones
    errors.sort(key=lambda d: (d.file, d.line, d.column), reverse=True)
    for diag in errors:
        for rule in rules or all_rules():
            subject = diag.message + ("\n" + "\n".join(diag.notes) if rule.in_notes else "")
            m = rule.match.search(subject)
            if m and _ACTIONS[rule.action](rule, diag, m, tree):
                applied.append(FixApplied(rule.id, diag.file, diag.line, diag.message))
                break
    tree.write()
    return applied

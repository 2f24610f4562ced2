"""Translate CUDA build files (CMake and Makefiles) to HIP.

Pure: bytes in, `TranslationResult` out, no I/O. The text is decoded with surrogateescape so any byte survives,
and every change is a span edit on the original text: comments, CRLF line ends and all untouched bytes are kept.
Mapping tables live in porter/data/buildfiles.toml; this module only knows the two grammars.
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import PurePosixPath

from porter.targets import UnknownTargetError, all_targets, resolve_target
from porter.translate.options import Conversion, Reason, TranslateOptions, TranslationResult, Unconverted

FAMILY = "build"
_BUILD_NAMES = frozenset({"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"})
_BUILD_SUFFIXES = (".cmake", ".mk", ".mak")
_REASONS = {"no-hip-equivalent": Reason.NO_HIP_EQUIVALENT, "not-mapped": Reason.NOT_MAPPED}


def is_build_file(relpath: str) -> bool:
    name = PurePosixPath(relpath.replace("\\", "/")).name
    return name in _BUILD_NAMES or name.lower().endswith(_BUILD_SUFFIXES)


def _is_cmake(relpath: str) -> bool:
    name = PurePosixPath(relpath.replace("\\", "/")).name
    return name == "CMakeLists.txt" or name.lower().endswith(".cmake")


def translate_build_file(relpath: str, source: bytes, options: TranslateOptions) -> TranslationResult:
    text = source.decode("utf-8", "surrogateescape")
    session = _Session(text, relpath, options, load_build_data())
    if _is_cmake(relpath):
        _CMake(session).run()
    else:
        _Make(session).run()
    return session.result()


# --- data ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Report:
    reason: Reason
    detail: str = ""


@dataclass(frozen=True)
class _Plain:
    hip: str
    detail: str = ""
    nvcc_only: bool = False


@dataclass(frozen=True)
class _Valued:
    action: str
    hip: str = ""
    values: dict[str, str] = field(default_factory=dict)
    report: _Report | None = None
    detail: str = ""
    nvcc_only: bool = False


@dataclass(frozen=True)
class _Link:
    hip: str
    package: str


@dataclass(frozen=True)
class BuildData:
    min_version: tuple[int, ...]
    flag_commands: frozenset[str]
    source_commands: frozenset[str]
    link_commands: frozenset[str]
    rename: dict[str, str]
    report: dict[str, _Report]
    commands: dict[str, dict]
    commands_report: dict[str, _Report]
    find_package: dict[str, str]
    find_package_report: dict[str, _Report]
    link: dict[str, _Link]
    link_report: dict[str, _Report]
    bare_link: dict[str, str]
    link_vars: dict[str, str]
    plain: dict[str, _Plain]
    flag_report: dict[str, _Report]
    valued: dict[str, _Valued]
    libraries: dict[str, str]
    libraries_report: dict[str, _Report]
    cuda_root_vars: tuple[str, ...]
    rocm_var: str
    rocm_default: str


def _report(row: dict) -> _Report:
    return _Report(_REASONS[row["reason"]], row.get("detail", ""))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


@functools.cache
def load_build_data() -> BuildData:
    raw = tomllib.loads(resources.files("porter").joinpath("data/buildfiles.toml").read_text("utf-8"))
    cm, fl, mk = raw["cmake"], raw["flags"], raw["make"]
    valued = {}
    for name, row in fl["valued"].items():
        rep = _report(row) if "reason" in row else None
        valued[name] = _Valued(row["action"], row.get("hip", ""), dict(row.get("values", {})), rep,
                               row.get("detail", ""), bool(row.get("nvcc_only", False)))
    return BuildData(
        min_version=_version(cm["min_version"]),
        flag_commands=frozenset(cm["flag_commands"]),
        source_commands=frozenset(cm["source_commands"]),
        link_commands=frozenset(cm["link_commands"]),
        rename=dict(cm["rename"]),
        report={k: _report(v) for k, v in cm["report"].items()},
        commands=dict(cm["commands"]),
        commands_report={k: _report(v) for k, v in cm["commands_report"].items()},
        find_package=dict(cm["find_package"]),
        find_package_report={k: _report(v) for k, v in cm["find_package_report"].items()},
        link={k: _Link(v["hip"], v["package"]) for k, v in cm["link"].items()},
        link_report={k: _report(v) for k, v in cm["link_report"].items()},
        bare_link=dict(cm["bare_link"]),
        link_vars=dict(cm["link_vars"]),
        plain={k: _Plain(v["hip"], v.get("detail", ""), bool(v.get("nvcc_only", False))) for k, v in fl["plain"].items()},
        flag_report={k: _report(v) for k, v in fl["report"].items()},
        valued=valued,
        libraries=dict(raw["libraries"]),
        libraries_report={k: _report(v) for k, v in raw["libraries_report"].items()},
        cuda_root_vars=tuple(mk["cuda_root_vars"]),
        rocm_var=mk["rocm_path_var"],
        rocm_default=mk["rocm_path_default"],
    )


# --- edits and findings ----------------------------------------------------------------------------------------


def offload_arch(target: str) -> str:
    """What --offload-arch / HIP_ARCHITECTURES get for a target: an arch as given (`gfx942:sramecc+` keeps its
    features), a product name (`MI355X`) as its arch."""
    base = target.split(":", 1)[0].strip().lower()
    if base in all_targets():
        return target.strip()
    try:
        return resolve_target(target).arch
    except UnknownTargetError:
        return target.strip()  # an arch porter has no profile for: hipcc judges it


class _Session:
    """The text, the span edits made on it, and what was converted or left."""

    def __init__(self, text: str, relpath: str, options: TranslateOptions, data: BuildData) -> None:
        self.text = text
        self.relpath = relpath.replace("\\", "/")
        self.options = options
        self.data = data
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.edits: list[tuple[int, int, str]] = []
        self.conversions: list[Conversion] = []
        self.unconverted: list[Unconverted] = []
        self.warnings: list[str] = []
        self._reported: set[tuple[str, int]] = set()
        self.renames = _Renamer(options.renamed, posixpath.dirname(self.relpath))
        self.list_separator = False  # CMake: ';' separates list items, so it goes with a removed item

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def column(self, offset: int) -> int:
        return offset - self._starts[self.line(offset) - 1] + 1

    def line_start(self, offset: int) -> int:
        return self._starts[self.line(offset) - 1]

    def line_end(self, offset: int) -> int:
        """Offset of the line ending (before \\r\\n or \\n) of the line holding offset."""
        end = self.text.find("\n", offset)
        end = len(self.text) if end < 0 else end
        return end - 1 if end > 0 and self.text[end - 1] == "\r" else end

    def indent_at(self, offset: int) -> str:
        start = self.line_start(offset)
        return re.match(r"[ \t]*", self.text[start:]).group(0)

    def free(self, start: int, end: int) -> bool:
        return not any(_overlap(start, end, s, e) for s, e, _ in self.edits)

    def replace(self, start: int, end: int, new: str, cuda: str | None = None, line_at: int | None = None) -> bool:
        if not self.free(start, end):
            return False
        self.edits.append((start, end, new))
        if cuda is not None:
            self.conversions.append(Conversion(FAMILY, cuda, new.strip() or "(removed)", self.line(start if line_at is None else line_at)))
        return True

    def insert(self, at: int, new: str, cuda: str) -> None:
        self.edits.append((at, at, new))
        self.conversions.append(Conversion(FAMILY, cuda, new.strip(), self.line(at)))

    def delete(self, start: int, end: int, cuda: str) -> bool:
        """Remove a word (or words) and one separator beside it: the blanks before it unless they are the line's
        indentation (a make recipe keeps its tab), else the blanks after it; never a line break."""
        text, n = self.text, len(self.text)
        floor = max((e for s, e, _ in self.edits if e <= start), default=0)
        if self.list_separator and end < n and text[end] == ";":
            return self.replace(start, end + 1, "", cuda=cuda, line_at=start)
        if self.list_separator and start > floor and text[start - 1] == ";":
            return self.replace(start - 1, end, "", cuda=cuda, line_at=start)
        before = start
        while before > floor and text[before - 1] in " \t":
            before -= 1
        after = end
        while after < n and text[after] in " \t":
            after += 1
        if before < start and before > 0 and text[before - 1] not in "\r\n":
            span = (before, end)
        elif after > end and (after == n or text[after] not in "\r\n"):
            span = (start, after)
        else:
            span = (start, end)
        return self.replace(*span, "", cuda=cuda, line_at=start)

    def report(self, name: str, offset: int, reason: Reason, detail: str = "") -> None:
        key = (name, offset)
        if key in self._reported:
            return
        self._reported.add(key)
        self.unconverted.append(Unconverted(name, self.line(offset), self.column(offset), reason, FAMILY, detail))

    def result(self) -> TranslationResult:
        applied: list[tuple[int, int, str]] = []
        last = 0
        for start, end, new in sorted(self.edits, key=lambda e: (e[0], e[1])):
            if start < last:  # overlapping edit: the first one wins
                continue
            applied.append((start, end, new))
            last = end
        out, pos = [], 0
        for start, end, new in applied:
            out.append(self.text[pos:start])
            out.append(new)
            pos = end
        out.append(self.text[pos:])
        output = "".join(out).encode("utf-8", "surrogateescape")
        self.unconverted.sort(key=lambda u: (u.line, u.column))
        self.conversions.sort(key=lambda c: c.line)
        return TranslationResult(output, self.conversions, self.unconverted, self.warnings)


def _overlap(a0: int, a1: int, b0: int, b1: int) -> bool:
    if a0 == a1:
        return b0 < a0 < b1
    if b0 == b1:
        return a0 < b0 < a1
    return max(a0, b0) < min(a1, b1)


class _Renamer:
    """References to files renamed by --rename (basenames and relative paths), and the .cu -> .hip suffix."""

    def __init__(self, renamed: tuple[tuple[str, str], ...], here: str) -> None:
        self.pairs: list[tuple[str, str]] = []
        suffixes = set()
        for old, new in renamed:
            old, new = old.replace("\\", "/"), new.replace("\\", "/")
            self.pairs.append((old, new))
            if here and "/" in old:
                rel_old, rel_new = posixpath.relpath(old, here), posixpath.relpath(new, here)
                if not rel_old.startswith("../"):
                    self.pairs.append((rel_old, rel_new))
            old_suffix, new_suffix = PurePosixPath(old).suffix, PurePosixPath(new).suffix
            if old_suffix == ".cu" and new_suffix and new_suffix != old_suffix:
                suffixes.add(new_suffix)
        self.pairs.sort(key=lambda p: -len(p[0]))
        self.cu_suffix = sorted(suffixes)[0] if suffixes else None

    @property
    def active(self) -> bool:
        return bool(self.pairs)

    def word(self, word: str) -> str | None:
        for old, new in self.pairs:
            if word == old:
                return new
            if word.endswith("/" + old) and PurePosixPath(new).parent == PurePosixPath(old).parent:
                return word[: -len(old)] + new
        if self.cu_suffix:
            renamed = _CU_SUFFIX.sub(self.cu_suffix, word)
            if renamed != word:
                return renamed
        return None


_CU_SUFFIX = re.compile(r"\.cu(?![A-Za-z0-9_])")


# --- words and nvcc flags (shared by both grammars) ------------------------------------------------------------


@dataclass
class _Word:
    text: str
    start: int
    end: int


_CUDA_ARCH_VALUE = re.compile(r"(?:sm|compute|lto)_[\w$]|^(?:native|all|all-major)$")
_CUDA_PATH_LITERAL = r"/usr/local/cuda(?:-[0-9.]+)?|/opt/cuda"


def _trim(text: str, start: int, closers: str) -> _Word:
    """Drop closing brackets at the end of a word that it did not open (`$(foreach ...,-arch=sm_$(x)))`)."""
    end = start + len(text)
    pairs = {")": "(", "}": "{", ">": "<"}
    while text and text[-1] in closers and text.count(text[-1]) > text.count(pairs[text[-1]]):
        text = text[:-1]
        end -= 1
    return _Word(text, start, end)


class _Flags:
    """Rewrites nvcc options, -l libraries and nvcc itself in one group of words (a command or a make line)."""

    def __init__(self, session: _Session, make: bool) -> None:
        self.s = session
        self.d = session.data
        self.make = make
        self.target = offload_arch(session.options.target)
        vars_ = "|".join(re.escape(v) for v in self.d.cuda_root_vars)
        root = rf"(?:\$\((?:{vars_})\)|\$(?:ENV)?\{{(?:{vars_})\}}|{_CUDA_PATH_LITERAL})"
        self.root_re = re.compile(root)
        self.path_rules = [
            # host compilers that include HIP headers need the platform macro hipcc would define
            (re.compile(rf"^-I{root}/include/?$"), "-I{rocm}/include -D__HIP_PLATFORM_AMD__"),
            (re.compile(rf"^-isystem{root}/include/?$"), "-isystem{rocm}/include"),
            (re.compile(rf"^-L{root}/(?:lib64|lib|targets/[\w-]+/lib)(?:/stubs)?/?$"), "-L{rocm}/lib"),
            (re.compile(rf"^-Wl,-rpath[,=]{root}/(?:lib64|lib)/?$"), "-Wl,-rpath,{rocm}/lib"),
            (re.compile(rf"^{root}/include/?$"), "{rocm}/include"),
            (re.compile(rf"^{root}/(?:lib64|lib)/?$"), "{rocm}/lib"),
        ]
        self.rocm = f"$({self.d.rocm_var})"
        self.used_rocm = False

    def rewrite(self, words: list[_Word], nvcc: bool, definition: bool = False) -> None:
        texts = {w.text for w in words}
        self.arch_done = f"--offload-arch={self.target}" in texts
        self.libs_done = {t for t in texts if t.startswith("-l")}
        i = 0
        while i < len(words):
            i += self._one(words, i, nvcc, definition)

    def _one(self, words: list[_Word], i: int, nvcc: bool, definition: bool) -> int:
        w = words[i]
        t = w.text
        if not t.startswith("-"):
            self._plain_word(w, definition)
            return 1
        d = self.d
        plain = d.plain.get(t)
        if plain and (nvcc or not plain.nvcc_only):
            self._put(w.start, w.end, plain.hip, t)
            return 1
        if t in d.flag_report:
            rep = d.flag_report[t]
            self.s.report(t, w.start, rep.reason, rep.detail)
            return 1
        if t.startswith("-l") and len(t) > 2:
            return self._library(w)
        name, value, used, end = t, None, 1, w.end
        if "=" in t and t.split("=", 1)[0] in d.valued:
            name, value = t.split("=", 1)
        elif t in d.valued and i + 1 < len(words):
            value, used, end = words[i + 1].text, 2, words[i + 1].end
            quote = value[:1]
            if quote in ("'", '"') and (len(value) == 1 or not value.endswith(quote)):
                # a quoted value with blanks in it: -Xcompiler "-fPIC -Wall"
                last = i + 2
                while last < len(words) - 1 and not words[last].text.endswith(quote):
                    last += 1
                last = min(last, len(words) - 1)
                used, end = last - i + 1, words[last].end
                value = self.s.text[words[i + 1].start:end]
        spec = d.valued.get(name)
        if spec is None or value is None or (spec.nvcc_only and not nvcc):
            for rule, template in self.path_rules if self.make else ():
                if rule.match(t):
                    self._put(w.start, w.end, template.format(rocm=self.rocm), t)
                    self.used_rocm = True
                    return 1
            self._leftover_root(w, definition)
            return 1
        return self._valued(spec, name, value, w.start, end, used, nvcc)

    def _valued(self, spec: _Valued, name: str, value: str, start: int, end: int, used: int, nvcc: bool) -> int:
        shown = self.s.text[start:end]
        action = spec.action
        if action == "keep":
            return used
        if action in ("arch", "arch-drop"):
            if name == "-arch" and not (nvcc or _CUDA_ARCH_VALUE.search(value)):
                return 1  # e.g. Apple's `-arch arm64` for the host compiler
            if action == "arch" and not self.arch_done:
                self.arch_done = True
                self._put(start, end, f"--offload-arch={self.target}", shown)
            else:
                self._put(start, end, "", shown)
            return used
        if action == "unwrap":
            inner = value.strip("\"'")
            self._put(start, end, " ".join(p.strip() for p in inner.split(",") if p.strip()), shown)
            return used
        if action == "drop":
            self._put(start, end, "", shown)
            return used
        if action == "drop-report":
            self._put(start, end, "", shown)
            rep = spec.report or _Report(Reason.NO_HIP_EQUIVALENT)
            self.s.report(shown, start, rep.reason, f"removed: {rep.detail}" if rep.detail else "removed")
            return used
        if action == "map":
            if value in spec.values:
                self._put(start, end, spec.values[value], shown)
            return used
        if action == "template":
            self._put(start, end, spec.hip.format(value=value), shown)
            return used
        return used

    def _library(self, w: _Word) -> int:
        name = w.text[2:]
        if name in self.d.libraries:
            hip = self.d.libraries[name]
            flag = f"-l{hip}" if hip else ""
            if not flag or flag in self.libs_done:
                self._put(w.start, w.end, "", w.text)
            else:
                self.libs_done.add(flag)
                self._put(w.start, w.end, flag, w.text)
        elif name in self.d.libraries_report:
            rep = self.d.libraries_report[name]
            self.s.report(w.text, w.start, rep.reason, rep.detail)
        return 1

    def _plain_word(self, w: _Word, definition: bool) -> None:
        t = w.text
        renamed = self.s.renames.word(t) if self.s.renames.active else None
        new = t if renamed is None else renamed
        prog = new.lstrip("@+-") if self.make else new
        if prog in ("nvcc", "nvcc.exe") or prog.endswith(("/nvcc", "/nvcc.exe")):
            if self.make:
                new = new[: len(new) - len(prog)] + "hipcc"
            else:
                self.s.report(prog, w.start, Reason.NOT_MAPPED, "nvcc: CMake's HIP compiler is ROCm's clang++ (set by the HIP language)")
        if new != t:
            self.s.replace(w.start, w.end, new, cuda=t)
            return
        for rule, template in self.path_rules if self.make else ():
            if rule.match(t):
                self._put(w.start, w.end, template.format(rocm=self.rocm), t)
                self.used_rocm = True
                return
        self._leftover_root(w, definition)

    def _leftover_root(self, w: _Word, definition: bool) -> None:
        if definition:
            return
        m = self.root_re.search(w.text)
        if m:
            hint = f"CUDA install path: use {self.rocm}" if self.make else "CUDA install path: use the hip/roc imported targets or ROCM_PATH"
            self.s.report(m.group(0), w.start + m.start(), Reason.NOT_MAPPED, hint)

    def _put(self, start: int, end: int, new: str, cuda: str) -> None:
        if new:
            self.s.replace(start, end, new, cuda=cuda)
        else:
            self.s.delete(start, end, cuda=cuda)


# --- CMake -----------------------------------------------------------------------------------------------------


@dataclass
class _Arg:
    kind: str  # "unquoted", "quoted", "bracket", "paren"
    start: int
    end: int
    text: str  # the raw token

    @property
    def value(self) -> str:
        return self.text[1:-1] if self.kind == "quoted" else self.text

    @property
    def value_start(self) -> int:
        return self.start + 1 if self.kind == "quoted" else self.start


@dataclass
class _Command:
    name: str
    start: int
    open: int
    close: int
    args: list[_Arg]
    closed: bool = True  # False: no `)` before the end of the file

    @property
    def lname(self) -> str:
        return self.name.lower()

    def words(self) -> list[_Arg]:
        return [a for a in self.args if a.kind in ("unquoted", "quoted")]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")


def _skip_bracket(text: str, i: int) -> int | None:
    m = _BRACKET_OPEN.match(text, i)
    if not m:
        return None
    close = text.find("]" + m.group(1) + "]", m.end())
    return len(text) if close < 0 else close + len(m.group(1)) + 2


def _skip_comment(text: str, i: int) -> int:
    end = _skip_bracket(text, i + 1)
    if end is not None:
        return end
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl


def _lex_cmake(text: str) -> list[_Command]:
    commands, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _skip_comment(text, i)
        elif c.isalpha() or c == "_":
            m = _IDENT.match(text, i)
            j = m.end()
            k = j
            while k < n and text[k] in " \t":
                k += 1
            if k < n and text[k] == "(":
                cmd = _lex_args(text, m.group(0), i, k)
                commands.append(cmd)
                i = cmd.close + 1
            else:
                i = j
        else:
            i += 1
    return commands


def _lex_args(text: str, name: str, start: int, open_: int) -> _Command:
    args: list[_Arg] = []
    i, n, depth = open_ + 1, len(text), 1
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _skip_comment(text, i)
        elif c == "(":
            depth += 1
            args.append(_Arg("paren", i, i + 1, c))
            i += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return _Command(name, start, open_, i, args)
            args.append(_Arg("paren", i, i + 1, c))
            i += 1
        elif c == '"':
            j = _skip_quoted(text, i)
            args.append(_Arg("quoted", i, j, text[i:j]))
            i = j
        elif c == "[" and _BRACKET_OPEN.match(text, i):
            j = _skip_bracket(text, i)
            args.append(_Arg("bracket", i, j, text[i:j]))
            i = j
        else:
            j = i
            while j < n and text[j] not in " \t\r\n()#":
                if text[j] == "\\":
                    j += 2
                elif text[j] == '"':  # legacy unquoted argument with an embedded quoted part: -DX="a b"
                    j = _skip_quoted(text, j)
                else:
                    j += 1
            j = min(j, n)
            args.append(_Arg("unquoted", i, j, text[i:j]))
            i = j
    return _Command(name, start, open_, n - 1, args, closed=False)


def _skip_quoted(text: str, i: int) -> int:
    j, n = i + 1, len(text)
    while j < n:
        if text[j] == "\\":
            j += 2
        elif text[j] == '"':
            return j + 1
        else:
            j += 1
    return n


def _arg_words(arg: _Arg) -> list[_Word]:
    """Whitespace/semicolon separated pieces of an argument, with generator-expression wrappers peeled off."""
    out = []
    base = arg.value_start
    for m in re.finditer(r"[^\s;]+", arg.value):
        text, start = m.group(0), base + m.start()
        if text.startswith("$<"):
            colon = text.find(":-")
            if colon < 0:
                colon = text.rfind(":")
            if colon >= 0:
                text, start = text[colon + 1:], start + colon + 1
        if text:
            out.append(_trim(text, start, ">"))
    return out


_LANG_GENEX = re.compile(r"((?:COMPILE|LINK)_LANGUAGE:(?:[A-Za-z]+,)*)CUDA(?![A-Za-z0-9_])")
_LANG_AND_ID = re.compile(r"COMPILE_LANG_AND_ID:CUDA,NVIDIA")
_COMPILER_ID_GENEX = re.compile(r"\$<CUDA_COMPILER_ID:NVIDIA>")
_ARCH_ITEM = re.compile(r"^(?:\d{2,3}[af]?(?:-real|-virtual)?|sm_\w+|compute_\w+|native|all|all-major)$")
_FALSE = frozenset({"OFF", "FALSE", "0", "NO", "N", "IGNORE"})
_LANG_KEYWORDS = frozenset({"LANGUAGE", "LINKER_LANGUAGE", "LANGUAGES"})


class _CMake:
    def __init__(self, session: _Session) -> None:
        self.s = session
        session.list_separator = True
        self.d = session.data
        self.text = session.text
        self.commands = []
        for cmd in _lex_cmake(self.text):
            if cmd.closed:
                self.commands.append(cmd)
            else:  # the rest of the file is inside it: leave it all as it is
                session.warnings.append(f"line {session.line(cmd.start)}: {cmd.name}( is never closed; "
                                        "the rest of the file was left as it is")
        self.flags = _Flags(session, make=False)
        names = sorted(set(self.d.rename) | set(self.d.report), key=len, reverse=True)
        self.ident_re = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r"|CMAKE_CUDA_\w+)(?![A-Za-z0-9_])")
        link_names = sorted(set(self.d.link) | set(self.d.link_report), key=len, reverse=True)
        self.link_re = re.compile(r"(?<![A-Za-z0-9_:])(" + "|".join(map(re.escape, link_names)) + r"|CUDA::\w+)(?![A-Za-z0-9_])")
        self.link_var_re = re.compile(r"\$\{(" + "|".join(map(re.escape, self.d.link_vars)) + r")\}")
        self.language_changed = False

    # -- pre-scan ------------------------------------------------------------------------------------------------
    def _prescan(self) -> None:
        self.found = set()
        self.covered: set[str] = set()
        self.needs: dict[str, int] = {}  # package -> offset of first use
        self.cuda_find: list[_Command] = []
        self.has_language = False
        self.language_at: int | None = None
        self.arch_before_language = False
        for cmd in self.commands:
            if cmd.lname == "message":
                continue
            vals = [a.value for a in cmd.words()]
            if cmd.lname == "find_package" and vals:
                if vals[0] in ("CUDA", "CUDAToolkit"):
                    self.cuda_find.append(cmd)
                else:
                    self.found.add(self.d.find_package.get(vals[0], vals[0]).lower())
            if (cmd.lname == "project" and ("CUDA" in vals[1:] or "HIP" in vals[1:])) or (
                    cmd.lname == "enable_language" and ("CUDA" in vals or "HIP" in vals)):
                self.has_language = True
                if self.language_at is None:
                    self.language_at = cmd.start
            if cmd.lname in ("set_source_files_properties", "set_property"):
                self._collect_covered(cmd, vals)
            for item, offset in self._link_items(cmd):
                pkg = self.d.link[item].package
                if pkg and pkg not in self.needs:
                    self.needs[pkg] = offset
            spec = self.d.commands.get(cmd.lname)
            if spec and "link" in spec:
                pkg = self.d.link[spec["link"]].package
                self.needs.setdefault(pkg, cmd.start)

    def _collect_covered(self, cmd: _Command, vals: list[str]) -> None:
        upper = [v.upper() for v in vals]
        if "LANGUAGE" not in upper:
            return
        k = upper.index("LANGUAGE")
        if k + 1 >= len(vals) or vals[k + 1] not in ("HIP", "CUDA"):
            return
        if cmd.lname == "set_source_files_properties" and "PROPERTIES" in upper:
            files = vals[: upper.index("PROPERTIES")]
        elif cmd.lname == "set_property" and vals and vals[0] == "SOURCE" and "PROPERTY" in upper:
            files = vals[1: upper.index("PROPERTY")]
        else:
            return
        for f in files:
            renamed = self.s.renames.word(f) if self.s.renames.active else None
            self.covered.add(renamed or f)

    def _link_items(self, cmd: _Command) -> list[tuple[str, int]]:
        """CUDA link items named by this command: (key of [cmake.link], offset)."""
        out = []
        for arg in cmd.words():
            for m in self.link_re.finditer(arg.value):
                if m.group(1) in self.d.link:
                    out.append((m.group(1), arg.value_start + m.start()))
            for m in self.link_var_re.finditer(arg.value):
                out.append((self.d.link_vars[m.group(1)], arg.value_start + m.start()))
            if cmd.lname in self.d.link_commands and arg.kind == "unquoted" and arg.text in self.d.bare_link:
                out.append((self.d.bare_link[arg.text], arg.start))
        return out

    # -- main pass -------------------------------------------------------------------------------------------
    def run(self) -> None:
        self._prescan()
        self.cu_vars: dict[str, list[str]] = {}
        for cmd in self.commands:
            self._command(cmd)
        self._add_missing_packages()
        if self.language_changed:
            self._bump_minimum()

    def _command(self, cmd: _Command) -> None:
        lname = cmd.lname
        if lname == "message":  # prose for people, not build settings
            return
        if lname in self.d.commands_report:
            rep = self.d.commands_report[lname]
            self.s.report(cmd.name, cmd.start, rep.reason, rep.detail)
        if lname == "find_package":
            self._find_package(cmd)
            return
        self._language(cmd)
        self._identifiers(cmd)
        self._architectures(cmd)
        self._links(cmd)
        self._renamed_sources(cmd)
        spec = self.d.commands.get(lname)
        if spec:  # before the flags: a removed OPTIONS section wins over flag edits inside it
            self._findcuda_command(cmd, spec)
        if lname in self.d.flag_commands:
            self._flags(cmd)
        else:  # flag commands report CUDA paths as they go
            for arg in cmd.words():
                for w in _arg_words(arg):
                    self.flags._leftover_root(w, definition=False)
        self._track_vars(cmd)
        if lname in self.d.source_commands:
            self._source_language(cmd)

    def _find_package(self, cmd: _Command) -> None:
        words = cmd.words()
        if not words:
            return
        name = words[0].value
        if name in self.d.find_package_report:
            rep = self.d.find_package_report[name]
            self.s.report(name, words[0].start, rep.reason, rep.detail)
            return
        hip = self.d.find_package.get(name)
        if hip is None:
            return
        old = self.text[cmd.start: cmd.close + 1]
        new = f"find_package({hip} REQUIRED)"
        if cmd is (self.cuda_find[0] if self.cuda_find else None):
            indent = self.s.indent_at(cmd.start)
            nl = self.s.newline
            extra = [p for p in self._needed() if p != hip and p not in self.found]
            if name == "CUDA" and not self.has_language:  # FindCUDA projects: the HIP language compiles the .cu files
                new = f"enable_language(HIP){nl}{indent}{new}"
                self.language_changed = True
            new += "".join(f"{nl}{indent}find_package({p} REQUIRED)" for p in extra)
            self.found.update(extra)
        self.found.add(hip)
        self.s.replace(cmd.start, cmd.close + 1, new, cuda=old)

    def _needed(self) -> list[str]:
        return sorted(self.needs, key=lambda p: p != "hip")  # hip first, then in order of use

    def _add_missing_packages(self) -> None:
        """Files that link CUDA:: targets without finding CUDA themselves (subdirectories) find the HIP packages."""
        at: dict[int, list[str]] = {}
        for pkg in self._needed():
            offset = self.needs[pkg]
            if pkg not in self.found:
                cmd_start = next((c.start for c in self.commands if c.start <= offset <= c.close), offset)
                at.setdefault(cmd_start, []).append(pkg)
        for start, pkgs in sorted(at.items()):
            indent = self.s.indent_at(start)
            line_start = self.s.line_start(start)
            lines = "".join(f"{indent}find_package({p} REQUIRED){self.s.newline}" for p in pkgs)
            self.s.insert(line_start, lines, cuda="CUDA:: targets")

    def _language(self, cmd: _Command) -> None:
        lname = cmd.lname
        words = cmd.words()
        values = [a.value for a in words]
        for k, arg in enumerate(words):
            if arg.kind != "unquoted" or arg.text != "CUDA":
                continue
            if (lname == "project" and k > 0) or lname in ("enable_language", "check_language") or self._after_language_kw(values, k):
                if lname == "project" and "HIP" in values:
                    self.s.delete(arg.start, arg.end, cuda="CUDA")
                else:
                    self.s.replace(arg.start, arg.end, "HIP", cuda="CUDA")
                if lname in ("project", "enable_language"):
                    self.language_changed = True
        for arg in words:
            base = arg.value_start
            for rx, repl in ((_LANG_AND_ID, "COMPILE_LANG_AND_ID:HIP,Clang"), (_COMPILER_ID_GENEX, "$<HIP_COMPILER_ID:Clang>")):
                for m in rx.finditer(arg.value):
                    self.s.replace(base + m.start(), base + m.end(), repl, cuda=m.group(0))
            for m in _LANG_GENEX.finditer(arg.value):
                start = base + m.start() + len(m.group(1))
                self.s.replace(start, start + 4, "HIP", cuda=m.group(0))

    def _arch_after_language(self, cmd: _Command) -> None:
        """CUDA's architectures may be set after project(... CUDA) (nvcc has a default); CMake's HIP support needs
        them when the language is enabled, where no GPU can be detected (a CI machine): the same value is set
        before it too, unless the user gives one (-DCMAKE_HIP_ARCHITECTURES=...)."""
        if self.language_at is None or cmd.start <= self.language_at or self.arch_before_language:
            return
        self.arch_before_language = True
        at = self.s.line_start(self.language_at)
        indent, nl = self.s.indent_at(self.language_at), self.s.newline
        arch = offload_arch(self.s.options.target)
        self.s.insert(at, f"{indent}if(NOT DEFINED CMAKE_HIP_ARCHITECTURES){nl}{indent}  set(CMAKE_HIP_ARCHITECTURES "
                          f"{arch}){nl}{indent}endif(){nl}", cuda="CMAKE_CUDA_ARCHITECTURES after the language")

    @staticmethod
    def _after_language_kw(values: list[str], k: int) -> bool:
        j = k - 1
        while j >= 0 and values[j] in ("CXX", "C", "CUDA", "HIP", "Fortran", "ASM"):
            j -= 1
        return j >= 0 and values[j] in _LANG_KEYWORDS

    def _identifiers(self, cmd: _Command) -> None:
        words = cmd.words()
        for k, arg in enumerate(words):
            base = arg.value_start
            for m in self.ident_re.finditer(arg.value):
                name, at = m.group(1), base + m.start()
                if name in self.d.rename:
                    self.s.replace(at, at + len(name), self.d.rename[name], cuda=name)
                    if name == "CMAKE_CUDA_ARCHITECTURES" and cmd.lname == "set" and k == 0:
                        self._arch_after_language(cmd)
                elif name in self.d.report:
                    following = words[k + 1].value.upper() if k + 1 < len(words) and arg.value == name else ""
                    if following in _FALSE and cmd.lname in ("set", "set_target_properties", "set_property"):
                        continue  # switched off: nothing to port
                    rep = self.d.report[name]
                    self.s.report(name, at, rep.reason, rep.detail)
                else:
                    self.s.report(name, at, Reason.NOT_MAPPED, "CMake CUDA variable without a known HIP counterpart")

    def _architectures(self, cmd: _Command) -> None:
        words = cmd.words()
        values = [a.value for a in words]
        lname = cmd.lname
        for k, v in enumerate(values):
            if v not in ("CMAKE_CUDA_ARCHITECTURES", "CUDA_ARCHITECTURES"):
                continue
            rest = words[k + 1:]
            if lname == "set_target_properties":
                rest = rest[:1]
            elif lname in ("set", "list", "string"):
                stop = next((i for i, a in enumerate(rest) if a.value in ("CACHE", "PARENT_SCOPE")), len(rest))
                rest = rest[:stop]
            elif lname != "set_property":
                continue
            if lname in ("list", "string") and k == 0:
                continue
            self._arch_values(rest)

    def _arch_values(self, args: list[_Arg]) -> None:
        if not args:
            return
        items = [item for a in args for item in a.value.split(";") if item]
        if any("${" in item for item in items):
            self.s.report(args[0].value, args[0].start, Reason.NOT_MAPPED,
                          f"architectures come from a variable: set them to AMD GPU targets such as {offload_arch(self.s.options.target)}")
            return
        if not items or not all(_ARCH_ITEM.match(item) for item in items):
            return
        shown = self.text[args[0].start: args[-1].end]
        self.s.replace(args[0].start, args[-1].end, offload_arch(self.s.options.target), cuda=shown)

    def _links(self, cmd: _Command) -> None:
        emitted: set[str] = set()
        is_link = cmd.lname in self.d.link_commands
        for arg in cmd.words():
            base = arg.value_start
            if is_link and arg.kind == "unquoted" and arg.text in self.d.bare_link:
                self._link_item(arg.start, arg.end, self.d.bare_link[arg.text], arg.text, emitted, whole=True)
                continue
            for m in self.link_re.finditer(arg.value):
                name = m.group(1)
                if name in self.d.link_report:
                    rep = self.d.link_report[name]
                    self.s.report(name, base + m.start(), rep.reason, rep.detail)
                elif name in self.d.link:
                    whole = arg.kind == "unquoted" and arg.text == name
                    self._link_item(base + m.start(), base + m.end(), name, name, emitted, whole and is_link)
                else:
                    self.s.report(name, base + m.start(), Reason.NOT_MAPPED, "CUDA toolkit target without a known HIP library")
            for m in self.link_var_re.finditer(arg.value):
                whole = arg.kind == "unquoted" and arg.text == m.group(0)
                self._link_item(base + m.start(), base + m.end(), self.d.link_vars[m.group(1)], m.group(0), emitted,
                                whole and is_link)

    def _link_item(self, start: int, end: int, key: str, shown: str, emitted: set[str], whole: bool) -> None:
        hip = self.d.link[key].hip
        if whole and (not hip or hip in emitted):
            self.s.delete(start, end, cuda=shown)
        elif hip:
            self.s.replace(start, end, hip, cuda=shown)
        else:
            self.s.report(shown, start, Reason.NO_HIP_EQUIVALENT, "not needed with HIP; remove it")
        emitted.add(hip)

    def _renamed_sources(self, cmd: _Command) -> None:
        # the words of flag commands go through _Flags, which renames them too
        if not self.s.renames.active or cmd.lname in self.d.flag_commands:
            return
        for arg in cmd.words():
            for w in _arg_words(arg):
                if w.text.startswith("-"):
                    continue
                new = self.s.renames.word(w.text)
                if new is not None:
                    self.s.replace(w.start, w.end, new, cuda=w.text)

    def _flags(self, cmd: _Command) -> None:
        words = cmd.words()
        lname = cmd.lname
        skip = 0
        if lname == "set" or lname == "separate_arguments":
            skip = 1
        elif lname in ("list", "string"):
            skip = 2
        var = words[skip - 1].value if skip and len(words) >= skip else ""
        body = self.text[cmd.open: cmd.close]
        nvcc = bool(re.search(r"CUDA|NVCC|HIP", var)) or "COMPILE_LANGUAGE:CUDA" in body or "COMPILE_LANGUAGE:HIP" in body
        if lname in ("cuda_add_executable", "cuda_add_library"):
            nvcc = True
        pieces = [w for arg in words[skip:] for w in _arg_words(arg)]
        self.flags.rewrite(pieces, nvcc)

    def _track_vars(self, cmd: _Command) -> None:
        """Remember which variables hold .cu sources (set/list(APPEND)/file(GLOB)), after renames."""
        vals = [a.value for a in cmd.words()]
        lname = cmd.lname
        if lname == "set" and vals:
            name, items = vals[0], vals[1:]
        elif lname == "list" and len(vals) > 1 and vals[0] == "APPEND":
            name, items = vals[1], vals[2:]
        elif lname == "file" and len(vals) > 1 and vals[0] in ("GLOB", "GLOB_RECURSE"):
            name = vals[1]
            patterns = [v for v in vals[2:] if v not in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "RELATIVE", "FOLLOW_SYMLINKS")]
            patterns = [self._renamed(p) for p in patterns]
            if patterns and all(p.endswith(".cu") for p in patterns):
                self.cu_vars[name] = ["${" + name + "}"]
            elif any(p.endswith(".cu") for p in patterns):
                self.s.warnings.append(
                    f"line {self.s.line(cmd.start)}: {name} globs .cu files with other sources; "
                    "set LANGUAGE HIP on its .cu files")
            return
        else:
            return
        found = [self._renamed(v) for v in items]
        cu = [v for v in found if v.endswith(".cu")]
        for v in found:
            m = re.fullmatch(r"\$\{(\w+)\}", v)
            if m and m.group(1) in self.cu_vars:
                cu.extend(self.cu_vars[m.group(1)])
        if lname == "list":
            self.cu_vars.setdefault(name, []).extend(cu)
        elif cu:
            self.cu_vars[name] = cu
        else:
            self.cu_vars.pop(name, None)

    def _renamed(self, word: str) -> str:
        if self.s.renames.active:
            return self.s.renames.word(word) or word
        return word

    def _findcuda_command(self, cmd: _Command, spec: dict) -> None:
        if "hip" in spec:
            self.s.replace(cmd.start, cmd.start + len(cmd.name), spec["hip"], cuda=cmd.name)
        if "link" in spec:
            target = cmd.words()[0].text if cmd.words() else ""
            hip = self.d.link[spec["link"]].hip
            self.s.replace(cmd.start, cmd.close + 1, f"target_link_libraries({target} {hip})",
                           cuda=self.text[cmd.start: cmd.close + 1])
        words = cmd.words()
        upper = [a.value for a in words]
        if spec.get("language") and "OPTIONS" in upper:
            k = upper.index("OPTIONS")
            start, end = words[k].start, words[-1].end
            shown = self.text[start:end]
            self.s.delete(start, end, cuda=shown)
            self.s.report("OPTIONS", start, Reason.NOT_MAPPED,
                          f"removed FindCUDA nvcc options ({shown}): add them with target_compile_options")

    def _source_language(self, cmd: _Command) -> None:
        words = cmd.words()
        if not words or (len(words) > 1 and words[1].value in ("IMPORTED", "ALIAS", "INTERFACE")):
            return
        items: list[str] = []
        for arg in words[1:]:
            value = self._renamed(arg.value)
            m = re.fullmatch(r"\$\{(\w+)\}", value)
            if m and m.group(1) in self.cu_vars:
                items.extend(self.cu_vars[m.group(1)])
            elif value.endswith(".cu") and arg.kind != "bracket":
                items.append(value if arg.kind == "unquoted" else f'"{value}"')
        todo = []
        for item in items:
            if item.strip('"') not in self.covered and item not in todo:
                todo.append(item)
        if not todo:
            return
        self.covered.update(i.strip('"') for i in todo)
        at = self.s.line_end(cmd.close)
        line = f"{self.s.newline}{self.s.indent_at(cmd.start)}set_source_files_properties({' '.join(todo)} PROPERTIES LANGUAGE HIP)"
        self.s.insert(at, line, cuda=".cu sources")

    def _bump_minimum(self) -> None:
        want = self.d.min_version
        for cmd in self.commands:
            if cmd.lname != "cmake_minimum_required":
                continue
            words = cmd.words()
            for k, arg in enumerate(words[:-1]):
                if arg.value != "VERSION":
                    continue
                ver = words[k + 1]
                low, dots, high = ver.value.partition("...")
                if not low or _version(low) >= want:
                    return
                wanted = ".".join(map(str, want))
                new = wanted if not dots or _version(high) < want else f"{wanted}...{high}"
                self.s.replace(ver.value_start, ver.value_start + len(ver.value), new, cuda=ver.value)
            return


# --- Makefiles -------------------------------------------------------------------------------------------------

_ASSIGN = re.compile(
    r"^[ \t]*(?:(?:export|override|private|unexport)[ \t]+)*([^\s:#=+?!]+)[ \t]*(:::=|::=|:=|\+=|\?=|!=|=)")
_NVCC_LINE = re.compile(r"(?i)nvcc|hipcc")
_NVCC_VAR = re.compile(r"(?i)nvcc|cuda|^cu|gencode|gpu|^hip")


class _Make:
    def __init__(self, session: _Session) -> None:
        self.s = session
        self.text = session.text
        self.flags = _Flags(session, make=True)

    @staticmethod
    def _word(text: str, start: int) -> _Word:
        # a flag inside a function call's argument list: `$(foreach sm,$(SMS),-gencode ...)`
        if not text.startswith("-") and ",-" in text and "$(" in text:
            cut = text.rfind(",-") + 1
            text, start = text[cut:], start + cut
        return _trim(text, start, ")}")

    def _logical_lines(self) -> list[tuple[int, int]]:
        """(start, end) of each logical line: physical lines joined by a trailing backslash; end excludes the EOL."""
        text, n = self.text, len(self.text)
        lines, start, i = [], 0, 0
        while True:
            nl = text.find("\n", i)
            phys_end = n if nl < 0 else nl
            body_end = phys_end - 1 if phys_end > i and text[phys_end - 1] == "\r" else phys_end
            body = text[i:body_end]
            if (len(body) - len(body.rstrip("\\"))) % 2 == 1 and nl >= 0:
                i = nl + 1
                continue
            lines.append((start, body_end))
            if nl < 0:
                return lines
            i = start = nl + 1

    def _comment_start(self, start: int, end: int, recipe: bool) -> int:
        text = self.text
        quote = None
        for i in range(start, end):
            c = text[i]
            if recipe:
                if quote:
                    if c == quote:
                        quote = None
                    continue
                if c in "'\"":
                    quote = c
                elif c == "#" and (i == start or text[i - 1] in " \t;"):
                    return i
            elif c == "#":
                backslashes = 0
                j = i - 1
                while j >= start and text[j] == "\\":
                    backslashes += 1
                    j -= 1
                if backslashes % 2 == 0:
                    return i
        return end

    def run(self) -> None:
        defined = False
        first_code: int | None = None
        d = self.s.data
        for start, end in self._logical_lines():
            recipe = self.text.startswith("\t", start)
            code_end = self._comment_start(start, end, recipe)
            code = self.text[start:code_end]
            if not code.strip():
                continue
            if first_code is None:
                first_code = start
            value_start, name = start, ""
            if not recipe:
                m = _ASSIGN.match(code)
                if m:
                    name, value_start = m.group(1), start + m.end()
                    defined = defined or name == d.rocm_var
            nvcc = bool(_NVCC_LINE.search(code)) or bool(name and _NVCC_VAR.search(name))
            words = [self._word(m.group(0), value_start + m.start())
                     for m in re.finditer(r"[^\s]+", self.text[value_start:code_end]) if m.group(0) != "\\"]
            self.flags.rewrite([w for w in words if w.text], nvcc, definition=name in d.cuda_root_vars)
        if self.flags.used_rocm and not defined:
            at = first_code if first_code is not None else len(self.text)
            line = f"{d.rocm_var} ?= {d.rocm_default}{self.s.newline}"
            if at == len(self.text) and self.text and not self.text.endswith("\n"):
                line = self.s.newline + line
            self.s.insert(at, line, cuda="CUDA install path")

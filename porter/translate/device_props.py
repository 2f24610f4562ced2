"""cudaDeviceProp fields that hipDeviceProp_t lacks on the target ROCm (issue 9, class 6).

`prop.asyncEngineCount` on a variable declared as cudaDeviceProp becomes `porter_prop_asyncEngineCount(prop)`
(`p->f` becomes `porter_prop_f(*(p))`), an accessor of shims/porter_device_props.h that reads the real field where
the HIP release has it, else hipDeviceGetAttribute, else a documented value (porter/data/device_props.toml says
which, and why; every rewritten field is reported with it). Writes and address-of cannot go through an accessor:
they are reported. Pure: bytes and the layout in, edits and records out.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources

from porter.syntax import Layout
from porter.translate.options import Conversion, Reason, RocmVersion, Unconverted

_DECLARED = re.compile(rb"\bcudaDeviceProp\b(?:\s*const\b)?\s*[&*\s]*\s*([A-Za-z_]\w*)")
_MORE = re.compile(rb"\s*(?:\[[^\]]*\]\s*)?(?:=[^,;()]*)?,\s*[&*]*\s*([A-Za-z_]\w*)")
_CONTAINER = re.compile(rb"<\s*(?:const\s+)?cudaDeviceProp\s*(?:[*&]\s*)?(?:,[^<>]*)?>\s*[&*]?\s*([A-Za-z_]\w*)")
_ACCESS = re.compile(rb"(\.|->)\s*([A-Za-z_]\w*)")
_WRITE_AFTER = re.compile(rb"\s*(?:\[[^\]]*\]\s*)*(?:=(?!=)|\+=|-=|\*=|/=|\|=|&=|\^=|<<=|>>=|\+\+|--)")


@dataclass(frozen=True)
class PropField:
    name: str
    type: str
    hip_since: RocmVersion | None  # None: no HIP release has it
    why: str
    hip_name: str  # HIP's spelling where it has the field

    def missing_in(self, rocm: RocmVersion | None) -> bool:
        """Whether the target lacks it under CUDA's name (None: the newest ROCm porter knows)."""
        return (self.hip_since is None or self.hip_name != self.name
                or (rocm is not None and rocm < self.hip_since))


@functools.cache
def device_prop_fields() -> dict[str, PropField]:
    raw = tomllib.loads(resources.files("porter").joinpath("data", "device_props.toml").read_text("utf-8"))
    return {name: PropField(name, row["type"], RocmVersion.parse(row["hip_since"]) if "hip_since" in row else None,
                            row["why"], row.get("hip_name", name)) for name, row in raw["field"].items()}


def accessor(name: str) -> str:
    return f"porter_prop_{name}"


@dataclass
class DevicePropEdits:
    edits: list[tuple[int, int, bytes]] = field(default_factory=list)
    conversions: list[Conversion] = field(default_factory=list)
    unconverted: list[Unconverted] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _declared_names(code: bytes) -> set[bytes]:
    names = set()
    for m in _DECLARED.finditer(code):
        names.add(m.group(1))
        pos = m.end()
        while (more := _MORE.match(code, pos)) is not None:  # cudaDeviceProp a, b[4];
            names.add(more.group(1))
            pos = more.end()
    names.update(m.group(1) for m in _CONTAINER.finditer(code))
    return names - {b"const", b"operator"}


def object_start(code: bytes, end: int) -> int:
    """Where the object expression ending at `end` (before `.f` or `->f`) starts: a name with subscripts, members
    and calls chained before it (`ctx.props[i]`, `get(d).prop`)."""
    i = end
    while True:
        j = i
        while j > 0 and code[j - 1:j].isspace():
            j -= 1
        if j > 0 and code[j - 1:j] in (b"]", b")"):
            close, open_ = code[j - 1:j], b"[" if code[j - 1:j] == b"]" else b"("
            depth, k = 0, j - 1
            while k >= 0:
                c = code[k:k + 1]
                if c == close:
                    depth += 1
                elif c == open_:
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
            if k < 0:
                return i
            i = k
            continue
        m = re.search(rb"[A-Za-z_]\w*$", code[max(0, j - 128):j])
        if m is None:
            return i
        i = j - len(m.group())
        k = i
        while k > 0 and code[k - 1:k].isspace():
            k -= 1
        if code[k - 1:k] == b"." and code[k - 2:k - 1] != b".":
            i = k - 1
            continue
        if code[k - 2:k] == b"->" or code[k - 2:k] == b"::":
            i = k - 2
            continue
        return i


def rewrite_access(code: bytes, dot: int, name_end: int, arrow: bool, field_name: str
                   ) -> tuple[int, list[tuple[int, int, bytes]]] | None:
    """Edits turning `obj.field` (the `.`/`->` at `dot`, the name ending at `name_end`) into an accessor call; the
    object's start and the edits, or None when the access writes the field or takes its address."""
    start = object_start(code, dot)
    if _WRITE_AFTER.match(code, name_end):
        return None
    before = code[max(0, start - 8):start].rstrip()
    if before.endswith((b"&", b"++", b"--")) and not before.endswith(b"&&"):
        return None
    call = accessor(field_name).encode()
    if arrow:
        return start, [(start, start, call + b"(*("), (dot, name_end, b"))")]
    return start, [(start, start, call + b"("), (dot, name_end, b")")]


def device_prop_edits(source: bytes, layout: Layout, line_of, column_of, rocm: RocmVersion | None) -> DevicePropEdits:
    result = DevicePropEdits()
    fields = device_prop_fields()
    wanted = {name for name, f in fields.items() if f.missing_in(rocm)}
    if not wanted:
        return result
    code = layout.code
    names = _declared_names(code)
    if not names:
        return result
    warned: set[str] = set()
    for m in _ACCESS.finditer(code):
        field_name = m.group(2).decode()
        if field_name not in wanted or layout.in_directive(m.start()):
            continue
        start = object_start(code, m.start())
        if start == m.start():
            continue
        last = re.search(rb"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$", code[start:m.start()])
        if last is None or last.group(1) not in names:
            continue  # not an object porter knows to be a cudaDeviceProp
        where = f"{code[start:m.end()].decode('utf-8', 'replace')}"
        rewritten = rewrite_access(code, m.start(), m.end(), m.group(1) == b"->", field_name)
        f = fields[field_name]
        target = f"ROCm {rocm}" if rocm else "HIP"
        lacks = (f"no HIP release has {field_name}" if f.hip_since is None
                 else f"HIP spells it {f.hip_name}" if f.hip_name != field_name and not (rocm and rocm < f.hip_since)
                 else f"{target}'s hipDeviceProp_t has no {field_name}")
        if rewritten is None:
            result.unconverted.append(Unconverted(
                field_name, line_of(m.start(2)), column_of(m.start(2)), Reason.NEEDS_AGENT, "device-prop",
                f"{lacks}: porter reads it through {accessor(field_name)}() (porter_device_props.h), but this use "
                "writes it or takes its address"))
            continue
        result.edits += rewritten[1]
        result.conversions.append(Conversion("device-prop", where, f"{accessor(field_name)}(...)", line_of(m.start())))
        if field_name not in warned:
            warned.add(field_name)
            result.warnings.append(f"line {line_of(m.start())}: {where}: {lacks}; {f.why}")
    return result

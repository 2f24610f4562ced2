"""Parsing clang output into Diagnostic records and rendering them grouped by file."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from porter.build.diagnostics import group_by_file, parse_clang_output, render_diagnostics

OUTPUT = """In file included from src/main.hip:3:
In file included from /ROOT/include/util.h:2:
/ROOT/include/inner.h:7:5: error: use of undeclared identifier 'cudaFree'; did you mean 'hipFree'?
    cudaFree(p);
    ^~~~~~~~
/usr/include/hip/hip_runtime_api.h:3000:12: note: 'hipFree' declared here
hipError_t hipFree(void* ptr);
           ^
src/main.hip:10:3: warning: unused variable 'x' [-Wunused-variable]
src/main.hip:12:1: fatal error: 'cuda_fp16.h' file not found
3 errors generated when compiling for gfx90a.
In file included from src/main.hip:3:
In file included from /ROOT/include/util.h:2:
/ROOT/include/inner.h:7:5: error: use of undeclared identifier 'cudaFree'; did you mean 'hipFree'?
error: expected '>'
src/other.hip:7:27: note: to match this '<'
clang: error: linker command failed with exit code 1 (use -v to see invocation)
"""


def _parse(root: Path):
    return parse_clang_output(OUTPUT.replace("/ROOT", str(root)), root, default_file="src/other.hip")


def test_locations_relative_to_root_with_include_chain_and_notes(tmp_path: Path) -> None:
    diags = _parse(tmp_path)
    first = diags[0]
    assert (first.file, first.line, first.column, first.severity) == ("include/inner.h", 7, 5, "error")
    assert first.message.startswith("use of undeclared identifier 'cudaFree'")
    assert first.notes == [
        "In file included from src/main.hip:3",
        "In file included from include/util.h:2",
        "/usr/include/hip/hip_runtime_api.h:3000:12: note: 'hipFree' declared here",
    ]


def test_severities_duplicates_and_locationless_errors(tmp_path: Path) -> None:
    diags = _parse(tmp_path)
    assert [(d.file, d.severity) for d in diags] == [
        ("include/inner.h", "error"), ("src/main.hip", "warning"), ("src/main.hip", "fatal"),
        ("src/other.hip", "error"),
    ]
    bare = diags[-1]
    assert bare.line == 0 and bare.message == "expected '>'"
    assert bare.notes == ["src/other.hip:7:27: note: to match this '<'"]


def test_tool_errors_kept_when_nothing_else_failed() -> None:
    diags = parse_clang_output("ld.lld: error: undefined symbol: foo\n", None, default_file="a.hip")
    assert [(d.file, d.severity, d.message) for d in diags] == [("a.hip", "error", "ld.lld: undefined symbol: foo")]


def test_render_groups_by_file(tmp_path: Path) -> None:
    diags = _parse(tmp_path)
    assert list(group_by_file(diags)) == ["include/inner.h", "src/main.hip", "src/other.hip"]
    console = Console(record=True, width=120, no_color=True)
    render_diagnostics(diags, console)
    text = console.export_text()
    assert "include/inner.h" in text and "7:5 error: use of undeclared identifier 'cudaFree'" in text
    assert "unused variable" not in text  # warnings only on request


SYSTEM_HEADER = """In file included from src/main.hip:1:
In file included from /usr/include/hip/hip_cooperative_groups.h:38:
/usr/include/hip/amd_detail/helper.h:117:22: error: use of undeclared identifier 'hipBlockDim_z'
/usr/include/hip/amd_detail/helper.h:118:5: error: use of undeclared identifier 'hipGridDim_x'
src/main.hip:9:3: error: no member named 'meta_group_rank' in 'tile'
/usr/include/rocprim/block.hpp:50:7: error: no matching function for call to 'load'
/usr/include/rocprim/block.hpp:40:3: note: candidate function not viable
src/kern.hip:33:5: note: in instantiation of function template specialization 'run<float>' requested here
/opt/elsewhere/x.h:3:1: error: something outside with no chain into the port
"""


def test_errors_in_system_headers_land_on_the_ports_file(tmp_path: Path) -> None:
    diags = parse_clang_output(SYSTEM_HEADER, tmp_path)
    where = [(d.file, d.line, d.column, d.origin) for d in diags]
    assert where == [
        ("src/main.hip", 1, 1, "/usr/include/hip/amd_detail/helper.h:117:22"),
        # clang prints a header's include chain once: the second error in it lands on the same include
        ("src/main.hip", 1, 1, "/usr/include/hip/amd_detail/helper.h:118:5"),
        ("src/main.hip", 9, 3, None),
        # a template instantiated from the port: the instantiation, not the include, is where it can be fixed
        ("src/kern.hip", 33, 5, "/usr/include/rocprim/block.hpp:50:7"),
        ("/opt/elsewhere/x.h", 3, 1, None),  # nothing in the port leads there: left as it is
    ]
    assert diags[0].notes[0] == ("/usr/include/hip/amd_detail/helper.h:117:22: note: the error is reported here, "
                                 "outside the port")
    assert "In file included from /usr/include/hip/hip_cooperative_groups.h:38" in diags[1].notes


SHIM_CHAIN = """In file included from src/scan.cu:43:
In file included from src/integral.cuh:30:
In file included from porter_shims/porter_cg_members.h:32:
In file included from /usr/include/hip/hip_cooperative_groups.h:38:
/usr/include/hip/amd_detail/amd_hip_cooperative_groups.h:699:13: error: no matching function for call to '__shfl_xor'
"""


def test_errors_reached_through_a_shim_land_on_the_users_file(tmp_path: Path) -> None:
    """porter's shims are not the user's to edit (the fixers skip them): the user's include of the shim is where."""
    from porter.build.diagnostics import SHIMS_DIRNAME
    from porter.fix.shims import OUT_DIRNAME

    assert SHIMS_DIRNAME == OUT_DIRNAME
    [diag] = parse_clang_output(SHIM_CHAIN, tmp_path)
    assert (diag.file, diag.line) == ("src/integral.cuh", 30)

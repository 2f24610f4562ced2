"""`porter convert` end to end through the real CLI: modes, outputs, and every kind of bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SAMPLE = b"""#include <cuda_runtime.h>
__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }
int main() {
    float* d;
    cudaMalloc(&d, 64 * sizeof(float));  // cudaMalloc in a comment
    k<<<1, 64>>>(d);
    const char* s = "cudaMalloc";
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
"""


def porter(*args: str | Path, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "porter", *map(str, args)], capture_output=True, cwd=cwd, env=full_env, timeout=300)


def assert_clean_error(proc: subprocess.CompletedProcess, code: int, needle: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert needle in err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.cu").write_bytes(SAMPLE)
    (root / "src" / "util.h").write_bytes(b"#pragma once\ninline int twice(int x) { return 2 * x; }\n")
    (root / "data.bin").write_bytes(bytes(range(256)) * 4)
    (root / "README.md").write_bytes(b"# project\n")
    return root


def test_tree_is_translated_and_other_files_copied_byte_for_byte(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = porter("convert", tree, "-o", out, "--no-build")
    assert proc.returncode == 0, proc.stderr.decode()
    main = (out / "src" / "main.cu").read_bytes()
    assert b"hipMalloc(&d" in main and b"hipFree(d)" in main and b"#include <hip/hip_runtime.h>" in main
    assert b"// cudaMalloc in a comment" in main and b'"cudaMalloc"' in main
    assert (out / "data.bin").read_bytes() == (tree / "data.bin").read_bytes()
    assert (out / "README.md").read_bytes() == b"# project\n"
    assert (out / "src" / "util.h").read_bytes() == (tree / "src" / "util.h").read_bytes()
    manifest = json.loads((out / ".porter" / "manifest.json").read_text())
    statuses = {f["output"]: f["status"] for f in manifest["files"]}
    assert statuses["src/main.cu"] == "translated" and statuses["data.bin"] == "copied"
    report = json.loads((out / ".porter" / "report.json").read_text())
    assert report["summary"]["converted_by_family"]["runtime"] >= 3
    assert proc.stdout == b""  # summaries go to stderr


def test_single_file_and_idempotence(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "main.hip"
    assert porter("convert", tree / "src" / "main.cu", "-o", out, "--no-build").returncode == 0
    again = tmp_path / "again.hip"
    assert porter("convert", out, "-o", again, "--no-build").returncode == 0
    assert again.read_bytes() == out.read_bytes()
    assert porter("convert", out, "--check").returncode == 0


def test_diff_writes_nothing_and_prints_a_patch(tree: Path) -> None:
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    proc = porter("convert", tree, "--diff")
    assert proc.returncode == 0
    assert proc.stdout.startswith(b"--- a/src/main.cu\n+++ b/src/main.cu\n")
    assert b"+    hipMalloc(&d, 64 * sizeof(float));" in proc.stdout
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    assert not (tree / ".porter").exists()


def test_check_exits_1_when_something_would_change(tree: Path) -> None:
    assert porter("convert", tree, "--check").returncode == 1
    assert not (tree / ".porter").exists()


def test_in_place_keeps_backups(tree: Path) -> None:
    proc = porter("convert", tree, "--in-place", "--no-build")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"hipMalloc" in (tree / "src" / "main.cu").read_bytes()
    assert (tree / ".porter" / "backup" / "src" / "main.cu").read_bytes() == SAMPLE
    assert not (tree / ".porter" / "backup" / "README.md").exists()  # unchanged files need no backup
    assert porter("convert", tree, "--check").returncode == 0


def test_launch_syntax_hip(tree: Path) -> None:
    proc = porter("convert", tree / "src" / "main.cu", "--diff", "--launch-syntax", "hip")
    assert b"+    hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d);" in proc.stdout


def test_rename_gives_cu_files_the_hip_suffix(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert porter("convert", tree, "-o", out, "--rename", "--no-build").returncode == 0
    assert (out / "src" / "main.hip").is_file() and not (out / "src" / "main.cu").exists()


def test_report_json_path(tree: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert porter("convert", tree, "--check", "--report", report).returncode == 1
    data = json.loads(report.read_text())
    main = next(f for f in data["files"] if f["path"] == "src/main.cu")
    assert main["converted"]["runtime"] >= 3 and main["status"] == "translated"


def test_untranslated_identifiers_are_listed_with_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "x.cu"
    src.write_bytes(b"int main() {\n  cudaFrobnicate(1);\n}\n")
    report = tmp_path / "r.json"
    proc = porter("convert", src, "--check", "--report", report)
    data = json.loads(report.read_text())
    left = data["files"][0]["not_converted"]
    assert left[0]["name"] == "cudaFrobnicate" and left[0]["line"] == 2 and left[0]["reason"] == "not yet mapped"
    assert "x.cu:2" in proc.stderr.decode()
    assert porter("convert", src, "--check", "--strict").returncode == 1


# -- bad input ----------------------------------------------------------------------------------------------------
def test_missing_path(tmp_path: Path) -> None:
    assert_clean_error(porter("convert", tmp_path / "nope", "-o", tmp_path / "out"), 2, "no such file or directory")


def test_conflicting_modes(tree: Path, tmp_path: Path) -> None:
    assert_clean_error(porter("convert", tree, "--diff", "--check"), 2, "cannot be combined")


def test_output_inside_input_is_refused(tree: Path) -> None:
    assert_clean_error(porter("convert", tree, "-o", tree / "out"), 2, "inside the input tree")
    assert not (tree / "out").exists()


def test_input_inside_output_is_refused(tree: Path) -> None:
    assert_clean_error(porter("convert", tree, "-o", tree.parent), 2, "inside the output directory")


def test_unknown_target(tree: Path) -> None:
    assert_clean_error(porter("convert", tree, "--check", "--target", "gfx9999"), 2, "unknown target")


def test_bad_rocm_version(tree: Path) -> None:
    assert_clean_error(porter("convert", tree, "--check", "--rocm", "six"), 2, "not a ROCm version")


def test_non_utf8_and_crlf_bytes_are_preserved(tmp_path: Path) -> None:
    src = tmp_path / "latin.cu"
    data = b"// caf\xe9\r\nint main() {\r\n  float* p; cudaMalloc(&p, 4); /* \xe8 */\r\n}\r\n"
    src.write_bytes(data)
    out = tmp_path / "out.cu"
    proc = porter("convert", src, "-o", out, "--no-build")
    assert proc.returncode == 0, proc.stderr.decode()
    # nvcc's implicit cuda_runtime.h made explicit, in the file's own line endings
    assert out.read_bytes() == b"#include <hip/hip_runtime.h>\r\n" + data.replace(b"cudaMalloc", b"hipMalloc")
    assert "not valid UTF-8" in proc.stderr.decode()


def test_binary_file_with_source_suffix_is_copied(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    blob = b"\x00\x01cudaMalloc\x00" * 100
    (root / "weird.cu").write_bytes(blob)
    out = tmp_path / "out"
    proc = porter("convert", root, "-o", out, "--no-build")
    assert proc.returncode == 0
    assert (out / "weird.cu").read_bytes() == blob
    assert "binary" in proc.stderr.decode()


def test_unreadable_file_fails_cleanly(tree: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads any file; permission errors cannot be provoked")
    (tree / "src" / "main.cu").chmod(0)
    proc = porter("convert", tree, "-o", tmp_path / "out", "--no-build")
    assert_clean_error(proc, 1, "permission denied")


def test_symlinks_are_not_followed_out_of_the_tree(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.cu"
    outside.write_bytes(SAMPLE)
    (tree / "src" / "escape.cu").symlink_to(outside)
    (tree / "src" / "alias.cu").symlink_to("main.cu")
    out = tmp_path / "out"
    proc = porter("convert", tree, "-o", out, "--no-build")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "points outside the tree" in proc.stderr.decode()
    assert not (out / "src" / "escape.cu").exists()
    assert (out / "src" / "alias.cu").is_symlink() and os.readlink(out / "src" / "alias.cu") == "main.cu"
    # in place: the link is not written through, the file it points to outside is untouched
    assert porter("convert", tree, "--in-place", "--no-build").returncode == 0
    assert outside.read_bytes() == SAMPLE


def test_existing_symlink_at_destination_is_not_written_through(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "src").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me")
    (out / "src" / "main.cu").symlink_to(victim)
    proc = porter("convert", tree, "-o", out, "--no-build")
    assert proc.returncode == 1
    assert "does not write through links" in proc.stderr.decode()
    assert victim.read_bytes() == b"keep me"


def _make_read_only(path: Path) -> None:
    if os.geteuid() != 0:
        path.chmod(0o555)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root on a file system without chattr +i: cannot make a read-only directory")


def _undo_read_only(path: Path) -> None:
    subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.chmod(0o755)


def test_read_only_destination(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    _make_read_only(out)
    try:
        proc = porter("convert", tree, "-o", out, "--no-build")
    finally:
        _undo_read_only(out)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr.decode()
    assert "cannot write" in proc.stderr.decode() or "permission denied" in proc.stderr.decode()
    assert list(out.iterdir()) == []  # no temp files left behind


def test_unparsable_and_deeply_nested_code_is_best_effort(tmp_path: Path) -> None:
    src = tmp_path / "bad.cu"
    depth = 3000
    src.write_bytes(b"int f() { return " + b"(" * depth + b"1" + b")" * depth + b"; }\n"
                    b"void g() { cudaMalloc(&p, 4); }}}} ))) <<< >>>\n#if\n")
    out = tmp_path / "out.cu"
    proc = porter("convert", src, "-o", out, "--no-build")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"hipMalloc(&p, 4)" in out.read_bytes()
    assert "could not parse" in proc.stderr.decode()


def test_huge_file_is_translated(tmp_path: Path) -> None:
    src = tmp_path / "huge.cu"
    chunk = b"void f%d() { cudaDeviceSynchronize(); }  // padding padding padding padding\n"
    src.write_bytes(b"".join(chunk % i for i in range(120_000)))  # ~9 MB in one file
    out = tmp_path / "out.cu"
    proc = porter("convert", src, "-o", out, "--no-build")
    assert proc.returncode == 0
    data = out.read_bytes()
    assert data.count(b"hipDeviceSynchronize") == 120_000 and b"cudaDeviceSynchronize" not in data


def test_ctrl_c_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    root = tmp_path / "big"
    from porter.translate.core import translate

    expected_new = translate(SAMPLE * 40).output
    for i in range(400):
        (root / f"d{i % 20}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 20}" / f"f{i}.cu").write_bytes(SAMPLE * 40)
    out = tmp_path / "out"
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "porter", "convert", str(root), "-o", str(out), "--no-build", "-j", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 60
    while time.time() < deadline and not any(out.rglob("*.cu")) and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err.decode()
    for path in out.rglob("*"):
        assert ".porter-tmp" not in path.name, f"temp file left behind: {path}"
        if path.suffix == ".cu":
            assert path.read_bytes() == expected_new


def test_open_hazards_are_reported_and_shimmed_apis_are_not(tmp_path: Path) -> None:
    src = tmp_path / "warp.cu"
    src.write_bytes(b"#include <cuda_runtime.h>\n__global__ void k(float* v, int* n) {\n"
                    b"  float x = __shfl_down_sync(0xffffffff, v[0], 1);\n"
                    b"  unsigned mask = __ballot_sync(0xffffffff, x > 0.0f);\n  *n = __popc(mask);\n}\n")
    out = tmp_path / "out" / "warp.cu"
    proc = porter("convert", src, "-o", out, "--no-build", "--rocm", "5.2")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b'#include "porter_shims/porter_warp_sync.h"' in out.read_bytes()
    report = json.loads((out.parent / ".porter" / "report.json").read_text())
    rules = {f["rule"] for f in report["findings"]}
    assert {"PL002", "PL003"} <= rules  # 64-bit ballot kept in 32 bits, __popc on it: still open
    assert not any(f["category"] == "unsupported-api" for f in report["findings"])  # the shim provides them
    assert "open hazards for gfx942" in proc.stderr.decode()


def test_brackets_in_reported_text_are_shown_as_written(tmp_path: Path) -> None:
    src = tmp_path / "x.cu"
    src.write_bytes(b"#define S(i) s[i]\nvoid f() { cudaFrobnicate(1); }\n")
    proc = porter("convert", src, "--check", "--rocm", "[bold]x")
    assert "[bold]x" in proc.stderr.decode()  # an error message is not read as rich markup


def test_ctrl_c_during_a_write_is_delivered_after_it() -> None:
    """With other threads alive (a process pool keeps some), Ctrl-C must still wait for the write in progress."""
    import threading

    from porter import files

    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    finished = []
    try:
        with pytest.raises(KeyboardInterrupt), files._sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)  # where an undeferred handler would raise
            finished.append(True)
        assert finished == [True]
    finally:
        stop.set()
        helper.join()


def test_commands_are_imported_only_when_they_run() -> None:
    # the root command lists every command, but loads a command's module only when that command runs
    probe = ("import sys; from typer.testing import CliRunner; from porter.cli import app; "
             "r = CliRunner().invoke(app, ['targets']); "
             "print(r.exit_code, *sorted(m for m in ('porter.tune', 'porter.review', 'porter.revisions', 'porter.scan') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["0"], proc.stdout + proc.stderr
    listing = porter("--help")
    assert listing.returncode == 0
    for name in ("convert", "report", "scan", "check", "review", "sync", "doctor", "targets", "tune", "toolchain"):
        assert f" {name} " in listing.stdout.decode(), name
    tune_help = porter("tune", "--help")
    assert tune_help.returncode == 0 and "occupancy" in tune_help.stdout.decode()

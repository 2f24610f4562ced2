"""`porter toolchain install/list/remove`, choosing a toolchain, and running hipcc inside an installed root.

The install's failure paths are provoked without a network: a fake /etc/os-release, a PATH without mmdebstrap,
a fake `unshare` that fails, a mirror on a closed local port, a fake mmdebstrap that fails. The success path runs
the real install code with a fake mmdebstrap that hard-links the root of the ROCm 6.4 toolchain already installed
(CI installs one), so everything after the download (wrappers, verification, metadata, registry, rename) is real.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.toolchains import HipToolchain, detected_toolchains, missing_toolchain
from typer.testing import CliRunner

from porter.build import provision
from porter.build import toolchain as tc
from porter.cli import app
from porter.config import build_config
from porter.translate import RocmVersion

ENV = {"NO_COLOR": "1", "COLUMNS": "200"}
CLOSED_PORT_MIRROR = "http://127.0.0.1:9/debian"  # discard port: nothing listens, the connection is refused


def _installed_64() -> HipToolchain:
    found = next((t for t in detected_toolchains() if t.toolchain.root is not None
                  and t.rocm is not None and t.rocm >= RocmVersion(6, 4)), None)
    if found is None:
        missing_toolchain("no installed ROCm 6.4 toolchain (porter toolchain install)")
    return found


def _fake_bin(tmp_path: Path, scripts: dict[str, str]) -> Path:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
    return bin_dir


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private porter cache, so no test touches the real list of installed toolchains."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "porter"


@pytest.fixture
def no_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An mmdebstrap on PATH that must never run: the checks before it are what these tests provoke."""
    fake = _fake_bin(tmp_path, {"mmdebstrap": "echo 'mmdebstrap must not run here' >&2; exit 99"})
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")


def _install(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["toolchain", "install", *args], env=ENV)
    return result.exit_code, result.output


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, output
    return errors[0]


# --- install: failing cleanly ------------------------------------------------------------------------------------

def test_install_refuses_a_system_that_is_not_debian(cache: Path, tmp_path: Path, monkeypatch) -> None:
    release = tmp_path / "os-release"
    release.write_text('ID=fedora\nPRETTY_NAME="Fedora Linux 40"\n')
    monkeypatch.setattr(provision, "OS_RELEASE", release)
    code, out = _install()
    assert code == 1
    assert "needs Debian or Ubuntu" in _one_error_line(out) and "Fedora Linux 40" in out
    assert not (cache / "toolchains" / "rocm-6.4").exists()


def test_ubuntu_counts_as_debian(tmp_path: Path, monkeypatch) -> None:
    release = tmp_path / "os-release"
    release.write_text("ID=ubuntu\nID_LIKE=debian\n")
    monkeypatch.setattr(provision, "OS_RELEASE", release)
    provision.check_os()  # no error


def test_install_without_mmdebstrap(cache: Path, tmp_path: Path, monkeypatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, out = _install()
    assert code == 1 and "mmdebstrap not found" in _one_error_line(out) and "apt-get install mmdebstrap" in out


def test_install_without_root_or_user_namespaces(cache: Path, tmp_path: Path, monkeypatch) -> None:
    fake = _fake_bin(tmp_path, {"mmdebstrap": "exit 0", "unshare": "echo 'unshare: Operation not permitted' >&2; exit 1"})
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(provision.os, "geteuid", lambda: 1000)
    code, out = _install()
    assert code == 1
    assert "needs root, or unprivileged user namespaces" in _one_error_line(out)


def test_rootless_install_needs_subordinate_ids(cache: Path, tmp_path: Path, monkeypatch) -> None:
    fake = _fake_bin(tmp_path, {"mmdebstrap": "exit 0", "unshare": "exit 0"})
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setenv("USER", "porter-test-nobody")
    monkeypatch.setattr(provision.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(provision.os, "getuid", lambda: 54321)
    code, out = _install()
    assert code == 1 and "/etc/subuid" in _one_error_line(out) and "porter-test-nobody" in out


def test_install_with_the_mirror_unreachable(cache: Path, no_download) -> None:
    code, out = _install("--mirror", CLOSED_PORT_MIRROR)
    assert code == 1
    line = _one_error_line(out)
    assert "package mirror unreachable" in line and "127.0.0.1:9/debian/dists/sid/Release" in line
    assert not any((cache / "toolchains").glob("rocm-6.4*/"))  # no partial directory left


def test_install_of_a_rocm_porter_cannot_provision(cache: Path, no_download) -> None:
    code, out = _install("--rocm", "7.0")
    assert code == 1 and "can provision ROCm 6.4" in _one_error_line(out) and "not 7.0" in out


def test_install_refuses_a_directory_that_is_not_a_toolchain(cache: Path, tmp_path: Path, no_download) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    code, out = _install("--dir", str(target))
    assert code == 1 and "is not a porter toolchain" in _one_error_line(out)
    assert (target / "notes.txt").read_text() == "keep me"


def test_a_failing_mmdebstrap_leaves_nothing_behind(cache: Path, tmp_path: Path, monkeypatch) -> None:
    fake = _fake_bin(tmp_path, {"mmdebstrap": "echo 'E: Unable to locate package hipcc' >&2; exit 25"})
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(provision, "check_mirror", lambda mirror, suite: None)
    dest = tmp_path / "tc"
    code, out = _install("--dir", str(dest))
    line = _one_error_line(out)
    assert code == 1 and "mmdebstrap failed (exit 25)" in line and "Unable to locate package hipcc" in line
    assert not dest.exists() and not dest.with_name("tc.partial").exists()
    assert "E: Unable to locate package hipcc" in dest.with_name("tc.install.log").read_text()


# --- install: the real code after the download, offline ------------------------------------------------------------

def _fake_mmdebstrap_from(root: Path, tmp_path: Path) -> Path:
    """mmdebstrap stand-in: the target (second-to-last argument) becomes a hard-linked copy of `root`."""
    return _fake_bin(tmp_path, {"mmdebstrap": f'for a; do t=$m; m=$a; done\ncp -al {root} "$t"'})


@pytest.mark.hipcc
def test_install_verify_register_list_remove(cache: Path, tmp_path: Path, monkeypatch) -> None:
    real = _installed_64()
    assert real.toolchain.root is not None
    fake = _fake_mmdebstrap_from(real.toolchain.root, tmp_path)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(provision, "check_mirror", lambda mirror, suite: None)
    dest = tmp_path / "elsewhere" / "rocm-6.4"
    code, out = _install("--dir", str(dest))
    assert code == 0, out
    assert "rocm-6.4 installed" in out and "compiles for gfx942, gfx950" in out and "absent: rocwmma" in out
    meta = json.loads((dest / "toolchain.json").read_text())
    assert meta["verified_arches"] == ["gfx942", "gfx950"] and meta["hip_version"].startswith("6.4.")
    assert meta["packages"]["hipcc"] and meta["compile_only"] is True
    assert json.loads((cache / "toolchains" / "registry.json").read_text()) == {"rocm-6.4": str(dest)}
    chosen = tc.resolve_toolchain("rocm-6.4")
    assert chosen is not None and chosen.hipcc == dest / "bin" / "hipcc" and chosen.root == dest / "root"
    assert chosen.rocm == RocmVersion(6, 4) and chosen.include_dir == dest / "root" / "usr" / "include"

    again, out = _install("--dir", str(dest))  # a second install finds it working and downloads nothing
    assert again == 0 and "already installed" in out

    listed = CliRunner().invoke(app, ["toolchain", "list"], env=ENV)
    assert listed.exit_code == 0 and "rocm-6.4" in listed.output and "gfx942, gfx950" in listed.output

    removed = CliRunner().invoke(app, ["toolchain", "remove", "rocm-6.4"], env=ENV)
    assert removed.exit_code == 0, removed.output
    assert not dest.exists() and (real.toolchain.root / "usr" / "bin" / "env").exists()
    assert json.loads((cache / "toolchains" / "registry.json").read_text()) == {}
    gone = CliRunner().invoke(app, ["toolchain", "remove", "rocm-6.4"], env=ENV)
    assert gone.exit_code == 1 and "no installed toolchain 'rocm-6.4'" in gone.output


@pytest.mark.hipcc
def test_install_rejects_a_suite_that_moved_to_another_hip(cache: Path, tmp_path: Path, monkeypatch) -> None:
    real = _installed_64()
    fake = _fake_mmdebstrap_from(real.toolchain.root, tmp_path)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(provision, "check_mirror", lambda mirror, suite: None)
    moved = provision.ToolchainSpec(**{**provision.spec_for("6.4").__dict__, "hip": "7.1"})
    monkeypatch.setattr(provision, "spec_for", lambda rocm: moved)
    dest = tmp_path / "tc"
    code, out = _install("--dir", str(dest))
    assert code == 1 and "now ships HIP 6.4" in _one_error_line(out) and "not 7.1" in out
    assert not dest.exists() and not dest.with_name("tc.partial").exists()


def test_remove_leaves_a_directory_without_metadata_alone(cache: Path, tmp_path: Path) -> None:
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "data").write_text("x")
    tc.write_registry({"odd": stranger})
    result = CliRunner().invoke(app, ["toolchain", "remove", "odd"], env=ENV)
    assert result.exit_code == 1 and "not a porter toolchain" in result.output
    assert (stranger / "data").exists()


# --- choosing a toolchain -----------------------------------------------------------------------------------------

def test_resolve_by_path_env_and_errors(cache: Path, tmp_path: Path, monkeypatch) -> None:
    prefix = tmp_path / "rocm-9.1"
    fake = _fake_bin(prefix, {"hipcc": "echo 'HIP version: 9.1.1-7'", "hipconfig": "echo 9.1.1-7"})
    (prefix / "bin").symlink_to(fake)
    by_file = tc.resolve_toolchain(str(fake / "hipcc"))
    by_prefix = tc.resolve_toolchain(str(prefix))
    assert by_file is not None and by_prefix is not None
    assert by_file.rocm == by_prefix.rocm == RocmVersion(9, 1) and by_file.root is None
    monkeypatch.setenv("PORTER_HIPCC", str(fake / "hipcc"))
    from_env = tc.resolve_toolchain(None)
    assert from_env is not None and from_env.origin == "PORTER_HIPCC" and from_env.hip_version == "9.1.1-7"
    assert tc.detect_toolchain() == from_env
    assert any(t.hipcc == fake / "hipcc" for t in tc.find_toolchains())
    with pytest.raises(tc.ToolchainError, match=r"unknown toolchain 'rocm-8\.8'"):
        tc.resolve_toolchain("rocm-8.8")
    with pytest.raises(tc.ToolchainError, match="no hipcc there"):
        tc.resolve_toolchain(str(tmp_path / "nowhere"))


def test_project_config_names_the_toolchain(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.porter]\ntoolchain = "rocm-6.4"\n')
    assert build_config(tmp_path).toolchain == "rocm-6.4"
    assert build_config(tmp_path, toolchain="system").toolchain == "system"  # the CLI wins


def test_convert_with_an_unknown_toolchain_is_one_line(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    cmd = [sys.executable, "-m", "porter", "convert", str(tmp_path / "a.cu"), "-o", str(tmp_path / "out.hip"),
           "--toolchain", "nonesuch"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **ENV}, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: unknown toolchain 'nonesuch'")
    assert not (tmp_path / "out.hip").exists()


def test_scan_takes_the_rocm_from_the_toolchain(cache: Path, tmp_path: Path) -> None:
    fake = _fake_bin(tmp_path, {"hipcc": "echo 'HIP version: 5.0.1'", "hipconfig": "echo 5.0.1"})
    src = tmp_path / "q.cu"
    src.write_text("#include <cuda_fp8.h>\n__global__ void k(__nv_fp8_e4m3* q) { q[0] = __nv_fp8_e4m3(1.0f); }\n")

    def scan(*extra: str) -> str:
        result = CliRunner().invoke(app, ["scan", str(src), "--format", "json", "--fail-on", "never", *extra], env=ENV)
        assert result.exit_code == 0, result.output
        return json.dumps([f["rule"] for f in json.loads(result.stdout)["findings"]])

    assert scan("--toolchain", str(fake / "hipcc")) == scan("--rocm", "5.0") != scan("--rocm", "6.4")
    assert "PU002" in scan("--toolchain", str(fake / "hipcc"))  # the FP8 types need ROCm 6.2
    unknown = CliRunner().invoke(app, ["scan", str(src), "--toolchain", "rocm-0.1"], env=ENV)
    assert unknown.exit_code == 2 and "unknown toolchain" in unknown.output


# --- the runner: hipcc in the root, paths the same inside and out ----------------------------------------------------

def _runner(toolchain: HipToolchain) -> Path:
    return toolchain.toolchain.hipcc.with_name(tc.RUNNER)


@pytest.mark.hipcc
def test_runner_binds_the_working_dirs_at_the_same_paths(tmp_path: Path) -> None:
    chosen = _installed_64()
    runner = _runner(chosen)
    work = tmp_path / "w o r k"  # spaces survive the argument passing
    work.mkdir()
    (work / "in.txt").write_text("from the host\n")
    proc = subprocess.run([str(runner), "sh", "-c", 'pwd; cat in.txt; echo "${ROCM_PATH-unset}"; echo made > out.txt'],
                          cwd=work, capture_output=True, text=True, env={**os.environ, "ROCM_PATH": "/opt/rocm"},
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [str(work), "from the host", "unset"]
    assert (work / "out.txt").read_text() == "made\n"  # written inside, seen outside
    root = str(chosen.toolchain.root)
    assert root not in Path("/proc/self/mounts").read_text()  # nothing stays mounted


@pytest.mark.hipcc
def test_runner_binds_a_path_under_a_system_dir_the_root_lacks(tmp_path: Path) -> None:
    chosen = _installed_64()
    base = Path("/var/lib") / f"porter-test-{os.getpid()}"
    try:
        (base / "src").mkdir(parents=True)
        (base / "src" / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n")
        out = base / "obj" / "k.o"
        out.parent.mkdir()
        cmd = chosen.toolchain.command("--offload-arch=gfx942", "-c", str(base / "src" / "k.hip"), "-o", str(out))
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env={**os.environ, "HIP_PLATFORM": "amd"})
        assert proc.returncode == 0, proc.stderr
        assert out.stat().st_size > 0
        assert not (chosen.toolchain.root / base.relative_to("/") / "src").exists()  # bound, not copied
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.hipcc
def test_diagnostics_name_host_paths(tmp_path: Path) -> None:
    chosen = _installed_64()
    src = tmp_path / "bad.hip"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = nope; }\n")
    proc = chosen.compile(src, arches=("gfx942",))
    assert proc.returncode != 0 and f"{src}:2:" in proc.stderr


# --- what ROCm 6.4 makes checkable -----------------------------------------------------------------------------------

FP8 = """#include <cuda_fp8.h>
__global__ void k(const float* in, __nv_fp8_e4m3* q, __nv_fp8_e5m2* r, float* out) {
  int i = threadIdx.x;
  q[i] = __nv_fp8_e4m3(in[i]);
  r[i] = __nv_fp8_e5m2(in[i]);
  out[i] = float(q[i]) + float(r[i]);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize(("target", "e4m3", "e5m2"), [
    ("gfx942", "__hip_fp8_e4m3_fnuz", "__hip_fp8_e5m2_fnuz"),  # what MI300's hardware computes
    ("MI355X", "__hip_fp8_e4m3", "__hip_fp8_e5m2"),  # OCP, CUDA's encoding, on gfx950
])
def test_fp8_types_per_target_compile(target: str, e4m3: str, e5m2: str, tmp_path: Path) -> None:
    chosen = _installed_64()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "q.cu").write_text(FP8)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(tmp_path / "src"), "-o", str(out),
                           "--target", target, "--toolchain", chosen.hipcc], capture_output=True, text=True,
                          env={**os.environ, **ENV}, timeout=600)
    text = (out / "q.cu").read_text()
    assert f"{e4m3}*" in text and f"{e5m2}*" in text, text
    report = json.loads((out / ".porter" / "report.json").read_text())
    build = report["fix_loop"]["build"]
    arch = "gfx950" if target == "MI355X" else "gfx942"
    assert (build["arch"], build["requested_arch"], build["toolchain"]) == (arch, arch, chosen.hipcc)
    assert proc.returncode == 0 and report["fix_loop"]["ok"], proc.stderr


@pytest.mark.hipcc
def test_target_mi355x_compiles_for_gfx950(tmp_path: Path) -> None:
    chosen = _installed_64()
    src = tmp_path / "proj"
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "matmul_tiled", src)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "--target", "MI355X",
                           "--toolchain", "rocm-6.4" if chosen.toolchain.name == "rocm-6.4" else chosen.hipcc],
                          capture_output=True, text=True, env={**os.environ, **ENV}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / ".porter" / "report.json").read_text())
    assert report["fix_loop"]["build"]["arch"] == "gfx950" and report["fix_loop"]["build"]["arch_note"] is None
    assert "--offload-arch=gfx950" in (out / "Makefile").read_text()


COMPLEX_GEMM = """#include <cublas_v2.h>
#include <cuComplex.h>
void gemm(cublasHandle_t h, const cuComplex* a, const cuComplex* b, cuComplex* c, int n) {
  cuComplex alpha = make_cuComplex(1.f, 0.f), beta = make_cuComplex(0.f, 0.f);
  cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n);
}
"""


@pytest.mark.hipcc
def test_complex_cublas_builds_on_hipblas_2(tmp_path: Path) -> None:
    """hipBLAS 2.x (ROCm 6.4) takes hipComplex in its plain API only under HIPBLAS_V2: porter's shim defines it."""
    chosen = _installed_64()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "c.cu").write_text(COMPLEX_GEMM)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(tmp_path / "src"), "-o", str(out),
                           "--toolchain", chosen.hipcc], capture_output=True, text=True, env={**os.environ, **ENV},
                          timeout=600)
    lines = (out / "c.cu").read_text().splitlines()
    assert lines[0] == '#include "porter_shims/porter_hipblas_v2.h"  // porter shim'
    assert lines[1] == "#include <hipblas/hipblas.h>"
    report = json.loads((out / ".porter" / "report.json").read_text())
    assert proc.returncode == 0 and report["fix_loop"]["ok"], proc.stderr

"""`porter toolchain install/remove`: provision a compile-only ROCm from Debian's packages, and check it works.

A toolchain is a directory: `root/` (a Debian root built by mmdebstrap with hipcc, the HIP headers and the
libraries' headers; the GPU kernel blobs are left out), `bin/porter-in-root` (runs a command of the root in a
private mount namespace, see toolchain/porter-in-root.sh), `bin/hipcc` and `bin/hipconfig` (wrappers over it) and
`toolchain.json` (what was installed, from where, which arches it compiled for). The directory is built beside
its destination under a `.partial` name and renamed into place once it compiled a probe for every arch in
`verify_arches`, so an interrupted or failed install never leaves a half toolchain behind.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from porter.build.toolchain import (
    METADATA,
    RUNNER,
    Toolchain,
    compile_probe,
    read_registry,
    toolchain_at,
    toolchains_dir,
    write_registry,
)
from porter.files import atomic_write
from porter.resources import resource_dir
from porter.translate import RocmVersion

OS_RELEASE = Path("/etc/os-release")
MIRROR_TIMEOUT_S = 15
WRAPPER = '#!/bin/sh\n# porter toolchain: {tool} of this toolchain\'s root\nexec "$(dirname -- "$(readlink -f -- "$0")")/{runner}" {tool} "$@"\n'
WRAPPED_TOOLS = ("hipcc", "hipconfig")


class ProvisionError(RuntimeError):
    """Why a toolchain cannot be installed here, in one line."""


@dataclass(frozen=True)
class Limit:
    arch: str
    headers: tuple[str, ...]
    match: str
    reason: str

    def applies(self, arch: str, output: str) -> bool:
        return arch.split(":", 1)[0] == self.arch and re.search(self.match, output) is not None


@dataclass(frozen=True)
class ToolchainSpec:
    rocm: str
    suite: str
    mirror: str
    hip: str
    packages: tuple[str, ...]
    path_exclude: tuple[str, ...]
    verify_arches: tuple[str, ...]
    absent: dict[str, str] = field(default_factory=dict)
    limits: tuple[Limit, ...] = ()

    @property
    def name(self) -> str:
        return f"rocm-{self.rocm}"


@functools.cache
def toolchain_specs() -> dict[str, ToolchainSpec]:
    raw = tomllib.loads(resources.files("porter").joinpath("data/toolchains.toml").read_text("utf-8"))
    return {
        rocm: ToolchainSpec(
            rocm, row["suite"], row["mirror"], row["hip"], tuple(row["packages"]), tuple(row["path_exclude"]),
            tuple(row["verify_arches"]), dict(row.get("absent", {})),
            tuple(Limit(x["arch"], tuple(x["headers"]), x["match"], x["reason"]) for x in row.get("limits", ())),
        )
        for rocm, row in raw.items()
    }


def spec_for(rocm: str) -> ToolchainSpec:
    specs = toolchain_specs()
    try:
        key = str(RocmVersion.parse(rocm))
    except ValueError as exc:
        raise ProvisionError(str(exc)) from None
    if key not in specs:
        raise ProvisionError(f"porter can provision ROCm {', '.join(specs)} (from Debian), not {rocm}")
    return specs[key]


def limits_for(toolchain: Toolchain) -> tuple[Limit, ...]:
    """What `toolchain` is known not to compile (data/toolchains.toml), by its ROCm version: facts of that ROCm's
    libraries, whether porter installed it or not."""
    spec = toolchain_specs().get(str(toolchain.rocm)) if toolchain.rocm else None
    return spec.limits if spec is not None else ()


def absent_for(toolchain: Toolchain) -> dict[str, str]:
    """Libraries an installed toolchain lacks because its Debian suite does not package them."""
    spec = toolchain_specs().get(str(toolchain.rocm)) if toolchain.rocm else None
    return dict(spec.absent) if spec is not None and toolchain.root is not None else {}


# --- preflight: each check raises ProvisionError with the one line the user sees -------------------------------

def _os_release() -> dict[str, str]:
    try:
        text = OS_RELEASE.read_text("utf-8")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip().strip('"')
    return out


def check_os() -> None:
    info = _os_release()
    ids = {info.get("ID", ""), *info.get("ID_LIKE", "").split()}
    if not ids & {"debian", "ubuntu"}:
        what = info.get("PRETTY_NAME") or info.get("ID") or f"no {OS_RELEASE}"
        raise ProvisionError(f"porter toolchain install needs Debian or Ubuntu (mmdebstrap and apt); this is {what}")


def check_tools() -> None:
    for tool, package in (("mmdebstrap", "mmdebstrap"), ("unshare", "util-linux"), ("chroot", "coreutils")):
        if shutil.which(tool) is None:
            raise ProvisionError(f"{tool} not found: install it first (apt-get install {package})")


def user_namespaces_work() -> bool:
    """Can this user make a user namespace with a mount namespace (what running the toolchain needs without root)?"""
    try:
        proc = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _has_subids(user: str) -> bool:
    for name in ("/etc/subuid", "/etc/subgid"):
        try:
            lines = Path(name).read_text("utf-8").splitlines()
        except OSError:
            return False
        if not any(line.split(":", 1)[0] in (user, str(os.getuid())) for line in lines):
            return False
    return shutil.which("newuidmap") is not None and shutil.which("newgidmap") is not None


def install_mode() -> str:
    """`root` (mmdebstrap --mode=root) or `unshare` (rootless, through user namespaces)."""
    if os.geteuid() == 0:
        return "root"
    if not user_namespaces_work():
        raise ProvisionError("porter toolchain install needs root, or unprivileged user namespaces "
                             "(`unshare --user --map-root-user` fails here: kernel.unprivileged_userns_clone or "
                             "user.max_user_namespaces)")
    user = os.environ.get("USER") or str(os.getuid())
    if not _has_subids(user):
        raise ProvisionError(f"a rootless install needs /etc/subuid and /etc/subgid entries for {user} and "
                             "newuidmap/newgidmap (apt-get install uidmap), or run it as root")
    return "unshare"


def check_mirror(mirror: str, suite: str, timeout: float = MIRROR_TIMEOUT_S) -> None:
    url = f"{mirror.rstrip('/')}/dists/{suite}/Release"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout):
            pass
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ProvisionError(f"package mirror unreachable: {url} ({reason})") from None


def check_space(dest: Path, needed: int = 3 * 1024**3) -> None:
    probe = dest
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < needed:
        raise ProvisionError(f"not enough disk space under {probe}: {free / 1024**3:.1f} GiB free, the install "
                             f"needs about {needed / 1024**3:.0f} GiB while it runs")


# --- install -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Installed:
    toolchain: Toolchain
    directory: Path
    metadata: dict
    reused: bool  # already installed and working: nothing was downloaded


def mmdebstrap_command(spec: ToolchainSpec, target: str, mirror: str, mode: str) -> list[str]:
    cmd = ["mmdebstrap", f"--mode={mode}", "--variant=apt", "--aptopt=Acquire::Check-Valid-Until \"false\""]
    cmd += [f"--dpkgopt=path-exclude={glob}" for glob in spec.path_exclude]
    cmd += [f"--include={','.join(spec.packages)}", spec.suite, target, mirror]
    return cmd


def _write_bin(directory: Path) -> None:
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    runner = bin_dir / RUNNER
    runner.write_bytes((resource_dir("toolchain") / "porter-in-root.sh").read_bytes())
    runner.chmod(0o755)
    for tool in WRAPPED_TOOLS:
        path = bin_dir / tool
        path.write_text(WRAPPER.format(tool=tool, runner=RUNNER), "utf-8")
        path.chmod(0o755)


def _mount_points(root: Path) -> None:
    """Empty directories for the host's top-level directories, so the runner needs to create none later
    (a toolchain installed by root and run by another user could not)."""
    for child in Path("/").iterdir():
        if child.is_dir() and not child.is_symlink() and not (root / child.name).exists():
            (root / child.name).mkdir()


def _run_logged(cmd: list[str] | str, log: Path, shell: bool = False) -> int:
    with log.open("ab") as out:
        out.write(f"$ {cmd if isinstance(cmd, str) else shlex.join(cmd)}\n".encode())
        out.flush()
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, shell=shell, check=False)
    return proc.returncode


def _last_lines(log: Path, n: int = 3) -> str:
    try:
        lines = [line for line in log.read_text("utf-8", "replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def _build_root(spec: ToolchainSpec, root: Path, mirror: str, mode: str, log: Path) -> None:
    if mode == "root":
        rc = _run_logged(mmdebstrap_command(spec, str(root), mirror, mode), log)
    else:
        # rootless: stream a tarball out of the user namespace and unpack it as this user, so every file is ours
        # (removable without root); device nodes are left out, the runner binds the host's /dev
        root.mkdir(parents=True)
        pipeline = (f"set -o pipefail; {shlex.join(mmdebstrap_command(spec, '-', mirror, mode))} "
                    f"| tar -x -C {shlex.quote(str(root))} --exclude=./dev/*")
        rc = _run_logged(["bash", "-c", pipeline], log)
    if rc != 0:
        raise ProvisionError(f"mmdebstrap failed (exit {rc}): {_last_lines(log)}; full log: {log}")


def _package_versions(toolchain: Toolchain, packages: tuple[str, ...]) -> dict[str, str]:
    runner = toolchain.hipcc.with_name(RUNNER)
    try:
        proc = subprocess.run([str(runner), "dpkg-query", "-W", "-f=${Package} ${Version}\\n", *packages],
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)


def _clang_version(toolchain: Toolchain) -> str | None:
    try:
        proc = subprocess.run(toolchain.command("--version"), capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"clang version (\S+)", proc.stdout)
    return match.group(1) if match else None


def _tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def verify(toolchain: Toolchain, spec: ToolchainSpec) -> list[str]:
    """Raise unless the toolchain is the promised HIP and compiles a probe for every verify arch."""
    wanted = RocmVersion.parse(spec.hip)
    if toolchain.rocm != wanted:
        raise ProvisionError(f"{spec.suite} now ships HIP {toolchain.hip_version or 'of unknown version'}, not "
                             f"{spec.hip}: porter's data for ROCm {spec.rocm} no longer matches {spec.mirror} "
                             "(give --mirror a mirror that still has it)")
    for arch in spec.verify_arches:
        ok, output = compile_probe(toolchain, arch)
        if not ok:
            first = next((line for line in output.splitlines() if "error" in line), output.strip()[:200])
            raise ProvisionError(f"the new toolchain does not compile for {arch}: {first}")
    return list(spec.verify_arches)


def install(rocm: str = "6.4", dest: Path | None = None, mirror: str | None = None, force: bool = False,
            cache_dir: Path | None = None, status: Callable[[str], None] | None = None) -> Installed:
    """Provision ROCm `rocm` into `dest` (default: porter's cache), verify it, and record it as installed."""
    say = status or (lambda _msg: None)
    spec = spec_for(rocm)
    mirror = mirror or spec.mirror
    dest = (dest or toolchains_dir(cache_dir) / spec.name).expanduser().absolute()
    check_os()
    check_tools()
    mode = install_mode()
    installed = (dest / METADATA).is_file() and (dest / "bin" / "hipcc").is_file()
    if not force and installed:
        meta = json.loads((dest / METADATA).read_text("utf-8"))
        if missing := sorted(set(spec.packages) - set(meta.get("packages", {}))):
            say(f"{dest} lacks {', '.join(missing)} (porter's package list grew since it was installed): rebuilding")
        else:
            _write_bin(dest)  # the runner and wrappers of this porter (the root stays as it is)
            toolchain = toolchain_at(dest / "bin" / "hipcc", origin="installed")
            verify(toolchain, spec)
            _register(toolchain.name, dest, cache_dir)
            return Installed(toolchain, dest, meta, reused=True)
    if dest.exists() and not force and not installed and any(dest.iterdir()):
        raise ProvisionError(f"{dest} exists and is not a porter toolchain; choose another --dir or remove it")
    check_space(dest)
    check_mirror(mirror, spec.suite)
    partial = dest.with_name(dest.name + ".partial")
    _remove_tree(partial)
    partial.mkdir(parents=True)
    log = dest.with_name(dest.name + ".install.log")
    log.write_text("", "utf-8")
    started = time.monotonic()
    try:
        say(f"building a Debian {spec.suite} root with ROCm {spec.rocm} ({len(spec.packages)} packages, "
            f"mmdebstrap --mode={mode}); log: {log}")
        _build_root(spec, partial / "root", mirror, mode, log)
        _mount_points(partial / "root")
        _write_bin(partial)
        toolchain = toolchain_at(partial / "bin" / "hipcc", name=spec.name, origin="installed")
        say(f"verifying: HIP {toolchain.hip_version}, a probe for {', '.join(spec.verify_arches)}")
        arches = verify(toolchain, spec)
        metadata = {
            "name": spec.name, "rocm": spec.rocm, "hip_version": toolchain.hip_version,
            "clang": _clang_version(toolchain), "suite": spec.suite, "mirror": mirror, "mode": mode,
            "packages": _package_versions(toolchain, spec.packages), "verified_arches": arches,
            "absent": spec.absent, "compile_only": True,
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "install_seconds": round(time.monotonic() - started),
            "size_bytes": _tree_bytes(partial),
        }
        atomic_write(partial / METADATA, (json.dumps(metadata, indent=1) + "\n").encode("utf-8"))
        (partial / METADATA).chmod(0o644)
        if dest.exists():
            _remove_tree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial.rename(dest)
    except BaseException:
        _remove_tree(partial)
        raise
    _register(spec.name, dest, cache_dir)
    return Installed(toolchain_at(dest / "bin" / "hipcc", name=spec.name, origin="installed"), dest, metadata,
                     reused=False)


def _register(name: str, directory: Path, cache_dir: Path | None) -> None:
    entries = read_registry(cache_dir)
    entries[name] = directory
    write_registry(entries, cache_dir)


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def remove(name: str, cache_dir: Path | None = None) -> Path:
    """Delete an installed toolchain's directory and forget it; returns the directory."""
    entries = read_registry(cache_dir)
    directory = entries.get(name)
    if directory is None:
        path = Path(name).expanduser()
        directory = next((d for d in entries.values() if path.exists() and d.resolve() == path.resolve()), None)
        name = next((n for n, d in entries.items() if d == directory), name)
    if directory is None:
        raise ProvisionError(f"no installed toolchain {name!r} (installed: {', '.join(sorted(entries)) or 'none'})")
    if directory.exists():
        if not (directory / METADATA).is_file():
            raise ProvisionError(f"{directory} has no {METADATA}: not a porter toolchain, left as it is")
        _remove_tree(directory)
    entries.pop(name, None)
    write_registry(entries, cache_dir)
    return directory


def installed_metadata(directory: Path) -> dict:
    try:
        data = json.loads((directory / METADATA).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

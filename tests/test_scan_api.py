"""unsupported-api findings and the inventory come from porter.translate.mapping; both degrade when it is absent."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from porter.scan import detectors, inventory, scan_source, scan_tree
from porter.targets import resolve_target
from porter.translate.options import RocmVersion


@dataclass
class FakeEntry:
    cuda: str
    hip: str | None
    family: str
    unsupported: str | None = None
    since: RocmVersion | None = None
    note: str | None = None

    def available_in(self, rocm: RocmVersion | None) -> bool:
        return rocm is None or self.since is None or self.since <= rocm


class FakeMap:
    def __init__(self) -> None:
        self.apis = {
            "cudaMalloc": FakeEntry("cudaMalloc", "hipMalloc", "runtime"),
            "cudaGraphInstantiateWithParams": FakeEntry(
                "cudaGraphInstantiateWithParams",
                "hipGraphInstantiateWithParams",
                "runtime",
                since=RocmVersion(6, 1),
            ),
            "cudaProfilerStart": FakeEntry(
                "cudaProfilerStart", None, "runtime", unsupported="profiler control", note="use roctracer"
            ),
        }

    def lookup(self, name: str) -> FakeEntry | None:
        return self.apis.get(name)


SOURCE = b"""
__global__ void k(float* p) { p[0] = 1; }
int main() {
  float* p; cudaMalloc(&p, 4);
  cudaProfilerStart();
  cudaGraphInstantiateWithParams(0, 0, 0);
  k<<<1, 64>>>(p);
  cudaFooBar();
}
"""


@pytest.fixture
def fake_map(monkeypatch: pytest.MonkeyPatch) -> FakeMap:
    fake = FakeMap()
    monkeypatch.setattr(detectors, "_api_map", lambda: fake)
    monkeypatch.setattr(inventory, "_mapping", lambda: (fake, __import__("re").compile(r"^cuda[A-Z]")))
    return fake


def test_unsupported_and_too_new(fake_map: FakeMap) -> None:
    target = resolve_target("gfx942")
    rules = {(f.rule, f.line) for f in scan_source(SOURCE, "a.cu", target, RocmVersion(6, 0))}
    assert ("PU001", 5) in rules
    assert ("PU002", 6) in rules
    unsupported = next(f for f in scan_source(SOURCE, "a.cu", target) if f.rule == "PU001")
    assert "cudaProfilerStart" in unsupported.message and unsupported.fix == "use roctracer"
    # without --rocm the newest ROCm is assumed: nothing is too new
    assert "PU002" not in {f.rule for f in scan_source(SOURCE, "a.cu", target)}


def test_inventory_with_mapping(fake_map: FakeMap, tmp_path) -> None:
    (tmp_path / "a.cu").write_bytes(SOURCE)
    inv = scan_tree(tmp_path, resolve_target("gfx942")).inventory
    assert inv["kernels"] == [{"file": "a.cu", "name": "k", "line": 2}]
    assert inv["launch_sites"] == [{"file": "a.cu", "kernel": "k", "line": 7, "syntax": "chevron"}]
    assert inv["apis"]["runtime"]["names"]["cudaMalloc"] == 1
    assert inv["translation"]["translatable"] == {"cudaGraphInstantiateWithParams": 1, "cudaMalloc": 1}
    assert inv["translation"]["unsupported"] == {"cudaProfilerStart": 1}
    assert inv["translation"]["unknown"] == {"cudaFooBar": 1}


def test_without_mapping(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setattr(detectors, "_api_map", lambda: None)
    monkeypatch.setattr(inventory, "_mapping", lambda: (None, None))
    assert "PU001" not in {f.rule for f in scan_source(SOURCE, "a.cu", resolve_target("gfx942"))}
    (tmp_path / "a.cu").write_bytes(SOURCE)
    inv = scan_tree(tmp_path, resolve_target("gfx942")).inventory
    assert inv["translation"]["mapping_available"] is False
    assert inv["apis"]["runtime"]["names"]["cudaMalloc"] == 1  # family guessed from the prefix


def test_the_real_mapping_is_found(tmp_path) -> None:
    """The fallbacks above are for a broken map; porter's own map must load (a stale import path hid it once)."""
    assert detectors._api_map() is not None
    assert inventory._mapping()[0] is not None
    (tmp_path / "a.cu").write_bytes(SOURCE)
    inv = scan_tree(tmp_path, resolve_target("gfx942")).inventory
    assert inv["translation"]["mapping_available"] is True
    assert inv["translation"]["translatable"]["cudaMalloc"] == 1

"""`porter convert repo/` as typed, with no -o/--in-place/--diff/--check: a port beside the input (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from test_convert_cli import SAMPLE, _make_read_only, _undo_read_only, assert_clean_error, porter


def _repo(parent: Path, name: str = "repo") -> Path:
    root = parent / name
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.cu").write_bytes(SAMPLE)
    (root / "README.md").write_bytes(b"# repo\n")
    return root


def _first_line(proc) -> str:
    return proc.stderr.decode().splitlines()[0]


def test_a_tree_goes_to_a_sibling_folder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = porter("convert", "repo/", "--no-build", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    out = tmp_path / "repo-hip"
    assert b"hipMalloc(&d" in (out / "src" / "main.cu").read_bytes()
    assert (repo / "src" / "main.cu").read_bytes() == SAMPLE  # the input is untouched
    assert _first_line(proc) == "port written to repo-hip"
    manifest = json.loads((out / ".porter" / "manifest.json").read_text())
    assert manifest["source_root"] == str(repo.resolve())


def test_without_trailing_slash_and_from_inside_the_tree_the_same_place(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert porter("convert", "repo", "--no-build", cwd=tmp_path).returncode == 0
    first = (tmp_path / "repo-hip" / "src" / "main.cu").read_bytes()
    proc = porter("convert", ".", "--no-build", cwd=repo)  # an earlier port of the same input: updated
    assert proc.returncode == 0, proc.stderr.decode()
    assert _first_line(proc) == "port written to ../repo-hip"
    assert (tmp_path / "repo-hip" / "src" / "main.cu").read_bytes() == first
    assert not (repo / "repo-hip").exists() and not (repo.parent / ".-hip").exists()
    proc = porter("convert", "..", "--no-build", cwd=repo / "src")  # `..` is the tree too
    assert proc.returncode == 0, proc.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo", "repo-hip"]


def test_a_file_goes_beside_it(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_bytes(SAMPLE)
    proc = porter("convert", "k.cu", "--no-build", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert _first_line(proc) == "port written to k.hip.cu"
    assert b"hipFree(d)" in (tmp_path / "k.hip.cu").read_bytes()
    assert src.read_bytes() == SAMPLE
    # a second file ported into the same folder keeps the first one's manifest entry, so both can be updated
    (tmp_path / "j.cu").write_bytes(SAMPLE)
    assert porter("convert", "j.cu", "--no-build", cwd=tmp_path).returncode == 0
    assert porter("convert", "k.cu", "--no-build", cwd=tmp_path).returncode == 0


def test_a_foreign_folder_is_refused_and_nothing_written(tmp_path: Path) -> None:
    _repo(tmp_path)
    foreign = tmp_path / "repo-hip"
    foreign.mkdir()
    (foreign / "notes.txt").write_bytes(b"mine\n")
    proc = porter("convert", "repo", "--no-build", cwd=tmp_path)
    assert_clean_error(proc, 2, "is not porter's earlier port of")
    assert "-o OUT" in proc.stderr.decode() and len(proc.stderr.decode().strip().splitlines()) == 1
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]


def test_a_port_of_another_input_is_refused(tmp_path: Path) -> None:
    other = _repo(tmp_path / "elsewhere")
    assert porter("convert", other, "-o", tmp_path / "repo-hip", "--no-build").returncode == 0
    _repo(tmp_path)
    assert_clean_error(porter("convert", "repo", "--no-build", cwd=tmp_path), 2, "is not porter's earlier port of")


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(SAMPLE)
    (tmp_path / "k.hip.cu").write_bytes(b"// my own HIP version\n")
    assert_clean_error(porter("convert", "k.cu", "--no-build", cwd=tmp_path), 2, "is not porter's earlier port of")
    assert (tmp_path / "k.hip.cu").read_bytes() == b"// my own HIP version\n"


def test_read_only_parent_is_a_one_line_error(tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    _repo(parent)
    _make_read_only(parent)
    try:
        proc = porter("convert", "repo", "--no-build", cwd=parent)
    finally:
        _undo_read_only(parent)
    assert_clean_error(proc, 2, "not writable")
    assert len(proc.stderr.decode().strip().splitlines()) == 1
    assert sorted(p.name for p in parent.iterdir()) == ["repo"]

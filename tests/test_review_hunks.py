"""Hunk splitting and application of porter review (pure)."""

from __future__ import annotations

import random

import pytest

from porter.review.hunks import Action, apply_hunks, fit_edit, piece_for, split_hunks, split_lines

ORIGINAL = b"".join(b"line %d\n" % i for i in range(1, 31))


def _port(original: bytes, changes: dict[int, bytes]) -> bytes:
    lines = split_lines(original)
    for number, text in changes.items():
        lines[number - 1] = text
    return b"".join(lines)


def _apply(old: bytes, new: bytes, choices: list[Action]) -> bytes:
    old_lines, new_lines = split_lines(old), split_lines(new)
    hunks = split_hunks(old_lines, new_lines)
    pieces = {h.index: p for h, a in zip(hunks, choices, strict=True) if (p := piece_for(h, a)) is not None}
    return apply_hunks(new_lines, hunks, pieces)


def test_distant_changes_make_separate_hunks_with_three_lines_of_context():
    new = _port(ORIGINAL, {3: b"changed 3\n", 20: b"changed 20\n"})
    hunks = split_hunks(split_lines(ORIGINAL), split_lines(new))
    assert len(hunks) == 2
    first, second = hunks
    assert (first.a_start, first.a_end) == (0, 6)  # lines 1-2 before (file start), 3 after
    assert (second.a_start, second.a_end) == (16, 23)
    assert first.header == "@@ -1,6 +1,6 @@"
    assert [sign for sign, _ in second.diff_lines()] == [" ", " ", " ", "-", "+", " ", " ", " "]
    assert second.diff_lines()[3:5] == [("-", b"line 20\n"), ("+", b"changed 20\n")]


def test_close_changes_share_one_hunk():
    new = _port(ORIGINAL, {10: b"a\n", 15: b"b\n"})  # 4 equal lines between: fewer than 2*3+1
    assert len(split_hunks(split_lines(ORIGINAL), split_lines(new))) == 1


def test_identical_files_have_no_hunks():
    assert split_hunks(split_lines(ORIGINAL), split_lines(ORIGINAL)) == []


def test_mixed_decisions_keep_original_in_rejected_and_port_in_accepted_regions():
    new = _port(ORIGINAL, {3: b"changed 3\n", 20: b"changed 20\n"})
    assert _apply(ORIGINAL, new, [Action.ACCEPT, Action.REJECT]) == _port(ORIGINAL, {3: b"changed 3\n"})
    assert _apply(ORIGINAL, new, [Action.REJECT, Action.ACCEPT]) == _port(ORIGINAL, {20: b"changed 20\n"})


def test_insertions_deletions_and_file_ends():
    old = b"a\nb\nc\n" + b"x\n" * 10 + b"tail without newline"
    new = b"new first\na\nc\n" + b"x\n" * 10 + b"tail without newline\nadded\n"
    assert _apply(old, new, [Action.REJECT, Action.ACCEPT]) == b"a\nb\nc\n" + b"x\n" * 10 + (
        b"tail without newline\nadded\n"
    )
    assert _apply(old, new, [Action.ACCEPT, Action.REJECT]) == b"new first\na\nc\n" + b"x\n" * 10 + (
        b"tail without newline"
    )


def test_bytes_are_preserved_crlf_and_non_utf8():
    old = b"int a;\r\n\xff\xfe caf\xe9\r\n" + b"k;\r\n" * 10 + b"cudaFree(p);\r\n"
    new = b"int a;\r\n\xff\xfe caf\xe9\r\n" + b"k;\r\n" * 10 + b"hipFree(p);\r\n"
    (hunk,) = split_hunks(split_lines(old), split_lines(new))
    assert hunk.new[-1] == b"hipFree(p);\r\n"
    assert _apply(old, new, [Action.REJECT]) == old
    assert _apply(old, new, [Action.ACCEPT]) == new


def test_keys_name_content_and_ignore_distant_edits():
    block = b"{\n  x;\n  y;\n}\n"
    old = (block + b"cudaFree(p);\n" + block + b"pad\n" * 8) * 2
    new = (block + b"hipFree(p);\n" + block + b"pad\n" * 8) * 2
    hunks = split_hunks(split_lines(old), split_lines(new))
    assert len(hunks) == 2 and hunks[0].key == hunks[1].key  # identical hunks: told apart by place
    assert hunks[0].a_start != hunks[1].a_start
    other = split_hunks(split_lines(old), split_lines(new.replace(b"hipFree", b"hipFreeAsync")))
    assert other[0].key != hunks[0].key
    # an edit far from the hunk leaves its key alone
    more = b"// new comment\n" * 3
    assert [h.key for h in split_hunks(split_lines(more + old), split_lines(more + new))] == [
        h.key for h in hunks
    ]


def test_fit_edit_restores_a_dropped_final_line_ending():
    old = b"a\r\nb\r\n" + b"x\r\n" * 10
    new = b"a\r\nB\r\n" + b"x\r\n" * 10
    (hunk,) = split_hunks(split_lines(old), split_lines(new))
    assert fit_edit(hunk, b"a\r\nC\r\nx\r\nx\r\nx", followed=True) == b"a\r\nC\r\nx\r\nx\r\nx\r\n"
    assert fit_edit(hunk, b"whole\n", followed=True) == b"whole\n"
    assert fit_edit(hunk, b"end", followed=False) == b"end"


def _random_text(rng: random.Random, n: int) -> list[bytes]:
    alphabet = [b"{\n", b"}\n", b"x = 1;\r\n", b"cudaMalloc(&p, n);\n", b"\xe9\xff\n", b"\n", b"return 0;"]
    return [rng.choice(alphabet) for _ in range(n)]


def _mutate(rng: random.Random, lines: list[bytes]) -> list[bytes]:
    out = list(lines)
    for _ in range(rng.randint(1, 8)):
        pos = rng.randint(0, len(out))
        kind = rng.choice(["insert", "delete", "replace"])
        if kind == "insert":
            out[pos:pos] = [b"hip %d\n" % rng.randint(0, 3)] * rng.randint(1, 3)
        elif kind == "delete":
            del out[pos : pos + rng.randint(1, 3)]
        else:
            out[pos : pos + 1] = [b"hipMalloc(&p, n);\n"]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_random_decisions_match_patching_one_hunk_at_a_time(seed):
    rng = random.Random(seed)
    old_lines = _random_text(rng, rng.randint(0, 60))
    new_lines = _mutate(rng, old_lines)
    old, new = b"".join(old_lines), b"".join(new_lines)
    hunks = split_hunks(split_lines(old), split_lines(new))
    choices = [rng.choice([Action.ACCEPT, Action.REJECT]) for _ in hunks]

    result = _apply(old, new, choices)

    # independent construction: patch the original from the last hunk backwards with the accepted spans
    expected = split_lines(old)
    for hunk, choice in reversed(list(zip(hunks, choices, strict=True))):
        if choice is Action.ACCEPT:
            expected[hunk.a_start : hunk.a_end] = list(hunk.new)
    assert result == b"".join(expected)
    # and the other way round: start from the port and restore the rejected spans
    expected = split_lines(new)
    for hunk, choice in reversed(list(zip(hunks, choices, strict=True))):
        if choice is Action.REJECT:
            expected[hunk.b_start : hunk.b_end] = list(hunk.old)
    assert result == b"".join(expected)
    assert _apply(old, new, [Action.ACCEPT] * len(hunks)) == new
    assert _apply(old, new, [Action.REJECT] * len(hunks)) == old

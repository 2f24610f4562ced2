"""porter.report.json_text writes what json.dumps(indent=..., default=str) writes."""

from __future__ import annotations

import enum
import json
import random
from pathlib import Path

import pytest

from porter.report import json_text


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Name(enum.StrEnum):
    A = "a"


CASES = [
    {}, [], (), "", "é\u2028\x00\"\\/", 0, -7, 2**70, 1.5, -0.0, float("nan"), float("inf"), -float("inf"), True, False,
    None, {"a": [], "b": {}, "c": [1, [2, []], {"d": None}]}, [[[]]], ({"x": (1, 2)},),
    {1: "int key", 2.5: "float key", False: "f", None: "n", "s": Path("/tmp/x")},
    {"enum": Color.RED, "int_enum": Level.HIGH, "str_enum": Name.A, "path": Path("a/b"), "set": {1}},
]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
@pytest.mark.parametrize("indent", [0, 2, 4])
def test_same_text_as_json(case: object, indent: int) -> None:
    assert json_text(case, indent=indent, default=str) == json.dumps(case, indent=indent, default=str)


def _random_value(rng: random.Random, depth: int) -> object:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return "".join(rng.choice("ab\n\"\\é\u00ff\U0001f600 ") for _ in range(rng.randrange(6)))
    if kind == 1:
        return rng.randrange(-10**6, 10**6)
    if kind == 2:
        return rng.uniform(-1e9, 1e9)
    if kind == 3:
        return rng.choice([True, False, None])
    if kind in (4, 5):
        return rng.choice(["x", 1, 0.1])
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    return {rng.choice(["k", "é", 3, 1.25, None, True]) if rng.random() < 0.2 else f"k{i}": _random_value(rng, depth + 1)
            for i in range(rng.randrange(4))}


def test_random_values() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        value = _random_value(rng, 0)
        assert json_text(value, indent=2, default=str) == json.dumps(value, indent=2, default=str)


def test_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        json_text({(1, 2): "tuple key"})

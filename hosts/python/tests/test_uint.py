"""An int above INT64_MAX (ABI 1.6): on LibTorch 2.9 and newer it crosses an
`int` parameter and result as the Python int it is, alone, in List[int]
and in Dict[str, int]; before 2.9 it is refused by name, never wrapped to
a negative int. Debian's python3-torch is the LibTorch tsbridge links, so
its version says which to expect."""
import pytest
import torch

import tsbridge

UINT = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 9)
BIG = [2**63, 2**64 - 1]

SOURCE = """
def ident(self, x: int) -> int:
    return x
def ints(self, xs: List[int]) -> List[int]:
    return xs
def table(self, d: Dict[str, int]) -> Dict[str, int]:
    return d
def half(self, x: float) -> float:
    return x / 2.0
def anything(self, x: Any) -> Any:
    return x
"""


@pytest.fixture(scope="module")
def m():
    return tsbridge.compile(SOURCE)


def refused(call):
    with pytest.raises(tsbridge.UnsupportedError,
                       match=r"which needs LibTorch 2\.9 or newer \(an int above INT64_MAX"):
        call()


@pytest.mark.parametrize("big", BIG)
def test_an_int_method_returns_the_big_int_it_took(m, big):
    if not UINT:
        return refused(lambda: m.ident(big))
    got = m.ident(big)
    assert type(got) is int and got == big
    assert m.anything(big) == big


@pytest.mark.parametrize("big", BIG)
def test_list_and_dict_of_int_keep_it(m, big):
    if not UINT:
        refused(lambda: m.ints([1, big]))
        return refused(lambda: m.table({"a": big}))
    assert m.ints([1, big, -1]) == [1, big, -1]
    assert m.ints([big]) == [big]
    assert m.table({"a": big, "b": 2}) == {"a": big, "b": 2}


def test_an_int_within_int64_is_unchanged(m):
    assert m.ident(2**63 - 1) == 2**63 - 1
    assert m.ident(-2**63) == -2**63
    assert m.ints([2**63 - 1, -5]) == [2**63 - 1, -5]


# Around the inline read of one-digit ints (|x| < 2**30) and the C API's
# past it, each sign.
EDGES = [0, 1, -1, 255, 256, -5, -6, 2**30 - 1, 2**30, -(2**30) + 1, -(2**30), 2**31,
         -(2**31), 2**62, 2**63 - 1, -2**63]


class Int(int):
    pass


def test_ints_each_side_of_one_digit_cross_unchanged(m):
    for x in EDGES:
        assert m.ident(x) == x and m.ident(Int(x)) == x
    assert m.ints(EDGES) == EDGES
    assert m.ints(EDGES * 1000) == EDGES * 1000
    assert m.ints([Int(x) for x in EDGES]) == EDGES  # item by item


def test_a_float_parameter_widens_it(m):
    if not UINT:
        return refused(lambda: m.half(2**63))
    assert m.half(2**63) == 2.0**62


def test_past_uint64_is_out_of_range(m):
    with pytest.raises(tsbridge.TypeMismatchError,
                       match=r"ident\(\): argument 'x': expected int, got Python int "
                             r"18446744073709551616, which is out of range for int "
                             r"\(-2\*\*63 to 2\*\*64 - 1\)"):
        m.ident(2**64)
    with pytest.raises(tsbridge.TypeMismatchError, match=r"\[1\]: expected int"):
        m.ints([1, -2**63 - 1])

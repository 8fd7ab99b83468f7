"""Python code that runs while an argument converts may change that argument
(docs/python.md, "Code that runs while a value converts"): a hook that
clears, grows or rewrites the container being read, drops the only reference
to a tensor or str already lent, raises, or calls tsbridge again. The host
converts the container as it was when read, or refuses it with an error
naming the path; it never crashes. Each hook runs through every entry point
that converts Python values: method calls, operators, plugin functions,
`.pt2` calls, convert and to_json. The sanitizer stage runs this file too."""
import dataclasses
import os
from typing import Dict, List, Tuple

import pytest
import torch

import tsbridge


class Hostile:
    """Array-like (DLPack): converting it runs `act` first, then gives `value`."""

    def __init__(self, act, value=None):
        self.act = act
        self.value = torch.ones(2) if value is None else value

    def __dlpack__(self, stream=None):
        self.act()
        return self.value.__dlpack__()

    def __dlpack_device__(self):
        self.act()
        return self.value.__dlpack_device__()


class Echo(torch.nn.Module):
    def forward(self, xs: List[torch.Tensor]) -> List[torch.Tensor]:
        return xs

    @torch.jit.export
    def same_dict(self, d: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return d

    @torch.jit.export
    def nested(self, d: Dict[str, List[torch.Tensor]]) -> Dict[str, List[torch.Tensor]]:
        return d

    @torch.jit.export
    def lists(self, xs: List[List[torch.Tensor]]) -> List[List[torch.Tensor]]:
        return xs

    @torch.jit.export
    def pairs(self, xs: List[Tuple[torch.Tensor, torch.Tensor]]) -> List[Tuple[torch.Tensor, torch.Tensor]]:
        return xs

    @torch.jit.export
    def ints(self, xs: List[int]) -> List[int]:
        return xs

    @torch.jit.export
    def floats(self, xs: List[float]) -> List[float]:
        return xs

    @torch.jit.export
    def bools(self, xs: List[bool]) -> List[bool]:
        return xs

    @torch.jit.export
    def complexes(self, xs: List[complex]) -> List[complex]:
        return xs

    @torch.jit.export
    def words(self, xs: List[str]) -> List[str]:
        return xs

    @torch.jit.export
    def mixed(self, x: Tuple[List[str], torch.Tensor]) -> List[str]:
        return x[0]

    @torch.jit.export
    def by_int(self, d: Dict[int, torch.Tensor]) -> Dict[int, torch.Tensor]:
        return d


@pytest.fixture(scope="module")
def echo(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("hostile") / "echo.pt")
    torch.jit.save(torch.jit.script(Echo()), path)
    return tsbridge.load(path)


def same_tensors(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert torch.equal(g, w)


# ------------------------------------------------- the container changes


def test_a_list_cleared_by_an_item_converts_as_read(echo):
    # The two crashes of issue 47: a segfault for the list, an abort for the dict.
    xs = [torch.arange(3.0), Hostile(lambda: xs.clear()), torch.zeros(1)]
    same_tensors(echo(xs), [torch.arange(3.0), torch.ones(2), torch.zeros(1)])
    assert xs == []


def test_a_dict_cleared_by_a_value_converts_as_read(echo):
    d = {"a": torch.arange(3.0), "b": Hostile(lambda: d.clear()), "c": torch.zeros(1)}
    got = echo.same_dict(d)
    assert list(got) == ["a", "b", "c"]
    same_tensors(list(got.values()), [torch.arange(3.0), torch.ones(2), torch.zeros(1)])
    assert d == {}


def test_a_list_grown_by_an_item_converts_as_read(echo):
    # Growing reallocates the list's item array under the loop reading it.
    xs = [Hostile(lambda: xs.extend([torch.ones(1)] * 1000)), torch.zeros(2)]
    same_tensors(echo(xs), [torch.ones(2), torch.zeros(2)])
    assert len(xs) == 1002


def test_items_replaced_by_an_item_convert_as_read(echo):
    xs = [torch.zeros(1), Hostile(lambda: xs.__setitem__(2, "not a tensor")), torch.full([1], 2.0)]
    same_tensors(echo(xs), [torch.zeros(1), torch.ones(2), torch.full([1], 2.0)])


def test_a_dict_grown_by_a_value_converts_as_read(echo):
    d = {"a": Hostile(lambda: d.update({str(i): torch.ones(1) for i in range(100)}))}
    got = echo.same_dict(d)
    assert list(got) == ["a"]
    assert len(d) == 101


def test_the_outer_container_cleared_from_inside(echo):
    d = {"a": [torch.ones(1), Hostile(lambda: d.clear())], "b": [torch.zeros(3)]}
    got = echo.nested(d)
    assert list(got) == ["a", "b"]
    same_tensors(got["a"], [torch.ones(1), torch.ones(2)])
    same_tensors(got["b"], [torch.zeros(3)])
    outer = [[torch.ones(1)], [Hostile(lambda: outer.clear()), torch.zeros(1)]]
    got = echo.lists(outer)
    same_tensors(got[0], [torch.ones(1)])
    same_tensors(got[1], [torch.ones(2), torch.zeros(1)])


def test_a_lent_tensor_outlives_the_list_that_held_it(echo):
    # The first tensor's only owner is the list; the hook frees the list's
    # hold before the value is made at the end of the one pass.
    for _ in range(20):
        xs = [torch.full([64], 7.0), torch.full([64], 8.0),
              Hostile(lambda: (xs.clear(), torch.randn(4096)))]
        got = echo(xs)
        same_tensors(got, [torch.full([64], 7.0), torch.full([64], 8.0), torch.ones(2)])


def test_a_lent_str_outlives_the_list_that_held_it(echo):
    # Strs made at run time (not interned) whose only owner is the inner
    # list: their text is lent to the build, and the tensor after them drops
    # them before the value is made.
    for _ in range(20):
        inner = ["".join(["word", str(i)]) * 8 for i in range(4)]
        got = echo.mixed([inner, Hostile(lambda: (inner.clear(), ["x" * 64 for _ in range(99)]))])
        assert got == ["".join(["word", str(i)]) * 8 for i in range(4)]


# ------------------------------------------------- every hook listed


class Hooked:
    """An object whose numeric hooks each run `act` first."""

    def __init__(self, act, value):
        self.act, self.value = act, value

    def __index__(self):
        self.act()
        return int(self.value)

    def __int__(self):
        self.act()
        return int(self.value)

    def __float__(self):
        self.act()
        return float(self.value)

    def __complex__(self):
        self.act()
        return complex(self.value)

    def __bool__(self):
        self.act()
        return bool(self.value)


@pytest.mark.parametrize("method", ["ints", "floats", "bools", "complexes"])
def test_numeric_hooks_that_clear_the_list_are_refused_by_path(echo, method):
    # tsbridge reads numbers by their type (no __index__ and the like): an
    # object that only converts through a hook is refused, by its place.
    xs = [1, Hooked(lambda: xs.clear(), 1), 1]
    with pytest.raises(tsbridge.TypeMismatchError, match=r"argument 'xs' → \[1\]"):
        getattr(echo, method)(xs)
    assert len(xs) == 3  # refused before any hook ran: nothing lost


def test_a_sequence_subclass_whose_iteration_changes_its_container(echo):
    outer = []

    class Sneaky(list):
        def __iter__(self):
            outer.clear()
            return super().__iter__()

        def __len__(self):
            outer.clear()
            return super().__len__()

        def __getitem__(self, i):
            outer.clear()
            return super().__getitem__(i)

    outer.extend([Sneaky([torch.ones(1), torch.zeros(1)]), [torch.full([1], 3.0)]])
    got = echo.lists(outer)
    same_tensors(got[0], [torch.ones(1), torch.zeros(1)])
    same_tensors(got[1], [torch.full([1], 3.0)])


def test_a_namedtuple_whose_fields_lookup_changes_its_container(echo):
    outer = []

    class Meta(type):
        @property
        def _fields(cls):
            outer.clear()
            return ("lo", "hi")

    class Pair(tuple, metaclass=Meta):
        pass

    outer.extend([Pair((torch.ones(1), torch.zeros(1))), (torch.zeros(2), torch.ones(2))])
    got = echo.pairs(outer)
    same_tensors(got[0], [torch.ones(1), torch.zeros(1)])
    same_tensors(got[1], [torch.zeros(2), torch.ones(2)])


def test_keys_whose_hash_eq_and_repr_change_the_dict(echo):
    d = {}

    class Key:
        def __hash__(self):
            d.clear()
            return 1

        def __eq__(self, other):
            d.clear()
            return self is other

        def __repr__(self):
            d.clear()
            return "Key()"

    k = Key()
    d.update({"a": torch.ones(1)})
    d[k] = torch.zeros(1)
    with pytest.raises(tsbridge.TypeMismatchError, match=r"argument 'd'"):
        echo.same_dict(d)
    d2 = {1: torch.ones(1)}
    d2[k] = torch.zeros(1)
    with pytest.raises(tsbridge.TypeMismatchError, match=r"argument 'd'"):
        echo.by_int(d2)


def test_an_attribute_lookup_that_changes_the_container(echo):
    xs = []

    class Looked:
        def __getattr__(self, name):
            xs.clear()
            xs.extend(range(100))
            raise AttributeError(name)

    xs.extend([torch.ones(1), Looked(), torch.zeros(1)])
    with pytest.raises(tsbridge.TypeMismatchError, match=r"argument 'xs' → \[1\]"):
        echo(xs)


def test_a_hook_that_raises_is_reported_with_its_own_exception(echo):
    def boom():
        raise ValueError("boom")

    xs = [torch.ones(1), Hostile(boom)]
    with pytest.raises(ValueError, match="boom"):
        echo(xs)
    assert len(xs) == 2
    same_tensors(echo([torch.ones(1)]), [torch.ones(1)])  # and it keeps working


def test_a_hook_that_calls_tsbridge_again(echo):
    seen = []

    def again():
        seen.append(echo([torch.full([1], 5.0), Hostile(lambda: inner.clear())]))
        seen.append(tsbridge.convert({"k": [1, 2]}, "Dict[str, List[int]]"))
        xs.clear()

    inner = []
    xs = [torch.ones(1), Hostile(again), torch.zeros(1)]
    same_tensors(echo(xs), [torch.ones(1), torch.ones(2), torch.zeros(1)])
    same_tensors(seen[0], [torch.full([1], 5.0), torch.ones(2)])
    assert seen[1] == {"k": [1, 2]}


# ------------------------------------------------- every entry point


def test_operators_convert_as_read():
    xs = [torch.arange(3.0), Hostile(lambda: xs.clear(), torch.full([2], 4.0))]
    got = tsbridge.ops.aten.cat(xs)
    assert torch.equal(got, torch.cat([torch.arange(3.0), torch.full([2], 4.0)]))


def test_plugin_functions_convert_as_read():
    path = os.environ.get("TSB_SDK_TEST_PLUGIN_PATH")
    if not path:
        pytest.fail("TSB_SDK_TEST_PLUGIN_PATH is not set (hosts/python/tests/python.cmake sets it)")
    tsbridge.load_plugin(path)
    points = []

    class Meta(type):
        @property
        def _fields(cls):
            points.clear()
            return ("x", "label")

    class P(tuple, metaclass=Meta):
        pass

    points.extend([P((1.5, 2)), (2.5, None), P((3.0, 1))])
    assert tsbridge.ops.sdk_test.total(points) == 7.0

    words = ["a", "b"]

    class Clears:
        def __getattr__(self, name):
            words.clear()
            raise AttributeError(name)

    words.insert(1, Clears())
    with pytest.raises(tsbridge.TypeMismatchError, match=r"sdk_test::count\(\): argument 'words' → \[1\]"):
        tsbridge.ops.sdk_test.count(words)


def test_convert_and_json_convert_as_read():
    xs = [torch.arange(2.0), Hostile(lambda: xs.clear())]
    got = tsbridge.convert(xs, "List[Tensor]")
    same_tensors(got, [torch.arange(2.0), torch.ones(2)])
    d = {"a": [1, 2], "b": [Hooked(lambda: d.clear(), 3)]}
    with pytest.raises(tsbridge.TypeMismatchError, match=r"key \"b\" → \[0\]"):
        tsbridge.to_json(d, "Dict[str, List[int]]")
    ys = [torch.zeros(1), Hostile(lambda: ys.clear())]
    text = tsbridge.to_json(ys, "List[Tensor]")
    assert text.startswith("[") and text.count("dtype") == 2


AOTI = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 6)


@pytest.mark.skipif(not AOTI, reason="AOTInductor packages need LibTorch 2.6")
def test_a_package_call_converts_as_read():
    import test_export  # noqa: F401  (registers the package's pytree nodes for PyTorch's caller)

    fixtures = os.environ.get("TSB_EXPORT_FIXTURES", "")
    path = os.path.join(fixtures, "nested.pt2")
    m = tsbridge.load(path)
    theirs = torch._inductor.aoti_load_package(path)
    g = torch.Generator().manual_seed(7)
    t = lambda *shape: torch.randn(*shape, generator=g)  # noqa: E731
    a2 = [t(3), t(3)]
    a3 = {"u": t(3), "v": t(3)}
    args = (t(3), (t(3), t(3)), a2, a3, (t(2), t(2)), None)
    kwargs = {"scale": t(3), "span": (t(2), t(2)), "steps": torch.tensor([1, 2, 3])}
    want = theirs(*args, **kwargs)
    hostile2 = [a2[0], Hostile(lambda: hostile2.clear(), a2[1])]
    hostile3 = {"u": a3["u"], "v": Hostile(lambda: hostile3.clear(), a3["v"])}
    got = m(args[0], args[1], hostile2, hostile3, *args[4:], **kwargs)
    flat_got, flat_want = [], []

    def flatten(x, out):  # PyTorch's dataclass output is a tuple here (docs/export.md)
        if isinstance(x, torch.Tensor):
            out.append(x)
        elif dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                flatten(getattr(x, f.name), out)
        elif isinstance(x, dict):
            for k in x:
                flatten(x[k], out)
        elif isinstance(x, (list, tuple)):
            for v in x:
                flatten(v, out)

    flatten(got, flat_got)
    flatten(want, flat_want)
    assert len(flat_got) == len(flat_want) > 0
    for g_, w_ in zip(flat_got, flat_want):
        assert torch.allclose(g_, w_)

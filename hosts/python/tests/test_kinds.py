"""Each kind's Python type, the cached classes, identity and zero copy."""
import enum
import gc
import os
import subprocess
import sys

import pytest
import torch

import tsbridge
import corpus


def test_namedtuple_class_is_cached(modules):
    _, m = modules["kinds"]
    a = m.named(corpus.base.Point(1.0, "a"))
    b = m.named(corpus.base.Point(2.0, None))
    assert type(a) is type(b)
    assert type(a).__name__ == "Point" and a._fields == ("x", "label")
    assert a == (2.0, "a") and b.label is None
    pairs = modules["more"][1].pairs(3)
    assert len({type(p) for p in pairs}) == 1 and pairs[2].right == [2, 2]


def test_namedtuple_keeps_its_type_under_any(modules):
    _, m = modules["kinds"]
    p = m.named(corpus.base.Point(1.0, "a"))
    assert type(m.anys(p)) is type(p)


def test_plugin_record_is_a_named_class():
    cls = tsbridge.type_of("tsbridge.tensor_pair")
    assert cls._fields == ("first", "second") and cls.__name__ == "tensor_pair"
    pair = tsbridge.convert((torch.ones(1), torch.zeros(1)), "tsbridge.tensor_pair")
    assert type(pair) is cls and torch.equal(pair.second, torch.zeros(1))


def test_enum_is_a_real_cached_enum(modules):
    _, m = modules["more"]
    other, heavy, text, value = m.moods(corpus.Mood.CALM, corpus.Weight.LIGHT)
    assert isinstance(other, enum.Enum) and other.name == "ANGRY" and other.value == "angry"
    assert heavy.value == 2.0 and (text, value) == ("calm", 0.5)
    again = m.moods(other, heavy)[0]  # our own member goes back in
    assert type(again) is type(other) and again.name == "CALM"
    assert [x.name for x in type(other)] == ["CALM", "ANGRY"]


def test_object_fields_and_methods(modules):
    _, m = modules["more"]
    account = m.account("bob")
    assert type(account).__name__ == "Account" and account.owner == "bob"
    assert account.deposit(5, times=2) == 20
    assert account.balance == 20 and m.balance(account) == 20  # by reference
    assert type(m.account("eve")) is type(account)
    with pytest.raises(tsbridge.Error, match="no method 'withdraw'"):
        account.withdraw(1)


def test_same_tensor_comes_back_as_the_same_object(modules):
    _, m = modules["more"]
    x = torch.ones(3)
    assert m.same(x) is x
    view = tsbridge.ops.aten.transpose(x.view(3, 1), 0, 1)
    assert view.shape == (1, 3) and view.data_ptr() == x.data_ptr()  # zero copy


def test_other_dlpack_producers_enter_as_tensors():
    import numpy
    array = numpy.arange(4, dtype=numpy.float32)
    t = tsbridge.convert(array, "Tensor")
    assert isinstance(t, torch.Tensor) and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    array[0] = 7  # zero copy: the tensor sees it
    assert t[0].item() == 7.0


def test_bool_tensors_cross(modules):
    _, m = modules["more"]
    pos, neg = m.masks(torch.tensor([True, False]))
    assert pos.dtype == torch.bool and pos.tolist() == [True, False]
    assert neg.tolist() == [False, True]


@pytest.mark.parametrize("value,annotation,want", [
    (None, "Optional[int]", None),
    (True, "bool", True),
    (3, "int", 3),
    (3, "float", 3.0),
    (2.5, "float", 2.5),
    (1 - 2j, "complex", 1 - 2j),
    ("ü", "str", "ü"),
    ([1, 2], "List[float]", [1.0, 2.0]),
    ([True], "List[bool]", [True]),
    ((1, "a"), "Tuple[int, str]", (1, "a")),
    ({1: "a", 2: "b"}, "Dict[int, str]", {1: "a", 2: "b"}),
    ({2.5: 1}, "Dict[float, int]", {2.5: 1}),
    ({False: [1]}, "Dict[bool, List[int]]", {False: [1]}),
    ({(1 + 1j): 0}, "Dict[complex, int]", {(1 + 1j): 0}),
    (4, "Union[int, str]", 4),
    ("cuda:1", "Device", torch.device("cuda:1")),
    (torch.device("cpu"), "Device", torch.device("cpu")),
    (torch.float64, "ScalarType", torch.float64),
    (torch.sparse_coo, "Layout", torch.sparse_coo),
    (torch.channels_last, "MemoryFormat", torch.channels_last),
])
def test_convert_every_kind(value, annotation, want):
    got = tsbridge.convert(value, annotation)
    assert type(got) is type(want) and got == want


def test_tensor_keyed_dict():
    t = torch.ones(1)
    got = tsbridge.convert({t: 1}, "Dict[Tensor, int]")
    assert list(got.keys())[0] is t and list(got.values()) == [1]


def test_large_int_list_round_trip(modules):
    _, m = modules["more"]
    xs = list(range(100_000))
    assert m.ints(xs) == [2 * x for x in xs]


def test_no_handle_leaks(modules):
    _, m = modules["more"]
    gc.collect()
    before = tsbridge._native.live_handles()
    for _ in range(3):
        m.str_tensors({"a": torch.ones(2)})
        m.pairs(2)
        m.nested({1: [("a", 1.5)]})
        m.wrapped(corpus.Wrapped(corpus.base.Point(1.0, "p"), {"t": 1}))
    gc.collect()
    assert tsbridge._native.live_handles() == before


def test_without_torch_tensors_are_dlpack_capsules():
    code = """
import sys
sys.modules['torch'] = None   # torch is not importable in this process
import tsbridge
assert not tsbridge.HAS_TORCH
t = tsbridge.ops.aten.arange(4.0)
assert type(t).__name__ == 'PyCapsule', type(t)
s = tsbridge.ops.aten.add(t, tsbridge.ops.aten.arange(4.0))
assert tsbridge.from_json('"float64"', 'ScalarType') == 'float64'
del sys.modules['torch']
import torch.utils.dlpack
assert torch.utils.dlpack.from_dlpack(s).tolist() == [0.0, 2.0, 4.0, 6.0]
print('ok')
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ))
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_threads_share_classes_and_results(modules):
    """Calls release the GIL: several threads call one module at once."""
    import threading
    _, m = modules["more"]
    classes, errors = set(), []

    def work(k):
        try:
            for i in range(50):
                pairs = m.pairs(2)
                classes.add(type(pairs[0]))
                out = m.str_tensors({"a": torch.full((2,), float(k))})
                assert out["a!"].tolist() == [2.0 * k] * 2
                assert m.ints([i, k]) == [2 * i, 2 * k]
        except Exception as e:  # reported below: a thread cannot fail the test itself
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(classes) == 1

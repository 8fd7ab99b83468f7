"""The API around the conversions: signatures, operators, compile, trace,
plugins, and errors that carry the boundary path."""
import inspect
import os
import pydoc
import re
import subprocess
import sys
from typing import NamedTuple

import pytest
import torch

import tsbridge
import corpus


def test_signature_and_help(modules):
    _, m = modules["more"]
    sig = inspect.signature(m.floats)
    assert list(sig.parameters) == ["xs", "scale"]
    assert sig.parameters["scale"].default == 0.5
    assert sig.parameters["xs"].annotation == "List[float]"
    assert sig.return_annotation == "List[float]"
    text = pydoc.render_doc(m.floats, renderer=pydoc.plaintext)
    # The annotations are strings: pydoc quotes them up to Python 3.13 and
    # prints them as they read from 3.14 on.
    if sys.version_info >= (3, 14):
        assert "floats(xs: List[float], scale: float = 0.5) -> List[float]" in text
    else:
        assert "floats(xs: 'List[float]', scale: 'float' = 0.5)" in text
    assert "-> float[]" in text  # the schema, as LibTorch prints it
    assert m.floats([1.0, 2.0], scale=2.0) == [2.0, 4.0]


def test_module_call_and_forward(modules):
    _, m = modules["more"]
    a, b = m(torch.zeros(2))
    assert a.tolist() == [1.0, 1.0] and b.tolist() == [0.0, 0.0]
    assert "floats" in m.method_names


def test_operators_by_name():
    a, b = torch.ones(2), torch.full((2,), 3.0)
    assert tsbridge.ops.aten.add(a, b, alpha=2).tolist() == [7.0, 7.0]
    assert tsbridge.ops.aten.add(1, 2) == 3
    result = tsbridge.ops.aten.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 1)
    assert result._fields == ("values", "indices")
    assert result.values.tolist() == [5.0, 7.0] and result.indices.tolist() == [1, 0]
    assert type(result) is type(tsbridge.ops.aten.max(torch.ones(2, 2), 0))
    assert "aten::add.Tensor" in tsbridge.ops.aten.add.__doc__
    with pytest.raises(AttributeError, match="no operator or plugin function"):
        tsbridge.ops.aten.no_such_op
    with pytest.raises(tsbridge.Error, match="no overload of aten::add accepts"):
        tsbridge.ops.aten.add(a, "x")


def test_operators_follow_torchscripts_call_rules():
    x, w, b = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3), torch.randn(3)
    # conv2d and conv2d.padding both bind (x, w, b): torch.ops takes conv2d.
    assert torch.equal(tsbridge.ops.aten.conv2d(x, w, b), torch.ops.aten.conv2d(x, w, b))
    # An int where the schema says int[2], broadcast as the TorchScript
    # compiler does on both releases (torch.ops in Python does so on 1.13
    # only: 2.6 refuses an int for SymInt[2] there).
    ts = torch.jit.CompilationUnit(
        "def conv(x: Tensor, w: Tensor, b: Tensor):\n"
        "    return torch.conv2d(x, w, b, 2, 1)\n"
        "def pool(x: Tensor):\n"
        "    return torch.max_pool2d(x, 2), torch.max_pool2d(x, kernel_size=3, stride=1)\n")
    assert torch.equal(tsbridge.ops.aten.conv2d(x, w, b, 2, 1), ts.conv(x, w, b))
    two, three = ts.pool(x)
    assert torch.equal(tsbridge.ops.aten.max_pool2d(x, 2), two)
    assert torch.equal(tsbridge.ops.aten.max_pool2d(x, kernel_size=3, stride=1), three)


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return self.fc(x) * self.scale


def test_state_dict_out_and_in_as_pytorch_has_it():
    import io
    torch.manual_seed(0)
    scripted = torch.jit.script(_Net()).eval()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue())
    state = m.state_dict()
    want = scripted.state_dict()
    assert list(state) == list(want)  # ["scale", "fc.weight", "fc.bias"]
    for key in want:
        assert torch.equal(state[key], want[key]), key
    other = torch.jit.script(_Net()).eval()
    m.load_state_dict(other.state_dict())
    x = torch.randn(4, 3)
    assert torch.equal(m(x), other(x))
    assert torch.equal(state["fc.weight"], other.fc.weight)  # the module's own tensors
    bad = dict(other.state_dict(), **{"fc.bias": torch.zeros(5)})
    with pytest.raises(tsbridge.TypeMismatchError,
                       match=r"argument 'state' → key \"fc.bias\": expected shape \[2\], got \[5\]"):
        m.load_state_dict(bad)
    partial = {"fc.bias": torch.ones(2)}
    with pytest.raises(tsbridge.Error, match='missing keys "scale", "fc.weight"'):
        m.load_state_dict(partial)
    m.load_state_dict(partial, strict=False)
    assert torch.equal(m.state_dict()["fc.bias"], torch.ones(2))


def test_register_parameter_and_buffer_and_graph_for():
    import io
    import re
    torch.manual_seed(0)
    scripted = torch.jit.script(_Net()).eval()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue()).eval()
    m.register_parameter("extra", torch.ones(2))
    m.register_buffer("count", torch.zeros(1))
    assert list(m.state_dict()) == ["extra", "scale", "count", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == ["scale", "count"]
    again = torch.jit.load(io.BytesIO(m.to_bytes()))
    assert list(again.state_dict()) == list(m.state_dict())  # PyTorch sees them too
    with pytest.raises(tsbridge.Error, match="already has an attribute 'fc'"):
        m.register_parameter("fc", torch.ones(1))

    x = torch.randn(4, 3)
    fresh = torch.jit.load(io.BytesIO(buffer.getvalue())).eval()

    def kinds(graph):
        return set(re.findall(r"= ([a-z_]+::[A-Za-z_0-9]+)", str(graph)))

    ours = tsbridge.load(buffer.getvalue()).eval().graph_for(x)
    assert kinds(ours) and kinds(ours) == kinds(fresh.graph_for(x))


def test_compile_save_and_reload(tmp_path):
    m = tsbridge.compile("def twice(self, a: int, b: int = 1) -> int:\n    return a * 2 + b\n")
    assert m.twice(4) == 9 and m.twice(4, b=0) == 8
    m.save(tmp_path / "c.pt")
    assert tsbridge.load(tmp_path / "c.pt").twice(1) == 3
    assert torch.jit.load(str(tmp_path / "c.pt")).twice(1) == 3
    with pytest.raises(tsbridge.TorchError):
        tsbridge.compile("def broken(self) -> int:\n    return undefined_name\n")


def test_trace_binds_named_inputs_by_name():
    def fn(x, y):
        return tsbridge.ops.aten.sub(x, y)

    a, b = torch.full((2,), 5.0), torch.ones(2)
    traced = tsbridge.trace(fn, {"y": b, "x": a})  # fn(a, b), not fn(b, a)
    assert traced(a, b).tolist() == [4.0, 4.0]
    with pytest.raises(TypeError, match="do not match fn"):
        tsbridge.trace(fn, {"x": a, "z": b})


def test_trace_non_strict_records_a_dict_output():
    def fn(x, y):
        return {"sum": tsbridge.ops.aten.add(x, y), "diff": tsbridge.ops.aten.sub(x, y)}

    a, b = torch.full((2,), 5.0), torch.ones(2)
    with pytest.raises(tsbridge.TorchError, match="traced function\\(\\): .*dict"):
        tsbridge.trace(fn, [a, b])
    traced = tsbridge.trace(fn, [a, b], strict=False)
    theirs = torch.jit.trace(lambda x, y: {"sum": x + y, "diff": x - y}, (a, b), strict=False)
    x, y = torch.arange(2.0), torch.full((2,), 3.0)
    got, want = traced(x, y), theirs(x, y)
    assert list(got) == list(want) == ["sum", "diff"]
    assert all(torch.equal(got[k], want[k]) for k in want)


def test_trace_records_operators(tmp_path):
    def fn(x, y):
        return tsbridge.ops.aten.add(tsbridge.ops.aten.mul(x, y), 1.0)

    traced = tsbridge.trace(fn, [torch.ones(2), torch.full((2,), 2.0)])
    x, y = torch.arange(3.0), torch.full((3,), 3.0)
    assert traced(x, y).tolist() == (x * y + 1).tolist()
    traced.save(tmp_path / "t.pt")
    assert torch.jit.load(str(tmp_path / "t.pt"))(x, y).tolist() == (x * y + 1).tolist()


def test_trace_names_its_method():
    traced = tsbridge.trace(lambda x: tsbridge.ops.aten.mul(x, 2.0), [torch.ones(2)],
                            name="double")
    assert traced.method_names == ["double"]
    assert traced.double(torch.ones(1)).tolist() == [2.0]
    with pytest.raises(tsbridge.Error, match="expected a method name"):
        tsbridge.trace(lambda x: x, [torch.ones(1)], name="not a name")


class _Pair(NamedTuple):
    a: int
    b: float


class _TakesPair(torch.nn.Module):
    def forward(self, p: _Pair) -> float:
        return p.a + p.b


def test_a_modules_types_are_its_own(tmp_path):
    torch.jit.save(torch.jit.script(_TakesPair()), str(tmp_path / "pair.pt"))
    first, second = tsbridge.load(tmp_path / "pair.pt"), tsbridge.load(tmp_path / "pair.pt")
    name = re.search(r"(__torch__\.[\w.]*_Pair)\b", first.schema("forward")).group(1)
    pair = first.type_of(name)
    assert pair._fields == ("a", "b")
    # The same NamedTuple in another module is the same type (TorchScript
    # compares NamedTuples by name and fields; classes by identity).
    assert second.type_of(name) is pair
    assert first.convert([1, 2.5], name) == pair(1, 2.5)
    assert first(first.convert({"a": 2, "b": 0.5}, name)) == 2.5
    with pytest.raises(tsbridge.Error, match="tsb_module_parse_type"):
        tsbridge.type_of(name)


def test_trace_passes_the_function_error_through():
    def fn(x):
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        tsbridge.trace(fn, [torch.ones(1)])


def test_plugins():
    # The bundled plugins load on first need: a Tuple and an Optional need them.
    assert tsbridge.convert((1, None), "Tuple[int, Optional[int]]") == (1, None)
    names = [p.name for p in tsbridge.plugins()]
    assert "tuple" in names and "optional" in names
    again = tsbridge.load_plugin(tsbridge.plugins()[0].path)  # a no-op
    assert again.name == tsbridge.plugins()[0].name
    with pytest.raises(tsbridge.Error) as e:
        tsbridge.load_plugin("/nonexistent/plugin.so")
    assert "/nonexistent/plugin.so" in str(e.value)


def test_bundled_plugins_load_on_first_need():
    # A new interpreter: nothing loaded by the import, then only what a value needs.
    script = (
        "import tsbridge\n"
        "print(sorted(p.name for p in tsbridge.plugins()))\n"
        "tsbridge.convert((1, 2), 'Tuple[int, int]')\n"
        "print(sorted(p.name for p in tsbridge.plugins()))\n"
        "tsbridge.convert(None, 'Optional[int]')\n"
        "print(sorted(p.name for p in tsbridge.plugins()))\n")
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                         text=True, env=dict(os.environ)).stdout.splitlines()
    assert out == ["[]", "['tuple']", "['optional', 'tuple']"]


def test_error_raised_by_torchscript(modules):
    _, m = modules["more"]
    with pytest.raises(tsbridge.TorchError, match="k must not be negative") as e:
        m.fail(-1)
    assert str(e.value).startswith("fail(): ")
    assert isinstance(e.value, RuntimeError)


def test_type_error_carries_the_path(modules):
    _, m = modules["more"]
    with pytest.raises(tsbridge.TypeMismatchError) as e:
        m.ints([1, "x"])
    assert str(e.value) == "ints(): argument 'xs' → [1]: expected int, got str \"x\""
    assert e.value.path == "ints(): argument 'xs' → [1]"
    assert e.value.detail == "expected int, got str \"x\""
    bad = corpus.Wrapped(corpus.base.Point("not a float", None), {})
    with pytest.raises(tsbridge.TypeMismatchError) as e:
        m.wrapped(bad)
    assert e.value.path == "wrapped(): argument 'w' → field 'inner' → field 'x'"
    assert isinstance(e.value, TypeError)


def test_host_side_error_carries_the_path(modules):
    _, m = modules["more"]
    with pytest.raises(tsbridge.TypeMismatchError) as e:
        m.nested({1: [("a", {1, 2})]})
    assert str(e.value).startswith("nested(): argument 'x' → key 1 → [0] → [1]: "
                                   "cannot convert Python set")
    with pytest.raises(tsbridge.TypeMismatchError, match="out of range for int"):
        m.ints([2**70])


def test_binding_errors(modules):
    _, m = modules["more"]
    with pytest.raises(tsbridge.Error, match="unknown keyword argument 'nope'"):
        m.floats([1.0], nope=1)
    with pytest.raises(tsbridge.Error, match="missing argument 'xs'"):
        m.floats()
    with pytest.raises(tsbridge.NotFoundError):
        tsbridge.load("/nonexistent/module.pt")


def _sdk_test_plugin():
    path = os.environ.get("TSB_SDK_TEST_PLUGIN_PATH")
    if not path:
        pytest.fail("TSB_SDK_TEST_PLUGIN_PATH is not set (hosts/python/tests/python.cmake sets it)")
    return tsbridge.load_plugin(path)


def test_plugin_functions_take_keywords_and_defaults():
    # Bound by the same binder as module methods and operators (issue 11).
    _sdk_test_plugin()
    scale = tsbridge.ops.sdk_test.scale
    sig = inspect.signature(scale)
    assert list(sig.parameters) == ["p", "by", "times"]
    assert sig.parameters["by"].default == 2.0
    assert sig.parameters["by"].annotation == "float"
    assert sig.parameters["times"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["times"].default == 1
    assert sig.return_annotation == "tsb_test.geo.Point"
    assert tuple(scale((1.5, 3))) == (3.0, 3)
    assert tuple(scale(p=(1.0, None), by=3, times=2)) == (6.0, None)
    with pytest.raises(tsbridge.Error, match=r"sdk_test::scale\(\): missing argument 'p'"):
        scale()


def test_dir_lists_operators_as_pytorch_has_them():
    _sdk_test_plugin()
    namespaces = dir(tsbridge.ops)
    assert "aten" in namespaces and "prim" in namespaces and "sdk_test" in namespaces
    ours = {"aten::" + n for n in dir(tsbridge.ops.aten)}
    # PyTorch's own list of the JIT's operators, in this very process.
    theirs = {s.name for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")}
    assert ours == theirs
    assert {"scale", "total"} <= set(dir(tsbridge.ops.sdk_test))  # plugin functions
    assert dir(tsbridge.ops.no_such_namespace) == []


def test_a_tuple_converts_to_a_plugin_functions_list():
    # One conversion path: a tuple where List[tsb_test.geo.Point] is declared.
    _sdk_test_plugin()
    assert tsbridge.ops.sdk_test.total(((1.0, None), (2.5, 1))) == 3.5
    assert tsbridge.ops.sdk_test.total([(1.0, None)]) == 1.0


def test_one_path_syntax_for_dict_keys(modules):
    # key "a" as in C, JSON and docs/abi.md (issue 11 point 6; was key 'a').
    _, m = modules["more"]
    with pytest.raises(tsbridge.TypeMismatchError) as e:
        m.str_tensors({"a": "not a tensor"})
    assert e.value.path == "str_tensors(): argument 'd' → key \"a\""
    with pytest.raises(tsbridge.Error) as e:
        m.str_tensors({1: torch.ones(1)})
    assert e.value.path == "str_tensors(): argument 'd' → key 1"


def test_float_and_bool_keys_are_spelled_as_the_core_spells_them():
    # tsbridge/path.hpp: key 2.0 and key True, in Python as in C.
    for value, type_text, path in [({2.0: "x"}, "Dict[float, int]", "key 2.0"),
                                   ({True: "x"}, "Dict[bool, int]", "key True")]:
        with pytest.raises(tsbridge.TypeMismatchError) as e:
            tsbridge.convert(value, type_text)
        assert e.value.path == path

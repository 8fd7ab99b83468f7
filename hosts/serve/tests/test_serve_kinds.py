"""Every kind of a TorchScript signature through tsb serve: the kinds
fixture (make_serve_models.py) takes and returns a Dict, a Tuple, a List of
Lists, an Optional, a Union, a str, a List[str], a NamedTuple, nested
containers of tuples and tensors, and scalars; each request's outputs are
compared with what PyTorch's own torch.jit.load of the same file returns."""
import os
import sys

import pytest
import torch

from serve_testing import (REPOSITORY, Server, assert_same, json_input, output_value,
                           typed_json, validate)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_serve_models import Pair  # noqa: E402  the fixture's NamedTuple

MODULE = torch.jit.load(os.path.join(REPOSITORY, "kinds", "1", "model.pt"))


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2")
    yield s
    assert s.stop() == 0, s.log()


def case(o, u, b, n=None, words=("a", "b")):
    args = dict(d={"a": torch.tensor([1.0, 2.0]), "b": torch.arange(6, dtype=torch.float32).reshape(2, 3)},
                t=(4, "x"), xs=[[1, 2], [], [3]], o=o, u=u, s="hey", words=list(words),
                p=Pair(torch.tensor([[1.5]]), 2),
                nested={"k": [(2, torch.tensor([3.0])), (0, torch.ones(2, 2))], "empty": []},
                f=1.5, b=b)
    if n is not None:
        args["n"] = n
    return args


CASES = {
    "none_int_true": case(None, 3, True),
    "float_str_false": case(2.5, "s", False, n=5),
    "empty_words": case(-1.0, -7, True, words=()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_kind_against_pytorch(server, name):
    args = CASES[name]
    inputs = []
    for key, value in args.items():
        if key == "s":  # str as the protocol's BYTES
            inputs.append({"name": "s", "datatype": "BYTES", "shape": [1], "data": [value]})
        elif key == "words":  # List[str] as BYTES
            inputs.append({"name": "words", "datatype": "BYTES", "shape": [len(value)], "data": value})
        else:
            inputs.append(json_input(key, typed_json(value)))
    request = {"id": name, "inputs": inputs}
    validate(request, "inference_request")
    response = server.post("/v2/models/kinds/infer", request)
    assert response.status_code == 200, response.text
    body = response.json()
    validate(body, "inference_response")
    expected = MODULE(**args)
    types = [o["parameters"]["tsbridge_type"] for o in server.get("/v2/models/kinds").json()["outputs"]]
    assert len(body["outputs"]) == len(expected) == len(types)
    for i, (output, want, type_) in enumerate(zip(body["outputs"], expected, types)):
        assert_same(output_value(output, type_), want, f"OUTPUT__{i} ({type_})")


def test_tensor_for_any_kind_through_typed_json(server):
    # A tensor may come as typed JSON too, and comes back as the protocol's tensor.
    x = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
    body = server.post("/v2/models/add/infer", {"inputs": [
        json_input("x", typed_json(x)), json_input("y", typed_json(x))]}).json()
    assert body["outputs"][0]["datatype"] == "INT32"
    assert_same(output_value(body["outputs"][0]), x - x)


def test_any_argument(server):
    # Where the schema says Any: a protocol tensor is a Tensor (not the dict
    # its typed JSON would be), typed JSON is read as JSON says (docs/json.md).
    from serve_testing import tensor_input
    x = torch.arange(4, dtype=torch.int64).reshape(2, 2)
    body = server.post("/v2/models/anything/infer", {"inputs": [tensor_input("x", x, "INT64")]}).json()
    assert body["outputs"][0]["datatype"] == "JSON"  # the result's type is Any
    assert_same(output_value(body["outputs"][0]), x)
    value = {"a": [1, 2.5, "s", None, True]}
    body = server.post("/v2/models/anything/infer", {"inputs": [json_input("x", value)]}).json()
    assert body["outputs"][0]["parameters"]["tsbridge_json"] == value


def test_every_datatype(server):
    # Each of the protocol's numeric datatypes in and out, through add/1 (x + y).
    names = ["BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64", "BF16"]
    module = torch.jit.load(os.path.join(REPOSITORY, "add", "1", "model.pt"))
    from serve_testing import DTYPES, tensor_input
    for datatype in names:
        x = torch.tensor([[0, 1, 1], [1, 0, 1]]).to(DTYPES[datatype])
        response = server.post("/v2/models/add/versions/1/infer", {"inputs": [
            tensor_input("x", x, datatype), tensor_input("y", x, datatype)]})
        assert response.status_code == 200, (datatype, response.text)
        output = response.json()["outputs"][0]
        assert output["datatype"] == datatype
        assert_same(output_value(output), module(x, x), datatype)


EXPORTED = os.path.join(REPOSITORY, "exported", "1", "model.pt2")


@pytest.mark.skipif(not os.path.exists(EXPORTED), reason="no AOTInductor in this torch (Debian 12)")
def test_pt2_package_against_pytorch(server):
    # An AOTInductor package: positional arguments named arg0, arg1; a dict result.
    metadata = server.get("/v2/models/exported").json()
    validate(metadata, "metadata_model_response")
    assert metadata["platform"] == "torch_aoti"
    assert [i["name"] for i in metadata["inputs"]][:2] == ["arg0", "arg1"]
    x, a, b = torch.randn(3), torch.randn(3), torch.randn(3)
    from serve_testing import tensor_input
    response = server.post("/v2/models/exported/infer", {"inputs": [
        tensor_input("arg0", x, "FP32"), json_input("INPUT__1", typed_json((a, b)))]})
    assert response.status_code == 200, response.text
    body = response.json()
    validate(body, "inference_response")
    expected = torch._inductor.aoti_load_package(EXPORTED)(x, (a, b))
    assert_same(output_value(body["outputs"][0]), expected)


def test_tensor_data_both_readers_agree(server):
    # A protocol tensor's JSON data goes straight into a tensor when every
    # element allows it, else through the typed JSON reader (a "NaN" string,
    # an integer out of range): the same values either way, the reader's
    # error where it is wrong. Results holding NaN or an infinity are written
    # by the typed JSON writer, as strings.
    module = torch.jit.load(os.path.join(REPOSITORY, "add", "1", "model.pt"))
    def add(x, y):
        return server.post("/v2/models/add/versions/1/infer", {"inputs": [x, y]})
    fast = {"name": "x", "datatype": "FP32", "shape": [2, 2], "data": [[1, 2.5], [-3, 1e-3]]}
    general = dict(fast, name="y", data=[[1, "NaN"], ["Infinity", 1e-3]])
    response = add(fast, general)
    assert response.status_code == 200, response.text
    output = response.json()["outputs"][0]
    assert output["data"] == [2.0, "NaN", "Infinity", 0.0020000000949949026]
    nan, inf = float("nan"), float("inf")
    expected = module(torch.tensor([[1, 2.5], [-3, 1e-3]]), torch.tensor([[1, nan], [inf, 1e-3]]))
    got = torch.tensor([float(v) for v in output["data"]]).reshape(output["shape"])
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)
    ints = {"name": "x", "datatype": "INT8", "shape": [2], "data": [127, -128]}
    response = add(ints, dict(ints, name="y", data=[0, 0]))
    assert response.json()["outputs"][0]["data"] == [127, -128]
    response = add(ints, dict(ints, name="y", data=[1, 300]))
    assert response.status_code == 400
    assert 'inputs[1] → key "data" → [1]: expected int8, got JSON number 300, which is out of range' \
        in response.json()["error"]

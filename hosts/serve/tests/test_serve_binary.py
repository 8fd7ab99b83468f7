"""The binary tensor data extension through tsb serve: the request's JSON,
then the inputs' bytes (Inference-Header-Content-Length gives the JSON's
length, parameters.binary_data_size each input's bytes); outputs asked for
as binary come back the same way. Compared with PyTorch's own results;
malformed binary requests are 400s with the path while the server serves."""
import json
import os

import pytest
import requests
import torch

from serve_testing import DTYPES, REPOSITORY, Server, assert_same, json_input, validate

HEADER = "Inference-Header-Content-Length"


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2")
    yield s
    assert s.stop() == 0, s.log()


def binary_input(name, tensor, datatype):
    data = tensor.contiguous().view(torch.uint8).numpy().tobytes() if tensor.dtype != torch.bool \
        else tensor.to(torch.uint8).numpy().tobytes()
    return ({"name": name, "datatype": datatype, "shape": list(tensor.shape),
             "parameters": {"binary_data_size": len(data)}}, data)


def strings_bytes(strings):
    return b"".join(len(s.encode()).to_bytes(4, "little") + s.encode() for s in strings)


def post(server, model, request, blobs=(), valid=True):
    head = json.dumps(request).encode()
    if valid:
        validate(request, "inference_request")
    return requests.post(f"{server.url}/v2/models/{model}/infer", data=head + b"".join(blobs),
                         headers={HEADER: str(len(head)), "Content-Type": "application/octet-stream"},
                         timeout=60)


def outputs_of(response):
    """The response's outputs as Python values, binary ones decoded."""
    assert response.status_code == 200, response.text
    length = response.headers.get(HEADER)
    head = response.content if length is None else response.content[:int(length)]
    blob = b"" if length is None else response.content[int(length):]
    body = json.loads(head)
    validate(body, "inference_response")
    values, at = [], 0
    for out in body["outputs"]:
        size = out.get("parameters", {}).get("binary_data_size")
        if size is None:
            values.append(out)
            continue
        chunk, at = blob[at:at + size], at + size
        if out["datatype"] == "BYTES":
            strings, i = [], 0
            while i < len(chunk):
                n = int.from_bytes(chunk[i:i + 4], "little")
                strings.append(chunk[i + 4:i + 4 + n].decode())
                i += 4 + n
            values.append(strings)
        else:
            dtype = DTYPES[out["datatype"]]
            raw = torch.frombuffer(bytearray(chunk), dtype=torch.uint8) if dtype == torch.bool \
                else torch.frombuffer(bytearray(chunk), dtype=dtype)
            values.append((raw.to(torch.bool) if dtype == torch.bool else raw).reshape(out["shape"]))
    assert at == len(blob), "binary data left over"
    return values


def test_server_says_binary_tensor_data(server):
    assert "binary_tensor_data" in server.get("/v2").json()["extensions"]


@pytest.mark.parametrize("datatype", ["BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64",
                                      "FP16", "FP32", "FP64", "BF16"])
def test_every_datatype_both_ways(server, datatype):
    module = torch.jit.load(os.path.join(REPOSITORY, "add", "1", "model.pt"))
    x = torch.tensor([[0, 1, 1], [1, 0, 1]]).to(DTYPES[datatype])
    y = torch.tensor([[1, 1, 0], [0, 0, 1]]).to(DTYPES[datatype])
    (jx, bx), (jy, by) = binary_input("x", x, datatype), binary_input("y", y, datatype)
    request = {"inputs": [jx, jy], "parameters": {"binary_data_output": True}}
    [got] = outputs_of(post(server, "add/versions/1", request, [bx, by]))
    assert_same(got, module(x, y), datatype)


def test_linear_against_pytorch_mixed_forms(server):
    # A binary input, a JSON output (no binary asked for): plain JSON back.
    module = torch.jit.load(os.path.join(REPOSITORY, "linear", "1", "model.pt"))
    x = torch.randn(6, 4)
    jx, bx = binary_input("x", x, "FP32")
    response = post(server, "linear", {"inputs": [jx]}, [bx])
    assert HEADER not in response.headers
    [out] = outputs_of(response)
    got = torch.tensor(out["data"], dtype=torch.float32).reshape(out["shape"])
    assert_same(got, module(x))
    # The output binary, by its own binary_data.
    request = {"inputs": [jx], "outputs": [{"name": "OUTPUT__0", "parameters": {"binary_data": True}}]}
    [got] = outputs_of(post(server, "linear", request, [bx]))
    assert_same(got, module(x))


def test_bytes_and_typed_json_with_binary(server):
    # str and List[str] as binary BYTES; a Dict output asked for as binary stays typed JSON.
    words = ["a", "bé", ""]
    inputs = [json_input("d", {}), json_input("t", [1, "a"]), json_input("xs", []),
              json_input("o", None), json_input("u", 1),
              {"name": "s", "datatype": "BYTES", "shape": [1], "parameters": {"binary_data_size": 7}},
              {"name": "words", "datatype": "BYTES", "shape": [3],
               "parameters": {"binary_data_size": len(strings_bytes(words))}},
              json_input("p", [{"dtype": "float32", "shape": [], "data": [1]}, 1]),
              json_input("nested", {}), json_input("f", 1.0), json_input("b", True)]
    outputs = [{"name": n, "parameters": {"binary_data": True}} for n in ("OUTPUT__5", "OUTPUT__6", "OUTPUT__0")]
    got = outputs_of(post(server, "kinds", {"inputs": inputs, "outputs": outputs},
                          [strings_bytes(["hey"]), strings_bytes(words)]))
    assert got[0] == ["HEY"]
    assert got[1] == [w + "hey" for w in words]
    assert got[2]["parameters"]["tsbridge_json"] == {}


X = {"name": "x", "datatype": "FP32", "shape": [1, 4], "parameters": {"binary_data_size": 16}}
FOUR = torch.ones(4).numpy().tobytes()

BAD = [
    # (model, request, binary, error's start)
    ("linear", {"inputs": [X]}, FOUR[:12],
     'inputs[0] → key "parameters" → key "binary_data_size": 16 bytes, but 12 follow the JSON'),
    ("linear", {"inputs": [X]}, FOUR + b"xx", "18 bytes follow the JSON, and the inputs' binary_data_size take 16"),
    ("linear", {"inputs": [dict(X, parameters={"binary_data_size": 12})]}, FOUR[:12],
     'inputs[0] → key "parameters" → key "binary_data_size": shape [1, 4] of FP32 needs 16 bytes, got 12'),
    ("linear", {"inputs": [dict(X, parameters={"binary_data_size": -1})]}, b"",
     'inputs[0] → key "parameters" → key "binary_data_size": expected a size in bytes, got JSON number -1'),
    ("linear", {"inputs": [dict(X, data=[1, 2, 3, 4])]}, FOUR,
     'inputs[0] → key "data": an input with binary_data_size has its data after the JSON'),
    ("add", {"inputs": [{"name": "x", "datatype": "BOOL", "shape": [2], "parameters": {"binary_data_size": 2}}]},
     b"\x01\x02", 'inputs[0] → key "parameters" → key "binary_data_size": '),
    ("kinds", {"inputs": [{"name": "words", "datatype": "BYTES", "shape": [1],
                           "parameters": {"binary_data_size": 6}}]}, b"\x05\x00\x00\x00ab",
     'inputs[0] → key "parameters" → key "binary_data_size": BYTES element 0 of 5 bytes, but 2 are left'),
    ("kinds", {"inputs": [{"name": "words", "datatype": "BYTES", "shape": [1],
                           "parameters": {"binary_data_size": 6}}]}, b"\x02\x00\x00\x00\xc3\x28",
     'inputs[0] → key "parameters" → key "binary_data_size": BYTES element 0 is not valid UTF-8'),
    # 2^62 x 4 FP32 elements are 2^66 bytes: a 64-bit product wraps to 0.
    ("add", {"inputs": [{"name": "x", "datatype": "FP32", "shape": [2 ** 62, 4],
                         "parameters": {"binary_data_size": 0}}]}, b"",
     'inputs[0] → key "shape": shape [4611686018427387904, 4] has more elements than fit in memory'),
    ("linear", {"inputs": [X], "parameters": {"binary_data_output": "yes"}}, FOUR,
     'key "parameters" → key "binary_data_output": expected true or false, got JSON string "yes"'),
]


@pytest.mark.parametrize("model,request_,blob,error", BAD)
def test_bad_binary_request(server, model, request_, blob, error):
    response = post(server, model, request_, [blob], valid=False)
    assert response.status_code == 400, response.text
    assert response.json()["error"].startswith(error), response.json()["error"]
    assert server.get("/v2/health/live").status_code == 200


@pytest.mark.parametrize("length", ["x", "-1", "100000", "12abc"])
def test_bad_header_length(server, length):
    response = requests.post(f"{server.url}/v2/models/linear/infer", data=b"{}",
                             headers={HEADER: length}, timeout=60)
    assert response.status_code == 400
    assert response.json()["error"].startswith(HEADER + ": expected the JSON's length in bytes")


def test_no_handle_leaked(server):
    for model, request_, blob, _ in BAD:
        post(server, model, request_, [blob], valid=False)
    test_every_datatype_both_ways(server, "FP32")
    assert server.metric("tsb_serve_live_handles") == 0

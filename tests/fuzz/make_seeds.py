"""Writes the seed corpora of the fuzz targets (tests/fuzz/*_fuzzer.cc).

Every seed is made here, from values written in this file: JSON and type
strings as text, pickles by PyTorch's own writers. Usage: make_seeds.py OUT.
"""
import io
import os
import pickle
import sys

# (expected type, JSON) pairs: the json target reads "<type>\n<json>".
JSON = [
    ("int", "3"), ("float", "2.5"), ("bool", "true"), ("str", '"hi"'), ("None", "null"),
    ("complex", '{"real": 1.0, "imag": -2.0}'), ("Device", '"cpu"'),
    ("ScalarType", '"float32"'), ("Layout", '"strided"'),
    ("Tensor", '{"dtype": "float32", "shape": [2, 2], "data": [1, 2, 3, 4]}'),
    ("Tensor", '{"dtype": "int64", "shape": [], "data": [7]}'),
    ("List[int]", "[1, 2, 3]"), ("List[List[float]]", "[[1.5], [], [2]]"),
    ("Dict[str, List[int]]", '{"a": [1], "b": []}'),
    ("Dict[int, str]", '[[1, "a"], [2, "b"]]'),
    ("Tuple[int, str, Optional[float]]", '[1, "x", null]'),
    ("Optional[List[str]]", '["a", "b"]'), ("Union[int, str]", '"u"'),
    ("Any", '[1, "two", 3.0]'), ("Scalar", "1.25"), ("List[Any]", '[{"a": 1}, null]'),
    ("tsbridge.tensor_pair",
     '{"first": {"dtype": "float32", "shape": [1], "data": [1]},'
     ' "second": {"dtype": "float32", "shape": [1], "data": [2]}}'),
]

TYPES = [
    "int", "Tensor", "List[int]", "Dict[str, Tensor]", "Tuple[int, Optional[str]]",
    "Union[int, float, None]", "int[]", "Dict(str, Tensor)", "Tensor?", "Future[int]",
    "List[Tuple[Dict[int, List[float]], str]]", "NamedTuple", "Optional[Optional[int]]",
    "tsbridge.tensor_pair", "Tuple[()]", "Dict[Tensor, int]", "__torch__.Foo",
]

# Values both pickle seeds carry: what LibTorch's unpickler accepts.
VALUES = [1, -7, 2.5, True, None, "text", [1, 2, 3], [1.0, 2.0], {"a": 1, "b": 2},
          (1, "x"), [[1], [2, 3]], {"k": [True, False]}, [], {}]

# Host ABI call sequences (abi_sequence_fuzzer.cc reads one byte per step).
ABI = [bytes([0, 5, 1, 9, 7, 8, 8, 0]), bytes([4, 1, 4, 2, 6, 1, 7, 12, 8, 0, 9]),
       bytes([0, 3, 0, 4, 5, 3, 1, 7, 19, 8, 1, 9, 9])]


# host_conversion_fuzzer.cc reads "<type>\n<bytes>": the bytes steer the
# builders (see that file); these start it on every kind.
HOST = ["int", "float", "str", "complex", "Tensor", "Device", "ScalarType", "List[int]",
        "List[float]", "List[str]", "Dict[str, List[int]]", "Dict[Tensor, float]",
        "Tuple[int, str, Optional[float]]", "Optional[List[Tensor]]", "Union[int, str, Tensor]",
        "tsbridge.tensor_pair", "List[Dict[int, Tuple[bool, complex]]]", "Any"]


# kit_build_fuzzer.cc reads "<type>\n<bytes>": the bytes make a host value
# (see that file); these types start it on each path of the kit's build.
KIT = HOST + ["Union[List[int], List[str]]", "Tuple[List[int], int]", "Dict[str, Any]",
              "List[Optional[Tuple[int, str]]]", "Dict[str, Dict[str, List[float]]]"]


def module_seeds(out):
    """Modules PyTorch saves (the shared Calls and Net of
    tests/testing/fixtures.py): as archives, and as records (see
    module_load_fuzzer.cc)."""
    import zipfile
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testing"))
    import fixtures
    import torch
    for i, m in enumerate([fixtures.Calls(), fixtures.Net()]):
        buf = io.BytesIO()
        torch.jit.save(torch.jit.script(m), buf)
        write(os.path.join(out, "module_load"), f"zip{i:02d}", b"Z" + buf.getvalue())
        records = b"R"
        with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
            for name in z.namelist():
                short = name.split("/", 1)[1].encode()
                if short == b".data/version":
                    continue  # the writer adds it
                data = z.read(name)
                records += bytes([len(short)]) + short + len(data).to_bytes(4, "little") + data
        write(os.path.join(out, "module_load"), f"records{i:02d}", records)


# tsb serve's requests: the JSON, a NUL, the binary data (serve_request_fuzzer.cc).
TENSOR = '{"name": "x", "datatype": "FP32", "shape": [2], "data": [1, 2]}'
REST = ('{"name": "s", "datatype": "BYTES", "shape": [1], "data": ["a"]}, '
        '{"name": "words", "parameters": {"tsbridge_json": ["a", "b"]}}, '
        '{"name": "d", "parameters": {"tsbridge_json": {"k": {"dtype": "int64", "shape": [1], "data": [3]}}}}, '
        '{"name": "t", "parameters": {"tsbridge_json": [1, "x"]}}')
SERVE = [
    ('{"id": "1", "inputs": [' + TENSOR + ", " + REST + "]}", b""),
    ('{"inputs": [' + TENSOR + ", " + REST + ', {"name": "o", "parameters": {"tsbridge_json": 2.5}}, '
     '{"name": "u", "parameters": {"tsbridge_json": "s"}}], "outputs": [{"name": "OUTPUT__1"}]}', b""),
    ('{"inputs": [{"name": "INPUT__0", "datatype": "INT32", "shape": [1], "parameters": {"binary_data_size": 4}}, '
     + REST + '], "parameters": {"binary_data_output": true}}', b"\x07\x00\x00\x00"),
    ('{"inputs": [' + TENSOR + ', {"name": "s", "datatype": "BYTES", "shape": [1], '
     '"parameters": {"binary_data_size": 6}}, {"name": "words", "datatype": "BYTES", "shape": [2], '
     '"data": [["a"], ["b"]]}, {"name": "d", "parameters": {"tsbridge_json": {}}}, '
     '{"name": "t", "parameters": {"tsbridge_json": [0, ""]}}]}', b"\x02\x00\x00\x00hi"),
]

# What a client sends on one connection (serve_http_fuzzer.cc): pipelined
# requests, a chunked body, Expect: 100-continue, a body over its 256-byte
# limit, a malformed header.
INFER = b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1], "data": [1]}]}'
HTTP = [
    b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\nGET /v2 HTTP/1.0\r\n\r\n",
    b"POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
    b"Inference-Header-Content-Length: 10\r\n\r\n%s" % (len(INFER), INFER),
    b"POST /v2/models/m%2Fx/infer?a=1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"4\r\nabcd\r\n0\r\n\r\n",
    b"POST /throw HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
    b"POST / HTTP/1.1\r\nContent-Length: 300\r\n\r\n" + b" " * 300,
    b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
]


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    mode = "w" if isinstance(data, str) else "wb"
    with open(os.path.join(directory, name), mode) as f:
        f.write(data)


def main():
    out = sys.argv[1]
    for i, (type_string, json) in enumerate(JSON):
        write(os.path.join(out, "json"), f"seed{i:02d}", f"{type_string}\n{json}")
    for i, type_string in enumerate(TYPES):
        write(os.path.join(out, "type_string"), f"seed{i:02d}", type_string)
    for i, data in enumerate(ABI):
        write(os.path.join(out, "abi_sequence"), f"seed{i:02d}", data)
    for i, type_string in enumerate(HOST):
        steer = bytes((7 * i + 3 * j + 1) % 256 for j in range(48))
        write(os.path.join(out, "host_conversion"), f"seed{i:02d}",
              type_string.encode() + b"\n" + steer)
    for i, type_string in enumerate(KIT):
        steer = bytes((11 * i + 5 * j + 6) % 256 for j in range(64))
        write(os.path.join(out, "kit_build"), f"seed{i:02d}", type_string.encode() + b"\n" + steer)
    for i, (request, binary) in enumerate(SERVE):
        write(os.path.join(out, "serve_request"), f"seed{i:02d}", request.encode() + b"\0" + binary)
    for i, data in enumerate(HTTP):
        write(os.path.join(out, "serve_http"), f"seed{i:02d}", data)
    module_seeds(out)
    import torch  # only the pickle seeds need it
    values = VALUES + [torch.arange(4.0), {"t": torch.ones(2, dtype=torch.int64)}]
    for i, value in enumerate(values):
        archive = io.BytesIO()
        torch.save(value, archive)
        write(os.path.join(out, "pickle"), f"zip{i:02d}", b"Z" + archive.getvalue())
        if i < len(VALUES):  # tensors need their storage records: archive only
            write(os.path.join(out, "pickle"), f"raw{i:02d}",
                  b"P" + pickle.dumps(value, protocol=2))


if __name__ == "__main__":
    main()

"""What tsb serve's tests share: a server started on a free loopback port,
the protocol's schema (hosts/serve/open_inference_rest.schema.json), and
conversions of the protocol's outputs into PyTorch values to compare.

Environment: TSB_BIN (the tsb binary), TSB_SERVE_REPOSITORY (the models
make_serve_models.py wrote). A Server started with --grpc-port has its
gRPC API at grpc_target."""
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time

import jsonschema
import requests
import torch

TSB = os.environ["TSB_BIN"]
REPOSITORY = os.environ["TSB_SERVE_REPOSITORY"]
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "open_inference_rest.schema.json")) as f:
    SCHEMA = json.load(f)

DTYPES = {"BOOL": torch.bool, "UINT8": torch.uint8, "INT8": torch.int8, "INT16": torch.int16,
          "INT32": torch.int32, "INT64": torch.int64, "FP16": torch.float16,
          "FP32": torch.float32, "FP64": torch.float64, "BF16": torch.bfloat16}


# Additions of slow/1 that hold a worker: about 2 s on an idle core. A first
# call runs under LibTorch's profiling executor, far slower (77 s under ASan
# at load 8), and warm LibTorch 2.6 runs them in under 200 ms: the tests call
# it cold and wait for it as long as SLOW_TIMEOUT.
BUSY = 500000
SLOW_TIMEOUT = 300
SLOW = 'model="slow",version="1"'


def validate(body, definition):
    """Fails unless body is the protocol's `definition` (the schema's name)."""
    jsonschema.validate(body, {"$ref": "#/definitions/" + definition,
                               "definitions": SCHEMA["definitions"]})


class Server:
    """tsb serve REPOSITORY on 127.0.0.1, any free port; its log in a file."""

    def __init__(self, *options, repository=REPOSITORY):
        self.log_file = tempfile.NamedTemporaryFile("w+", prefix="tsb-serve-", suffix=".log")
        self.process = subprocess.Popen(
            [TSB, "serve", repository, "--address", "127.0.0.1", "--port", "0", *options],
            stdout=subprocess.PIPE, stderr=self.log_file, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.process.wait(timeout=30)
            raise AssertionError("tsb serve did not start: " + line + self.log())
        self.url = "http://127.0.0.1:" + match.group(1)
        if "--grpc-port" in options:  # the gRPC line follows the REST one
            line = self.process.stdout.readline()
            match = re.search(r"gRPC listening on 127\.0\.0\.1:(\d+)", line)
            assert match, "no gRPC port: " + line + self.log()
            self.grpc_target = "127.0.0.1:" + match.group(1)

    def connect(self, timeout=None):
        """A raw TCP connection to the REST port."""
        host, port = self.url.replace("http://", "").split(":")
        return socket.create_connection((host, int(port)), timeout=timeout)

    def get(self, path, **kwargs):
        return requests.get(self.url + path, timeout=60, **kwargs)

    def post(self, path, body=None, timeout=60, **kwargs):
        if body is not None and not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        return requests.post(self.url + path, data=body, timeout=timeout,
                             headers={"Content-Type": "application/json"}, **kwargs)

    def metric(self, name):
        """The value of the metric line `name` (with its labels) in /metrics."""
        for line in self.get("/metrics").text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
        raise AssertionError("no metric " + name)

    def wait_for_metric(self, name, value, timeout=60):
        deadline = time.monotonic() + timeout
        while self.metric(name) != value:
            assert time.monotonic() < deadline, f"{name} never reached {value}"
            time.sleep(0.01)

    def log(self):
        self.log_file.seek(0)
        return self.log_file.read()

    def stop(self):
        """SIGTERM, then the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


def slow_request(server, n, results, key):
    """POSTs slow/infer with n additions; results[key] = (status, JSON body)."""
    body = {"inputs": [tensor_input("x", torch.zeros(1), "FP32"),
                       {"name": "n", "parameters": {"tsbridge_json": n}}]}
    response = server.post("/v2/models/slow/infer", body, timeout=SLOW_TIMEOUT)
    results[key] = (response.status_code, response.json())


def start_slow_request(server, n, results, key):
    """slow_request on a thread of its own, started."""
    thread = threading.Thread(target=slow_request, args=(server, n, results, key))
    thread.start()
    return thread


def run_concurrently(function, n):
    """function(0) ... function(n - 1), each on a thread of its own, joined."""
    threads = [threading.Thread(target=function, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def tensor_input(name, tensor, datatype):
    return {"name": name, "datatype": datatype, "shape": list(tensor.shape),
            "data": tensor.flatten().tolist()}


def json_input(name, value):
    return {"name": name, "parameters": {"tsbridge_json": value}}


def typed_json(value):
    """A Python value as tsbridge's typed JSON (docs/json.md)."""
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
                "data": value.flatten().tolist()}
    if hasattr(value, "_fields"):
        return {k: typed_json(v) for k, v in zip(value._fields, value)}
    if isinstance(value, (list, tuple)):
        return [typed_json(v) for v in value]
    if isinstance(value, dict):
        return {k: typed_json(v) for k, v in value.items()}
    return value


def from_typed_json(value):
    """tsbridge's typed JSON back to Python: tensors as torch.Tensor."""
    if isinstance(value, dict) and set(value) >= {"dtype", "shape", "data"}:
        return torch.tensor(value["data"], dtype=getattr(torch, value["dtype"])).reshape(value["shape"])
    if isinstance(value, dict):
        return {k: from_typed_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_typed_json(v) for v in value]
    return value


def output_value(output, spec_type=None):
    """A response output as Python: a tensor, str or List[str] (BYTES), or
    the typed JSON value (datatype JSON)."""
    validate(output, "response_output")
    if output["datatype"] == "JSON":
        return from_typed_json(output["parameters"]["tsbridge_json"])
    if output["datatype"] == "BYTES":
        return output["data"][0] if spec_type == "str" else output["data"]
    return torch.tensor(output["data"], dtype=DTYPES[output["datatype"]]).reshape(output["shape"])


def assert_same(got, expected, where="result"):
    """got (from the server) equals expected (PyTorch's), kind by kind."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), f"{where}: expected a tensor, got {got!r}"
        assert got.dtype == expected.dtype and got.shape == expected.shape, where
        torch.testing.assert_close(got, expected, rtol=0, atol=0, msg=where)
    elif hasattr(expected, "_fields"):
        assert isinstance(got, dict) and list(got) == list(expected._fields), where
        for k, v in zip(expected._fields, expected):
            assert_same(got[k], v, f"{where}.{k}")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got!r}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected), f"{where}: {got!r}"
        for k in expected:
            assert_same(got[k], expected[k], f"{where}[{k!r}]")
    else:
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"

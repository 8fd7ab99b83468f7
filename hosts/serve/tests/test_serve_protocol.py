"""tsb serve's HTTP/REST API as the Open Inference Protocol defines it:
health, metadata, tensor inference compared with PyTorch's own result,
bad requests answered with the right status while the server keeps
serving, /metrics, and tsbridge's live handles back to their idle count."""
import os
import re
import subprocess
import time

import pytest
import torch

from serve_testing import (REPOSITORY, TSB, Server, assert_same, output_value, tensor_input,
                           json_input, validate)


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2", "--max-body", "100000")
    yield s
    assert s.stop() == 0, s.log()


def infer(server, model, inputs, **extra):
    return server.post(f"/v2/models/{model}/infer", {"inputs": inputs, **extra})


def test_health(server):
    live = server.get("/v2/health/live")
    assert live.status_code == 200
    validate(live.json(), "live_response")
    ready = server.get("/v2/health/ready")
    assert ready.status_code == 200 and ready.json() == {"ready": True}


def test_server_metadata(server):
    for path in ("/v2", "/v2/"):
        body = server.get(path).json()
        validate(body, "metadata_server_response")
        assert body["name"] == "tsbridge" and "tsbridge_json" in body["extensions"]


def test_model_metadata(server):
    linear = server.get("/v2/models/linear").json()
    validate(linear, "metadata_model_response")
    assert linear["platform"] == "pytorch_libtorch"
    assert linear["inputs"][0] == {"name": "x", "datatype": "FP32", "shape": [-1, 4],
                                   "parameters": {"tsbridge_type": "Tensor"}}
    assert linear["outputs"][0]["shape"] == [-1, 3]
    add = server.get("/v2/models/add/versions/1").json()
    validate(add, "metadata_model_response")
    assert add["versions"] == ["1", "2"]
    assert [(i["name"], i["datatype"], i["shape"]) for i in add["inputs"]] == \
        [("x", "ANY", [-1]), ("y", "ANY", [-1])]
    kinds = server.get("/v2/models/kinds").json()
    validate(kinds, "metadata_model_response")
    by_name = {i["name"]: i for i in kinds["inputs"]}
    assert by_name["d"]["datatype"] == "JSON"
    assert by_name["d"]["parameters"]["tsbridge_type"] == "Dict[str, Tensor]"
    assert (by_name["s"]["datatype"], by_name["s"]["shape"]) == ("BYTES", [1])
    assert (by_name["words"]["datatype"], by_name["words"]["shape"]) == ("BYTES", [-1])
    assert by_name["n"]["parameters"]["optional"] is True
    names = [o["name"] for o in kinds["outputs"]]
    assert names == [f"OUTPUT__{i}" for i in range(12)]


def test_model_ready(server):
    for path in ("/v2/models/add/ready", "/v2/models/add/versions/1/ready"):
        body = server.get(path).json()
        validate(body, "model_ready_response")
        assert body == {"name": "add", "ready": True}
    assert server.get("/v2/models/nope/ready").status_code == 404


def test_infer_tensor_against_pytorch(server):
    module = torch.jit.load(os.path.join(REPOSITORY, "linear", "1", "model.pt"))
    x = torch.randn(5, 4)
    response = infer(server, "linear", [tensor_input("x", x, "FP32")], id="request-7")
    assert response.status_code == 200, response.text
    body = response.json()
    validate(body, "inference_response")
    assert (body["model_name"], body["model_version"], body["id"]) == ("linear", "1", "request-7")
    assert_same(output_value(body["outputs"][0]), module(x))


def test_infer_nested_data_and_input_alias(server):
    # The protocol's data may be nested by the shape; INPUT__n names argument n.
    body = infer(server, "add", [
        {"name": "INPUT__0", "datatype": "INT64", "shape": [2, 2], "data": [[1, 2], [3, 4]]},
        {"name": "y", "datatype": "INT64", "shape": [2, 2], "data": [10, 20, 30, 40]}]).json()
    assert_same(output_value(body["outputs"][0]), torch.tensor([[-9, -18], [-27, -36]]))


@pytest.mark.parametrize("path,version,expected", [("add", "2", [-1.0]), ("add/versions/2", "2", [-1.0]),
                                                   ("add/versions/1", "1", [3.0])])
def test_infer_versions(server, path, version, expected):
    # Without a version, the highest: add/2 subtracts, add/1 adds.
    inputs = [tensor_input("x", torch.tensor([1.0]), "FP32"),
              tensor_input("y", torch.tensor([2.0]), "FP32")]
    body = server.post(f"/v2/models/{path}/infer", {"inputs": inputs}).json()
    assert (body["model_version"], body["outputs"][0]["data"]) == (version, expected)


def test_requested_outputs(server):
    inputs = [json_input("d", {}), json_input("t", [1, "a"]), json_input("xs", []),
              json_input("o", None), json_input("u", 1), json_input("s", "x"),
              json_input("words", []), json_input("p", [{"dtype": "float32", "shape": [], "data": [1]}, 1]),
              json_input("nested", {}), json_input("f", 1.0), json_input("b", True)]
    body = infer(server, "kinds", inputs, outputs=[{"name": "OUTPUT__5"}, {"name": "OUTPUT__1"}]).json()
    assert [o["name"] for o in body["outputs"]] == ["OUTPUT__5", "OUTPUT__1"]
    assert body["outputs"][0]["data"] == ["X"]
    bad = infer(server, "kinds", inputs, outputs=[{"name": "z"}])
    assert bad.status_code == 400
    assert bad.json()["error"].startswith('key "outputs" → [0] → key "name": model "kinds" has no output "z"')


X = {"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3, 4]}

BAD_REQUESTS = [
    # (model path, body, status, the error's start)
    ("linear", "{", 400, "the request is not valid JSON"),
    ("linear", "[1]", 400, "expected a JSON object, got JSON array of 1 element"),
    ("linear", {"inputs": {}}, 400, 'key "inputs": expected a JSON array'),
    ("linear", {"inputs": [X], "id": 3}, 400, 'key "id": expected a string, got JSON number 3'),
    ("linear", {"inputs": []}, 400, 'key "inputs": missing input "x" (Tensor)'),
    ("linear", {"inputs": [X, X]}, 400, 'inputs[1] → key "name": input "x" is given twice'),
    ("linear", {"inputs": [dict(X, name="q")]}, 400,
     'inputs[0] → key "name": model "linear" has no input "q" (inputs: x)'),
    ("linear", {"inputs": [dict(X, datatype="INT64")]}, 400,
     'inputs[0] → key "datatype": expected FP32, got INT64'),
    ("linear", {"inputs": [dict(X, shape=[4])]}, 400,
     'inputs[0] → key "shape": expected [-1, 4], got [4]'),
    ("linear", {"inputs": [dict(X, shape=[1, -4])]}, 400,
     'inputs[0] → key "shape" → [1]: expected a dimension'),
    ("linear", {"inputs": [dict(X, data=[1, 2, 3])]}, 400,
     'inputs[0] → key "data": shape [1, 4] needs 4 elements, got JSON array of 3 elements'),
    ("linear", {"inputs": [dict(X, data=[1, 2, "x", 4])]}, 400,
     'inputs[0] → key "data" → [2]: expected float32, got JSON string "x"'),
    ("add", {"inputs": [dict(X, datatype="FP99")]}, 400, 'inputs[0] → key "datatype": unknown datatype "FP99"'),
    ("linear", {"inputs": [dict(X, shape="a" + "é" * 30)]}, 400,  # cut at 40 bytes, not mid-character
     'inputs[0] → key "shape": expected an array of integers, got JSON string "a' + "é" * 19 + '..."'),
    ("kinds", {"inputs": [{"name": "s", "datatype": "BYTES", "shape": [1], "data": [1]}]}, 400,
     'inputs[0] → key "data" → [0]: expected a string (BYTES), got JSON number 1'),
    ("kinds", {"inputs": [dict(X, name="d")]}, 400,
     'inputs[0]: input "d" is Dict[str, Tensor], not a tensor: send it as typed JSON'),
    ("kinds", {"inputs": [json_input("p", {"first": None, "second": "x"})]}, 400,
     'inputs[0] → key "parameters" → key "tsbridge_json" → field \'first\': expected Tensor'),
    ("kinds", {"inputs": [json_input("nested", {"k": [[1, 2]]})]}, 400,
     'inputs[0] → key "parameters" → key "tsbridge_json" → key "k" → [0] → [1]: expected Tensor'),
    ("kinds", {"inputs": [{"name": "words", "datatype": "BYTES", "shape": [2], "data": ["a", 1]}]},
     400, 'inputs[0] → key "data" → [1]: expected a string (BYTES), got JSON number 1'),
    ("add", {"inputs": [tensor_input("x", torch.ones(2), "FP32"), tensor_input("y", torch.ones(3), "FP32")]},
     400, "forward(): The following operation failed in the TorchScript interpreter"),
    ("nope", {"inputs": []}, 404, 'unknown model "nope" (models: add, '),
    ("add/versions/7", {"inputs": []}, 404, 'model "add" has no version "7" (versions: 1, 2)'),
    ("linear", "[" * 600 + "]" * 600, 400, "the request nests deeper than 512 levels"),
    ("linear", "[" * 49000 + "]" * 49000, 400, "the request nests deeper than 512 levels"),
    ("linear", {"inputs": [{"name": "x", "datatype": "JSON", "shape": [0], "data": []}]}, 400,
     'inputs[0] → key "parameters": datatype JSON carries its value in parameters.tsbridge_json'),
]


@pytest.mark.parametrize("model,body,status,error", BAD_REQUESTS)
def test_bad_request(server, model, body, status, error):
    response = server.post(f"/v2/models/{model}/infer", body)
    assert response.status_code == status, response.text
    validate(response.json(), "error_response")
    assert response.json()["error"].startswith(error), response.json()["error"]
    assert server.get("/v2/health/live").status_code == 200


def test_oversized_body(server):
    response = server.post("/v2/models/linear/infer", " " * 200000)
    assert response.status_code == 413
    validate(response.json(), "error_response")
    assert "--max-body" in response.json()["error"]


def test_unknown_endpoint(server):
    response = server.get("/v1/models")
    assert response.status_code == 404
    validate(response.json(), "error_response")


def test_still_serving_and_no_handle_leaked(server):
    # Every request above (good and bad) released what it made: the live
    # handles are back to their idle count, and the server answers.
    idle = server.metric("tsb_serve_live_handles")
    for model, body, _, _ in BAD_REQUESTS:
        server.post(f"/v2/models/{model}/infer", body)
    test_infer_tensor_against_pytorch(server)
    assert server.metric("tsb_serve_live_handles") == idle == 0


def test_metrics(server):
    text = server.get("/metrics").text
    for name in ("tsb_serve_http_requests_total", "tsb_serve_inference_requests_total",
                 "tsb_serve_inference_errors_total", "tsb_serve_inference_duration_seconds",
                 "tsb_serve_queue_depth", "tsb_serve_live_handles"):
        assert f"# TYPE {name} " in text, name
    labels = 'model="linear",version="1"'
    requests_ = server.metric(f"tsb_serve_inference_requests_total{{{labels}}}")
    errors = server.metric(f"tsb_serve_inference_errors_total{{{labels}}}")
    assert requests_ >= 10 and errors >= 8
    assert server.metric(f'tsb_serve_inference_duration_seconds_bucket{{{labels},le="+Inf"}}') == requests_
    assert server.metric(f"tsb_serve_inference_duration_seconds_count{{{labels}}}") == requests_
    assert server.metric('tsb_serve_http_requests_total{code="413"}') >= 1


def test_log_line_per_request(server):
    # A line is written once its response is sent: the one of the test
    # before may come after `before` was counted, and ours after our
    # responses arrived. So: wait for ours, and look at ours alone.
    before = server.log().count("\n")
    server.get("/v2/health/live")
    server.post("/v2/models/nope/infer", "{}")
    deadline = time.monotonic() + 10
    while True:
        lines = server.log().splitlines()[before:]
        if any('"POST /v2/models/nope/infer"' in line for line in lines) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    ours = [line for line in lines
            if '"GET /v2/health/live"' in line or '"POST /v2/models/nope/infer"' in line]
    assert len(ours) == 2, lines
    # time (UTC, to the second), client, request, status, bytes, ms since routing
    line = r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ 127\.0\.0\.1 "%s" %d \d+ \d+\.\d{3}ms'
    assert re.fullmatch(line % ("GET /v2/health/live", 200), ours[0]), ours[0]
    assert re.fullmatch(line % ("POST /v2/models/nope/infer", 404), ours[1]), ours[1]


@pytest.mark.parametrize("layout,message", [
    (None, "no model repository at"),
    ({"m/1/other.pt": b""}, "expected model.pt or model.pt2 (one of them), found neither"),
    ({"m/1/model.pt": b"not a module"}, "m/1/model.pt"),
    ({"m/config.json": b"{", "m/1/model.pt": None}, "config.json: not valid JSON"),
    ({"m/config.json": b'{"inputs": [{"name": "q", "datatype": "FP32", "shape": []}]}',
      "m/1/model.pt": None}, 'has no inputs "q"'),
])
def test_refused_repository(tmp_path, layout, message):
    # A repository that cannot be served stops tsb serve at start, saying why.
    root = tmp_path / "repository"
    if layout is not None:
        for path, data in layout.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            if data is None:  # a module that loads
                data = open(os.path.join(REPOSITORY, "add", "1", "model.pt"), "rb").read()
            (root / path).write_bytes(data)
    run = subprocess.run([TSB, "serve", str(root), "--port", "0"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert message in run.stderr, run.stderr


def test_operator_library_at_start(tmp_path):
    # A model calling an operator library's operator: refused at start with
    # tsb serve's own advice, served with --library (given after serve).
    oplib = os.environ["TSB_OPLIB_FIXTURE"]
    source = tmp_path / "twice.torchscript"
    source.write_text("def forward(self, x: Tensor) -> Tensor:\n    return ops.tsbfixture.twice(x)\n")
    repository = tmp_path / "repository"
    (repository / "twice" / "1").mkdir(parents=True)
    subprocess.run([TSB, "--library", oplib, "compile", str(source), "-o",
                    str(repository / "twice" / "1" / "model.pt")], check=True, timeout=60)
    refused = subprocess.run([TSB, "serve", str(repository), "--port", "0"], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 1
    assert "calls the operator tsbfixture::twice" in refused.stderr, refused.stderr
    assert "tsb serve --library" in refused.stderr, refused.stderr
    server = Server("--library", oplib, repository=str(repository))
    try:
        x = torch.tensor([1.0, 2.5])
        body = server.post("/v2/models/twice/infer", {"inputs": [tensor_input("x", x, "FP32")]}).json()
        assert body["outputs"][0]["data"] == [2.0, 5.0], body
    finally:
        assert server.stop() == 0, server.log()

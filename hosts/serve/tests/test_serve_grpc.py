"""tsb serve's gRPC API (hosts/serve/grpc_predict_v2.proto) as a gRPC
client uses it: Debian's python3-grpcio with stubs generated from the same
.proto at build time (TSB_SERVE_GRPC_PYTHON). Health and metadata; tensors
in typed contents and raw contents against PyTorch; every kind through
typed JSON in the string parameter tsbridge_json against PyTorch; bad
requests with their codes and paths while the server keeps serving; the
repository RPCs; a full queue and a passed deadline; a bounded concurrent
load with no failure; the log line, metrics and no leaked handle."""
import json
import os
import contextlib
import struct
import sys
import time

import grpc
import pytest
import torch

from serve_testing import (BUSY, DTYPES, REPOSITORY, SLOW, SLOW_TIMEOUT, Server, assert_same,
                           from_typed_json, run_concurrently, typed_json)

sys.path.insert(0, os.environ["TSB_SERVE_GRPC_PYTHON"])
import grpc_predict_v2_pb2 as pb  # noqa: E402
import grpc_predict_v2_pb2_grpc as pb_grpc  # noqa: E402

from test_serve_kinds import CASES, MODULE as KINDS  # noqa: E402  the REST suite's cases

# The typed contents field of each datatype that has one.
FIELDS = {"BOOL": "bool_contents", "UINT8": "uint_contents", "INT8": "int_contents",
          "INT16": "int_contents", "INT32": "int_contents", "INT64": "int64_contents",
          "FP32": "fp32_contents", "FP64": "fp64_contents"}


class Client:
    """A stub on its own channel to a Server started with --grpc-port."""

    def __init__(self, server):
        self.channel = grpc.insecure_channel(server.grpc_target)
        self.stub = pb_grpc.GRPCInferenceServiceStub(self.channel)

    def __getattr__(self, rpc):
        return getattr(self.stub, rpc)

    def close(self):
        self.channel.close()


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2", "--grpc-port", "0")
    yield s
    assert s.stop() == 0, s.log()


@pytest.fixture(scope="module")
def client(server):
    c = Client(server)
    yield c
    c.close()


@contextlib.contextmanager
def grpc_server(*options):
    """A Server of its own with the gRPC API, and a client of it."""
    server = Server(*options, "--grpc-port", "0")
    client = Client(server)
    try:
        yield server, client
    finally:
        client.close()
        assert server.stop() == 0, server.log()


def raw_of(tensor):
    """A tensor's raw contents: little-endian, row-major, a BOOL a byte."""
    t = tensor.contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.flatten().view(torch.uint8).numpy().tobytes()


def bytes_raw(strings):
    return b"".join(struct.pack("<I", len(s.encode())) + s.encode() for s in strings)


def tensor_input(request, name, tensor, datatype, raw=False):
    inp = request.inputs.add(name=name, datatype=datatype, shape=list(tensor.shape))
    if raw:
        request.raw_input_contents.append(raw_of(tensor))
    else:
        getattr(inp.contents, FIELDS[datatype]).extend(tensor.flatten().tolist())
    return inp


def json_input(request, name, value):
    request.inputs.add(name=name).parameters["tsbridge_json"].string_param = json.dumps(value)


def output_value(response, i, spec_type=None):
    """Output i of a response as Python: a tensor from its raw contents, a
    str or List[str] (BYTES), or the typed JSON of its parameter."""
    out, raw = response.outputs[i], response.raw_output_contents[i]
    if out.datatype == "JSON":
        assert raw == b"" and list(out.shape) == [0]
        return from_typed_json(json.loads(out.parameters["tsbridge_json"].string_param))
    if out.datatype == "BYTES":
        strings, at = [], 0
        while at < len(raw):
            (n,) = struct.unpack_from("<I", raw, at)
            strings.append(raw[at + 4:at + 4 + n].decode())
            at += 4 + n
        return strings[0] if spec_type == "str" else strings
    dtype = DTYPES[out.datatype]
    wire = torch.uint8 if dtype == torch.bool else dtype
    return torch.frombuffer(bytearray(raw), dtype=wire).to(dtype).reshape(list(out.shape))


def test_health_and_server_metadata(client):
    assert client.ServerLive(pb.ServerLiveRequest()).live
    assert client.ServerReady(pb.ServerReadyRequest()).ready
    metadata = client.ServerMetadata(pb.ServerMetadataRequest())
    assert metadata.name == "tsbridge" and metadata.version
    assert "tsbridge_json" in metadata.extensions and "model_repository" in metadata.extensions


def test_model_metadata_as_rest(server, client):
    for name, version in [("linear", ""), ("add", "1"), ("kinds", ""), ("add", "")]:
        got = client.ModelMetadata(pb.ModelMetadataRequest(name=name, version=version))
        rest = server.get(f"/v2/models/{name}" + (f"/versions/{version}" if version else "")).json()
        assert got.name == rest["name"] and list(got.versions) == rest["versions"]
        assert got.platform == rest["platform"]
        for kind in ("inputs", "outputs"):
            assert [(t.name, t.datatype, list(t.shape)) for t in getattr(got, kind)] == \
                [(t["name"], t["datatype"], t["shape"]) for t in rest[kind]], (name, kind)
    assert client.ModelReady(pb.ModelReadyRequest(name="add", version="2")).ready


def test_typed_contents_against_pytorch(client):
    module = torch.jit.load(os.path.join(REPOSITORY, "linear", "1", "model.pt"))
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    request = pb.ModelInferRequest(model_name="linear", id="r1")
    tensor_input(request, "x", x, "FP32")
    response = client.ModelInfer(request)
    assert (response.model_name, response.model_version, response.id) == ("linear", "1", "r1")
    assert response.outputs[0].name == "OUTPUT__0" and response.outputs[0].datatype == "FP32"
    assert_same(output_value(response, 0), module(x))


@pytest.mark.parametrize("raw", [False, True], ids=["contents", "raw"])
@pytest.mark.parametrize("datatype", ["BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64",
                                      "FP16", "FP32", "FP64", "BF16"])
def test_every_datatype(client, datatype, raw):
    if not raw and datatype not in FIELDS:
        pytest.skip("FP16 and BF16 have no typed contents: raw only")
    module = torch.jit.load(os.path.join(REPOSITORY, "add", "1", "model.pt"))
    x = torch.tensor([[0, 1, 1], [1, 0, 1]]).to(DTYPES[datatype])
    y = torch.tensor([[1, 1, 0], [0, 0, 1]]).to(DTYPES[datatype])
    request = pb.ModelInferRequest(model_name="add", model_version="1")
    tensor_input(request, "x", x, datatype, raw)
    tensor_input(request, "INPUT__1", y, datatype, raw)  # y by its position's name
    response = client.ModelInfer(request)
    assert response.outputs[0].datatype == datatype
    assert_same(output_value(response, 0), module(x, y), datatype)


@pytest.mark.parametrize("raw", [False, True], ids=["contents", "raw"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_kind_against_pytorch(server, client, name, raw):
    args = CASES[name]
    request = pb.ModelInferRequest(model_name="kinds", id=name)
    for key, value in args.items():
        if key in ("s", "words"):  # str and List[str] as BYTES
            strings = [value] if key == "s" else value
            inp = request.inputs.add(name=key, datatype="BYTES", shape=[len(strings)])
            if raw:
                request.raw_input_contents.append(bytes_raw(strings))
            else:
                inp.contents.bytes_contents.extend(s.encode() for s in strings)
        else:
            json_input(request, key, typed_json(value))
            if raw:
                request.raw_input_contents.append(b"")
    response = client.ModelInfer(request)
    expected = KINDS(**args)
    types = [o["parameters"]["tsbridge_type"] for o in server.get("/v2/models/kinds").json()["outputs"]]
    assert len(response.outputs) == len(expected) == len(types)
    for i, (want, type_) in enumerate(zip(expected, types)):
        assert_same(output_value(response, i, type_), want, f"OUTPUT__{i} ({type_})")


def test_requested_outputs_and_parameters(client):
    # Only the outputs asked for, in their order; a typed JSON output's value
    # is the text of its string parameter, its raw contents empty.
    request = pb.ModelInferRequest(model_name="anything")
    json_input(request, "x", {"a": [1, 2]})
    request.outputs.add(name="OUTPUT__0")
    response = client.ModelInfer(request)
    assert response.outputs[0].datatype == "JSON"
    assert output_value(response, 0) == {"a": [1, 2]}


def infer_error(client, request):
    with pytest.raises(grpc.RpcError) as error:
        client.ModelInfer(request)
    return error.value.code(), error.value.details()


def bad(model, build, version=""):
    request = pb.ModelInferRequest(model_name=model, model_version=version)
    build(request)
    return request


def x4(dtype_name="FP32", shape=(1, 4), field="fp32_contents", n=4):
    def build(r):
        inp = r.inputs.add(name="x", datatype=dtype_name, shape=list(shape))
        getattr(inp.contents, field).extend([1] * n)
    return build


def raw_sizes(*sizes, inputs=2):
    def build(r):
        for i in range(inputs):
            r.inputs.add(name="xy"[i], datatype="FP32", shape=[2])
        for n in sizes:
            r.raw_input_contents.append(b"\0" * n)
    return build


def kinds_json(key, text):
    def build(r):
        r.inputs.add(name=key).parameters["tsbridge_json"].string_param = text
    return build


INVALID = grpc.StatusCode.INVALID_ARGUMENT
BAD = {
    "declared datatype": (bad("linear", x4("INT32", field="int_contents")),
                          INVALID, 'inputs[0] → key "datatype": expected FP32, got INT32'),
    "declared shape": (bad("linear", x4(shape=(4,))), INVALID,
                       'inputs[0] → key "shape": expected [-1, 4], got [4]'),
    "element count": (bad("add", x4(shape=(2, 4))), INVALID, 'inputs[0] → key "data": shape [2, 4] needs 8'),
    "contents field": (bad("linear", x4(field="fp64_contents")), INVALID,
                       'inputs[0] → key "contents" → key "fp64_contents": datatype FP32 takes its '
                       'elements in fp32_contents'),
    "raw count": (bad("add", raw_sizes(8)), INVALID,
                  'key "raw_input_contents": expected one entry per input (2), got 1'),
    "raw size": (bad("add", raw_sizes(8, 4)), INVALID,
                 'inputs[1] → key "parameters" → key "binary_data_size": shape [2] of FP32 needs 8 bytes, got 4'),
    "typed JSON type": (bad("kinds", kinds_json("t", '[1, 2]')), INVALID,
                        'inputs[0] → key "parameters" → key "tsbridge_json" → [1]: expected str, got JSON number 2'),
    "typed JSON text": (bad("kinds", kinds_json("t", '[1, ')), INVALID,
                        'inputs[0] → key "parameters" → key "tsbridge_json": the string_param is not valid JSON'),
    "tensor for a Dict": (bad("kinds", lambda r: r.inputs.add(name="d", datatype="FP32", shape=[1])
                              .contents.fp32_contents.append(1)), INVALID,
                          "send it as typed JSON in parameters.tsbridge_json"),
    "FP16 contents": (bad("add", x4("FP16")), INVALID,
                      'inputs[0] → key "contents" → key "fp32_contents": datatype FP16 has no typed contents'),
    "bytes not UTF-8": (bad("kinds", lambda r: r.inputs.add(name="s", datatype="BYTES", shape=[1])
                            .contents.bytes_contents.append(b"\xff")), INVALID,
                        'inputs[0] → key "contents" → key "bytes_contents" → [0]: expected UTF-8 text'),
    "unknown input": (bad("add", lambda r: r.inputs.add(name="z", datatype="FP32", shape=[0])),
                      INVALID, 'inputs[0] → key "name": model "add" has no input "z"'),
    "missing input": (bad("add", lambda r: None), INVALID, 'missing input "x"'),
    "call fails": (bad("add", lambda r: [x4(shape=(1, 4))(r), r.inputs.add(
        name="y", datatype="FP32", shape=[3]).contents.fp32_contents.extend([1, 2, 3])]),
        INVALID, "size of tensor a (4) must match"),
    "unknown model": (bad("nope", lambda r: None), grpc.StatusCode.NOT_FOUND, 'unknown model "nope"'),
    "unknown version": (bad("add", lambda r: None, version="7"), grpc.StatusCode.NOT_FOUND, "7"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_request(client, case):
    request, code, message = BAD[case]
    got_code, details = infer_error(client, request)
    assert got_code == code, details
    assert message in details, details
    # ... and the server goes on serving.
    ok = pb.ModelInferRequest(model_name="add", model_version="1")
    tensor_input(ok, "x", torch.ones(2), "FP32")
    tensor_input(ok, "y", torch.ones(2), "FP32")
    assert_same(output_value(client.ModelInfer(ok), 0), torch.full((2,), 2.0))


def test_unknown_model_metadata_and_ready(client):
    for rpc, message in [(client.ModelMetadata, pb.ModelMetadataRequest),
                         (client.ModelReady, pb.ModelReadyRequest)]:
        with pytest.raises(grpc.RpcError) as error:
            rpc(message(name="nope"))
        assert error.value.code() == grpc.StatusCode.NOT_FOUND


def test_log_metrics_and_handles(server, client):
    before = server.log().count("\n")
    client.ServerLive(pb.ServerLiveRequest())
    infer_error(client, pb.ModelInferRequest(model_name="nope"))
    lines = server.log().splitlines()[before:]
    assert len(lines) == 2, lines
    assert '"gRPC ServerLive" OK' in lines[0]
    assert '"gRPC ModelInfer nope" NOT_FOUND' in lines[1]
    assert server.metric('tsb_serve_grpc_requests_total{code="NOT_FOUND"}') >= 1
    assert server.metric('tsb_serve_grpc_requests_total{code="INVALID_ARGUMENT"}') >= 1
    server.wait_for_metric("tsb_serve_live_handles", 0)


def test_repository_rpcs(tmp_path):
    with grpc_server() as (server, client):
        index = client.RepositoryIndex(pb.RepositoryIndexRequest())
        assert ("add", "2", "READY") in [(m.name, m.version, m.state) for m in index.models]
        client.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="add"))
        with pytest.raises(grpc.RpcError) as error:
            client.ModelReady(pb.ModelReadyRequest(name="add"))
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
        ready = client.RepositoryIndex(pb.RepositoryIndexRequest(ready=True))
        assert "add" not in [m.name for m in ready.models]
        with pytest.raises(grpc.RpcError) as error:
            client.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="add"))
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
        client.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="add"))
        assert client.ModelReady(pb.ModelReadyRequest(name="add", version="2")).ready




def slow_future(client, n, **kwargs):
    request = pb.ModelInferRequest(model_name="slow")
    tensor_input(request, "x", torch.zeros(1), "FP32")
    json_input(request, "n", n)
    return client.ModelInfer.future(request, **kwargs)


def test_queue_full_is_unavailable():
    with grpc_server("--workers", "1", "--queue", "1") as (server, client):
        busy = slow_future(client, BUSY)
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        queued = slow_future(client, 10)
        server.wait_for_metric(f"tsb_serve_queue_depth{{{SLOW}}}", 1)
        with pytest.raises(grpc.RpcError) as error:
            slow_future(client, 10).result()
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "retry later" in error.value.details()
        assert client.ServerLive(pb.ServerLiveRequest()).live  # answered meanwhile
        assert_same(output_value(busy.result(), 0), torch.tensor([float(BUSY)]))
        assert_same(output_value(queued.result(), 0), torch.tensor([10.0]))
        assert server.metric('tsb_serve_grpc_requests_total{code="UNAVAILABLE"}') == 1


def test_deadline_is_deadline_exceeded():
    with grpc_server("--workers", "1", "--deadline-ms", "200") as (server, client):
        busy = slow_future(client, BUSY)
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        with pytest.raises(grpc.RpcError) as error:
            slow_future(client, 10).result()
        assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "200 ms" in error.value.details()
        assert busy.result().outputs[0].datatype == "FP32"


def test_client_deadline_ends_the_wait():
    # A client's deadline bounds its wait for a worker on the server too:
    # the call leaves the queue then, not when the worker is free.
    with grpc_server("--workers", "1") as (server, client):
        busy = slow_future(client, BUSY)
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        with pytest.raises(grpc.RpcError) as error:
            slow_future(client, 10, timeout=0.3).result()
        assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        # The server's side ends on its own thread: its log line says when
        # (the queue depth is 0 before the call even arrives, too).
        deadline = time.monotonic() + 30
        while '"gRPC ModelInfer slow" DEADLINE_EXCEEDED' not in server.log():
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.01)
        assert server.metric(f"tsb_serve_queue_depth{{{SLOW}}}") == 0
        assert not busy.done()
        busy.result()


def test_sigterm_finishes_in_flight_and_refuses_new():
    with grpc_server("--workers", "2") as (server, client):
        busy = slow_future(client, BUSY)
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        server.process.send_signal(15)
        deadline = time.monotonic() + 30
        while True:  # new calls are refused at once; the call in flight goes on
            fresh = Client(server)
            try:
                fresh.ServerLive(pb.ServerLiveRequest(), timeout=5)
            except grpc.RpcError as e:
                # CANCELLED while gRPC shuts down, UNAVAILABLE once its port is closed
                assert e.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE), e
                break
            finally:
                fresh.close()
            assert time.monotonic() < deadline, "still answering new calls after SIGTERM"
            time.sleep(0.01)
        assert not busy.done(), "the call in flight ended before new ones were refused"
        assert_same(output_value(busy.result(), 0), torch.tensor([float(BUSY)]))
        assert server.process.wait(timeout=60) == 0
        assert "stopped" in server.log()


def test_oversized_message_is_resource_exhausted():
    with grpc_server("--max-body", "4096") as (server, client):
        request = pb.ModelInferRequest(model_name="add", model_version="1")
        tensor_input(request, "x", torch.zeros(2048), "FP32", raw=True)
        tensor_input(request, "y", torch.zeros(2048), "FP32", raw=True)
        with pytest.raises(grpc.RpcError) as error:
            client.ModelInfer(request)
        assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert client.ServerLive(pb.ServerLiveRequest()).live


def test_cancelled_calls_cost_nobody_else():
    # A client that gives up on a call in flight and on one queued: the
    # server finishes the first unseen, does not run the second (CANCELLED
    # once a worker is free) and goes on answering the others.
    with grpc_server("--workers", "1") as (server, client):
        # One after the other: sent together, the short call may take the
        # worker first, and nothing ever waits.
        busy = slow_future(client, BUSY)
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        queued = slow_future(client, 10)
        server.wait_for_metric(f"tsb_serve_queue_depth{{{SLOW}}}", 1)
        assert busy.cancel() and queued.cancel()
        deadline = time.monotonic() + SLOW_TIMEOUT  # the busy call runs to its end
        while '"gRPC ModelInfer slow" CANCELLED' not in server.log():
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.05)
        assert server.metric('tsb_serve_grpc_requests_total{code="CANCELLED"}') == 1
        server.wait_for_metric("tsb_serve_workers_busy", 0)
        assert_same(output_value(slow_future(client, 3).result(), 0), torch.tensor([3.0]))
        server.wait_for_metric("tsb_serve_live_handles", 0)


def test_concurrent_load_no_failure(server):
    labels = 'model="add",version="1"'
    before = server.metric(f"tsb_serve_inference_requests_total{{{labels}}}")
    failures = []

    def run(worker):
        client = Client(server)  # a channel per thread, as separate clients
        try:
            for i in range(40):
                x = torch.full((2, 3), float(worker))
                y = torch.full((2, 3), float(i))
                request = pb.ModelInferRequest(model_name="add", model_version="1")
                tensor_input(request, "x", x, "FP32", raw=i % 2 == 0)
                tensor_input(request, "y", y, "FP32", raw=i % 2 == 0)
                try:
                    got = output_value(client.ModelInfer(request, timeout=60), 0)
                    if not torch.equal(got, x + y):
                        failures.append((worker, i, got))
                except grpc.RpcError as e:
                    failures.append((worker, i, e.code(), e.details()))
        finally:
            client.close()

    run_concurrently(run, 8)
    assert failures == []
    assert server.metric(f"tsb_serve_inference_requests_total{{{labels}}}") == before + 320
    server.wait_for_metric("tsb_serve_live_handles", 0)


def test_not_served_without_the_option():
    server = Server()
    try:
        assert not hasattr(server, "grpc_target")
        assert "gRPC" not in server.log()
    finally:
        assert server.stop() == 0


def test_port_in_use_fails(server):
    port = server.grpc_target.split(":")[1]
    with pytest.raises(AssertionError, match=r"cannot listen on 127\.0\.0\.1:" + port + r" \(gRPC\)"):
        second = Server("--grpc-port", port)
        second.stop()  # started after all: not left running

"""tsb serve under load and under clients that misbehave: a full queue is a
503 and a passed deadline a 504 while the requests admitted finish; SIGTERM
lets the requests in flight finish and refuses new ones; keep-alive holds a
connection; a client that stalls or disconnects mid-request costs nobody
else; and a bounded concurrent load ends with no failed request."""
import contextlib
import http.client
import json
import os
import time

import pytest
import requests
import torch

from serve_testing import (BUSY, SLOW, Server, run_concurrently, slow_request, start_slow_request,
                           tensor_input, validate)





def test_queue_full_is_503(tmp_path):
    server = Server("--workers", "1", "--queue", "1")
    try:
        results = {}
        busy = start_slow_request(server, BUSY, results, "busy")
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        queued = start_slow_request(server, 10, results, "queued")
        server.wait_for_metric(f"tsb_serve_queue_depth{{{SLOW}}}", 1)
        slow_request(server, 10, results, "refused")
        status, body = results["refused"]
        assert status == 503
        validate(body, "error_response")
        assert "retry later" in body["error"]
        assert server.get("/v2/health/live").status_code == 200  # answered meanwhile
        busy.join()
        queued.join()
        assert results["busy"][0] == 200 and results["busy"][1]["outputs"][0]["data"] == [float(BUSY)]
        assert results["queued"][0] == 200 and results["queued"][1]["outputs"][0]["data"] == [10.0]
        assert server.metric('tsb_serve_http_requests_total{code="503"}') == 1
    finally:
        assert server.stop() == 0


@contextlib.contextmanager
def one_busy_worker(*options):
    """A server with one worker, busy with a long call; on leaving, that call
    must have finished right and the server stop cleanly."""
    server = Server("--workers", "1", *options)
    try:
        results = {}
        busy = start_slow_request(server, BUSY, results, "busy")
        server.wait_for_metric("tsb_serve_workers_busy", 1)
        yield server
        busy.join()
        assert results["busy"][0] == 200
    finally:
        assert server.stop() == 0


def test_deadline_is_504():
    with one_busy_worker("--deadline-ms", "200") as server:
        results = {}
        began = time.monotonic()
        slow_request(server, 10, results, "late")
        assert results["late"][0] == 504, results["late"]
        assert "200 ms" in results["late"][1]["error"]
        assert time.monotonic() - began >= 0.2


def test_small_requests_are_read_before_they_wait():
    # Up to 64 KiB a request is read and converted before it waits for a
    # worker, so its errors come at once; a larger one is read by its worker.
    with one_busy_worker("--deadline-ms", "300") as server:
        small = server.post("/v2/models/slow/infer", '{"inputs": [')
        assert small.status_code == 400, small.text
        assert "not valid JSON" in small.json()["error"]
        large = server.post("/v2/models/slow/infer", '{"inputs": [' + " " * (64 << 10))
        assert large.status_code == 504, large.text  # it waited for the worker, unread
        assert server.metric(f"tsb_serve_inference_errors_total{{{SLOW}}}") == 1  # the 400 alone


def test_sigterm_finishes_in_flight_and_refuses_new():
    server = Server("--workers", "2")
    results = {}
    busy = start_slow_request(server, BUSY, results, "busy")
    server.wait_for_metric("tsb_serve_workers_busy", 1)
    server.process.send_signal(15)
    deadline = time.monotonic() + 30
    while True:  # the listening socket closes at once; the call goes on
        try:
            requests.get(server.url + "/v2/health/live", timeout=5)
        except requests.ConnectionError:
            break
        assert time.monotonic() < deadline, "still accepting connections after SIGTERM"
        time.sleep(0.01)
    assert busy.is_alive(), "the request in flight ended before new ones were refused"
    busy.join()
    assert results["busy"][0] == 200
    assert results["busy"][1]["outputs"][0]["data"] == [float(BUSY)]
    assert server.process.wait(timeout=60) == 0
    assert "SIGTERM" in server.log() and "stopped" in server.log()


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2")
    yield s
    assert s.stop() == 0, s.log()


ADD = json.dumps({"inputs": [tensor_input("x", torch.ones(3), "FP32"),
                             tensor_input("y", torch.ones(3), "FP32")]})


def test_allocator(server):
    # tsb allocates with tcmalloc where the build found it (hosts/serve/CMakeLists.txt),
    # never under the sanitizers: what the server process has mapped says which.
    with open(f"/proc/{server.process.pid}/maps") as f:
        mapped = f.read()
    assert ("libtcmalloc" in mapped) == (os.environ["TSB_SERVE_TCMALLOC"] == "1"), \
        "TSB_SERVE_TCMALLOC=" + os.environ["TSB_SERVE_TCMALLOC"]


def test_keep_alive(server):
    connection = http.client.HTTPConnection(server.url.replace("http://", ""), timeout=30)
    sockets = set()
    for _ in range(20):
        connection.request("POST", "/v2/models/add/versions/1/infer", ADD,
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["outputs"][0]["data"] == [2.0, 2.0, 2.0]
        assert response.getheader("Connection", "").lower() != "close"
        sockets.add(id(connection.sock))
    assert len(sockets) == 1  # one connection for all twenty
    connection.close()


def test_stalled_and_disconnecting_clients(server):
    stalled = server.connect()
    stalled.sendall(b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Length: 1000\r\n\r\n{\"inputs\"")  # then nothing
    half = server.connect()
    half.sendall(b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\nContent-Len")
    half.close()  # gone mid-headers
    body = server.connect()
    body.sendall(b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{")
    body.close()  # gone mid-body
    for _ in range(5):  # others are served meanwhile
        response = server.post("/v2/models/add/versions/1/infer", ADD)
        assert response.status_code == 200
    stalled.close()
    assert server.get("/v2/health/ready").status_code == 200


def test_bounded_concurrent_load(server):
    # 8 clients x 40 requests each, each with its own connection pool: no
    # failure, every result right, and the counters add up.
    labels = 'model="add",version="1"'
    before = server.metric(f"tsb_serve_inference_requests_total{{{labels}}}")
    failures = []

    def client(seed):
        session = requests.Session()
        for i in range(40):
            x = torch.full((4,), float(seed * 100 + i))
            body = {"inputs": [tensor_input("x", x, "FP32"), tensor_input("y", x, "FP32")]}
            r = session.post(server.url + "/v2/models/add/versions/1/infer", json=body, timeout=60)
            if r.status_code != 200 or r.json()["outputs"][0]["data"] != (2 * x).tolist():
                failures.append((seed, i, r.status_code, r.text))

    run_concurrently(client, 8)
    assert failures == []
    assert server.metric(f"tsb_serve_inference_requests_total{{{labels}}}") == before + 320
    assert server.metric("tsb_serve_live_handles") == 0

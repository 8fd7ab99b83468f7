"""tsb serve's HTTP/1.1 as clients other than Python's requests speak it
(hosts/serve/http_server.cc): Expect: 100-continue as curl sends it,
pipelined requests, chunked bodies, percent-encoded paths, HTTP/1.0,
malformed and oversized requests answered and the server still serving,
and a stop that does not wait for idle keep-alive connections."""
import json
import socket
import time

import pytest
import torch

from serve_testing import BUSY, Server, start_slow_request, tensor_input, validate

ADD = json.dumps({"inputs": [tensor_input("x", torch.ones(3), "FP32"),
                             tensor_input("y", torch.ones(3), "FP32")]}).encode()
INFER = b"/v2/models/add/versions/1/infer"


@pytest.fixture(scope="module")
def server():
    s = Server("--workers", "2", "--max-body", "100000")
    yield s
    assert s.stop() == 0, s.log()


class Reader:
    """Responses read off a raw socket, one after another."""

    def __init__(self, sock):
        self.sock, self.data = sock, b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.data += chunk

    def response(self):
        """(status, headers with lower-case names, body)"""
        while b"\r\n\r\n" not in self.data:
            self._fill()
        head, self.data = self.data.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", 0))
        while len(self.data) < length:
            self._fill()
        body, self.data = self.data[:length], self.data[length:]
        return status, headers, body

    def closed(self):
        """True once the server closed the connection (nothing more came)."""
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True


def post(path, body, *headers):
    lines = [b"POST " + path + b" HTTP/1.1", b"Host: x", b"Content-Type: application/json",
             b"Content-Length: " + str(len(body)).encode(), *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def assert_add(status, body):
    assert status == 200, body
    assert json.loads(body)["outputs"][0]["data"] == [2.0, 2.0, 2.0]


def test_expect_100_continue(server):
    # curl's way with a large body: the headers, then the body only after
    # the server's 100 Continue.
    with server.connect(timeout=30) as sock:
        reader = Reader(sock)
        head = post(INFER, ADD, b"Expect: 100-continue").split(b"\r\n\r\n")[0] + b"\r\n\r\n"
        sock.sendall(head)
        assert reader.response()[0] == 100
        sock.sendall(ADD)
        status, _, body = reader.response()
        assert_add(status, body)
    # Over the limit: 413 at once, and the body is never asked for.
    with server.connect(timeout=30) as sock:
        sock.sendall(b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 200000\r\nExpect: 100-continue\r\n\r\n")
        status, _, body = Reader(sock).response()
        assert status == 413 and "--max-body" in json.loads(body)["error"]


def test_pipelined_requests(server):
    with server.connect(timeout=30) as sock:
        sock.sendall(post(INFER, ADD) + b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n" +
                     post(INFER, ADD))
        reader = Reader(sock)
        assert_add(*reader.response()[::2])
        status, _, body = reader.response()
        assert status == 200 and json.loads(body) == {"live": True}
        assert_add(*reader.response()[::2])


def test_chunked_body(server):
    chunks = [ADD[:10], ADD[10:]]
    body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    with server.connect(timeout=30) as sock:
        sock.sendall(b"POST " + INFER + b" HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + body)
        assert_add(*Reader(sock).response()[::2])


def test_path_decoded_and_query_ignored(server):
    with server.connect(timeout=30) as sock:
        sock.sendall(b"GET /v2/models/%6Cinear/versions/1 HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"GET /v2/health/live?probe=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        reader = Reader(sock)
        status, _, body = reader.response()
        assert status == 200 and json.loads(body)["name"] == "linear"
        assert reader.response()[0] == 200


def test_http_1_0_closes(server):
    with server.connect(timeout=30) as sock:
        sock.sendall(b"GET /v2/health/live HTTP/1.0\r\n\r\n")
        reader = Reader(sock)
        status, headers, _ = reader.response()
        assert status == 200
        assert reader.closed()


@pytest.mark.parametrize("request_,status,error", [
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "malformed HTTP request"),
    (b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400,
     "malformed HTTP request"),
    (b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n", 400,
     "malformed HTTP request"),
    (b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n", 431,
     "headers are larger than the limit"),
    (b"POST /v2/models/add/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 100001\r\n\r\n" +
     b" " * 100001, 413, "--max-body"),
])
def test_refused_requests(server, request_, status, error):
    with server.connect(timeout=30) as sock:
        sock.sendall(request_)
        reader = Reader(sock)
        got, headers, body = reader.response()
        assert got == status, body
        validate(json.loads(body), "error_response")
        assert error in json.loads(body)["error"]
        assert headers.get("connection", "").lower() == "close"
        sock.shutdown(socket.SHUT_WR)
        assert reader.closed()
    with server.connect(timeout=30) as sock:  # and the server goes on
        sock.sendall(post(INFER, ADD))
        assert_add(*Reader(sock).response()[::2])


def test_stop_does_not_wait_for_idle_connections():
    # An idle keep-alive connection would hold its thread up to the 5 s
    # timeout: a stop ends it at once.
    server = Server("--workers", "1")
    idle = server.connect(timeout=30)
    idle.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    reader = Reader(idle)
    assert reader.response()[0] == 200
    started = time.monotonic()
    server.process.send_signal(15)
    assert reader.closed()  # the server's end closed: by the stop, or by the timeout
    assert time.monotonic() - started < 3, "the idle connection held the stop up"
    assert server.process.wait(timeout=60) == 0, server.log()
    idle.close()


def test_stop_refuses_accepted_connections_at_once():
    # --workers 1 --queue 0: 5 connection threads. One runs a long call, four
    # hold idle keep-alive connections; a sixth connection is accepted and
    # waits for a thread. A stop closes it at once, not after the call.
    server = Server("--workers", "1", "--queue", "0")
    results = {}
    busy = start_slow_request(server, BUSY, results, "busy")
    server.wait_for_metric("tsb_serve_workers_busy", 1)
    idle = [server.connect(timeout=30) for _ in range(4)]
    for sock in idle:
        sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        assert Reader(sock).response()[0] == 200
    waiting = server.connect(timeout=30)
    waiting.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    server.process.send_signal(15)
    assert Reader(waiting).closed()  # no answer: closed unserved
    assert busy.is_alive(), "the waiting connection was closed only after the call ended"
    busy.join()
    assert results["busy"][0] == 200
    assert server.process.wait(timeout=60) == 0
    for sock in idle + [waiting]:
        sock.close()

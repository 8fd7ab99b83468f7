"""The protocol's model repository extension through tsb serve: the index,
and load and unload of a model by name while the server serves (a model
added to the repository after start, a new version, a file that does not
load, an unload under a request in flight)."""
import os
import shutil
import threading

import pytest
import torch

from serve_testing import REPOSITORY, Server, tensor_input, validate

ADD = {"inputs": [tensor_input("x", torch.tensor([1.0]), "FP32"),
                  tensor_input("y", torch.tensor([2.0]), "FP32")]}


@pytest.fixture
def repository(tmp_path):
    """A repository of its own: add (versions 1, 2) and slow."""
    root = tmp_path / "repository"
    for name in ("add", "slow"):
        shutil.copytree(os.path.join(REPOSITORY, name), root / name)
    return root


@pytest.fixture
def server(repository):
    s = Server("--workers", "2", repository=str(repository))
    yield s
    assert s.stop() == 0, s.log()


def index(server):
    response = server.post("/v2/repository/index", "{}")
    assert response.status_code == 200, response.text
    return {(e["name"], e.get("version", "")): (e["state"], e.get("reason", "")) for e in response.json()}


def test_server_says_model_repository(server):
    assert "model_repository" in server.get("/v2").json()["extensions"]


def test_index(server):
    assert index(server) == {("add", "1"): ("READY", ""), ("add", "2"): ("READY", ""),
                             ("slow", "1"): ("READY", "")}


def test_unload_then_load(server):
    assert server.post("/v2/repository/models/add/unload", "{}").status_code == 200
    response = server.post("/v2/models/add/infer", ADD)
    assert response.status_code == 404
    validate(response.json(), "error_response")
    assert server.get("/v2/models/add/ready").status_code == 404
    assert index(server)[("add", "")] == ("UNAVAILABLE", "unloaded")
    assert server.post("/v2/repository/models/add/unload", "{}").status_code == 404
    assert server.post("/v2/repository/models/add/load", "{}").status_code == 200
    body = server.post("/v2/models/add/infer", ADD).json()
    assert (body["model_version"], body["outputs"][0]["data"]) == ("2", [-1.0])


def test_load_a_model_added_after_start(server, repository):
    assert server.post("/v2/models/linear/infer", ADD).status_code == 404
    shutil.copytree(os.path.join(REPOSITORY, "linear"), repository / "linear")
    assert server.post("/v2/repository/models/linear/load", "{}").status_code == 200
    metadata = server.get("/v2/models/linear").json()
    validate(metadata, "metadata_model_response")
    assert metadata["inputs"][0]["shape"] == [-1, 4]  # its config.json, read at load
    x = torch.randn(2, 4)
    module = torch.jit.load(os.path.join(REPOSITORY, "linear", "1", "model.pt"))
    body = server.post("/v2/models/linear/infer", {"inputs": [tensor_input("x", x, "FP32")]}).json()
    assert body["outputs"][0]["data"] == module(x).flatten().tolist()
    assert server.metric('tsb_serve_inference_requests_total{model="linear",version="1"}') == 1


def test_load_a_new_version(server, repository):
    shutil.copytree(repository / "add" / "1", repository / "add" / "3")  # x + y again
    assert server.post("/v2/repository/models/add/load", "{}").status_code == 200
    assert server.get("/v2/models/add").json()["versions"] == ["1", "2", "3"]
    body = server.post("/v2/models/add/infer", ADD).json()
    assert (body["model_version"], body["outputs"][0]["data"]) == ("3", [3.0])


def test_a_load_that_fails_keeps_what_is_served(server, repository):
    (repository / "add" / "4").mkdir()
    (repository / "add" / "4" / "model.pt").write_bytes(b"not a module")
    response = server.post("/v2/repository/models/add/load", "{}")
    assert response.status_code == 400
    validate(response.json(), "error_response")
    assert "add/4/model.pt" in response.json()["error"]
    body = server.post("/v2/models/add/infer", ADD).json()
    assert body["model_version"] == "2"  # still served as before
    missing = server.post("/v2/repository/models/nope/load", "{}")
    assert missing.status_code == 400 and "no model directory" in missing.json()["error"]


class Gradient(torch.nn.Module):
    """A forward that differentiates inside: autograd's graph is needed."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.detach().requires_grad_()
        y = (x * x * x).sum()
        g = torch.autograd.grad([y], [x])
        r = g[0]
        assert r is not None
        return r


def test_grad_mode_from_config(server, repository):
    (repository / "grad" / "1").mkdir(parents=True)
    torch.jit.script(Gradient()).save(str(repository / "grad" / "1" / "model.pt"))
    x = torch.tensor([1.0, 2.0, -3.0])
    body = {"inputs": [tensor_input("x", x, "FP32")]}
    # Without config.json the call runs as under torch.no_grad(): autograd's error.
    assert server.post("/v2/repository/models/grad/load", "{}").status_code == 200
    response = server.post("/v2/models/grad/infer", body)
    assert response.status_code == 400
    assert "does not require grad" in response.json()["error"]
    (repository / "grad" / "config.json").write_text('{"grad_mode": 1}')
    response = server.post("/v2/repository/models/grad/load", "{}")
    assert response.status_code == 400
    assert 'key "grad_mode": expected true or false' in response.json()["error"]
    (repository / "grad" / "config.json").write_text('{"grad_mode": true}')
    assert server.post("/v2/repository/models/grad/load", "{}").status_code == 200
    response = server.post("/v2/models/grad/infer", body)
    assert response.status_code == 200, response.text
    assert response.json()["outputs"][0]["data"] == torch.jit.script(Gradient())(x).tolist()
    assert server.post("/v2/models/add/infer", ADD).json()["outputs"][0]["data"] == [-1.0]
    server.wait_for_metric("tsb_serve_live_handles", 0)


def test_unload_under_a_request_in_flight(server):
    results = {}

    def slow():
        body = {"inputs": [tensor_input("x", torch.zeros(1), "FP32"),
                           {"name": "n", "parameters": {"tsbridge_json": 500000}}]}
        response = server.post("/v2/models/slow/infer", body)
        results["slow"] = (response.status_code, response.json())

    thread = threading.Thread(target=slow)
    thread.start()
    server.wait_for_metric("tsb_serve_workers_busy", 1)
    assert server.post("/v2/repository/models/slow/unload", "{}").status_code == 200
    assert thread.is_alive()
    thread.join()
    assert results["slow"][0] == 200 and results["slow"][1]["outputs"][0]["data"] == [500000.0]
    assert server.post("/v2/models/slow/infer", {"inputs": []}).status_code == 404
    assert server.metric("tsb_serve_live_handles") == 0

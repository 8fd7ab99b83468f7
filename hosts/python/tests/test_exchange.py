"""torch's DLPack C exchange API (docs/python.md): without the companion
tsbridge._torch, a torch.Tensor crosses as a DLManagedTensorVersioned that
torch.Tensor.__dlpack_c_exchange_api__ makes and takes (torch 2.10+), not
as a DLPack capsule. The path is chosen at import, so each case runs in a
child process with the environment that asks for it."""
import json
import os
import subprocess
import sys

import pytest
import torch

import tsbridge

HAS_API = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
needs_api = pytest.mark.skipif(
    not HAS_API, reason=f"torch {torch.__version__} has no torch.Tensor.__dlpack_c_exchange_api__ "
                        "(torch 2.10 added it)")

CHILD = r"""
import json, sys, torch, tsbridge

class M(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.detach()  # a new tensor on the same storage: it crosses back
    @torch.jit.export
    def double(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2

path = sys.argv[1]
torch.jit.save(torch.jit.script(M()), path)
m = tsbridge.load(path)
before = tsbridge._native.tensor_crossings()
x = torch.arange(6.0).reshape(2, 3).t()
y = m(x)
shared = y.data_ptr() == x.data_ptr() and y.stride() == x.stride() and torch.equal(y, x)
doubled = torch.equal(m.double(torch.ones(3)), torch.full((3,), 2.0))
dtypes = {}
for name in ["bool", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn_x2"]:
    dtype = getattr(torch, name, None)
    if dtype is None:
        continue
    t = torch.tensor([0, 1, 1, 0], dtype=torch.uint8).view(dtype)
    back = m(t)
    dtypes[name] = back.dtype == dtype and back.data_ptr() == t.data_ptr()
grad = m.double(torch.ones(2, requires_grad=True))
after = tsbridge._native.tensor_crossings()
print(json.dumps({
    "path": tsbridge.TORCH_TENSOR_PATH, "reason": tsbridge.TORCH_EXCHANGE_REASON,
    "crossed": {k: [a - b for a, b in zip(after[k], before[k])] for k in after},
    "shared": shared, "doubled": doubled, "dtypes": dtypes,
    "grad": [grad.requires_grad, grad.grad_fn is not None],
}))
"""


def run_child(tmp_path, **env):
    environ = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "m.pt")], env=environ,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def test_the_tensor_path_is_the_one_asked_for():
    if tsbridge.TORCH_FASTPATH:
        assert tsbridge.TORCH_TENSOR_PATH == "companion"
    elif os.environ.get("TSB_PYTHON_NO_DLPACK_EXCHANGE", "") not in ("", "0"):
        assert tsbridge.TORCH_TENSOR_PATH == "dlpack"
        assert "TSB_PYTHON_NO_DLPACK_EXCHANGE" in tsbridge.TORCH_EXCHANGE_REASON
    elif HAS_API:
        assert tsbridge.TORCH_TENSOR_PATH == "exchange", tsbridge.TORCH_EXCHANGE_REASON
    else:
        assert tsbridge.TORCH_TENSOR_PATH == "dlpack" and tsbridge.TORCH_EXCHANGE_REASON


@needs_api
def test_a_torch_tensor_crosses_through_the_exchange_api(tmp_path):
    got = run_child(tmp_path, TSB_PYTHON_NO_TORCH_FASTPATH="1", TSB_PYTHON_NO_DLPACK_EXCHANGE="0")
    assert got["path"] == "exchange", got["reason"]
    assert got["reason"] == ""
    calls = 2 + len(got["dtypes"]) + 1  # each call: one tensor in, one out
    assert got["crossed"]["exchange"] == [calls, calls], got["crossed"]
    assert got["crossed"]["dlpack"] == [0, 0] and got["crossed"]["companion"] == [0, 0]
    assert got["shared"], "zero copy both ways, strides kept"
    assert got["doubled"]
    assert got["dtypes"] and all(got["dtypes"].values()), got["dtypes"]
    assert got["grad"] == [False, False], "DLPack carries data, not the graph"


@needs_api
def test_the_environment_turns_the_exchange_api_off(tmp_path):
    got = run_child(tmp_path, TSB_PYTHON_NO_TORCH_FASTPATH="1", TSB_PYTHON_NO_DLPACK_EXCHANGE="1")
    assert got["path"] == "dlpack"
    assert "TSB_PYTHON_NO_DLPACK_EXCHANGE is set" in got["reason"]
    assert got["crossed"]["exchange"] == [0, 0] and got["crossed"]["dlpack"][0] > 0
    assert got["shared"] and got["doubled"] and all(got["dtypes"].values()), got


@pytest.mark.skipif(HAS_API, reason="torch has the exchange API")
def test_without_the_api_the_reason_names_it():
    if not tsbridge.TORCH_FASTPATH and tsbridge.HAS_TORCH:
        assert tsbridge.TORCH_TENSOR_PATH == "dlpack"
    assert tsbridge.TORCH_EXCHANGE_REASON

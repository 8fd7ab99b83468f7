"""The torchaudio fixture (docs/vision.md, "The operator-library API"): a
scripted module whose code calls torchaudio's own operator
(torchaudio.functional.lfilter: torchaudio::_lfilter), its arguments and
PyTorch's own result, in the JSON form of docs/json.md, so that every host
(tsb, Python, R, Rust, C) loads torchaudio's library by name and checks its
result against PyTorch's.

Usage: make_audio_models.py OUT_DIR
"""
import json
import sys
import zipfile
from pathlib import Path

import torch
import torchaudio


class Filter(torch.nn.Module):
    def forward(self, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torchaudio.functional.lfilter(x, a, b)


def tensor_json(t):
    return {"dtype": "float32", "shape": list(t.shape), "data": t.flatten().tolist()}


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    module = torch.jit.script(Filter())
    module.save(str(out / "lfilter.pt"))
    # The module must need torchaudio's library, or the tests prove nothing.
    with zipfile.ZipFile(out / "lfilter.pt") as archive:
        code = "".join(archive.read(n).decode() for n in archive.namelist() if n.endswith(".py"))
    if "ops.torchaudio._lfilter" not in code:
        sys.exit("the scripted lfilter calls no torchaudio operator")
    torch.manual_seed(0)
    x = torch.rand(2, 64)
    a = torch.tensor([1.0, -0.5, 0.25])
    b = torch.tensor([0.4, 0.2, 0.1])
    args = [tensor_json(x), tensor_json(a), tensor_json(b)]
    (out / "args.json").write_text(json.dumps(args))
    (out / "expected.json").write_text(json.dumps(tensor_json(module(x, a, b))))


if __name__ == "__main__":
    main(sys.argv[1])

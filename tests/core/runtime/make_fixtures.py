"""Scripts the TorchScript modules the runtime tests load (the shared
Calls of tests/testing/fixtures.py).

Run by CMake at build time: python3 make_fixtures.py OUTPUT_DIR. Without an
importable torch this fails loudly (the tests need real PyTorch-made files).
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testing"))
import fixtures  # noqa: E402
import torch  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.jit.save(torch.jit.script(fixtures.Calls()), os.path.join(out, "calls.pt"))


if __name__ == "__main__":
    main()

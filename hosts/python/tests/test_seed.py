"""Seeding LibTorch's generator from Python (docs/python.md, "Seeding"):
a module whose dropout stays on gives the same output for the same seed,
another for another, and PyTorch's own output for the seed."""
import pytest

import tsbridge

torch = pytest.importorskip("torch")


class Dropout(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.dropout(x, 0.5, training=True)


def test_manual_seed_operator_gives_pytorchs_output(tmp_path):
    scripted = torch.jit.script(Dropout())
    scripted.save(str(tmp_path / "dropout.pt"))
    m = tsbridge.load(tmp_path / "dropout.pt")
    x = torch.arange(1.0, 65.0).reshape(8, 8)

    def ours(seed):
        tsbridge.ops.aten.manual_seed(seed)
        return torch.as_tensor(m(x))

    seven = ours(7)
    assert torch.equal(ours(7), seven)
    assert not torch.equal(ours(8), seven)
    torch.manual_seed(7)
    assert torch.equal(seven, scripted(x))
    torch.manual_seed(8)  # the one generator: torch's seed reaches tsbridge's calls
    expected = scripted(x)
    torch.manual_seed(8)
    assert torch.equal(torch.as_tensor(m(x)), expected)

"""Shared by the Python sparse tests: loading the plugin, random matrices."""
import sys

import torch


def load(plugin):
    torch.ops.load_library(plugin)
    return torch.ops.torchsparse


def random_coo(m, n, nnz, dtype=torch.float64, seed=0, empty_rows=(), duplicates=False):
    """A random m x n COO (row, col, value), sorted by row, with the rows in
    `empty_rows` empty and, if asked, some entries repeated."""
    g = torch.Generator().manual_seed(seed)
    allowed = torch.tensor([r for r in range(m) if r not in set(empty_rows)], dtype=torch.long)
    if nnz == 0 or allowed.numel() == 0 or n == 0:
        return (torch.empty(0, dtype=torch.long), torch.empty(0, dtype=torch.long),
                torch.empty(0, dtype=dtype))
    row = allowed[torch.randint(allowed.numel(), (nnz,), generator=g)]
    col = torch.randint(n, (nnz,), generator=g)
    if duplicates:
        row = torch.cat([row, row[: max(1, nnz // 3)]])
        col = torch.cat([col, col[: max(1, nnz // 3)]])
    order = torch.argsort(row * n + col)
    row, col = row[order], col[order]
    # Distinct magnitudes keep max/min free of ties (gradcheck needs that).
    value = (torch.randperm(row.numel(), generator=g).to(dtype) + 1) / row.numel()
    value = value * torch.where(torch.rand(row.numel(), generator=g) < 0.5, -1.0, 1.0).to(dtype)
    return row, col, value


def dense(row, col, value, m, n):
    out = torch.zeros(m, n, dtype=value.dtype if value is not None else torch.float32)
    out.index_put_((row, col), value if value is not None else torch.ones(row.numel()),
                   accumulate=True)
    return out


def csr(ops, row, m):
    return ops.coo_to_csr(row, m)


class Failures:
    """Collects failed checks so one run reports them all."""

    def __init__(self):
        self.failed = []
        self.count = 0

    def check(self, ok, what):
        self.count += 1
        if not ok:
            self.failed.append(what)
            print("FAIL:", what, file=sys.stderr)

    def close(self, name):
        print(f"{name}: {self.count - len(self.failed)}/{self.count} checks passed")
        sys.exit(1 if self.failed else 0)

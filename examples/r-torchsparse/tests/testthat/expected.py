"""What PyTorch computes for the matrices test-sparse.R builds: dense
forms, coalesce, transpose, spmm with each reduce, spspmm (torch's own dense
and scatter operations, independent of the plugin), and sample_adj through
the plugin loaded into PyTorch with the same seed.
Usage: expected.py SPARSE_PLUGIN_SO OUT_JSON"""
import json
import sys

import torch

row = torch.tensor([0, 0, 1, 2, 2, 2, 0])
col = torch.tensor([1, 3, 0, 2, 3, 0, 1])
val = torch.tensor([1.0, 2.0, 3.0, 4.0, -5.0, 6.0, 0.5], dtype=torch.float64)
n, m = 4, 4
dense = torch.zeros(n, m, dtype=torch.float64).index_put_((row, col), val, accumulate=True)
mat = torch.arange(8, dtype=torch.float64).reshape(4, 2) - 3.0

out = {"dense": dense.flatten().tolist(), "dense_t": dense.t().contiguous().flatten().tolist()}
# coalesce: sorted by (row, col), duplicates summed
key = row * m + col
uniq, inv = torch.unique(key, return_inverse=True)
out["coalesced_row"] = (uniq // m).tolist()
out["coalesced_col"] = (uniq % m).tolist()
out["coalesced_value"] = torch.zeros(len(uniq), dtype=torch.float64).index_add_(0, inv, val).tolist()
# spmm of the coalesced matrix: sum, mean, max, min over each row's entries
c_row, c_col, c_val = uniq // m, uniq % m, out["coalesced_value"]
c_val = torch.tensor(c_val, dtype=torch.float64)
prod = c_val.unsqueeze(1) * mat[c_col]
for reduce in ("sum", "mean", "amax", "amin"):
    init = reduce in ("sum", "mean")
    r = torch.zeros(n, 2, dtype=torch.float64).scatter_reduce(
        0, c_row.unsqueeze(1).expand(-1, 2), prod, reduce=reduce, include_self=False)
    name = {"amax": "max", "amin": "min"}.get(reduce, reduce)
    out["spmm_" + name] = r.flatten().tolist()
# spspmm: A @ A as dense
out["spspmm_dense"] = (dense @ dense).flatten().tolist()
# sample_adj through the plugin in PyTorch, same seed
torch.ops.load_library(sys.argv[1])
rowptr = torch.ops.torchsparse.coo_to_csr(c_row, n)
s = torch.ops.torchsparse.sample_adj(rowptr, c_col, torch.tensor([0, 2]), 2, False, 7)
out["sample_rowptr"], out["sample_col"], out["sample_e_id"] = (x.tolist() for x in s)
with open(sys.argv[2], "w") as f:
    json.dump(out, f)

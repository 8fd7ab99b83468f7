"""torchsparse operators from PyTorch (torch.ops.load_library): each against a
dense reference on random matrices (empty rows, duplicates, no non-zeros),
gradcheck in double precision, and bad input giving clear errors.

usage: ops_test.py PLUGIN.so
"""
import sys

import torch
from torch.autograd import gradcheck

from sparse_testing import Failures, dense, load, random_coo

ops = load(sys.argv[1])
t = Failures()

CASES = [  # m, n, nnz, empty rows, duplicates
    (7, 5, 12, (0, 3), False),
    (7, 5, 12, (6,), True),
    (4, 6, 0, (), False),
    (1, 1, 1, (), False),
    (30, 20, 100, (2, 5, 29), True),
]


def each_case():
    for i, (m, n, nnz, empty, dup) in enumerate(CASES):
        row, col, value = random_coo(m, n, nnz, seed=i, empty_rows=empty, duplicates=dup)
        yield f"case {i} ({m}x{n}, nnz {row.numel()}, dup {dup})", m, n, row, col, value


def close(a, b):
    return a.shape == b.shape and torch.allclose(a, b, atol=1e-10)


def reference_spmm(row, col, value, mat, m, reduce):
    out = torch.zeros(m, mat.size(1), dtype=mat.dtype)
    arg = torch.full((m, mat.size(1)), row.numel(), dtype=torch.long)
    for i in range(m):
        entries = (row == i).nonzero().flatten()
        if entries.numel() == 0:
            continue
        terms = value[entries].unsqueeze(1) * mat[col[entries]]
        if reduce == "sum":
            out[i] = terms.sum(0)
        elif reduce == "mean":
            out[i] = terms.mean(0)
        else:
            best, where = terms.max(0) if reduce == "max" else terms.min(0)
            out[i], arg[i] = best, entries[where]
    return out, arg


# ---------------------------------------------------------------- conversions
for name, m, n, row, col, value in each_case():
    rowptr = ops.coo_to_csr(row, m)
    t.check(close(rowptr, torch.cat([torch.zeros(1, dtype=torch.long),
                                     torch.bincount(row, minlength=m).cumsum(0)])),
            f"{name}: coo_to_csr")
    t.check(torch.equal(ops.csr_to_coo(rowptr), row), f"{name}: csr_to_coo inverts coo_to_csr")
    colptr, row_c, value_c = ops.csr_to_csc(rowptr, col, value, n)
    col_c = ops.csr_to_coo(colptr)
    t.check(close(dense(row_c, col_c, value_c, m, n), dense(row, col, value, m, n)),
            f"{name}: csr_to_csc keeps the matrix")
    t.check(bool((col_c[1:] >= col_c[:-1]).all()), f"{name}: csr_to_csc sorts by column")
    back = ops.csc_to_csr(colptr, row_c, value_c, m)
    t.check(torch.equal(back[0], rowptr) and torch.equal(back[1], col)
            and torch.equal(back[2], value), f"{name}: csc_to_csr inverts csr_to_csc")
    perm = ops.csr2csc(rowptr, col, n)
    t.check(torch.equal(row[perm], row_c), f"{name}: csr2csc is the CSC permutation")
    t.check(close(ops.to_dense(row, col, value, m, n), dense(row, col, value, m, n)),
            f"{name}: to_dense")

    for reduce in ("sum", "mean", "max", "min"):
        r, c, v = ops.coalesce(row, col, value, m, n, reduce)
        key = (r * n + c).tolist()
        t.check(key == sorted(set((row * n + col).tolist())), f"{name}: coalesce {reduce} keys")
        expected = []
        for k in key:
            group = value[(row * n + col) == k]
            expected.append({"sum": group.sum(), "mean": group.mean(), "max": group.max(),
                             "min": group.min()}[reduce] if group.numel() else 0)
        t.check(close(v, torch.tensor(expected, dtype=value.dtype).reshape(-1)),
                f"{name}: coalesce {reduce} values")
    r, c, v = ops.coalesce(row, col, None, m, n)
    t.check(v is None and r.numel() == len(set((row * n + col).tolist())),
            f"{name}: coalesce without value")

    rt, ct, vt = ops.transpose(row, col, value, m, n)
    t.check(close(dense(rt, ct, vt, n, m), dense(row, col, value, m, n).t()),
            f"{name}: transpose")
    t.check(bool((rt[1:] >= rt[:-1]).all()), f"{name}: transpose sorted by row")

# ---------------------------------------------------------------------- spmm
for name, m, n, row, col, value in each_case():
    rowptr = ops.coo_to_csr(row, m)
    mat = torch.randn(n, 3, dtype=torch.float64)
    for reduce in ("sum", "mean", "max", "min"):
        for with_value in (True, False):
            v = value if with_value else None
            out, arg = ops.spmm(rowptr, col, v, mat, reduce)
            ref, ref_arg = reference_spmm(row, col, value if with_value else
                                          torch.ones(row.numel(), dtype=mat.dtype), mat, m,
                                          reduce)
            t.check(close(out, ref), f"{name}: spmm {reduce} value={with_value}")
            if reduce in ("max", "min"):
                t.check(arg is not None and torch.equal(arg, ref_arg),
                        f"{name}: spmm {reduce} arg_out")
            else:
                t.check(arg is None, f"{name}: spmm {reduce} has no arg_out")
    big = torch.randn(n, 300, dtype=torch.float32)  # float32 and many threads' worth
    out, _ = ops.spmm(rowptr, col, value.float(), big, "sum")
    t.check(torch.allclose(out, dense(row, col, value.float(), m, n) @ big, atol=1e-4),
            f"{name}: spmm float32 wide")

# -------------------------------------------------------------------- spspmm
for (name, m, k, ra, ca, va), i in zip(each_case(), range(100)):
    n = 4 + i
    rb, cb, vb = random_coo(k, n, 3 * k, seed=50 + i, empty_rows=(0,))
    p, c, v = ops.spspmm(ops.coo_to_csr(ra, m), ca, va, ops.coo_to_csr(rb, k), cb, vb, n)
    t.check(close(dense(ops.csr_to_coo(p), c, v, m, n),
                  dense(ra, ca, va, m, k) @ dense(rb, cb, vb, k, n)), f"{name}: spspmm")
    t.check(all(bool((c[p[j]:p[j + 1]].diff() > 0).all()) for j in range(m)),
            f"{name}: spspmm columns sorted and distinct in each row")
    p, c, v = ops.spspmm(ops.coo_to_csr(ra, m), ca, None, ops.coo_to_csr(rb, k), cb, None, n)
    t.check(close(dense(ops.csr_to_coo(p), c, v, m, n).double(),
                  dense(ra, ca, None, m, k).double() @ dense(rb, cb, None, k, n).double()),
            f"{name}: spspmm without values counts paths")

# --------------------------------------------------------- relabel, sampling
col = torch.tensor([4, 2, 9, 4, 7, 2])
out, n_id = ops.relabel(col, torch.tensor([2, 7]))
t.check(out.tolist() == [2, 0, 3, 2, 1, 0] and n_id.tolist() == [2, 7, 4, 9], "relabel")
out, n_id = ops.relabel(torch.empty(0, dtype=torch.long), torch.tensor([5]))
t.check(out.numel() == 0 and n_id.tolist() == [5], "relabel of no edges")

row, col, _ = random_coo(20, 20, 120, seed=7, empty_rows=(3,), duplicates=True)
rowptr = ops.coo_to_csr(row, 20)
idx = torch.tensor([0, 3, 5, 19, 5])
for k, replace in ((2, False), (3, True), (-1, False), (50, False)):
    p, c, e = ops.sample_adj(rowptr, col, idx, k, replace, 11)
    again = ops.sample_adj(rowptr, col, idx, k, replace, 11)
    t.check(all(torch.equal(a, b) for a, b in zip((p, c, e), again)),
            f"sample_adj k={k} replace={replace}: a seed repeats the draw")
    ok = p.numel() == idx.numel() + 1 and torch.equal(col[e], c)
    for j, node in enumerate(idx.tolist()):
        deg = int(rowptr[node + 1] - rowptr[node])
        edges = e[p[j]:p[j + 1]]
        ok &= bool(((edges >= rowptr[node]) & (edges < rowptr[node + 1])).all())
        want = deg if k < 0 else (k if replace and deg > 0 else min(k, deg))
        ok &= edges.numel() == want
        if not replace:
            ok &= edges.unique().numel() == edges.numel()
    t.check(ok, f"sample_adj k={k} replace={replace}: neighbours of each node")
draws = {tuple(ops.sample_adj(rowptr, col, idx, 2, False, s)[2].tolist()) for s in range(8)}
t.check(len(draws) > 1, "sample_adj: other seeds, other draws")
ops.sample_adj(rowptr, col, idx, 2)  # no seed: the default generator's

# ------------------------------------------------------------------ gradcheck
for name, m, n, row, col, value in each_case():
    if row.numel() == 0:
        continue
    rowptr = ops.coo_to_csr(row, m)
    mat = torch.randn(n, 3, dtype=torch.float64)
    for reduce in ("sum", "mean", "max", "min"):
        v = value.clone().requires_grad_()
        x = mat.clone().requires_grad_()
        ok = gradcheck(lambda v, x: ops.spmm(rowptr, col, v, x, reduce)[0], (v, x),
                       raise_exception=False)
        t.check(ok, f"{name}: gradcheck spmm {reduce} (value, mat)")
        ok = gradcheck(lambda x: ops.spmm(rowptr, col, None, x, reduce)[0], (x,),
                       raise_exception=False)
        t.check(ok, f"{name}: gradcheck spmm {reduce} (mat, no value)")
    v = value.clone().requires_grad_()
    t.check(gradcheck(lambda v: ops.transpose(row, col, v, m, n)[2], (v,),
                      raise_exception=False), f"{name}: gradcheck transpose")
    for reduce in ("sum", "mean", "max", "min"):
        t.check(gradcheck(lambda v: ops.coalesce(row, col, v, m, n, reduce)[2], (v,),
                          raise_exception=False), f"{name}: gradcheck coalesce {reduce}")
    t.check(gradcheck(lambda v: ops.to_dense(row, col, v, m, n), (v,), raise_exception=False),
            f"{name}: gradcheck to_dense")
    ok = gradcheck(lambda v: ops.csr_to_csc(rowptr, col, v, n)[2], (v,), raise_exception=False)
    t.check(ok, f"{name}: gradcheck csr_to_csc")

# ------------------------------------------- every operator scripted and traced
def every_op(row, col, value, x):
    m, n = 7, 5
    r, c, v = ops.coalesce(row, col, value, m, n, "mean")
    rowptr = ops.coo_to_csr(r, m)
    outs = [r, c, v, rowptr, ops.csr_to_coo(rowptr), ops.csr2csc(rowptr, c, n)]
    colptr, row_c, value_c = ops.csr_to_csc(rowptr, c, v, n)
    outs += [colptr, row_c, value_c]
    outs += list(ops.csc_to_csr(colptr, row_c, value_c, m))
    outs += [ops.to_dense(r, c, v, m, n)]
    outs += list(ops.transpose(r, c, v, m, n))
    for reduce in ("sum", "mean", "max", "min"):
        out, arg = ops.spmm(rowptr, c, v, x, reduce)
        outs.append(out)
        if arg is not None:
            outs.append(arg)
    outs += list(ops.spspmm(rowptr, c, v, ops.coo_to_csr(c.sort()[0], n), r[c.argsort()],
                            None, m))
    outs += list(ops.relabel(c, torch.unique_consecutive(r)))
    outs += list(ops.sample_adj(rowptr, c, torch.unique_consecutive(r), 2, False, 5))
    return outs


def every_op_scripted(row, col, value, x):
    m, n = 7, 5
    r, c, v = torch.ops.torchsparse.coalesce(row, col, value, m, n, "mean")
    assert v is not None
    rowptr = torch.ops.torchsparse.coo_to_csr(r, m)
    outs = [r, c, v, rowptr, torch.ops.torchsparse.csr_to_coo(rowptr),
            torch.ops.torchsparse.csr2csc(rowptr, c, n)]
    colptr, row_c, value_c = torch.ops.torchsparse.csr_to_csc(rowptr, c, v, n)
    assert value_c is not None
    outs += [colptr, row_c, value_c]
    rp, cc, vv = torch.ops.torchsparse.csc_to_csr(colptr, row_c, value_c, m)
    assert vv is not None
    outs += [rp, cc, vv, torch.ops.torchsparse.to_dense(r, c, v, m, n)]
    rt, ct, vt = torch.ops.torchsparse.transpose(r, c, v, m, n)
    assert vt is not None
    outs += [rt, ct, vt]
    for reduce in ["sum", "mean", "max", "min"]:
        out, arg = torch.ops.torchsparse.spmm(rowptr, c, v, x, reduce)
        outs.append(out)
        if arg is not None:
            outs.append(arg)
    outs += list(torch.ops.torchsparse.spspmm(
        rowptr, c, v, torch.ops.torchsparse.coo_to_csr(c.sort()[0], n), r[c.argsort()], None,
        m))
    outs += list(torch.ops.torchsparse.relabel(c, torch.unique_consecutive(r)))
    outs += list(torch.ops.torchsparse.sample_adj(rowptr, c, torch.unique_consecutive(r), 2, False, 5))
    return outs


row, col, value = random_coo(7, 5, 12, seed=1, empty_rows=(6,), duplicates=True)
x = torch.randn(5, 3, dtype=torch.float64)
eager = every_op(row, col, value, x)
scripted = torch.jit.script(every_op_scripted)
t.check(all(torch.equal(a, b) for a, b in zip(scripted(row, col, value, x), eager))
        and len(eager) == len(scripted(row, col, value, x)), "every operator scripted")
traced = torch.jit.trace(lambda *a: tuple(every_op(*a)), (row, col, value, x))
graph = str(traced.graph)
for name in ("coalesce", "coo_to_csr", "csr_to_coo", "csr2csc", "csr_to_csc", "csc_to_csr",
             "to_dense", "transpose", "spmm", "spspmm", "relabel", "sample_adj"):
    t.check(f"torchsparse::{name}" in graph, f"the trace records torchsparse::{name}")
t.check(all(torch.equal(a, b) for a, b in zip(traced(row, col, value, x), eager)),
        "every operator traced, replayed")
row2, col2, value2 = random_coo(7, 5, 12, seed=2, empty_rows=(6,))
x2 = torch.randn(5, 3, dtype=torch.float64)
t.check(all(torch.equal(a, b) for a, b in zip(traced(row2, col2, value2, x2),
                                              every_op(row2, col2, value2, x2))),
        "every operator traced, on other inputs")

# --------------------------------------------------------------- bad input
row = torch.tensor([0, 0, 2])
col = torch.tensor([1, 3, 0])
val = torch.tensor([1.0, 2.0, 3.0])
rowptr = torch.tensor([0, 2, 2, 3])
mat = torch.randn(4, 2)
BAD = [
    ("coo_to_csr unsorted", lambda: ops.coo_to_csr(torch.tensor([1, 0]), 3),
     "torchsparse::coo_to_csr(): argument 'row': expected entries sorted in ascending order "
     "(call torchsparse::coalesce first), got 1 at [0] before 0 at [1]"),
    ("coo_to_csr out of range", lambda: ops.coo_to_csr(torch.tensor([0, 5]), 3),
     "torchsparse::coo_to_csr(): argument 'row': expected entries in [0, 3), got 5 at [1]"),
    ("int32 index", lambda: ops.coo_to_csr(torch.tensor([0, 1], dtype=torch.int32), 3),
     "torchsparse::coo_to_csr(): argument 'row': expected a 1-D int64 tensor, got a 1-D Int "
     "tensor"),
    ("negative size", lambda: ops.coo_to_csr(row, -1),
     "torchsparse::coo_to_csr(): argument 'num_rows': expected a size >= 0, got -1"),
    ("coalesce lengths", lambda: ops.coalesce(row, col[:2], val, 3, 4),
     "torchsparse::coalesce(): arguments 'row' and 'col': expected the same length, got 3 "
     "and 2"),
    ("coalesce reduce", lambda: ops.coalesce(row, col, val, 3, 4, "prod"),
     "torchsparse::coalesce(): argument 'reduce': expected \"sum\", \"mean\", \"max\" or "
     "\"min\", got \"prod\""),
    ("transpose col range", lambda: ops.transpose(row, col, val, 3, 3),
     "torchsparse::transpose(): argument 'col': expected entries in [0, 3), got 3 at [1]"),
    ("value length", lambda: ops.transpose(row, col, val[:2], 3, 4),
     "torchsparse::transpose(): argument 'value': expected one value per non-zero (first "
     "dimension 3), got shape [2]"),
    ("spmm mat rows", lambda: ops.spmm(rowptr, col, val, torch.randn(3, 2), "sum"),
     "torchsparse::spmm(): argument 'col': expected entries in [0, 3), got 3 at [1]"),
    ("spmm mat dims", lambda: ops.spmm(rowptr, col, val, torch.randn(4), "sum"),
     "torchsparse::spmm(): argument 'mat': expected a 2-D tensor, got 1-D"),
    ("spmm dtypes", lambda: ops.spmm(rowptr, col, val.double(), mat, "sum"),
     "torchsparse::spmm(): argument 'value': expected a 1-D tensor of mat's dtype (Float), "
     "got a 1-D Double tensor"),
    ("spmm integer mat", lambda: ops.spmm(rowptr, col, None, mat.long(), "sum"),
     "torchsparse::spmm(): argument 'mat': expected a floating-point CPU tensor, got Long"),
    ("spmm rowptr decreasing", lambda: ops.spmm(torch.tensor([0, 2, 1, 3]), col, val, mat),
     "torchsparse::spmm(): argument 'rowptr': expected a non-decreasing pointer, got 2 at [1] "
     "before 1 at [2]"),
    ("spmm rowptr end", lambda: ops.spmm(torch.tensor([0, 2, 2, 2]), col, val, mat),
     "torchsparse::spmm(): argument 'rowptr': expected its last entry to be the number of "
     "non-zeros, 3, got 2 at [3]"),
    ("spmm reduce", lambda: ops.spmm(rowptr, col, val, mat, "median"),
     "torchsparse::spmm(): argument 'reduce': expected \"sum\", \"mean\", \"max\" or "
     "\"min\", got \"median\""),
    ("spspmm shapes", lambda: ops.spspmm(rowptr, col, val, torch.tensor([0, 1, 2]),
                                         torch.tensor([0, 1]), None, 2),
     "torchsparse::spspmm(): argument 'col_a': expected entries in [0, 2), got 3 at [1]"),
    ("spspmm grad", lambda: ops.spspmm(rowptr, col, val.clone().requires_grad_(),
                                       torch.tensor([0, 1, 1, 1, 2]), torch.tensor([0, 1]),
                                       None, 2),
     "torchsparse::spspmm(): is not differentiable, but argument 'value_a' requires grad"),
    ("relabel repeated idx", lambda: ops.relabel(col, torch.tensor([1, 1])),
     "torchsparse::relabel(): argument 'idx': expected distinct nodes, got 1 at [0] and "
     "again at [1]"),
    ("sample_adj idx range", lambda: ops.sample_adj(rowptr, col, torch.tensor([3]), 2),
     "torchsparse::sample_adj(): argument 'idx': expected entries in [0, 3), got 3 at [0]"),
    ("storage unsorted", lambda: torch.classes.torchsparse.SparseStorage(
        torch.tensor([1, 0]), None, torch.tensor([0, 0]), None, [2, 2]),
     "torchsparse::SparseStorage(): argument 'row': expected entries sorted in ascending "
     "order"),
    ("storage sizes", lambda: ops.storage_from_coo(row, col, val, [3]),
     "torchsparse::SparseStorage(): argument 'sparse_sizes': expected [num_rows, num_cols], "
     "got 1 sizes"),
    ("storage rowptr length", lambda: ops.storage_from_csr(rowptr, col, val, [4, 4]),
     "torchsparse::SparseStorage(): argument 'rowptr': expected num_rows + 1 = 5 entries, "
     "got 4"),
]
for name, call, message in BAD:
    try:
        call()
        t.check(False, f"bad input {name}: no error")
    except RuntimeError as e:
        t.check(message in str(e), f"bad input {name}: message {str(e)[:300]!r}")

t.close("ops_test")

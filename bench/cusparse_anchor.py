#!/usr/bin/env python3
"""The anchor of `tiledcl bench spgemm` / `bench spmm`: the same seeded
matrices (src/bench/bench_sparse.c's generators, rebuilt with numpy)
multiplied by cuSPARSE through torch's CSR tensors (kernel milliseconds
from CUDA events after a warm-up, median of --reps), or by scipy on the
host with --scipy. Run it beside `tiledcl bench spgemm` in the same
minutes:

    python3 bench/cusparse_anchor.py                 # SpGEMM A*A, cuSPARSE
    python3 bench/cusparse_anchor.py --spmm          # A times 32/128/512 columns
    python3 bench/cusparse_anchor.py --scipy --matrix uniform:20000:10
"""
import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def sm64(x):
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def key(seed, stream):
    with np.errstate(over="ignore"):
        return sm64(np.uint64(seed) * np.uint64(4) + np.uint64(stream))


def values(kv, t):
    with np.errstate(over="ignore"):
        return (1 + (sm64(kv + t.astype(np.uint64)) >> np.uint64(62))).astype(np.float32)


def make(spec, seed):
    kind, *a = spec.split(":")
    a = [int(x) for x in a]
    ks, kv = key(seed, 0), key(seed, 1)
    if kind == "rmat":
        k, e = a
        n = 1 << k
        t = np.arange(e * n, dtype=np.uint64)
        r = np.zeros(e * n, dtype=np.int64)
        c = np.zeros(e * n, dtype=np.int64)
        for lvl in range(k):
            with np.errstate(over="ignore"):
                x = sm64(ks + t * np.uint64(k) + np.uint64(lvl))
            u = (x >> np.uint64(11)).astype(np.float64) * 2.0**-53
            r = r * 2 + (u >= 0.76)
            c = c * 2 + (((u >= 0.57) & (u < 0.76)) | (u >= 0.95))
        v = values(kv, t)
    elif kind == "uniform":
        n, per = a
        t = np.arange(n * per, dtype=np.uint64)
        with np.errstate(over="ignore"):
            c = (sm64(ks + t) % np.uint64(n)).astype(np.int64)
        r = (t // np.uint64(per)).astype(np.int64)
        v = values(kv, t)
    elif kind == "laplace":
        m = a[0]
        n = m * m
        p = np.arange(n)
        y, x = p // m, p % m
        parts = [(p, p, np.full(n, 4.0))]
        for ok, q in ((y > 0, p - m), (x > 0, p - 1), (x < m - 1, p + 1), (y < m - 1, p + m)):
            parts.append((p[ok], q[ok], np.full(ok.sum(), -1.0)))
        r = np.concatenate([q[0] for q in parts])
        c = np.concatenate([q[1] for q in parts])
        v = np.concatenate([q[2] for q in parts]).astype(np.float32)
    else:
        raise SystemExit(f"unknown matrix {spec}")
    a = sp.coo_matrix((v, (r, c)), shape=(n, n)).tocsr()  # sums duplicates
    a.sort_indices()
    return a


def median_ms(fn, warmup, reps, cuda):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        if cuda:
            import torch
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matrix", action="append")
    ap.add_argument("--spmm", action="store_true")
    ap.add_argument("--cols", type=int, action="append")
    ap.add_argument("--scipy", action="store_true", help="scipy on the host instead of cuSPARSE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    o = ap.parse_args()
    mats = o.matrix or ["rmat:15:8", "rmat:16:8", "laplace:1000", "uniform:100000:16"]
    cols = o.cols or [32, 128, 512]
    who = "scipy" if o.scipy else "cusparse"
    for spec in mats:
        a = make(spec, o.seed)
        terms = int(np.diff(a.indptr)[a.indices].sum())
        if o.scipy:
            run_a = a
        else:
            import torch
            run_a = torch.sparse_csr_tensor(torch.from_numpy(a.indptr.astype(np.int64)),
                                            torch.from_numpy(a.indices.astype(np.int64)),
                                            torch.from_numpy(a.data), size=a.shape).cuda()
        for nc in (cols if o.spmm else [0]):
            if nc:
                d = np.ones((a.shape[1], nc), dtype=np.float32)
                if not o.scipy:
                    import torch
                    d = torch.from_numpy(d).cuda()
                fn = (lambda: run_a @ d)
                work = a.nnz * nc
            else:
                fn = (lambda: run_a @ run_a)
                work = terms
            ms = median_ms(fn, o.warmup, o.reps, not o.scipy)
            op = f"spmm x{nc}" if nc else "spgemm"
            print(f"{who:8s} {op:9s} {spec:18s} {a.shape[0]:9d} rows {a.nnz:10d} nnz "
                  f"{ms:10.3f} ms {2 * work / (ms * 1e6):8.2f} GFLOP/s")


if __name__ == "__main__":
    main()

"""Inputs and the life reference of the portability suite (numpy, host only).

  ref.py inputs DIR          writes the suite's small seeded inputs to DIR
  ref.py life IN OUT G B R   exit 0 when OUT (.npy) is IN after G
                             generations of rule R (B3/S23 form, Moore
                             neighbourhood) on boundary B (dead, torus, clamp)
"""
import sys

import numpy as np


def inputs(d):
    rng = np.random.default_rng(7)
    # odd sizes: every kernel meets partial tiles, words and vectors
    np.save(d + "/soup.npy", (rng.random((37, 77)) < 0.3).astype(np.uint8))
    np.save(d + "/a.npy", rng.standard_normal((17, 33)).astype(np.float32))
    np.save(d + "/b.npy", rng.standard_normal((33, 21)).astype(np.float32))
    np.save(d + "/ai.npy", rng.integers(-50, 50, (19, 13)).astype(np.int64))
    np.save(d + "/bi.npy", rng.integers(-50, 50, (13, 23)).astype(np.int64))
    np.save(d + "/t.npy", rng.random((29, 67)).astype(np.float32))
    # coordinate files 8% dense: a sparse product of two (SpGEMM), of one
    # and b.npy (SpMM), and tile-avg's sparse kernel
    mtx(d + "/sa.mtx", rng, 41, 33)
    mtx(d + "/sb.mtx", rng, 33, 29)


def mtx(path, rng, rows, cols):
    keep = rng.random((rows, cols)) < 0.08
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (rows, cols, keep.sum()))
        for i, j in zip(*np.nonzero(keep)):
            f.write("%d %d %.6f\n" % (i + 1, j + 1, rng.standard_normal()))


def digits(s):
    return [int(c) for c in s]


def life(path_in, path_out, gens, bnd, rule):
    b, s = rule.upper().lstrip("B").split("/S")
    born, keep = digits(b), digits(s)
    g = np.load(path_in).astype(np.int64) != 0
    pad = {"dead": "constant", "torus": "wrap", "clamp": "edge"}[bnd]
    for _ in range(gens):
        p = np.pad(g, 1, mode=pad)
        n = sum(p[1 + dy:p.shape[0] - 1 + dy, 1 + dx:p.shape[1] - 1 + dx]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
        g = np.where(g, np.isin(n, keep), np.isin(n, born))
    got = np.load(path_out) != 0
    if got.shape != g.shape or (got != g).any():
        bad = np.argwhere(got != g) if got.shape == g.shape else "shape %s" % (got.shape,)
        print("differs from the reference at", bad[:5] if not isinstance(bad, str) else bad)
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    else:
        sys.exit(life(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]))

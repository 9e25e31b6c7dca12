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
    # the soup again as a pattern on the unbounded plane (the tile plane)
    soup = np.load(d + "/soup.npy")
    rows = ["".join("o" if c else "b" for c in r) for r in soup]
    with open(d + "/soup.rle", "w") as f:
        f.write("x = %d, y = %d, rule = B3/S23\n" % (soup.shape[1], soup.shape[0]))
        f.write("$".join(rows) + "!\n")
    # a grey image for the streamed image mean
    g = rng.integers(0, 256, (23, 41)).astype(np.uint8)
    with open(d + "/g.pgm", "wb") as f:
        f.write(b"P5\n41 23\n255\n" + g.tobytes())


def mtx(path, rng, rows, cols):
    keep = rng.random((rows, cols)) < 0.08
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (rows, cols, keep.sum()))
        for i, j in zip(*np.nonzero(keep)):
            f.write("%d %d %.6f\n" % (i + 1, j + 1, rng.standard_normal()))


def plane(path_in, path_out, gens, rule):
    """The soup on the unbounded plane: the live cells' box after gens."""
    g = np.pad(np.load(path_in) != 0, gens + 1)
    np.save(path_in + ".plane.npy", g.astype(np.uint8))
    if life(path_in + ".plane.npy", None, gens, "dead", rule, save_to=path_in + ".ref.npy"):
        return 1
    g = np.load(path_in + ".ref.npy") != 0
    ys, xs = np.nonzero(g)
    g = g[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    got = np.load(path_out) != 0
    if got.shape != g.shape or (got != g).any():
        print("the plane differs from the reference: shape", got.shape, "against", g.shape)
        return 1
    return 0


def digits(s):
    return [int(c) for c in s]


def life(path_in, path_out, gens, bnd, rule, save_to=None):
    b, s = rule.upper().lstrip("B").split("/S")
    born, keep = digits(b), digits(s)
    g = np.load(path_in).astype(np.int64) != 0
    pad = {"dead": "constant", "torus": "wrap", "clamp": "edge"}[bnd]
    for _ in range(gens):
        p = np.pad(g, 1, mode=pad)
        n = sum(p[1 + dy:p.shape[0] - 1 + dy, 1 + dx:p.shape[1] - 1 + dx]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
        g = np.where(g, np.isin(n, keep), np.isin(n, born))
    if path_out is None:
        np.save(save_to, g.astype(np.uint8))
        return 0
    got = np.load(path_out) != 0
    if got.shape != g.shape or (got != g).any():
        bad = np.argwhere(got != g) if got.shape == g.shape else "shape %s" % (got.shape,)
        print("differs from the reference at", bad[:5] if not isinstance(bad, str) else bad)
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    elif sys.argv[1] == "plane":
        sys.exit(plane(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]))
    else:
        sys.exit(life(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]))

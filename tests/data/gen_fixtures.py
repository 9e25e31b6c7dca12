#!/usr/bin/env python3
"""Writes the matrix fixtures in tests/data with real scipy and numpy.

Each fixture NAME comes with NAME.expect.bin: the dense row-major values as
scipy/numpy themselves read them back (float64 or int64, little-endian), the
independent reference test_matio.c compares tiledcl's reader against.
Run from this directory: python3 gen_fixtures.py (numpy, scipy needed; the
tests themselves need no Python).
"""
import gzip
import shutil

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp

rng = np.random.default_rng(20240611)


def expect(name, dense):
    dense = np.asarray(dense)
    dt = np.int64 if dense.dtype.kind in "iu" else np.float64
    np.ascontiguousarray(dense, dtype=dt).astype("<" + np.dtype(dt).str[1:]).tofile(
        name + ".expect.bin")


def mtx(name, a, **kw):
    scipy.io.mmwrite(name, a, comment="fixture for tiledcl, scipy " + scipy.__version__, **kw)
    back = scipy.io.mmread(name)
    expect(name, back.toarray() if sp.issparse(back) else back)


def tricky(n):
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
    v[::7] = 0.1
    v[1::11] = 1.0 / 3.0
    v[2::13] = 5e-324
    return v


# dense float64 -> array real general, column-major, 17 significant digits
mtx("sp_array_real.mtx", tricky(35).reshape(7, 5))
# dense int64 beyond 2^53 -> array integer general
ia = rng.integers(-2**62, 2**62, (4, 6), dtype=np.int64)
ia[0, 0] = np.iinfo(np.int64).min
ia[3, 5] = np.iinfo(np.int64).max
mtx("sp_array_int.mtx", ia)
# dense symmetric -> array real symmetric (lower triangle by columns)
s = tricky(36).reshape(6, 6)
mtx("sp_array_sym.mtx", s + s.T, symmetry="symmetric")
# sparse real general with duplicates kept in the file
rows = np.array([0, 3, 2, 0, 4, 1, 3])
cols = np.array([0, 1, 3, 2, 0, 1, 1])
vals = np.array([1.5, -2.25, 1e-300, 7.0, 0.1, 3.0, 0.75])
mtx("sp_coord_real.mtx", sp.coo_matrix((vals, (rows, cols)), shape=(5, 4)))
with open("sp_coord_real.mtx", "rb") as f, gzip.open("sp_coord_real.mtx.gz", "wb") as g:
    shutil.copyfileobj(f, g)
expect("sp_coord_real.mtx.gz", scipy.io.mmread("sp_coord_real.mtx.gz").toarray())
# sparse integer symmetric
m = sp.random(8, 8, density=0.3, random_state=3, data_rvs=lambda n: rng.integers(-10**12, 10**12, n))
m = sp.coo_matrix(sp.tril(m) + sp.tril(m, -1).T, dtype=np.int64)
mtx("sp_coord_int_sym.mtx", m, symmetry="symmetric")
# sparse real skew-symmetric
k = sp.random(6, 6, density=0.4, random_state=4)
k = sp.tril(k, -1)
mtx("sp_coord_skew.mtx", sp.coo_matrix(k - k.T), symmetry="skew-symmetric")
# pattern
p = sp.random(5, 7, density=0.3, random_state=5)
mtx("sp_coord_pattern.mtx", p, field="pattern")

# .npy: each dtype, C and Fortran order, header versions 1.0, 2.0, 3.0
for dt in ["float32", "float64", "int32", "int64"]:
    a = (tricky(15).reshape(3, 5) if dt.startswith("float")
         else rng.integers(-2**31, 2**31 - 1, (3, 5))).astype(dt)
    np.save("np_%s.npy" % dt, a)
    expect("np_%s.npy" % dt, np.load("np_%s.npy" % dt))
f = np.asfortranarray(tricky(12).reshape(4, 3))
np.save("np_fortran.npy", f)
expect("np_fortran.npy", np.load("np_fortran.npy"))
for ver in [(2, 0), (3, 0)]:
    name = "np_v%d.npy" % ver[0]
    with open(name, "wb") as fh:
        np.lib.format.write_array(fh, tricky(6).reshape(2, 3), version=ver)
    expect(name, np.load(name))
print("numpy", np.__version__, "scipy", scipy.__version__)

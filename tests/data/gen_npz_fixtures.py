"""The .npz fixtures: scipy.sparse.save_npz of small matrices in each
layout, with unsorted indices and duplicates, and their dense references
(see README.md). Run in this directory: python3 gen_npz_fixtures.py"""
import numpy as np
import scipy.sparse as sp


def expect(name, dense):
    dense = np.asarray(dense)
    kind = np.int64 if dense.dtype.kind in "iub" else np.float64
    dense.astype(kind).astype(kind().dtype.newbyteorder("<")).tofile(name + ".expect.bin")


# CSR, unsorted indices and a duplicate (row 0, column 3), deflated
a = sp.csr_matrix((np.array([1.5, -2, 0.25, 7, 1e-300]), np.array([3, 0, 3, 1, 0], np.int32),
                   np.array([0, 3, 3, 5], np.int32)), shape=(3, 4))
sp.save_npz("sp_csr_f64.npz", a)
expect("sp_csr_f64.npz", a.toarray())
# CSC, int64 values past 2^53 and 64-bit indices, stored
b = sp.csc_matrix((np.array([2**62 + 1, -5, 2**53 + 1], np.int64), np.array([1, 0, 2], np.int64),
                   np.array([0, 1, 1, 3], np.int64)), shape=(3, 3))
sp.save_npz("sp_csc_i64.npz", b, compressed=False)
expect("sp_csc_i64.npz", b.toarray())
# COO float32 with a duplicate, rows out of order
c = sp.coo_matrix((np.array([0.1, 2.5, -3, 0.2], np.float32), (np.array([4, 0, 2, 4]), np.array([1, 2, 0, 1]))),
                  shape=(5, 3))
sp.save_npz("sp_coo_f32.npz", c)
expect("sp_coo_f32.npz", c.toarray())
# bool, all True: a pattern
d = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 1]], bool))
sp.save_npz("sp_bool.npz", d)
expect("sp_bool.npz", d.toarray())

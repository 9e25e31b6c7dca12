/* Sparse matrix files: the dispatch declared in sparse_io.h. */
#include "io/sparse_io.h"

#include <string.h>

#include "base/fileio.h"
#include "io/image.h"
#include "io/matsrc.h"
#include "io/mtx.h"
#include "io/npy.h"
#include "io/npz.h"

int tdcl_sparse_path(const char *path)
{
    if (!path || strcmp(path, "-") == 0) return 0;
    if (tdcl_path_has_ext(path, ".npz")) return 1;
    if (!tdcl_path_has_ext(path, ".mtx") && !tdcl_path_has_ext(path, ".mtx.gz")) return 0;
    tdcl_mtx_header h;
    tdcl_err e;
    return tdcl_mtx_peek_path(path, &h, &e) == TDCL_OK && h.coordinate;
}

/* A zip archive's first bytes: a local file header or an empty archive. */
static int zip_magic(const tdcl_src *s)
{
    return !s->gz && s->head_len >= 4 &&
           (memcmp(s->head, "PK\x03\x04", 4) == 0 || memcmp(s->head, "PK\x05\x06", 4) == 0);
}

/* A dense .npy source, read whole and its nonzeros kept. */
static tdcl_status read_npy(tdcl_src *s, size_t max_bytes, tdcl_csr *out, tdcl_err *err)
{
    tdcl_matrix m;
    tdcl_status st = tdcl_npy_read(s, max_bytes, &m, err);
    if (st) return st;
    st = tdcl_csr_from_dense(&m, out, err);
    tdcl_matrix_free(&m);
    return st;
}

tdcl_status tdcl_sparse_read_path(const char *path, size_t max_bytes, tdcl_csr *out, tdcl_err *err)
{
    tdcl_src s;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&s, path, err);
    if (st) return st;
    int image;
    const char *what = s.gz ? NULL : tdcl_file_kind(s.head, s.head_len, &image, NULL);
    if (zip_magic(&s)) {
        st = tdcl_npz_read(&s, max_bytes, out, err);
    } else if (tdcl_npy_magic(&s)) {
        st = read_npy(&s, max_bytes, out, err);
    } else if (what && image) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s' is %s, not a matrix (.mtx, .npz or .npy)",
                       s.name, what);
    } else {
        tdcl_mtx_read_opts mo = {.max_bytes = max_bytes};
        st = tdcl_mtx_read_csr(&s, &mo, out, err);
    }
    tdcl_src_close(&s);
    return st;
}

tdcl_status tdcl_sparse_write_path(const char *path, const tdcl_csr *m, tdcl_err *err)
{
    if (path && tdcl_path_has_ext(path, ".npz")) return tdcl_npz_write_path(path, m, err);
    if (path && strcmp(path, "-") != 0 && !tdcl_path_has_ext(path, ".mtx"))
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': unknown extension for a sparse matrix (write .mtx or .npz, or "
                         "'-' for stdout)",
                         path);
    return tdcl_mtx_write_csr_path(path, m, NULL, err);
}

/* Matrix files: the dispatch declared in matio.h. Input is recognised by its
 * first bytes (.npy magic, else Matrix Market, plain or gzip), output by the
 * extension, through the table below. */
#include "matio.h"

#include <string.h>

#include "fileio.h"
#include "matsrc.h"
#include "mtx.h"
#include "npy.h"

typedef tdcl_status (*writer_fn)(FILE *fp, const char *name, const tdcl_matrix *m,
                                 const char *comment, tdcl_err *err);

static tdcl_status write_mtx(FILE *fp, const char *name, const tdcl_matrix *m, const char *comment,
                             tdcl_err *err)
{
    tdcl_mtx_write_opts o = {.comment = comment};
    return tdcl_mtx_write(fp, name, m, &o, err);
}

static tdcl_status write_npy(FILE *fp, const char *name, const tdcl_matrix *m, const char *comment,
                             tdcl_err *err)
{
    (void)comment; /* .npy has no place for one */
    return tdcl_npy_write(fp, name, m, err);
}

static const struct {
    const char *ext;
    writer_fn fn;
} writers[] = {
    {".mtx", write_mtx},
    {".npy", write_npy},
};

int tdcl_matrix_path(const char *path)
{
    return tdcl_path_has_ext(path, ".mtx") || tdcl_path_has_ext(path, ".mtx.gz") ||
           tdcl_path_has_ext(path, ".npy");
}

tdcl_status tdcl_matrix_read(const char *path, size_t max_bytes, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_src s;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&s, path, err);
    if (st) return st;
    if (tdcl_npy_magic(&s)) {
        st = tdcl_npy_read(&s, max_bytes, out, err);
    } else {
        tdcl_mtx_read_opts o = {.max_bytes = max_bytes};
        st = tdcl_mtx_read(&s, &o, out, err);
    }
    tdcl_src_close(&s);
    return st;
}

tdcl_status tdcl_matrix_write(const char *path, const tdcl_matrix *m, const char *comment,
                              tdcl_err *err)
{
    writer_fn fn = NULL;
    int to_stdout = !path || strcmp(path, "-") == 0;
    if (to_stdout) fn = write_mtx;
    for (size_t i = 0; !fn && i < sizeof writers / sizeof writers[0]; i++)
        if (tdcl_path_has_ext(path, writers[i].ext)) fn = writers[i].fn;
    if (!fn && tdcl_path_has_ext(path, ".gz"))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': gzip output is not supported; write .mtx and compress it", path);
    if (!fn)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': unknown matrix format (the extension must be .mtx or .npy)", path);
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    st = fn(f.fp, to_stdout ? "<stdout>" : path, m, comment, err);
    if (st) {
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}

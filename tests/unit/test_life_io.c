/* Life files and rules: B/S and S/B parsing, Golly's bounded grids, RLE and
 * .cells reading (every error names path:line) and writing, round trips
 * through every output format, the GIF encoder against a decoder written
 * here from the GIF89a specification. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/fileio.h"
#include "base/rng.h"
#include "io/image.h"
#include "ops/life/life.h"
#include "io/life_io.h"
#include "io/life_pattern.h"

static tdcl_life_rule parse_ok(const char *s)
{
    tdcl_life_rule r;
    tdcl_err e = {0};
    if (tdcl_life_rule_parse(s, &r, NULL, &e) != TDCL_OK) fail_msg("rule '%s': %s", s, e.msg);
    return r;
}

static void test_rules(void **state)
{
    (void)state;
    char buf[24];
    tdcl_life_rule r = parse_ok("B3/S23");
    assert_int_equal(r.birth, 1 << 3);
    assert_int_equal(r.survive, (1 << 2) | (1 << 3));
    r = parse_ok("b36/s23");
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B36/S23");
    r = parse_ok("23/36"); /* S/B: survive first */
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B36/S23");
    r = parse_ok("B2/S");
    assert_int_equal(r.survive, 0);
    assert_int_equal(r.birth, 4);
    r = parse_ok("B/S012345678");
    assert_int_equal(r.birth, 0);
    assert_int_equal(r.survive, 0x1ff);
    r = parse_ok("/3");
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B3/S");
    assert_false(tdcl_life_rule_has_b0(&r));
    r = parse_ok("B0/S8");
    assert_true(tdcl_life_rule_has_b0(&r));
    /* every spelling Golly takes */
    static const char *same[] = {"S23/B3", "B3S23", "b3s23", "B3 / S23",
                                 "s23b3",  "Life",  "LIFE",  "Conway"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        r = parse_ok(same[i]);
        assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B3/S23");
    }
    r = parse_ok("HighLife");
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B36/S23");
    r = parse_ok("Day and Night");
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B3678/S34678");
    r = parse_ok("S245/B368"); /* Golly's Life-Like/Morley/breeder2.rle */
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B368/S245");
    r = parse_ok("b2/s34h");
    assert_int_equal(r.nbhd, TDCL_LIFE_HEX);
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B2/S34H");
    r = parse_ok("B2/S013V");
    assert_int_equal(r.nbhd, TDCL_LIFE_VONNEUMANN);
    assert_string_equal(tdcl_life_rule_format(&r, buf, sizeof buf), "B2/S013V");
    static const char *bad[] = {"",       "lief",    "B9/S23", "B3/S239", "B33/S23",
                                "B3/S7H", "B3/S23x", "B3/S5V", "B3_S23",  "B3/S23:T10,10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tdcl_err e = {0};
        if (tdcl_life_rule_parse(bad[i], &r, NULL, &e) == TDCL_OK)
            fail_msg("rule '%s' was accepted", bad[i]);
        assert_non_null(strstr(e.msg, "rule"));
    }
    tdcl_life_boundary b;
    assert_int_equal(tdcl_life_boundary_parse("Torus", &b), 0);
    assert_int_equal(b, TDCL_LIFE_TORUS);
    assert_int_equal(tdcl_life_boundary_parse("clamp", &b), 0);
    assert_int_equal(b, TDCL_LIFE_CLAMP);
    assert_int_equal(tdcl_life_boundary_parse("wrap", &b), -1);
    /* refused by name */
    static const struct {
        const char *rule, *want;
    } named[] = {{"B2-a/S12", "'B2-a/S12' is a non-totalistic rule; tiledcl runs totalistic "
                              "Moore, hexagonal and von Neumann rules"},
                 {"B2cekin/S12", "non-totalistic"},
                 {"B3/S2a34", "non-totalistic"},
                 {"23/3/2", "multi-state"},
                 {"B2/S/3", "multi-state"},
                 {"WireWorld", "multi-state"},
                 {"LifeHistory", "multi-state"}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        tdcl_err e = {0};
        assert_int_equal(tdcl_life_rule_parse(named[i].rule, &r, NULL, &e), TDCL_EUNSUPPORTED);
        if (!strstr(e.msg, named[i].want)) fail_msg("'%s': %s", named[i].rule, e.msg);
    }
}

static void test_golly_topology(void **state)
{
    (void)state;
    tdcl_life_rule r;
    tdcl_life_topology t;
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_rule_parse("B3/S23:T64,48", &r, &t, &e), TDCL_OK);
    assert_true(t.present);
    assert_int_equal(t.boundary, TDCL_LIFE_TORUS);
    assert_int_equal(t.width, 64);
    assert_int_equal(t.height, 48);
    assert_int_equal(tdcl_life_rule_parse("B3/S23:p30", &r, &t, &e), TDCL_OK);
    assert_int_equal(t.boundary, TDCL_LIFE_DEAD);
    assert_int_equal(t.width, 30);
    assert_int_equal(t.height, 30);
    assert_int_equal(tdcl_life_rule_parse("B3/S23", &r, &t, &e), TDCL_OK);
    assert_false(t.present);
    /* every bounded grid Golly has (Help/bounded.html), written back the same */
    static const struct {
        const char *rule, *canon;
        tdcl_life_boundary b;
    } golly[] = {{"B3/S23:T64+2,48", ":T64+2,48", TDCL_LIFE_TORUS},
                 {"B3/S23:T64,48-3", ":T64,48-3", TDCL_LIFE_TORUS},
                 {"B3/S23:T0,68", ":T0,68", TDCL_LIFE_TORUS},
                 {"B3/S23:P0,0", NULL, TDCL_LIFE_DEAD},
                 {"B3/S23:P30,0", ":P30,0", TDCL_LIFE_DEAD},
                 {"B3/S23:k30*,20", ":K30*,20", TDCL_LIFE_KLEIN},
                 {"B3/S23:K30,20*", ":K30,20*", TDCL_LIFE_KLEIN},
                 {"B3/S23:K30*+1,20", ":K30*+1,20", TDCL_LIFE_KLEIN},
                 {"B3/S23:C30,20", ":C30,20", TDCL_LIFE_CROSS},
                 {"B3/S23:S30", ":S30", TDCL_LIFE_SPHERE}};
    for (size_t i = 0; i < sizeof golly / sizeof golly[0]; i++) {
        char buf[80];
        tdcl_status st = tdcl_life_rule_parse(golly[i].rule, &r, &t, &e);
        if (!golly[i].canon) { /* the unbounded plane, as Golly reads it */
            assert_int_equal(st, TDCL_OK);
            assert_false(t.present);
            continue;
        }
        if (st) fail_msg("'%s': %s", golly[i].rule, e.msg);
        assert_int_equal(t.boundary, golly[i].b);
        assert_string_equal(
            tdcl_life_topology_format(t.boundary, &t.edges, t.width, t.height, buf, sizeof buf),
            golly[i].canon);
    }
    assert_int_equal(tdcl_life_rule_parse("B3/S23:T0,68", &r, &t, &e), TDCL_OK);
    assert_true(t.edges.open_x);
    assert_false(t.edges.open_y);
    static const char *bad[] = {"B3/S23:T",        "B3/S23:T10,x",     "B3/S23:S30,20",
                                "B3/S23:K0,10",    "B3/S23:T0+1,10",   "B3/S23:T10+1,10+1",
                                "B3/S23:P10+1,10", "B3/S23:K31*+1,20", "B3/S23:C10*,10",
                                "B3/S23:Q10,10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (tdcl_life_rule_parse(bad[i], &r, &t, &e) != TDCL_EINVAL)
            fail_msg("'%s' was accepted", bad[i]);
}

/* Parses RLE text, expecting success. */
static tdcl_life_pattern rle_ok(const char *text)
{
    tdcl_life_pattern p;
    tdcl_err e = {0};
    if (tdcl_life_rle_parse("t.rle", text, strlen(text), 0, &p, &e) != TDCL_OK)
        fail_msg("RLE rejected: %s", e.msg);
    return p;
}

static void expect_rows(const tdcl_life_pattern *p, const char *const *rows, int n)
{
    assert_int_equal(p->grid.rows, n);
    assert_int_equal(p->grid.cols, (int64_t)strlen(rows[0]));
    for (int y = 0; y < n; y++)
        for (int64_t x = 0; x < p->grid.cols; x++)
            if (((uint8_t *)p->grid.data)[y * p->grid.cols + x] != (rows[y][x] == 'O'))
                fail_msg("cell (%d, %lld) differs", y, (long long)x);
}

static void test_rle_read(void **state)
{
    (void)state;
    static const char *glider[] = {".O.", "..O", "OOO"};
    tdcl_life_pattern p =
        rle_ok("#N Glider\n#C a comment\nx = 3, y = 3, rule = B3/S23\nbob$2bo$3o!\n");
    expect_rows(&p, glider, 3);
    assert_true(p.has_rule);
    tdcl_life_pattern_free(&p);
    /* no rule, spaces anywhere, items split over lines, blank rows by N$,
     * anything after '!' ignored, CRLF line ends */
    static const char *gaps[] = {"O...", "....", "....", ".OO.", "...O"};
    p = rle_ok("x=4,y=5\r\no3b3$\r\nb\n2o$3b\no!this is ignored $$$ xyz\n");
    expect_rows(&p, gaps, 5);
    assert_false(p.has_rule);
    tdcl_life_pattern_free(&p);
    /* a very long line, no '!' at the end */
    char *big = malloc(20000);
    strcpy(big, "x = 5000, y = 1\n");
    for (int i = 0; i < 2500; i++)
        strcat(big, "bo");
    p = rle_ok(big);
    assert_int_equal(tdcl_life_population(&p.grid), 2500);
    tdcl_life_pattern_free(&p);
    free(big);
    /* the rule's case and the S/B form */
    p = rle_ok("x = 2, y = 1, rule = 23/36\n2o!\n");
    assert_int_equal(p.rule.birth, (1 << 3) | (1 << 6));
    tdcl_life_pattern_free(&p);
}

static void test_rle_golly_grid(void **state)
{
    (void)state;
    /* a glider on a 10x8 torus: without Pos, Golly centres the pattern
     * (bgolly runs it so): top-left at -1,-1 on a grid whose
     * top-left cell is -5,-4, so column 4, row 3 */
    tdcl_life_pattern p = rle_ok("x = 3, y = 3, rule = B3/S23:T10,8\nbob$2bo$3o!\n");
    assert_true(p.topo.present);
    assert_int_equal(p.topo.boundary, TDCL_LIFE_TORUS);
    assert_int_equal(p.grid.cols, 10);
    assert_int_equal(p.grid.rows, 8);
    const uint8_t *c = p.grid.data;
    assert_int_equal(c[3 * 10 + 5], 1);
    assert_int_equal(c[4 * 10 + 6], 1);
    assert_int_equal(c[5 * 10 + 4], 1);
    assert_int_equal(p.x0, -5);
    assert_int_equal(p.y0, -4);
    assert_int_equal(tdcl_life_population(&p.grid), 5);
    tdcl_life_pattern_free(&p);
    /* with Pos: the top-left corner */
    p = rle_ok("#CXRLE Pos=-5,-4 Gen=7\nx = 1, y = 1, rule = B3/S23:P10,8\no!\n");
    assert_int_equal(((uint8_t *)p.grid.data)[0], 1);
    assert_int_equal(p.generation, 7);
    assert_int_equal(p.topo.boundary, TDCL_LIFE_DEAD);
    tdcl_life_pattern_free(&p);
    /* an empty pattern on a bounded grid */
    p = rle_ok("x = 0, y = 0, rule = B3/S23:T4,4\n!\n");
    assert_int_equal(p.grid.rows, 4);
    assert_int_equal(tdcl_life_population(&p.grid), 0);
    tdcl_life_pattern_free(&p);
}

/* Parses text expecting status st and a message containing want. */
static void rle_bad(const char *text, tdcl_status st, const char *want)
{
    tdcl_life_pattern p;
    tdcl_err e = {0};
    tdcl_status got = tdcl_life_rle_parse("bad.rle", text, strlen(text), 1000000, &p, &e);
    if (got != st || !strstr(e.msg, want))
        fail_msg("for %s: got status %d '%s', wanted %d '%s'", text, got, e.msg, st, want);
    assert_null(p.grid.data);
}

static void test_rle_errors(void **state)
{
    (void)state;
    rle_bad("", TDCL_EPARSE, "bad.rle:1: expected the header");
    rle_bad("#C only a comment\n", TDCL_EPARSE,
            "bad.rle:2: expected the header 'x = W, y = H, "
            "rule = R', got end of file");
    rle_bad("#C c\nbob$2bo$3o!\n", TDCL_EPARSE, "bad.rle:2: expected the header 'x = W, y = H");
    rle_bad("x = 3\nooo!\n", TDCL_EPARSE, "bad.rle:1: expected the header");
    rle_bad("x = -3, y = 1\nooo!\n", TDCL_EPARSE, "bad.rle:1: expected a size >= 0 after 'x ='");
    rle_bad("x = 3, y = 1, rule = B9/S2\nooo!\n", TDCL_EINVAL, "bad.rle:1: rule 'B9/S2'");
    rle_bad("x = 3, y = 1, rule = B2-a/S12\nooo!\n", TDCL_EUNSUPPORTED,
            "bad.rle:1: 'B2-a/S12' is a non-totalistic rule");
    rle_bad("#r 23/3/3\nx = 3, y = 1\nooo!\n", TDCL_EUNSUPPORTED, "bad.rle:1: '23/3/3' is a multi");
    rle_bad("x = 3, y = 2\nooo$\nbbbo!\n", TDCL_EPARSE,
            "bad.rle:3: row 2 has more than the header's x = 3 cells");
    rle_bad("x = 3, y = 2\n5o!\n", TDCL_EPARSE, "bad.rle:2: row 1 has more than");
    rle_bad("x = 3, y = 2\no$o$o!\n", TDCL_EPARSE, "bad.rle:2: more than the header's y = 2");
    rle_bad("x = 3, y = 2\n\n\nobz!\n", TDCL_EPARSE,
            "bad.rle:4: expected 'b', 'o', '$' or '!', got 'z'");
    rle_bad("x = 3, y = 2\n2 o!\n", TDCL_EPARSE,
            "bad.rle:2: expected 'b', 'o' or '$' after the run count 2");
    rle_bad("x = 3, y = 2\n0o!\n", TDCL_EPARSE, "bad.rle:2: expected a run count >= 1, got 0");
    rle_bad("x = 3, y = 2\n99999999999999999999o!\n", TDCL_EPARSE, "run count too large");
    rle_bad("x = 3, y = 2\noBo!\n", TDCL_EUNSUPPORTED, "bad.rle:2: state 'B' of a multi-state");
    rle_bad("x = 3, y = 3, rule = B3/S23:T2,2\nooo!\n", TDCL_EPARSE,
            "does not fit in its bounded grid");
    /* sizes checked before anything is allocated */
    rle_bad("x = 100000, y = 100000\n!\n", TDCL_ELIMIT, "larger than the limit of 1000000 cells");
    rle_bad("x = 4611686018427387904, y = 4611686018427387904\n!\n", TDCL_ELIMIT, "larger than");
}

static void test_cells(void **state)
{
    (void)state;
    static const char *want[] = {".O..", "..O.", "OOO.", "...."};
    const char *text = "!Name: Glider\n!\n.O\n..O  \r\nOOO\n\n";
    tdcl_life_pattern p;
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_cells_parse("g.cells", text, strlen(text), 0, &p, &e), TDCL_OK);
    /* the empty line is a row of dead cells; short rows are padded */
    static const char *want3[] = {".O.", "..O", "OOO", "..."};
    expect_rows(&p, want3, 4);
    (void)want;
    tdcl_life_pattern_free(&p);
    const char *bad = "!c\n.O.\n.X.\n";
    assert_int_equal(tdcl_life_cells_parse("b.cells", bad, strlen(bad), 0, &p, &e), TDCL_EPARSE);
    assert_string_equal(e.msg, "b.cells:3: expected '.' or 'O', got 'X'");
    const char *sp = ".O O\n";
    assert_int_equal(tdcl_life_cells_parse("b.cells", sp, strlen(sp), 0, &p, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "b.cells:1: expected '.' or 'O', got ' '"));
    const char *none = "!only comments\n";
    assert_int_equal(tdcl_life_cells_parse("n.cells", none, strlen(none), 0, &p, &e), TDCL_EPARSE);
    const char *wide = "OOOOOOOOOO\nO\n";
    assert_int_equal(tdcl_life_cells_parse("w.cells", wide, strlen(wide), 15, &p, &e), TDCL_ELIMIT);
}

static tdcl_matrix random_grid(int64_t rows, int64_t cols, uint64_t seed)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_life_soup(rows, cols, 0.3, seed, &m, NULL), TDCL_OK);
    return m;
}

/* Reads a whole file into a NUL-terminated buffer. */
static char *slurp(const char *path, size_t *len)
{
    char *d = NULL;
    assert_int_equal(tdcl_read_file(path, &d, len, NULL), TDCL_OK);
    return d;
}

static void test_rle_write_round_trip(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "r.rle");
    static const int64_t sizes[][2] = {{1, 1}, {7, 300}, {40, 33}, {5, 5}};
    for (int b = 0; b < 3; b++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            tdcl_matrix g = random_grid(sizes[s][0], sizes[s][1], s + 10 * (size_t)b);
            uint8_t *c = g.data;
            if (s == 2) { /* blank rows at the top, in the middle and at the bottom */
                memset(c, 0, 3 * 33);
                memset(c + 20 * 33, 0, 5 * 33);
                memset(c + 37 * 33, 0, 3 * 33);
            }
            if (s == 3) memset(c, 0, 25); /* an empty grid keeps its size */
            tdcl_life_write_opts w = {.rule = parse_ok("B36/S23"),
                                      .boundary = (tdcl_life_boundary)b,
                                      .generation = 12,
                                      .comment = "test"};
            assert_int_equal(tdcl_life_write(path, &g, &w, NULL), TDCL_OK);
            size_t len;
            char *text = slurp(path, &len);
            for (char *line = text; *line;) { /* Golly's and LifeWiki's 70 columns */
                char *nl = strchr(line, '\n');
                assert_non_null(nl);
                assert_true(nl - line <= 70);
                line = nl + 1;
            }
            tdcl_life_pattern p;
            tdcl_err e = {0};
            if (tdcl_life_read(path, 0, &p, &e) != TDCL_OK)
                fail_msg("%s: %s\n%s", path, e.msg, text);
            assert_int_equal(p.grid.rows, g.rows);
            assert_int_equal(p.grid.cols, g.cols);
            assert_memory_equal(p.grid.data, g.data, (size_t)(g.rows * g.cols));
            assert_int_equal(p.rule.birth, w.rule.birth);
            /* clamp too: a comment Golly ignores carries it */
            assert_true(p.topo.present);
            assert_int_equal(p.topo.boundary, b);
            assert_int_equal(p.generation, 12);
            free(text);
            tdcl_life_pattern_free(&p);
            tdcl_matrix_free(&g);
        }
    free(path);
    free(dir);
}

static void test_rle_write_exact(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "g.rle");
    tdcl_life_pattern p = rle_ok("x = 6, y = 6\n$$bob$2bo$3o!\n");
    tdcl_life_write_opts w = {.rule = tdcl_life_rule_conway(), .boundary = TDCL_LIFE_TORUS};
    assert_int_equal(tdcl_life_write(path, &p.grid, &w, NULL), TDCL_OK);
    size_t len;
    char *text = slurp(path, &len);
    assert_string_equal(text, "#CXRLE Pos=-3,-3 Gen=0\n"
                              "x = 6, y = 6, rule = B3/S23:T6,6\n"
                              "2$bo$2bo$3o!\n");
    free(text);
    tdcl_life_pattern_free(&p);
    /* an unbounded plane far out (a deep .mc pattern lies near 2^62): the
     * place written is the place read back, to the last unit */
    tdcl_life_write_opts far = {.rule = tdcl_life_rule_conway(),
                                .unbounded = 1,
                                .x0 = 2305843009213693944,
                                .y0 = INT64_MIN + 1,
                                .generation = 9};
    p = rle_ok("x = 3, y = 3\nbo$2bo$3o!\n");
    assert_int_equal(tdcl_life_write(path, &p.grid, &far, NULL), TDCL_OK);
    tdcl_life_pattern_free(&p);
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_read(path, 0, &p, &e), TDCL_OK);
    assert_int_equal(p.x0, 2305843009213693944);
    assert_int_equal(p.y0, INT64_MIN + 1);
    assert_int_equal(p.generation, 9);
    assert_int_equal(p.grid.cols, 3);
    assert_int_equal(((uint8_t *)p.grid.data)[1], 1);
    tdcl_life_pattern_free(&p);
    p = rle_ok("#CXRLE Pos=9223372036854775805,-9223372036854775808\nx = 3, y = 1\n3o!\n");
    assert_int_equal(p.x0, INT64_MAX - 2);
    assert_int_equal(p.y0, INT64_MIN);
    tdcl_life_pattern_free(&p);
    /* never dropped without a word: past int64, or a far cell past it */
    rle_bad("#CXRLE Pos=9223372036854775808,0\nx = 1, y = 1\no!\n", TDCL_ERANGE,
            "bad.rle:1: expected a 64-bit integer after 'Pos=', got '9223372036854775808,0'");
    rle_bad("#CXRLE Pos=9223372036854775806,0\nx = 3, y = 1\n3o!\n", TDCL_ERANGE,
            "bad.rle:2: the pattern (3 x 1 at 9223372036854775806,0) runs past the edge");
    rle_bad("#CXRLE Pos=9223372036854775000,0\nx = 3, y = 1, rule = B3/S23:T10,10\n3o!\n",
            TDCL_EPARSE, "does not fit in its bounded grid of 10 x 10");
    free(path);
    free(dir);
}

static void test_formats_round_trip(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    static const char *names[] = {"g.cells", "g.mtx", "g.npy", "g.pbm", "g.png"};
    tdcl_matrix g = random_grid(23, 41, 5);
    tdcl_life_write_opts w = {.rule = tdcl_life_rule_conway()};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *path = tdcl_test_join(dir, names[i]);
        tdcl_err e = {0};
        if (tdcl_life_write(path, &g, &w, &e) != TDCL_OK) fail_msg("%s: %s", names[i], e.msg);
        tdcl_life_pattern p;
        if (tdcl_life_read(path, 0, &p, &e) != TDCL_OK) fail_msg("%s: %s", names[i], e.msg);
        assert_int_equal(p.grid.rows, 23);
        assert_int_equal(p.grid.cols, 41);
        assert_memory_equal(p.grid.data, g.data, 23 * 41);
        tdcl_life_pattern_free(&p);
        free(path);
    }
    /* PNG with --scale: 3x3 pixels a cell, live cells black */
    char *png = tdcl_test_join(dir, "s.png");
    w.scale = 3;
    assert_int_equal(tdcl_life_write(png, &g, &w, NULL), TDCL_OK);
    tdcl_matrix img = {0};
    int maxval = 0;
    assert_int_equal(tdcl_image_read(png, &img, &maxval, NULL), TDCL_OK);
    assert_int_equal(img.rows, 69);
    assert_int_equal(img.cols, 123);
    for (int64_t y = 0; y < img.rows; y++)
        for (int64_t x = 0; x < img.cols; x++)
            assert_int_equal(((uint8_t *)img.data)[(y * img.cols + x) * img.channels] == 0,
                             ((uint8_t *)g.data)[(y / 3) * 41 + x / 3]);
    tdcl_matrix_free(&img);
    free(png);
    /* the content decides when the extension does not */
    char *odd = tdcl_test_join(dir, "pattern.txt");
    tdcl_test_write_text(odd, "#C x\nx = 2, y = 1\n2o!\n");
    tdcl_life_pattern p;
    assert_int_equal(tdcl_life_read(odd, 0, &p, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&p.grid), 2);
    tdcl_life_pattern_free(&p);
    tdcl_test_write_text(odd, "!x\n.O\nO.\n");
    assert_int_equal(tdcl_life_read(odd, 0, &p, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&p.grid), 2);
    tdcl_life_pattern_free(&p);
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_write(odd, &g, &w, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "unknown output format"));
    free(odd);
    tdcl_matrix_free(&g);
    free(dir);
}

/* ---- a GIF decoder, from the GIF89a specification ------------------------ */

typedef struct gif_reader {
    const uint8_t *p, *end;
} gif_reader;

/* Decodes one image's LZW data into out (w*h indices); returns 0 on success. */
static int lzw_decode(gif_reader *r, uint8_t *out, size_t n)
{
    int min = *r->p++;
    static uint8_t data[1 << 20];
    size_t len = 0;
    for (int b; (b = *r->p++) != 0; r->p += b) {
        memcpy(data + len, r->p, (size_t)b);
        len += (size_t)b;
    }
    int clear = 1 << min, eoi = clear + 1, size = min + 1, next = eoi + 1, prev = -1;
    static uint16_t prefix[4096];
    static uint8_t suffix[4096], stack[4096];
    size_t bit = 0, o = 0;
    for (;;) {
        int code = 0;
        for (int i = 0; i < size; i++, bit++)
            code |= ((data[bit / 8] >> (bit % 8)) & 1) << i;
        if (code == clear) {
            size = min + 1;
            next = eoi + 1;
            prev = -1;
            continue;
        }
        if (code == eoi) break;
        int c = code, sp = 0;
        uint8_t first;
        if (code >= next) { /* the KwKwK case */
            if (code != next || prev < 0) return -1;
            c = prev;
            sp = 1;
        }
        while (c >= clear) {
            stack[sp++] = suffix[c];
            c = prefix[c];
        }
        first = (uint8_t)c;
        stack[sp++] = first;
        if (code >= next) stack[0] = first;
        if (prev >= 0 && next < 4096) {
            prefix[next] = (uint16_t)prev;
            suffix[next] = first;
            next++;
            if (next == (1 << size) && size < 12) size++;
        }
        while (sp > 0) {
            if (o >= n) return -1;
            out[o++] = stack[--sp];
        }
        prev = code;
    }
    return o == n ? 0 : -1;
}

static void test_gif(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "a.gif");
    tdcl_matrix f[3];
    f[0] = random_grid(37, 90, 1);
    f[1] = random_grid(37, 90, 2);
    assert_int_equal(tdcl_matrix_alloc(&f[2], 37, 90, 1, TDCL_U8, NULL), TDCL_OK);
    memset(f[2].data, 1, 37 * 90); /* long runs: the table fills and is cleared */
    tdcl_life_gif *g = NULL;
    assert_int_equal(tdcl_life_gif_open(path, 37, 90, 2, 7, &g, NULL), TDCL_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tdcl_life_gif_frame(g, &f[i], NULL), TDCL_OK);
    assert_int_equal(tdcl_life_gif_close(g, NULL), TDCL_OK);
    size_t len;
    char *bytes = slurp(path, &len);
    gif_reader r = {(const uint8_t *)bytes, (const uint8_t *)bytes + len};
    assert_memory_equal(r.p, "GIF89a", 6);
    assert_int_equal(r.p[6] | r.p[7] << 8, 180);
    assert_int_equal(r.p[8] | r.p[9] << 8, 74);
    r.p += 13 + 6 + 19; /* screen, 2-colour table, loop extension */
    uint8_t *px = malloc(180 * 74);
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(r.p, "\x21\xf9\x04", 3);
        assert_int_equal(r.p[4], 7);
        r.p += 8;
        assert_int_equal(*r.p, 0x2c);
        r.p += 10;
        assert_int_equal(lzw_decode(&r, px, 180 * 74), 0);
        for (int y = 0; y < 74; y++)
            for (int x = 0; x < 180; x++)
                assert_int_equal(px[y * 180 + x], ((uint8_t *)f[i].data)[(y / 2) * 90 + x / 2]);
    }
    assert_int_equal(*r.p, 0x3b);
    assert_ptr_equal(r.p + 1, r.end);
    free(px);
    free(bytes);
    for (int i = 0; i < 3; i++)
        tdcl_matrix_free(&f[i]);
    tdcl_life_gif *big = NULL;
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_gif_open(path, 40000, 10, 2, 7, &big, &e), TDCL_ELIMIT);
    free(path);
    free(dir);
}

/* The patterns in data/: the glider, the Gosper gun (period 30, a glider
 * more each period), the pulsar (period 3), on the host reference. */
static void test_data_patterns(void **state)
{
    (void)state;
    const char *data = getenv("TDCL_DATA");
    if (!data) skip();
    char *gun = tdcl_test_join(data, "gosper-gun.rle"),
         *pulsar = tdcl_test_join(data, "pulsar.cells");
    tdcl_life_pattern p, q;
    assert_int_equal(tdcl_life_read(gun, 0, &p, NULL), TDCL_OK);
    assert_int_equal(p.grid.cols, 36);
    assert_int_equal(tdcl_life_population(&p.grid), 36);
    tdcl_matrix a = {0}, b = {0};
    assert_int_equal(tdcl_matrix_alloc(&a, 40, 60, 1, TDCL_U8, NULL), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&b, 40, 60, 1, TDCL_U8, NULL), TDCL_OK);
    for (int y = 0; y < 9; y++)
        memcpy((uint8_t *)a.data + (y + 1) * 60 + 1, (uint8_t *)p.grid.data + y * 36, 36);
    tdcl_life_rule conway = tdcl_life_rule_conway();
    for (int gen = 1; gen <= 60; gen++) {
        tdcl_life_host_step(&a, &b, &conway, TDCL_LIFE_DEAD);
        tdcl_matrix t = a;
        a = b;
        b = t;
        if (gen % 30 == 0) assert_int_equal(tdcl_life_population(&a), 36 + 5 * gen / 30);
    }
    assert_int_equal(tdcl_life_read(pulsar, 0, &q, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&q.grid), 48);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    assert_int_equal(tdcl_matrix_alloc(&a, 15, 15, 1, TDCL_U8, NULL), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&b, 15, 15, 1, TDCL_U8, NULL), TDCL_OK);
    for (int y = 0; y < 13; y++)
        memcpy((uint8_t *)a.data + (y + 1) * 15 + 1, (uint8_t *)q.grid.data + y * 13, 13);
    tdcl_matrix start = {0};
    assert_int_equal(tdcl_matrix_convert(&a, TDCL_U8, &start, NULL), TDCL_OK);
    for (int gen = 1; gen <= 3; gen++) {
        tdcl_life_host_step(&a, &b, &conway, TDCL_LIFE_DEAD);
        tdcl_matrix t = a;
        a = b;
        b = t;
        if (gen < 3) assert_memory_not_equal(a.data, start.data, 225);
    }
    assert_memory_equal(a.data, start.data, 225);
    tdcl_matrix_free(&start);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_life_pattern_free(&p);
    tdcl_life_pattern_free(&q);
    free(gun);
    free(pulsar);
}

/* Golly's readers beyond RLE: Life 1.05 and 1.06, Macrocell, RLE's #r and
 * counts across lines, gzip through tdcl_life_read. */
static void test_golly_formats(void **state)
{
    (void)state;
    tdcl_life_pattern p;
    tdcl_err e = {0};
    const char *l105 = "#Life 1.05\n#D glider\n#R 23/36\n#P -1 -1\n.*\n..*\n***\n#P 10 10\n*\n";
    assert_int_equal(tdcl_life_lif_parse("g.lif", l105, strlen(l105), 0, &p, &e), TDCL_OK);
    assert_int_equal(p.x0, -1);
    assert_int_equal(p.y0, -1);
    assert_int_equal(p.grid.cols, 12);
    assert_int_equal(p.grid.rows, 12);
    assert_int_equal(tdcl_life_population(&p.grid), 6);
    assert_int_equal(((uint8_t *)p.grid.data)[11 * 12 + 11], 1);
    assert_int_equal(p.rule.birth, (1 << 3) | (1 << 6));
    tdcl_life_pattern_free(&p);
    const char *l106 = "#Life 1.06\n0 -1\n1 0\n-1 1\n0 1\n1 1\n";
    assert_int_equal(tdcl_life_lif_parse("g.lif", l106, strlen(l106), 0, &p, &e), TDCL_OK);
    assert_int_equal(p.x0, -1);
    assert_int_equal(p.y0, -1);
    assert_int_equal(((uint8_t *)p.grid.data)[1], 1);
    assert_int_equal(tdcl_life_population(&p.grid), 5);
    tdcl_life_pattern_free(&p);
    /* what bgolly -h writes for a glider with its top-left cell at 0,0 */
    const char *mc = "[M2] (golly 3.3)\n#R B3/S23\n$$$$$$$.*$\n..*$***$\n4 0 1 0 2\n";
    assert_int_equal(tdcl_life_mc_parse("g.mc", mc, strlen(mc), 0, &p, &e), TDCL_OK);
    assert_int_equal(p.x0, 0);
    assert_int_equal(p.y0, 0);
    assert_int_equal(p.grid.cols, 3);
    assert_int_equal(p.grid.rows, 3);
    assert_memory_equal(p.grid.data, "\0\1\0\0\0\1\1\1\1", 9);
    tdcl_life_pattern_free(&p);
    const char *ms = "[M2] (golly 3.3)\n#R Wireworld\n1 0 1 1 1\n";
    assert_int_equal(tdcl_life_mc_parse("w.mc", ms, strlen(ms), 0, &p, &e), TDCL_EUNSUPPORTED);
    const char *mcb = "[M2]\n*$\n4 1 0 0 1\n";
    assert_int_equal(tdcl_life_mc_parse("b.mc", mcb, strlen(mcb), 10, &p, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "span 9 x 9 cells, more than the limit of 10 cells"));
    /* #r and a count split from its tag */
    p = rle_ok("#r 23/36\nx = 3, y = 3\nbo$2bo$3\no!\n");
    assert_int_equal(p.rule.birth, (1 << 3) | (1 << 6));
    assert_int_equal(tdcl_life_population(&p.grid), 5);
    assert_int_equal(p.x0, 0);
    tdcl_life_pattern_free(&p);
    /* gzip, by name and by content */
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "g.rle.gz");
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "printf '#CXRLE Pos=7,-3 Gen=5\\nx = 3, y = 1\\n3o!\\n' | gzip -c > '%s'", path);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tdcl_life_read(path, 0, &p, &e), TDCL_OK);
    assert_int_equal(tdcl_life_population(&p.grid), 3);
    assert_int_equal(p.x0, 7);
    assert_int_equal(p.y0, -3);
    assert_int_equal(p.generation, 5);
    tdcl_life_pattern_free(&p);
    free(path);
    free(dir);
}

/* The cells of a list as "x,y x,y ...", sorted by row. */
static char *cells_text(tdcl_life_cells *c)
{
    static char buf[1024];
    size_t n = 0;
    tdcl_life_cells_sort(c);
    buf[0] = '\0';
    for (size_t i = 0; i < c->n && n < sizeof buf - 48; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld,%lld", i ? " " : "",
                              (long long)c->xy[2 * i], (long long)c->xy[2 * i + 1]);
    return buf;
}

/* Golly's formats read as lists of live cells, no grid: a hand-built
 * Macrocell tree (shared nodes, a node reached twice) walked to cells
 * worked out by hand and equal to the grid the dense reader draws; Life
 * 1.06 and .cells listed; populations past the list's bound refused with
 * the line, before the list grows. */
static void test_golly_cell_lists(void **state)
{
    (void)state;
    tdcl_life_pattern p, q;
    tdcl_life_cells c = {0}, d = {0};
    tdcl_err e = {0};
    /* leaf 1 a glider, leaf 2 the cell (7,7); node 3 (16 wide) holds the
     * glider at (0,0) and (8,8) and leaf 2 at (0,8); the root (32 wide,
     * centred: plane = (x - 16, y - 15)) holds node 3 at (16,0) and (16,16) */
    const char *mc = "[M2] (golly 3.3)\n#R B3/S23\n#G 5\n.*$..*$***$\n$$$$$$$.......*$\n"
                     "4 1 0 2 1\n5 0 3 0 3\n";
    assert_int_equal(tdcl_life_mc_read("h.mc", mc, 0, &p, &c, &e), TDCL_OK);
    assert_null(p.grid.data);
    assert_int_equal(p.grid.cols, 11);
    assert_int_equal(p.grid.rows, 32);
    assert_int_equal(p.x0, 0);
    assert_int_equal(p.y0, -15);
    assert_int_equal(p.generation, 5);
    assert_string_equal(cells_text(&c), "1,-15 2,-14 0,-13 1,-13 2,-13 9,-7 10,-6 8,-5 9,-5 10,-5 "
                                        "7,0 1,1 2,2 0,3 1,3 2,3 9,9 10,10 8,11 9,11 10,11 7,16");
    assert_int_equal(tdcl_life_mc_parse("h.mc", mc, strlen(mc), 0, &q, &e), TDCL_OK);
    assert_int_equal(tdcl_life_cells_from_grid(&q.grid, q.x0, q.y0, &d, &e), TDCL_OK);
    assert_string_equal(cells_text(&d), cells_text(&c));
    tdcl_life_pattern_free(&p);
    tdcl_life_pattern_free(&q);
    /* 1024 live cells from three lines: refused at the root's line */
    const char *full = "[M2]\n********$********$********$********$********$********$********$"
                       "********$\n4 1 1 1 1\n5 2 2 2 2\n";
    c.n = 0;
    assert_int_equal(tdcl_life_mc_read("f.mc", full, 1000 * TDCL_LIFE_CELL_BYTES, &p, &c, &e),
                     TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "f.mc:4: 1024 live cells take 16.4 kB as a list"));
    assert_int_equal(c.n, 0);
    assert_int_equal(tdcl_life_mc_read("f.mc", full, 1024 * TDCL_LIFE_CELL_BYTES, &p, &c, &e),
                     TDCL_OK);
    assert_int_equal(c.n, 1024);
    tdcl_life_pattern_free(&p);
    /* a live cell outside its 8x8 leaf is refused, as Golly refuses it */
    const char *wide = "[M2]\n.........*$\n4 1 0 0 0\n";
    assert_int_equal(tdcl_life_mc_read("w.mc", wide, 0, &p, &c, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "w.mc:2: expected a leaf of 8 rows of 8 cells"));
    /* Life 1.06 with cells 2^40 apart: a box no grid holds, two cells listed */
    const char *l106 = "#Life 1.06\n-1099511627776 3\n1099511627776 -2\n";
    c.n = 0;
    assert_int_equal(tdcl_life_lif_read("f.lif", l106, 0, &p, &c, &e), TDCL_OK);
    assert_int_equal(p.grid.cols, INT64_C(2199023255553));
    assert_int_equal(p.grid.rows, 6);
    assert_int_equal(p.x0, -INT64_C(1099511627776));
    assert_int_equal(p.y0, -2);
    assert_string_equal(cells_text(&c), "1099511627776,-2 -1099511627776,3");
    c.n = 0;
    assert_int_equal(tdcl_life_lif_read("f.lif", l106, TDCL_LIFE_CELL_BYTES, &p, &c, &e),
                     TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "f.lif:3: 2 live cells"));
    tdcl_life_cells_free(&c);
    tdcl_life_cells_free(&d);
    /* .cells and RLE through the reader by path */
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "g.cells");
    char *rle = tdcl_test_join(dir, "r.rle"), cmd[512];
    snprintf(cmd, sizeof cmd,
             "printf '!g\\n.O\\n\\n..O\\n' > '%s'; printf 'x = 90, y = 2\\n$90o!\\n' > '%s'", path,
             rle);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tdcl_life_read_cells(path, 0, &p, &c, &e), TDCL_OK);
    assert_null(p.grid.data);
    assert_int_equal(p.grid.rows, 3);
    assert_int_equal(p.grid.cols, 3);
    assert_string_equal(cells_text(&c), "1,0 2,2");
    c.n = 0;
    assert_int_equal(tdcl_life_read_cells(rle, 89 * TDCL_LIFE_CELL_BYTES, &p, &c, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "r.rle:2: 90 live cells"));
    assert_int_equal(c.n, 0);
    tdcl_life_cells_free(&c);
    free(rle);
    free(path);
    free(dir);
}

static int row_major(const void *a, const void *b)
{
    const int64_t *p = a, *q = b;
    if (p[1] != q[1]) return p[1] < q[1] ? -1 : 1;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/* The cell list's sort (a radix sort past a few cells) against qsort's row
 * order: coordinates over the whole 64-bit range, negative ones, narrow
 * spans with repeats, spans that differ only in high bytes. */
static void test_cells_sort(void **state)
{
    (void)state;
    uint64_t s = 41;
    const uint64_t masks[] = {~UINT64_C(0), 0xff, 0xff00000000ff, 0x3ff};
    for (int m = 0; m < 4; m++)
        for (size_t n = 1; n <= 3000; n = n * 7 + 2) {
            tdcl_life_cells c = {0};
            tdcl_err e = {0};
            for (size_t i = 0; i < n; i++) {
                int64_t x = (int64_t)(tdcl_rng_next(&s) & masks[m]);
                int64_t y = (int64_t)(tdcl_rng_next(&s) & masks[m]);
                if (m && (i & 1)) x = -x;
                if (m == 1 && i % 3 == 0) y = -y - 1;
                assert_int_equal(tdcl_life_cells_add(&c, x, y, &e), TDCL_OK);
            }
            if (m == 0 && n > 2) {
                c.xy[0] = INT64_MIN, c.xy[1] = INT64_MAX;
                c.xy[2] = INT64_MAX, c.xy[3] = INT64_MIN;
            }
            int64_t *want = malloc(n * 2 * sizeof *want);
            assert_non_null(want);
            memcpy(want, c.xy, n * 2 * sizeof *want);
            qsort(want, n, 2 * sizeof *want, row_major);
            tdcl_life_cells_sort(&c);
            assert_memory_equal(c.xy, want, n * 2 * sizeof *want);
            free(want);
            tdcl_life_cells_free(&c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golly_formats),
        cmocka_unit_test(test_golly_cell_lists),
        cmocka_unit_test(test_cells_sort),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_golly_topology),
        cmocka_unit_test(test_rle_read),
        cmocka_unit_test(test_rle_golly_grid),
        cmocka_unit_test(test_rle_errors),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_rle_write_round_trip),
        cmocka_unit_test(test_rle_write_exact),
        cmocka_unit_test(test_formats_round_trip),
        cmocka_unit_test(test_gif),
        cmocka_unit_test(test_data_patterns),
    };
    return cmocka_run_group_tests_name("life_io", tests, NULL, NULL);
}

/* The rule networks found by search (ops/life/life_net.c) against the
 * rule itself: every 3x3 block of cells is reduced to planes the way
 * cl/life/prelude.cl's adder does (row sums, then sum and majority of each
 * weight), run through the network, and compared with the block's
 * neighbour count looked up in the rule. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/rng.h"
#include "base/rule.h"
#include "ops/life/life_choice.h"
#include "ops/life/life_net.h"
#include "ops/life/life_prog.h"

static int maj(int a, int b, int c)
{
    return (a & b) | (c & (a | b));
}

/* Every one of the 512 blocks (bit 3r + c: row r, column c; the cell is
 * bit 4) through net, against the rule; the blocks that disagree. */
static int mismatches(const tdcl_life_net *net, tdcl_life_rule rule)
{
    int bad = 0;
    for (int b = 0; b < 512; b++) {
        int r0[3], r1[3], neighbours = 0;
        for (int r = 0; r < 3; r++) {
            const int w = (b >> (3 * r)) & 1, c = (b >> (3 * r + 1)) & 1,
                      e = (b >> (3 * r + 2)) & 1;
            r0[r] = w ^ c ^ e;
            r1[r] = maj(w, c, e);
            neighbours += w + e + (r != 1 ? c : 0);
        }
        const int alive = (b >> 4) & 1;
        const int s0 = r0[0] ^ r0[1] ^ r0[2], k0 = maj(r0[0], r0[1], r0[2]);
        const int x = r1[0] ^ r1[1] ^ r1[2], y = maj(r1[0], r1[1], r1[2]);
        const int want = alive ? (rule.survive >> neighbours) & 1 : (rule.birth >> neighbours) & 1;
        bad += tdcl_life_net_eval(net, s0, k0, x, y, alive) != want;
    }
    return bad;
}

static tdcl_life_rule rule_of(unsigned birth, unsigned survive)
{
    tdcl_life_rule r;
    memset(&r, 0, sizeof r);
    r.birth = (uint16_t)birth;
    r.survive = (uint16_t)survive;
    return r;
}

static void test_conway(void **state)
{
    (void)state;
    tdcl_life_net net;
    assert_true(tdcl_life_net_find(tdcl_life_rule_conway(), &net));
    assert_int_equal(mismatches(&net, tdcl_life_rule_conway()), 0);
    /* and a wrong table would be caught: every bit of each gate matters */
    int caught = 0;
    for (int g = 0; g < 3; g++)
        for (int bit = 0; bit < 8; bit++) {
            tdcl_life_net bad = net;
            bad.table[g] ^= 1u << bit;
            caught += mismatches(&bad, tdcl_life_rule_conway()) > 0;
        }
    assert_true(caught >= 16);
}

/* Golly's named Life-like rules and random ones: where a network is found,
 * it is the rule. */
static void test_other_rules(void **state)
{
    (void)state;
    static const unsigned named[][2] = {
        {0x048, 0x00c}, /* HighLife B36/S23 */
        {0x1c8, 0x1d8}, /* Day & Night B3678/S34678 */
        {0x004, 0x000}, /* Seeds B2/S */
        {0x008, 0x1ff}, /* Life without death B3/S012345678 */
        {0x008, 0x03e}, /* Maze B3/S12345 */
        {0x048, 0x026}, /* 2x2 B36/S125 */
        {0x0aa, 0x0aa}, /* Replicator B1357/S1357 */
        {0x1c8, 0x00c}, /* B3678/S23 */
        {0x008, 0x004}, /* B3/S2 */
    };
    int found = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        tdcl_life_net net;
        const tdcl_life_rule r = rule_of(named[i][0], named[i][1]);
        if (!tdcl_life_net_find(r, &net)) continue;
        found++;
        assert_int_equal(mismatches(&net, r), 0);
    }
    uint64_t seed = 25;
    for (int i = 0; i < 40; i++) {
        tdcl_life_net net;
        const uint64_t v = tdcl_rng_next(&seed);
        const tdcl_life_rule r = rule_of((unsigned)(v & 0x1fe), (unsigned)((v >> 9) & 0x1ff));
        if (!tdcl_life_net_find(r, &net)) continue;
        found++;
        assert_int_equal(mismatches(&net, r), 0);
    }
    assert_true(found >= 3); /* HighLife and B3/S2 at least: not a test of nothing */
}

static void test_not_moore(void **state)
{
    (void)state;
    tdcl_life_net net;
    tdcl_life_rule r = tdcl_life_rule_conway();
    r.nbhd = TDCL_LIFE_HEX;
    assert_false(tdcl_life_net_find(r, &net));
}

static void test_opts(void **state)
{
    (void)state;
    char buf[256] = "-DX=1";
    int used = 5;
    assert_true(tdcl_life_net_opts(tdcl_life_rule_conway(), buf, sizeof buf, &used));
    assert_int_equal(used, (int)strlen(buf));
    assert_non_null(strstr(buf, "-DX=1 -DNET3=1 -DN3_A0="));
    assert_non_null(strstr(buf, " -DN3_T2=0x"));
    char small[24] = "-DX=1";
    used = 5;
    assert_false(tdcl_life_net_opts(tdcl_life_rule_conway(), small, sizeof small, &used));
    assert_int_equal(used, 5);
    assert_string_equal(small, "-DX=1");
}

/* Each program has its own macro, spelled as cl/life/prelude.cl tests it. */
static void test_prog_macros(void **state)
{
    (void)state;
    for (int a = 0; a < TDCL_LIFE_PROG_COUNT; a++) {
        const char *m = tdcl_life_prog_macro((tdcl_life_prog)a);
        assert_non_null(m);
        assert_int_equal(strncmp(m, "LIFE_PROG_", 10), 0);
        for (int b = 0; b < a; b++)
            assert_string_not_equal(m, tdcl_life_prog_macro((tdcl_life_prog)b));
    }
    assert_string_equal(tdcl_life_prog_macro(TDCL_LIFE_PROG_BITS), "LIFE_PROG_BITS");
    assert_null(tdcl_life_prog_macro(TDCL_LIFE_PROG_COUNT));
}

/* A device description as tdcl_cl_devices fills it, no device behind it. */
static tdcl_device_info fake_device(cl_device_type type, size_t max_wg, cl_ulong local_mem)
{
    tdcl_device_info d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.compute_units = 16;
    d.max_wg = max_wg;
    d.max_item_sizes[0] = d.max_item_sizes[1] = d.max_item_sizes[2] = max_wg;
    d.local_mem = local_mem;
    d.global_mem = d.max_alloc = (cl_ulong)1 << 32;
    snprintf(d.device_name, sizeof d.device_name, "fake");
    return d;
}

/* The fallback rules, one at a time, on shapes that take each. */
static void test_choice_fallbacks(void **state)
{
    (void)state;
    tdcl_device_info gpu = fake_device(CL_DEVICE_TYPE_GPU, 1024, 48 * 1024);
    tdcl_life_opts o = tdcl_life_opts_default();
    const int64_t rows = 4096, cols = 4096;
    /* the tile in registers gives way to tiles in local memory */
    life_cfg c = tdcl_life_choice_first(&gpu, &o, rows, cols);
    assert_int_equal(c.bits, 1);
    c.reg = c.flow = 1;
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &c));
    assert_int_equal(c.reg, 0);
    assert_int_equal(c.mode, MODE_TILES);
    /* life_flow gives way to the same tiles launched step by step */
    c.flow = 1;
    life_cfg before = c;
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &c));
    assert_int_equal(c.flow, 0);
    assert_int_equal(c.lx, before.lx);
    assert_int_equal(c.ly, before.ly);
    assert_int_equal(c.s, before.s);
    /* then smaller tiles: half the rows of work-items, still an output row */
    c.ly = 8;
    c.s = 16;
    c.k = 8;
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &c));
    assert_int_equal(c.ly, 4);
    assert_true(c.ly * c.s > 2 * c.k);
    /* a CPU's band that cannot shrink: one generation per launch */
    life_cfg band = {.bits = 1, .mode = MODE_BLOCK, .wb = 64, .s = 1, .k = 8, .vw = 8};
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &band));
    assert_int_equal(band.mode, MODE_GLOBAL);
    /* whole rows that cannot shrink: tiles */
    life_cfg whole = {.bits = 1, .mode = MODE_BANDS, .wb = 64, .lx = 16, .ly = 1, .s = 64, .k = 8};
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &whole));
    assert_int_equal(whole.mode, MODE_TILES);
    /* bytes: halve the tile down to one cell, then nothing is left */
    life_cfg bytes = {.bits = 0, .ts = 2};
    assert_true(tdcl_life_choice_next(&gpu, &o, rows, cols, &bytes));
    assert_int_equal(bytes.ts, 1);
    assert_false(tdcl_life_choice_next(&gpu, &o, rows, cols, &bytes));
}

/* The candidates for a small device: every one fits it, and a device too
 * small for the first shape still gets one. */
static void test_choice_list(void **state)
{
    (void)state;
    tdcl_life_opts o = tdcl_life_opts_default();
    life_cfg list[64];
    const tdcl_device_info devs[] = {
        fake_device(CL_DEVICE_TYPE_CPU, 4096, 32 * 1024),
        fake_device(CL_DEVICE_TYPE_GPU, 1024, 48 * 1024),
        fake_device(CL_DEVICE_TYPE_GPU, 64, 8 * 1024),
    };
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        size_t n = tdcl_life_choice_list(&devs[i], &o, 1000, 1000, list, 64);
        assert_true(n >= 1);
        for (size_t j = 0; j < n; j++) {
            int64_t nw = list[j].bits ? (1000 + list[j].wb - 1) / list[j].wb : 1000;
            assert_true(list[j].lx * list[j].ly <= (int)devs[i].max_wg || !list[j].bits);
            assert_true(nw >= 1);
            assert_true(tdcl_life_choice_fits(&devs[i], &list[j], 1000, 1000));
        }
    }
    /* the small GPU cannot hold the large one's first shape */
    life_cfg big = tdcl_life_choice_first(&devs[1], &o, 1000, 1000);
    size_t n = tdcl_life_choice_list(&devs[2], &o, 1000, 1000, list, 64);
    assert_true(n >= 1);
    assert_true(list[0].lx * list[0].ly <= 64);
    assert_false(tdcl_life_choice_fits(&devs[2], &big, 1000, 1000));
}

/* NVIDIA's build options are a fact of the device's description, read
 * when the device was opened, not a query in the search: on an H200-like
 * description a large grid takes the tile in registers with them, and
 * neither it nor life_flow without them. */
static void test_choice_reads_nv_options(void **state)
{
    (void)state;
    tdcl_device_info nv = fake_device(CL_DEVICE_TYPE_GPU, 1024, 48 * 1024);
    tdcl_life_opts o = tdcl_life_opts_default();
    nv.compute_units = 132;
    nv.nv_cc_major = 9;
    nv.nv_options = 1;
    life_cfg with = tdcl_life_choice_first(&nv, &o, 32768, 32768);
    assert_int_equal(with.reg, 1);
    assert_int_equal(with.lx, 32);
    assert_true(tdcl_life_reg_shfl(&nv, &with));
    nv.nv_options = 0;
    life_cfg without = tdcl_life_choice_first(&nv, &o, 32768, 32768);
    assert_int_equal(without.reg, 0);
    assert_int_equal(without.flow, 0);
    assert_false(tdcl_life_reg_shfl(&nv, &with));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conway),      cmocka_unit_test(test_other_rules),
        cmocka_unit_test(test_not_moore),   cmocka_unit_test(test_opts),
        cmocka_unit_test(test_prog_macros), cmocka_unit_test(test_choice_fallbacks),
        cmocka_unit_test(test_choice_list), cmocka_unit_test(test_choice_reads_nv_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

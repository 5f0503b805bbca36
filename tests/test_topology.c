/* test_topology.c - topology strings, rank coordinates, groups, link dimensions, units and --rings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "algo.h"
#include "schedule.h"
#include "topology.h"
#include "units.h"

static void parse_good(void **state)
{
    mring_topo_t t;
    char err[256], buf[64];
    (void)state;
    assert_int_equal(mring_topo_parse("4x16x4", &t, err, sizeof err), 0);
    assert_int_equal(t.ndims, 3);
    assert_int_equal(t.dims[0], 4);
    assert_int_equal(t.dims[1], 16);
    assert_int_equal(t.dims[2], 4);
    assert_int_equal(t.nranks, 256);
    assert_string_equal(mring_topo_format(&t, buf, sizeof buf), "4x16x4");
    assert_int_equal(mring_topo_parse("1", &t, err, sizeof err), 0);
    assert_int_equal(t.nranks, 1);
    assert_int_equal(mring_topo_parse("16x1", &t, err, sizeof err), 0);
    assert_int_equal(t.nranks, 16);
    assert_int_equal(mring_topo_parse("2x2x2x2x2x2x2x2", &t, err, sizeof err), 0);
    assert_int_equal(t.nranks, 256);
}

static void parse_bad(void **state)
{
    static const char *const bad[] = {"", "4x0", "4xx2", "abc", "x4", "4x", "4x-2", "0", "4 x 2", "4x2y",
                                      "65537", "300x300", "2x2x2x2x2x2x2x2x2"};
    mring_topo_t t;
    char err[256];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        if (mring_topo_parse(bad[i], &t, err, sizeof err) != -1)
            fail_msg("topology '%s' was accepted", bad[i]);
        assert_true(strlen(err) > 0);
        if (*bad[i] && !strstr(err, bad[i]))
            fail_msg("error for '%s' does not name it: %s", bad[i], err);
    }
}

static void coordinates(void **state)
{
    mring_topo_t t;
    char err[256];
    int c[MRING_MAX_DIMS];
    (void)state;
    assert_int_equal(mring_topo_parse("4x16x4", &t, err, sizeof err), 0);
    /* rank = c1 + d1*(c2 + d2*c3) */
    mring_topo_coords(&t, 4 * 16 * 2 + 4 * 5 + 3, c);
    assert_int_equal(c[0], 3);
    assert_int_equal(c[1], 5);
    assert_int_equal(c[2], 2);
    for (int r = 0; r < t.nranks; r++) {
        mring_topo_coords(&t, r, c);
        assert_int_equal(mring_topo_rank(&t, c), r);
        for (int d = 0; d < t.ndims; d++)
            assert_int_equal(mring_topo_coord(&t, r, d), c[d]);
    }
    assert_int_equal(mring_topo_stride(&t, 0), 1);
    assert_int_equal(mring_topo_stride(&t, 2), 64);
}

static void groups_and_neighbours(void **state)
{
    mring_topo_t t;
    char err[256];
    (void)state;
    assert_int_equal(mring_topo_parse("4x16x4", &t, err, sizeof err), 0);
    /* rank 70 = (2, 1, 1): its dimension-2 group is ranks 66, 70, ..., 126 */
    for (int c = 0; c < 16; c++)
        assert_int_equal(mring_topo_group_member(&t, 70, 1, c), 64 + 2 + 4 * c);
    assert_int_equal(mring_topo_neighbor(&t, 70, 0, +1), 71);
    assert_int_equal(mring_topo_neighbor(&t, 71, 0, +1), 68); /* wraps inside the node */
    assert_int_equal(mring_topo_neighbor(&t, 68, 0, -1), 71);
    assert_int_equal(mring_topo_neighbor(&t, 70, 1, -1), 66);
    assert_int_equal(mring_topo_neighbor(&t, 66, 1, -1), 126);
    assert_int_equal(mring_topo_neighbor(&t, 70, 2, +1), 134);
    assert_int_equal(mring_topo_neighbor(&t, 198, 2, +1), 6);
    /* a message travels on the outermost dimension in which the ranks differ */
    assert_int_equal(mring_topo_link_dim(&t, 0, 1), 0);
    assert_int_equal(mring_topo_link_dim(&t, 3, 4), 1);
    assert_int_equal(mring_topo_link_dim(&t, 63, 64), 2);
    assert_int_equal(mring_topo_link_dim(&t, 0, 255), 2);
    assert_int_equal(mring_topo_link_dim(&t, 5, 5), -1);
}

static void sizes(void **state)
{
    int64_t b;
    (void)state;
    assert_int_equal(mring_parse_size("8", &b), 0);
    assert_int_equal(b, 8);
    assert_int_equal(mring_parse_size("1K", &b), 0);
    assert_int_equal(b, 1024);
    assert_int_equal(mring_parse_size("128M", &b), 0);
    assert_int_equal(b, 128 << 20);
    assert_int_equal(mring_parse_size("1G", &b), 0);
    assert_int_equal(b, 1 << 30);
    assert_int_equal(mring_parse_size("2g", &b), 0);
    assert_int_equal(b, 2LL << 30);
    assert_int_equal(mring_parse_size("4KB", &b), 0);
    assert_int_equal(b, 4096);
    static const char *const bad[] = {"1Q", "", "-1", "K", "1.5M", "1 K", "99999999999999999999", "8E"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (mring_parse_size(bad[i], &b) == 0)
            fail_msg("size '%s' was accepted as %lld", bad[i], (long long)b);
}

static void link_units(void **state)
{
    double v;
    (void)state;
    assert_int_equal(mring_parse_time("1us", &v), 0);
    assert_true(v == 1e-6);
    assert_int_equal(mring_parse_time("0.5ms", &v), 0);
    assert_true(v == 0.5e-3);
    assert_int_equal(mring_parse_time("2", &v), 0);
    assert_true(v == 2);
    assert_int_equal(mring_parse_bandwidth("12.5GBps", &v), 0);
    assert_true(v == 12.5e9);
    assert_int_equal(mring_parse_bandwidth("100Gbps", &v), 0);
    assert_true(v == 12.5e9);
    assert_int_equal(mring_parse_bandwidth("1GiBps", &v), 0);
    assert_true(v == 1073741824.0);
    assert_int_equal(mring_parse_bandwidth("36GBps", &v), 0);
    assert_true(v == 36e9);
    assert_int_equal(mring_parse_time("1 us", &v), -1);
    assert_int_equal(mring_parse_time("us", &v), -1);
    assert_int_equal(mring_parse_time("-1us", &v), -1);
    assert_int_equal(mring_parse_bandwidth("0GBps", &v), -1);
    assert_int_equal(mring_parse_bandwidth("fast", &v), -1);
    assert_int_equal(mring_parse_bandwidth("10GB", &v), -1);
}

static void balanced_split(void **state)
{
    (void)state;
    for (int64_t n = 0; n < 50; n++)
        for (int64_t parts = 1; parts < 12; parts++) {
            int64_t sum = 0;
            for (int64_t i = 0; i < parts; i++) {
                int64_t len = mring_split_len(n, parts, i);
                assert_int_equal(mring_split_off(n, parts, i), sum);
                assert_true(len == n / parts || len == n / parts + 1);
                sum += len;
            }
            assert_int_equal(sum, n);
        }
    /* 64-bit counts */
    assert_int_equal(mring_split_off(INT64_C(5000000000), 3, 2), INT64_C(3333333334));
    assert_int_equal(mring_split_len(INT64_C(5000000000), 3, 2), INT64_C(1666666666));
}

/* Sub-grids of the first n ranks keep the hierarchy; cutting a group is an error naming n. */
static void prefix(void **state)
{
    static const struct {
        const char *full;
        int n;
        const char *want; /* NULL: an error */
    } cases[] = {{"4x16x4", 1, "1"},      {"4x16x4", 2, "2"},       {"4x16x4", 4, "4"},    {"4x16x4", 8, "4x2"},
                 {"4x16x4", 64, "4x16"},  {"4x16x4", 128, "4x16x2"}, {"4x16x4", 256, "4x16x4"},
                 {"4x16x4", 12, "4x3"},   {"8x16x2", 8, "8"},       {"8x16x2", 24, "8x3"}, {"4x16x4", 6, NULL},
                 {"4x16x4", 72, NULL},    {"4x16x4", 0, NULL},      {"4x16x4", 512, NULL}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mring_topo_t full, sub;
        char err[256] = "", got[64];
        assert_int_equal(mring_topo_parse(cases[i].full, &full, err, sizeof err), 0);
        int rc = mring_topo_prefix(&full, cases[i].n, &sub, err, sizeof err);
        if (!cases[i].want) {
            if (rc != -1 || !err[0])
                fail_msg("%d ranks of %s: accepted", cases[i].n, cases[i].full);
            char n[16];
            snprintf(n, sizeof n, "%d", cases[i].n);
            assert_non_null(strstr(err, n));
            continue;
        }
        assert_int_equal(rc, 0);
        mring_topo_format(&sub, got, sizeof got);
        if (strcmp(got, cases[i].want) || sub.nranks != cases[i].n)
            fail_msg("%d ranks of %s: got %s (%d ranks), want %s", cases[i].n, cases[i].full, got, sub.nranks,
                     cases[i].want);
    }
}

/* A communicator's grid from its node layout: ranks per node x nodes only when regular. */
static void from_nodes(void **state)
{
    static const struct {
        int p, per_node, regular;
        const char *want;
    } cases[] = {{8, 4, 1, "4x2"},  {64, 4, 1, "4x16"}, {6, 3, 1, "3x2"}, {8, 8, 1, "8"}, /* one node */
                 {8, 1, 1, "8"},    {8, 4, 0, "8"},     {1, 1, 1, "1"},   {6, 4, 1, "6"}}; /* 4 does not divide 6 */
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[64];
        mring_topo_t t = mring_topo_from_nodes(cases[i].p, cases[i].per_node, cases[i].regular);
        mring_topo_format(&t, got, sizeof got);
        if (strcmp(got, cases[i].want) || t.nranks != cases[i].p)
            fail_msg("%d ranks, %d per node, regular %d: got %s (%d ranks), want %s", cases[i].p, cases[i].per_node,
                     cases[i].regular, got, t.nranks, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_good),  cmocka_unit_test(parse_bad), cmocka_unit_test(coordinates),
        cmocka_unit_test(groups_and_neighbours), cmocka_unit_test(sizes), cmocka_unit_test(link_units),
        cmocka_unit_test(balanced_split), cmocka_unit_test(prefix), cmocka_unit_test(from_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

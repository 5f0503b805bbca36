/* test_sim_conn.c - the software profile's connections in `mring simulate` (swprof.h, conn=).
 *
 * conn=stream (the default) gives each stream of a rank its own connection to a peer: two rings' messages
 * to the same peer share the bandwidth and arrive together.  conn=pair gives each pair of ranks one
 * ordered connection that every stream's messages take in issue order, as MPI over one TCP socket per
 * peer does.  On a 2-rank crossbar (`mring platform cluster --nodes 2`, no o) with 2 rings, rank 0's
 * first two receives are ring 0's and ring 1's halves of the first step, from the same peer, posted at
 * the same time:
 *   conn=stream: both end after L + 2 x / B (x bytes each, shared bandwidth B, latency L): equal;
 *   conn=pair:   the first sent ends after L + x / B, the other after 2 (L + x / B): exactly twice, since
 *                it waits until the first has arrived and then pays its own latency and bytes.
 * Where the streams' peers differ (a 4-rank ring's rings go opposite ways) and with one stream, conn=pair
 * changes nothing: the times are equal to the last digit.  A multiring 2x2 with 2 rings under conn=pair
 * is faster than under conn=stream (ring 0 moves to its next dimension while ring 1's message is on the
 * wire), and every chunked, multi-ring configuration completes no faster than an allreduce can: 2 (P - 1) / P x
 * the size through each rank's NIC (12.5 GB/s, read from `mring route`; Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
 * clusters of workstations", JPDC 69(2), 2009), a bound that a FIFO delivering a message without its bytes
 * would break.  The text form is in test_swprof.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv_table.h"
#include "sim_cli.h"
#include "sim_trace.h"

/* The time (us) of `mring simulate --platform P CFG --profile PROF -b SIZE -e SIZE`. */
static double sim_us(const char *plat, const char *cfg, const char *prof, const char *size)
{
    char buf[256];
    const char *args[32] = {"simulate", "--platform", plat, "--profile", prof, "-b", size, "-e", size,
                            "--format", "csv"};
    int n = 11;
    snprintf(buf, sizeof buf, "%s", cfg);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < 31; tok = strtok_r(NULL, " ", &save))
        args[n++] = tok;
    args[n] = NULL;
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    struct csv_table tab;
    csv_read_ok(r.out, &tab, r.cmd);
    if (tab.nrows != 1)
        fail_msg("%s: %d rows, want 1:\n%s", r.cmd, tab.nrows, r.out);
    double t = csv_need(&tab, 0, "time_us");
    csv_free(&tab);
    cli_free(&r);
    return t;
}

/* How long rank 0's first receives of rings 0 and 1 take under profile prof (us), the shorter first. */
static void first_recvs(const char *prof, double t[2])
{
    const char *trace = sim_tmp_path("trace.json");
    const char *args[] = {"simulate", "--platform", sim_tmp_path("c2.xml"), "--algo", "ring", "--topo", "2",
                          "--rings", "2", "--profile", prof, "-b", "4M", "-e", "4M", "--trace", trace, NULL};
    struct cli_result r = {0};
    json_error_t jerr;
    cli_run_ok(args, &r);
    json_t *root = json_load_file(trace, 0, &jerr);
    if (!root)
        fail_msg("%s: %s: %s", r.cmd, trace, jerr.text);
    sim_trace_op_t ops[16];
    int n = sim_trace_ops(json_object_get(root, "traceEvents"), 0, ops, 16);
    for (int j = 0; j < 2; j++) {
        char name[64];
        snprintf(name, sizeof name, "ring %d RS d1 s0 RECV", j);
        const sim_trace_op_t *o = sim_trace_find(ops, n, name);
        t[j] = o->end - o->start;
    }
    if (t[1] < t[0]) {
        double x = t[0];
        t[0] = t[1], t[1] = x;
    }
    json_decref(root);
    cli_free(&r);
}

static void fifo_on_a_pair(void **st)
{
    double s[2], p[2];
    (void)st;
    first_recvs("conn=stream", s);
    first_recvs("conn=pair", p);
    if (!(s[0] > 0 && fabs(s[1] - s[0]) <= 1e-9 * s[0]))
        fail_msg("conn=stream: the rings' first messages end after %.9g and %.9g us, want equal", s[0], s[1]);
    if (!(p[0] > 0 && fabs(p[1] - 2 * p[0]) <= 1e-9 * p[1]))
        fail_msg("conn=pair: the rings' first messages end after %.9g and %.9g us, want the second at twice the first",
                 p[0], p[1]);
    /* shared: each gets half the bandwidth, L + 2x/B; alone: L + x/B, so the first ends sooner */
    if (!(p[0] < s[0] && s[0] < p[1]))
        fail_msg("conn=pair %.9g, %.9g us against conn=stream %.9g us: want the shared end between", p[0], p[1], s[0]);
}

static void same_where_nothing_shares(void **st)
{
    static const char *cfgs[] = {"--algo ring --topo 4 --rings 2", "--algo multiring --topo 2x2",
                                 "--algo rabenseifner --topo 4", "--algo multiring --topo 2x2 --chunks 4",
                                 "--algo hier --topo 2x2 --segment 256K"};
    (void)st;
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        for (int k = 0; k < 2; k++) {
            const char *size = k ? "16M" : "4K", *plat = sim_tmp_path("c4.xml");
            double a = sim_us(plat, cfgs[i], "o=5us", size), b = sim_us(plat, cfgs[i], "o=5us;conn=pair", size);
            if (a != b)
                fail_msg("%s at %s: conn=stream %.6f us, conn=pair %.6f us; want equal (no two streams share a peer)",
                         cfgs[i], size, a, b);
        }
}

static void rings_overlap_dimensions(void **st)
{
    const char *plat = sim_tmp_path("c4.xml");
    static const char *cfgs[] = {"--algo multiring --topo 2x2 --rings 2 --chunks 4",
                                 "--algo multiring --topo 2x2 --rings 4 --chunks 2", "--algo ring --topo 4 --rings 4",
                                 "--algo hier --topo 2x2 --rings 2 --segment 64K"};
    (void)st;
    double s = sim_us(plat, "--algo multiring --topo 2x2 --rings 2", "conn=stream", "64M"),
           p = sim_us(plat, "--algo multiring --topo 2x2 --rings 2", "conn=pair", "64M");
    if (!(p < s))
        fail_msg("multiring 2x2, 2 rings, 64 MiB: conn=pair %.3f us, conn=stream %.3f us; want pair faster", p, s);
    /* 2 (P - 1) / P x 1 MiB through a node's NIC (c4.xml's n0-rail0, the slowest link of every route), in us */
    const double bound_us = 2.0 * 3 / 4 * 1048576 / sim_link_bw(plat, "n0-gpu0", "n1-gpu0", "n0-rail0") * 1e6;
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        double t = sim_us(plat, cfgs[i], "o=2us;conn=pair", "1M");
        if (!(t >= bound_us))
            fail_msg("%s, conn=pair, 1 MiB: %.3f us, under the bandwidth bound %.3f us", cfgs[i], t, bound_us);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fifo_on_a_pair), cmocka_unit_test(same_where_nothing_shares),
                                       cmocka_unit_test(rings_overlap_dimensions)};
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_sim_conn: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    return cmocka_run_group_tests_name("sim_conn", tests, sim_crossbars_setup, sim_tmp_teardown);
}

/* test_testbed_pairs.c - validation/testbed up --queues pair: one FIFO per pair of ranks on every shaped
 * link (validation/testbed-pairs.sh).
 *
 * 2 nodes x 2 ranks with --queues pair (root and network namespaces; skipped otherwise): status says
 * queues=pair, pair_turn=2; on every shaped egress exactly the ordered pairs of ranks whose traffic
 * crosses it have a filter (source and destination address) into a class of their own at the priority of
 * data, quantum two frames (2 x (9000 + 216) bytes), with a byte FIFO of 8 MiB under it; the payload-less
 * class and the shared FIFO stay.  A 2x2 mring-bench sweep (0 wrong) sends its data through the pair
 * classes: on every egress they carry at least 64 KiB, and the shared FIFO less than 1% of what they
 * carry.  With --pair-turn 64 --mtu 1500 --peak 1.05: status says pair_turn=64 and peak=1.05, every pair's
 * class has quantum 64 x (1500 + 216) bytes and every tbf's peak rate is 1.05 x its rate.  (The bad values
 * of --queues, --pair-turn and --peak are among test_testbed's bad input.)
 * No test depends on how fast anything runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "testbed_sh.h"

enum { NRANKS = 4, RPN = 2 };

/* a shaped egress of the 2x2 testbed: ranks [lo, hi) are on its side; out: it carries their data away */
struct egress {
    char ns[24], dev[24];
    int lo, hi, out;
    long long pairs_before, shared_before;
};

static int crosses(const struct egress *e, int s, int d)
{
    int s_in = s >= e->lo && s < e->hi, d_in = d >= e->lo && d < e->hi;
    return e->out ? s_in && !d_in : d_in && !s_in;
}

/* the htb class (minor, hex) of pair (s, d)'s filter in F (tc filter show), or -1 when it has none */
static long pair_class(const char *f, int s, int d)
{
    char m[96];
    snprintf(m, sizeof m, "  match 0a4d00%02x/ffffffff at 12\n  match 0a4d00%02x/ffffffff at 16\n", s + 1, d + 1);
    const char *hit = strstr(f, m), *flow = NULL;
    if (!hit)
        return -1;
    for (const char *p = f; (p = strstr(p, "flowid 2:")) != NULL && p < hit; p++)
        flow = p; /* the filter's own line, the last before its matches */
    return flow ? strtol(flow + strlen("flowid 2:"), NULL, 16) : -1;
}

/* Every pair that crosses E has its own filter, class (QUANTUM bytes a turn) and 8 MiB FIFO; no other pair
 * has a filter. */
static void pair_queues_of(const struct egress *e, long quantum)
{
    static char filters[sizeof out];
    if (sh("tc -n %s filter show dev %s parent 2:", e->ns, e->dev) != 0)
        fail_msg("tc filter show dev %s in %s: %s", e->dev, e->ns, out);
    snprintf(filters, sizeof filters, "%s", out);
    int npairs = 0;
    for (int s = 0; s < NRANKS; s++)
        for (int d = 0; d < NRANKS; d++) {
            if (s == d)
                continue;
            long c = pair_class(filters, s, d);
            if (!crosses(e, s, d)) {
                if (c >= 0)
                    fail_msg("%s in %s: pair %d -> %d does not cross it but has a filter: %s", e->dev, e->ns, s, d,
                             filters);
                continue;
            }
            if (c < 16)
                fail_msg("%s in %s: pair %d -> %d crosses it; want a filter into a class 2:10 or above: %s", e->dev,
                         e->ns, s, d, filters);
            char cls[96], fifo[64];
            snprintf(cls, sizeof cls, "class htb 2:%lx root leaf %lx: prio 1 quantum %ld ", c, c, quantum);
            snprintf(fifo, sizeof fifo, "qdisc bfifo %lx: parent 2:%lx limit 8Mb", c, c);
            if (sh("tc -n %s -d class show dev %s", e->ns, e->dev) != 0 || !strstr(out, cls))
                fail_msg("%s in %s: want '%s' (data's priority, the pair's turn); got %s", e->dev, e->ns, cls, out);
            if (sh("tc -n %s qdisc show dev %s", e->ns, e->dev) != 0 || !strstr(out, fifo) ||
                !strstr(out, "qdisc bfifo 3: parent 2:2"))
                fail_msg("%s in %s: want '%s' beside the shared FIFO 3:; got %s", e->dev, e->ns, fifo, out);
            npairs++;
        }
    int nfilters = 0;
    for (const char *p = filters; (p = strstr(p, "at 16\n")) != NULL; p++)
        nfilters++;
    if (nfilters != npairs || npairs == 0)
        fail_msg("%s in %s: want %d pair filters, got %d: %s", e->dev, e->ns, npairs, nfilters, filters);
}

/* bytes sent so far by E's pair classes (minor 0x10 and up), and by its shared FIFO's class 2:2 */
static void class_bytes(const struct egress *e, long long *pairs, long long *shared)
{
    *pairs = *shared = 0;
    if (sh("tc -n %s -s class show dev %s", e->ns, e->dev) != 0)
        fail_msg("tc -s class show dev %s in %s: %s", e->dev, e->ns, out);
    for (const char *p = out; (p = strstr(p, "class htb 2:")) != NULL;) {
        long c = strtol(p + strlen("class htb 2:"), NULL, 16);
        const char *sent = strstr(p, " Sent ");
        long long b = 0;
        if (!sent || sscanf(sent, " Sent %lld bytes", &b) != 1)
            fail_msg("no Sent counter for class 2:%lx of %s in %s: %s", c, e->dev, e->ns, out);
        if (c >= 16)
            *pairs += b;
        else if (c == 2)
            *shared = b;
        p = sent;
    }
}

enum { MAX_EGRESS = 2 * NRANKS + 2 * (NRANKS / RPN) };

/* The 2x2 testbed's shaped egresses into E (MAX_EGRESS of them); returns how many */
static int egresses(struct egress *e)
{
    int n = 0;
    for (int r = 0; r < NRANKS; r++) { /* rank r's port: mrtb0 (away from it), mrtb-p<r> (towards it) */
        e[n] = (struct egress){.lo = r, .hi = r + 1, .out = 1};
        snprintf(e[n].ns, sizeof e[n].ns, "mrtb-r%d", r);
        snprintf(e[n++].dev, sizeof e[0].dev, "mrtb0");
        e[n] = (struct egress){.ns = "mrtb-sw", .lo = r, .hi = r + 1, .out = 0};
        snprintf(e[n++].dev, sizeof e[0].dev, "mrtb-p%d", r);
    }
    for (int node = 0; node < NRANKS / RPN; node++) { /* the NIC: mrtb-u<n> (away from the node), mrtb-d<n> */
        e[n] = (struct egress){.ns = "mrtb-sw", .lo = node * RPN, .hi = (node + 1) * RPN, .out = 1};
        snprintf(e[n++].dev, sizeof e[0].dev, "mrtb-u%d", node);
        e[n] = (struct egress){.ns = "mrtb-sw", .lo = node * RPN, .hi = (node + 1) * RPN, .out = 0};
        snprintf(e[n++].dev, sizeof e[0].dev, "mrtb-d%d", node);
    }
    return n;
}

/* up ARGS (a 2x2 testbed with pair queues, MTU bytes a frame, TURN frames a pair's turn): status says
 * queues=pair and pair_turn=TURN, and every shaped egress has its pairs' queues (pair_queues_of, with a
 * quantum of TURN x (MTU + 216) bytes); returns the egresses, into E */
static int up_pairs(const char *args, int mtu, int turn, struct egress *e)
{
    char want[32];
    up_netns(args);
    snprintf(want, sizeof want, "pair_turn=%d\n", turn);
    int rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "queues=pair\n") || !strstr(out, want))
        fail_msg("up %s: status: want queues=pair and %s; got %d: %s", args, want, rc, out);
    int n = egresses(e);
    for (int i = 0; i < n; i++)
        pair_queues_of(&e[i], (long)turn * (mtu + 216));
    return n;
}

static void netns_pairs(void **st)
{
    (void)st;
    need_netns("netns pairs");
    struct egress e[MAX_EGRESS];
    int n = up_pairs("--nodes 2 --ranks-per-node 2 --rate 1gbit --queues pair", 9000, 2, e); /* the defaults */

    if (!have_mpi()) {
        print_message("netns pairs: no mpiexec or build/bin/mring-bench; MPI job not run\n");
        down_clean();
        return;
    }
    for (int i = 0; i < n; i++)
        class_bytes(&e[i], &e[i].pairs_before, &e[i].shared_before);
    bench("--topo 2x2"); /* the multiring crosses every link both ways (test_testbed) */
    for (int i = 0; i < n; i++) {
        long long pairs, shared;
        class_bytes(&e[i], &pairs, &shared);
        pairs -= e[i].pairs_before;
        shared -= e[i].shared_before;
        if (pairs < 65536 || 100 * shared >= pairs)
            fail_msg("%s in %s: want the job's data in the pair classes (at least 64 KiB) and under 1%% of it in the "
                     "shared FIFO; got %lld and %lld bytes",
                     e[i].dev, e[i].ns, pairs, shared);
    }
    down_clean();
}

/* E's tbf must refill its peak bucket at FACTOR x its rate */
static void peak_is(const struct egress *e, double factor)
{
    char rate[32], peak[32];
    const char *tbf = sh("tc -n %s qdisc show dev %s", e->ns, e->dev) == 0 ? strstr(out, " rate ") : NULL;
    if (!tbf || sscanf(tbf, " rate %31s burst %*s peakrate %31s", rate, peak) != 2)
        fail_msg("%s in %s: want tbf with a peak rate; got: %s", e->dev, e->ns, out);
    double r = tc_bits(rate), p = tc_bits(peak);
    if (r <= 0 || fabs(p - factor * r) > 1e-9 * r)
        fail_msg("%s in %s: want a peak rate of %g x the rate %s; got %s", e->dev, e->ns, factor, rate, peak);
}

/* --pair-turn 64 with 1500-byte frames: every pair's class is served 64 x (1500 + 216) bytes a turn; with
 * --peak 1.05 every tbf's peak is 1.05 x its rate (1.25 by default: test_testbed) and status says peak=1.05 */
static void netns_pair_turn(void **st)
{
    (void)st;
    need_netns("netns pair turn");
    struct egress e[MAX_EGRESS];
    int n = up_pairs("--nodes 2 --ranks-per-node 2 --rate 1gbit --mtu 1500 --pair-turn 64 --peak 1.05", 1500, 64, e);
    for (int i = 0; i < n; i++)
        peak_is(&e[i], 1.05);
    if (sh(DEADLINE " validation/testbed status") != 0 || !strstr(out, "peak=1.05\n"))
        fail_msg("up --peak 1.05: status: want peak=1.05; got: %s", out);
    down_clean();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(netns_pairs, down_teardown),
        cmocka_unit_test_teardown(netns_pair_turn, down_teardown),
    };
    return cmocka_run_group_tests(tests, testbed_group_setup, sim_tmp_teardown);
}

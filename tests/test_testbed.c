/* test_testbed.c - validation/testbed, the emulated cluster of issues 5 and 12.
 *
 * 1. Bad input (unknown command or flag; N, R, K not positive integers or out of range; bad rates;
 *    racks that do not divide the nodes; an uplink rate without racks; bad MTU; queues other than fifo
 *    or pair, and pair beyond 16 ranks; a pair's turn outside 1..1024 frames or with fifo; a peak not above 1
 *    or above 2 or not a number; -n beyond the testbed): exit 2, one line naming the value,
 *    nothing made.  --help for each command.
 * 2. No testbed: status exits 1 ("no testbed"), exec exits 2 in one line, down exits 0.
 * 3. --loopback: one node of N*R ranks; exec places every rank on lo with UCX over TCP; a 2x2
 *    mring-bench sweep runs with 0 wrong; up again is a no-op with the same parameters and exit 2
 *    with others; down removes it.  Without --queues up asks for pair queues on 4 ranks (up again
 *    with --queues pair is the same testbed, with fifo another; with --pair-turn 2 the same, with 64
 *    another; with --peak 1.25 the same, with 1.01 another) and for fifo on 17.
 * 4. Fallback where `ip netns add` fails (a stand-in ip here): up says why in one line and makes the
 *    loopback testbed, exit 0.
 * The rest needs root and network namespaces (skipped with the reason otherwise), and no other
 * mrtb-* object on the machine:
 * 5. 2 nodes x 2 ranks: status (queues=pair, the default); a namespace per rank plus mrtb-sw; the switches'
 *    ports where they belong; tbf at the intra rate (default 4 x RATE) on both ends of every rank's link
 *    and at RATE on both ends of every NIC, each with its small-packets-first scheduler; exec puts rank r
 *    in mrtb-r<r> at 10.77.0.<r+1>; a 2x2 mring-bench sweep with 0 wrong whose traffic crosses every shaped
 *    egress (both directions of every link); up idempotent; down leaves no mrtb object.
 * 6. 2 racks x 2 nodes x 1 rank with --uplink-rate and --queues fifo (no pair's class): rack switches, the
 *    nodes' NICs on them, the uplinks shaped both ways at the uplink rate; a ring's traffic crosses both
 *    uplinks both ways. Without --uplink-rate the uplink is RATE x nodes per rack.
 * 7. Rollback: a tc that fails part way through up (stand-in) leaves no namespace and falls back;
 *    a TERM while up is building leaves no namespace and no state.
 * 8. Foreign objects: up refuses an mrtb namespace it did not make (exit 2, one line); down --force
 *    removes it.
 * The state lives in a scratch directory (MRING_TESTBED_STATE); every command has a deadline.  No
 * test depends on how fast anything runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testbed_sh.h"

/* Split out into one line per rank: each line starts with the rank; NULL where a rank has none or two.
 * Returns the number of lines. */
static int by_rank(char *text, char **rank_line, int nranks)
{
    int n = 0;
    for (int r = 0; r < nranks; r++)
        rank_line[r] = NULL;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        int r = -1;
        if (sscanf(line, "%d", &r) == 1 && r >= 0 && r < nranks)
            rank_line[r] = rank_line[r] ? NULL : line;
    }
    return n;
}

/* ---- 1. bad input ---- */

static void bad_input(void **st)
{
    static const struct {
        const char *args, *names;
    } cases[] = {
        {"frob", "'frob'"},
        {"", "no command"},
        {"up --nodes 0 --ranks-per-node 2 --rate 1gbit", "'0'"},
        {"up --nodes two --ranks-per-node 2 --rate 1gbit", "'two'"},
        {"up --nodes 2 --ranks-per-node -1 --rate 1gbit", "'-1'"},
        {"up --nodes 2 --ranks-per-node 1.5 --rate 1gbit", "'1.5'"},
        {"up --nodes 2 --ranks-per-node 2 --rate fast", "'fast'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1g", "'1g'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 0bit", "'0bit'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 200gbit", "'200gbit'"},
        {"up --nodes 2 --ranks-per-node 2", "--rate"},
        {"up --nodes 2000 --ranks-per-node 1 --rate 1gbit", "2000"},
        {"up --nodes 200 --ranks-per-node 6 --rate 1gbit", "1200"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --intra-rate 4x", "'4x'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --racks 0", "'0'"},
        {"up --nodes 4 --ranks-per-node 2 --rate 1gbit --racks 3", "'3'"},
        {"up --nodes 4 --ranks-per-node 2 --rate 1gbit --racks two", "'two'"},
        {"up --nodes 4 --ranks-per-node 2 --rate 1gbit --uplink-rate 2gbit", "'2gbit'"},
        {"up --nodes 4 --ranks-per-node 2 --rate 1gbit --racks 1 --uplink-rate 2gbit", "'2gbit'"},
        {"up --nodes 4 --ranks-per-node 2 --rate 1gbit --racks 2 --uplink-rate slow", "'slow'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --mtu 100", "'100'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --cc nosuch", "'nosuch'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --cc 'a b'", "'a b'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --queues fair", "'fair'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --queues", "--queues"},
        {"up --nodes 17 --ranks-per-node 1 --rate 1gbit --queues pair", "17"}, /* pair: at most 16 ranks */
        {"up --nodes 3 --ranks-per-node 6 --rate 1gbit --queues=pair", "18"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn 0", "'0'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn 1025", "'1025'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn=big", "'big'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --queues fifo --pair-turn 4", "'4'"}, /* no pairs */
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn", "--pair-turn"},
        {"up --nodes 9 --ranks-per-node 2 --rate 1gbit --pair-turn 4", "at most 16 ranks, not 18"}, /* fifo default */
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --peak 1", "'1'"}, /* a peak must be above the rate */
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --peak 2.5", "'2.5'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --peak=fast", "'fast'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --peak 1.0001", "'1.0001'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --peak", "--peak"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --bogus", "'--bogus'"},
        {"up --nodes", "--nodes"},
        {"down --bogus", "'--bogus'"},
        {"status --bogus", "'--bogus'"},
        {"exec --bogus -- true", "'--bogus'"},
        {"exec", "no command"},
    };
    static char before[sizeof out];
    sh(LIST_MRTB " | sort");
    snprintf(before, sizeof before, "%s", out);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sh(DEADLINE " validation/testbed %s", cases[i].args);
        if (rc != 2 || lines(out) != 1 || !strstr(out, cases[i].names))
            fail_msg("testbed %s: want exit 2 and one line naming %s; got %d: %s", cases[i].args, cases[i].names, rc,
                     out);
        if (state_exists())
            fail_msg("testbed %s made a state file", cases[i].args);
    }
    sh(LIST_MRTB " | sort");
    if (strcmp(before, out) != 0)
        fail_msg("bad input changed the mrtb namespaces or links: before %s after %s", before, out);
}

static void help(void **st)
{
    static const char *const cmds[] = {"--help", "up --help", "exec --help", "status --help", "down --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = sh(DEADLINE " validation/testbed %s", cmds[i]);
        if (rc != 0 || strncmp(out, "usage: validation/testbed", 25) != 0)
            fail_msg("testbed %s: want exit 0 and a usage, got %d: %s", cmds[i], rc, out);
    }
}

/* ---- 2. no testbed ---- */

static void no_testbed(void **st)
{
    int rc = sh(DEADLINE " validation/testbed status");
    if (rc != 1 || !strstr(out, "no testbed"))
        fail_msg("status without a testbed: want exit 1 and 'no testbed', got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed exec -- true");
    if (rc != 2 || lines(out) != 1 || !strstr(out, "no testbed"))
        fail_msg("exec without a testbed: want exit 2 and one line, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0)
        fail_msg("down without a testbed: want exit 0, got %d: %s", rc, out);
}

/* ---- 3. --loopback ---- */

/* up ARGS on the testbed that is up: SAME, exit 0 doing nothing; else exit 2 in one line telling to run down */
static void up_again(const char *args, int same)
{
    int rc = sh(DEADLINE " validation/testbed up %s", args);
    if (same ? rc != 0 || !strstr(out, "already") : rc != 2 || lines(out) != 1 || !strstr(out, "down"))
        fail_msg("up %s again: want %s, got %d: %s", args,
                 same ? "exit 0 doing nothing (the same testbed)" : "exit 2 and one line telling to run down", rc, out);
}

static void loopback(void **st)
{
    int rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit --loopback");
    if (rc != 0 || !strstr(out, "loopback"))
        fail_msg("up --loopback: want exit 0, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=loopback\n") || !strstr(out, "nodes=1\n") ||
        !strstr(out, "ranks_per_node=4\n") || !strstr(out, "reason=--loopback\n") || !strstr(out, "rate=1gbit\n"))
        fail_msg("status of a --loopback testbed of 2x2: want mode=loopback, nodes=1, ranks_per_node=4; got %d: %s",
                 rc, out);

    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --loopback", 1);
    up_again("--nodes 3 --ranks-per-node 2 --rate 1gbit --loopback", 0);
    /* without --queues, up asked for pair queues (the default up to 16 ranks) */
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --queues pair --loopback", 1);
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --queues fifo --loopback", 0);
    /* ... served 2 frames a turn by default */
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn 2 --loopback", 1);
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --pair-turn 64 --loopback", 0);
    /* ... with a peak of 1.25 x the rate by default */
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --peak 1.25 --loopback", 1);
    up_again("--nodes 2 --ranks-per-node 2 --rate 1gbit --peak 1.01 --loopback", 0);
    rc = sh(DEADLINE " validation/testbed exec -n 5 -- true");
    if (rc != 2 || lines(out) != 1 || !strstr(out, "5"))
        fail_msg("exec -n 5 on 4 ranks: want exit 2 and one line, got %d: %s", rc, out);

    if (have_mpi()) {
        char *rank_line[4], copy[sizeof out];
        rc = sh(DEADLINE " validation/testbed exec -- sh -c 'echo \"$PMI_RANK $UCX_NET_DEVICES $UCX_TLS\"'");
        snprintf(copy, sizeof copy, "%s", out);
        if (rc != 0 || by_rank(out, rank_line, 4) != 4)
            fail_msg("exec on the loopback testbed: want 4 lines, got %d: %s", rc, copy);
        for (int r = 0; r < 4; r++)
            if (!rank_line[r] || !strstr(rank_line[r], " lo tcp,self"))
                fail_msg("exec on the loopback testbed: want rank %d once, on lo with UCX_TLS=tcp,self; got: %s", r, copy);
        rc = sh(DEADLINE " validation/testbed exec -n 2 -- sh -c 'echo $PMI_RANK'");
        snprintf(copy, sizeof copy, "%s", out);
        if (rc != 0 || by_rank(out, rank_line, 2) != 2 || !rank_line[0] || !rank_line[1])
            fail_msg("exec -n 2: want ranks 0 and 1, got %d: %s", rc, copy);
        bench("--topo 2x2");
    } else {
        print_message("loopback: no mpiexec or build/bin/mring-bench; MPI jobs not run\n");
    }

    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down: want exit 0 and no state file, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 1)
        fail_msg("status after down: want exit 1, got %d: %s", rc, out);

    /* above 16 ranks the default is one FIFO per link (a filter per pair would cost every packet) */
    rc = sh(DEADLINE " validation/testbed up --nodes 17 --ranks-per-node 1 --rate 1gbit --loopback");
    if (rc != 0)
        fail_msg("up --loopback of 17 ranks: want exit 0, got %d: %s", rc, out);
    up_again("--nodes 17 --ranks-per-node 1 --rate 1gbit --queues fifo --loopback", 1);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down of 17 ranks: want exit 0 and no state file, got %d: %s", rc, out);
}

/* ---- 4. fallback where namespaces cannot be made ---- */

static void fallback(void **st)
{
    /* a stand-in `ip` that refuses, first in PATH: up must fall back in one line and exit 0 */
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s", sim_tmp_path("noip"));
    if (mkdir(dir, 0755) != 0)
        fail_msg("mkdir %s failed", dir);
    int rc = sh("printf '#!/bin/sh\\necho \"mount --make-shared /run/netns failed: Operation not permitted\" >&2\\n"
                "exit 1\\n' >'%s/ip' && chmod +x '%s/ip' && PATH='%s':\"$PATH\" " DEADLINE
                " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit 2>'%s/err' >/dev/null; echo rc=$?; "
                "cat '%s/err'; rm -f '%s/err' '%s/ip'",
                dir, dir, dir, dir, dir, dir, dir);
    rmdir(dir);
    if (rc != 0 || !strstr(out, "rc=0\n") || lines(out) != 2 || !strstr(out, "cannot build network namespaces") ||
        !strstr(out, "loopback"))
        fail_msg("up where ip netns add fails: want exit 0 and one stderr line falling back to loopback; got %s", out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=loopback\n") || !strstr(out, "nodes=1\n") ||
        !strstr(out, "ranks_per_node=4\n") || !strstr(out, "reason="))
        fail_msg("status after the fallback: want mode=loopback, nodes=1, ranks_per_node=4, a reason; got %d: %s", rc,
                 out);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down after the fallback: got %d: %s", rc, out);
}

/* ---- 5. and 6. network namespaces ---- */

/* DEV in namespace NS must be a port of bridge MASTER */
static void port_of(const char *ns, const char *dev, const char *master)
{
    char want[64];
    snprintf(want, sizeof want, " master %s ", master);
    if (sh("ip -n %s -o link show dev %s", ns, dev) != 0 || !strstr(out, want))
        fail_msg("%s in %s: want a port of %s, got: %s", dev, ns, master, out);
}

/* DEV's tbf (QDISC: tc's line) must let no burst through, as a NIC (validation/testbed-links.sh's header): a
 * peak bucket of at most 2 frames of the default MTU 9000 (+ 216 B) refilled at 1.25 x the rate, a main
 * bucket of two peak buckets, at most 4 frames (a main bucket of 1 ms let a link run 25% over its rate
 * for about 4 ms after an idle moment), and
 * TCP must hand it one frame per packet (gso_max_size below 2 x MTU) */
static void no_burst(const char *ns, const char *dev, const char *qdisc)
{
    char rate[32], peak[32];
    long burst, minburst;
    const char *tbf = strstr(qdisc, " rate ");
    if (!tbf || sscanf(tbf, " rate %31s burst %ldb peakrate %31s minburst %ldb", rate, &burst, peak, &minburst) != 4)
        fail_msg("%s in %s: want tbf with a peak rate and bucket; got: %s", dev, ns, qdisc);
    double r = tc_bits(rate), p = tc_bits(peak);
    if (r <= 0 || p != 1.25 * r || minburst > 2 * (9000 + 216) || minburst < 9000 || burst < 2 * minburst ||
        burst > 4 * (9000 + 216))
        fail_msg("%s in %s: want a peak bucket of 1-2 frames (9000-18432 B) at 1.25 x the rate, a main bucket of 2 of them, at most 36864 B; got %s burst %ld (peak %ld B at %s)",
                 dev, ns, rate, burst, minburst, peak);
    long gso = -1;
    const char *g = sh("ip -n %s -d link show dev %s", ns, dev) == 0 ? strstr(out, "gso_max_size ") : NULL;
    if (!g || sscanf(g, "gso_max_size %ld", &gso) != 1 || gso >= 2 * 9000)
        fail_msg("%s in %s: want gso_max_size below 2 x MTU (one frame per packet); got %ld", dev, ns, gso);
}

/* DEV's egress in NS must be shaped at RATE (as tc prints it, e.g. "4Gbit"): tbf at the root, under it
 * the scheduler that sends TCP segments without payload first, and the byte FIFO of everything else */
static void shaped(const char *ns, const char *dev, const char *rate)
{
    char want[64];
    snprintf(want, sizeof want, " rate %s burst ", rate);
    int rc = sh("tc -n %s qdisc show dev %s", ns, dev);
    if (rc != 0 || !strstr(out, "qdisc tbf 1: root") || !strstr(out, want) || !strstr(out, "qdisc htb 2: parent 1:1") ||
        !strstr(out, "qdisc bfifo 3: parent 2:2"))
        fail_msg("%s in %s: want tbf at %s with the htb priority and a bfifo under it; got %d: %s", dev, ns, rate, rc, out);
    no_burst(ns, dev, out);
    rc = sh("tc -n %s filter show dev %s parent 2:", ns, dev);
    if (rc != 0 || !strstr(out, "flowid 2:1") || !strstr(out, "match 00060000/00ff0000 at 8"))
        fail_msg("%s in %s: want TCP segments filtered into class 2:1; got %d: %s", dev, ns, rc, out);
    if (strstr(out, "/0000fe00 at 0"))
        fail_msg("%s in %s: a filter by length alone lets small data overtake its connection: %s", dev, ns, out);
    /* one filter per TCP data offset d = 5..15: IPv4 total length 20 + 4d (no payload), offset d */
    for (int d = 5; d <= 15; d++) {
        char len[48], doff[48];
        snprintf(len, sizeof len, "match 450000%02x/ff00ffff at 0", 20 + 4 * d);
        snprintf(doff, sizeof doff, "match %x0000000/f0000000 at 32", d);
        if (!strstr(out, len) || !strstr(out, doff))
            fail_msg("%s in %s: no filter of payload-less segments with data offset %d (%s, %s): %s", dev, ns, d, len,
                     doff, out);
    }
}

/* bytes that left through DEV's tbf in NS */
static long long sent(const char *ns, const char *dev)
{
    long long b = -1;
    sh("tc -n %s -s qdisc show dev %s | sed -n 's/^ *Sent \\([0-9]*\\) bytes.*/\\1/p' | head -n 1", ns, dev);
    if (sscanf(out, "%lld", &b) != 1)
        fail_msg("no tbf statistics for %s in %s: %s", dev, ns, out);
    return b;
}

/* the shaped egresses of a testbed: namespace, device, and bytes sent before a job */
struct port {
    char ns[32], dev[32];
    long long before;
};

/* p[n] = DEV in NS; returns n + 1 */
static int add_port(struct port *p, int n, const char *ns, const char *dev)
{
    snprintf(p[n].ns, sizeof p[n].ns, "%s", ns);
    snprintf(p[n].dev, sizeof p[n].dev, "%s", dev);
    return n + 1;
}

/* rank r must run in mrtb-r<r> at 10.77.0.<r+1> */
static void placement(int nranks)
{
    char *rank_line[16], copy[sizeof out];
    int rc = sh(DEADLINE " validation/testbed exec -- sh -c "
                         "'echo \"$PMI_RANK $(ip netns identify) $(ip -o -4 addr show dev mrtb0 | awk \"{ print \\$4 }\") "
                         "$UCX_NET_DEVICES $UCX_TLS\"'");
    snprintf(copy, sizeof copy, "%s", out);
    if (rc != 0 || by_rank(out, rank_line, nranks) != nranks)
        fail_msg("exec placement: want %d lines, got %d: %s", nranks, rc, copy);
    for (int r = 0; r < nranks; r++) {
        char want[128];
        snprintf(want, sizeof want, "%d mrtb-r%d 10.77.0.%d/16 mrtb0 tcp,self", r, r, r + 1);
        if (!rank_line[r] || strcmp(rank_line[r], want) != 0)
            fail_msg("exec placement: want '%s'; got: %s", want, copy);
    }
}

/* Run an MPI job (mring-bench ARGS) and require at least 64 KiB through every port's shaping. */
static void traffic_through(struct port *p, int n, const char *args)
{
    for (int i = 0; i < n; i++)
        p[i].before = sent(p[i].ns, p[i].dev);
    bench(args);
    for (int i = 0; i < n; i++) {
        long long b = sent(p[i].ns, p[i].dev) - p[i].before;
        if (b < 65536)
            fail_msg("mring-bench %s sent %lld bytes out of %s in %s; want its traffic through every shaped egress",
                     args, b, p[i].dev, p[i].ns);
    }
}

/* A veth pair of the fabric, mrtb-sw: UP<i> on bridge BRIDGE<i> and DOWN<i> on the spine mrtb-br, both
 * ends shaped to RATE; both added to ports.  Returns the new count. */
static int shaped_pair(struct port *ports, int n, const char *up, const char *down, const char *bridge, int i,
                       const char *rate)
{
    char u[24], d[24], b[24];
    snprintf(u, sizeof u, "%s%d", up, i);
    snprintf(d, sizeof d, "%s%d", down, i);
    snprintf(b, sizeof b, "%s%d", bridge, i);
    port_of("mrtb-sw", u, b);
    port_of("mrtb-sw", d, "mrtb-br");
    shaped("mrtb-sw", u, rate);
    shaped("mrtb-sw", d, rate);
    n = add_port(ports, n, "mrtb-sw", u);
    return add_port(ports, n, "mrtb-sw", d);
}

static void netns_2x2(void **st)
{
    static char allowed[sizeof out];
    need_netns("netns 2x2");
    sh("cat /proc/sys/net/ipv4/tcp_allowed_congestion_control");
    snprintf(allowed, sizeof allowed, "%s", out);
    up_netns("--nodes 2 --ranks-per-node 2 --rate 1gbit");
    int rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=netns\n") || !strstr(out, "nodes=2\n") || !strstr(out, "ranks_per_node=2\n") ||
        !strstr(out, "rate=1gbit\n") || !strstr(out, "intra_rate=4gbit\n") || !strstr(out, "racks=1\n") ||
        !strstr(out, "uplink_rate=\n") || !strstr(out, "namespaces=mrtb-sw mrtb-r0 mrtb-r1 mrtb-r2 mrtb-r3\n"))
        fail_msg("status: want mode=netns, 2 nodes x 2 ranks, rate 1gbit, intra 4gbit, no racks; got %d: %s", rc, out);
    if (!strstr(out, "queues=pair\n")) /* the default up to 16 ranks */
        fail_msg("status without --queues on 4 ranks: want queues=pair; got %s", out);
    /* every rank on Linux's default TCP congestion control, whatever the host's default */
    if (sh("grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control") == 0) {
        if (sh(DEADLINE " validation/testbed status | grep -x tcp_cc=cubic") != 0)
            fail_msg("status: want tcp_cc=cubic; got %s", out);
        for (int r = 0; r < 4; r++)
            if (sh("ip netns exec mrtb-r%d sysctl -n net.ipv4.tcp_congestion_control | grep -x cubic", r) != 0)
                fail_msg("rank %d: want TCP congestion control cubic, got %s", r, out);
    }

    struct port ports[12];
    int n = 0;
    for (int r = 0; r < 4; r++) { /* rank r: mrtb0 (rank -> switch) and mrtb-p<r> (switch -> rank) */
        char ns[24], p[24], b[24];
        snprintf(ns, sizeof ns, "mrtb-r%d", r);
        snprintf(p, sizeof p, "mrtb-p%d", r);
        snprintf(b, sizeof b, "mrtb-b%d", r / 2);
        port_of("mrtb-sw", p, b);
        shaped(ns, "mrtb0", "4Gbit");
        shaped("mrtb-sw", p, "4Gbit");
        n = add_port(ports, n, ns, "mrtb0");
        n = add_port(ports, n, "mrtb-sw", p);
    }
    for (int node = 0; node < 2; node++) /* the NIC: mrtb-u<n> (node -> cluster), mrtb-d<n> (cluster -> node) */
        n = shaped_pair(ports, n, "mrtb-u", "mrtb-d", "mrtb-b", node, "1Gbit");

    rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit");
    if (rc != 0 || !strstr(out, "already"))
        fail_msg("up again, same parameters: want exit 0 doing nothing, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit --intra-rate 2gbit");
    if (rc != 2 || lines(out) != 1 || !strstr(out, "down"))
        fail_msg("up again, another intra rate: want exit 2 in one line, got %d: %s", rc, out);

    if (have_mpi()) {
        placement(4);
        /* multiring 2x2: dimension 1 inside nodes, dimension 2 across: every link, both ways */
        traffic_through(ports, n, "--topo 2x2");
    } else {
        print_message("netns 2x2: no mpiexec or build/bin/mring-bench; MPI jobs not run\n");
    }
    down_clean();
    sh("cat /proc/sys/net/ipv4/tcp_allowed_congestion_control");
    if (strcmp(out, allowed) != 0) /* down put back the host's list that up extended */
        fail_msg("after down the host's tcp_allowed_congestion_control is %s; before up it was %s", out, allowed);
}

static void netns_racks(void **st)
{
    need_netns("netns racks");
    up_netns("--nodes 4 --ranks-per-node 1 --racks 2 --rate 1gbit --uplink-rate 500mbit --queues fifo");
    int rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=netns\n") || !strstr(out, "nodes=4\n") || !strstr(out, "ranks_per_node=1\n") ||
        !strstr(out, "racks=2\n") || !strstr(out, "uplink_rate=500mbit\n") || !strstr(out, "uplink_rate_bps=500000000\n") ||
        !strstr(out, "queues=fifo\n"))
        fail_msg("status: want 4 nodes x 1 rank in 2 racks, uplink 500mbit, queues fifo; got %d: %s", rc, out);
    /* --queues fifo: one FIFO per link, no pair's class beside the htb's two (pair classes start at 2:10) */
    if (sh("tc -n mrtb-sw class show dev mrtb-ku0") != 0 || !strstr(out, "class htb 2:2 ") || strstr(out, "class htb 2:10 "))
        fail_msg("mrtb-ku0 with --queues fifo: want the htb's classes 2:1 and 2:2 only; got %s", out);
    struct port ports[4];
    int n = 0;
    for (int k = 0; k < 2; k++) /* the uplinks: mrtb-ku<k> (rack -> spine), mrtb-kd<k> (spine -> rack) */
        n = shaped_pair(ports, n, "mrtb-ku", "mrtb-kd", "mrtb-k", k, "500Mbit");
    for (int node = 0; node < 4; node++) {
        char d[24], kb[24], r[24];
        snprintf(d, sizeof d, "mrtb-d%d", node);
        snprintf(kb, sizeof kb, "mrtb-k%d", node / 2);
        snprintf(r, sizeof r, "mrtb-r%d", node);
        port_of("mrtb-sw", d, kb);
        shaped("mrtb-sw", d, "1Gbit");
        shaped(r, "mrtb0", "4Gbit");
    }
    if (have_mpi()) {
        placement(4);
        /* a ring 0 1 2 3: 1 -> 2 and 3 -> 0 cross the racks, one each way */
        traffic_through(ports, n, "--algo ring --topo 4");
    }
    down_clean();

    /* without --uplink-rate: RATE x nodes per rack, here 2 x 1gbit */
    up_netns("--nodes 4 --ranks-per-node 1 --racks 2 --rate 1gbit");
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "uplink_rate=2gbit\n"))
        fail_msg("status without --uplink-rate: want uplink_rate=2gbit (1gbit x 2 nodes per rack), got %d: %s", rc, out);
    shaped("mrtb-sw", "mrtb-ku1", "2Gbit");
    shaped("mrtb-sw", "mrtb-kd1", "2Gbit");
    down_clean();
}

/* ---- 7. rollback ---- */

/* Write DIR/tc: a stand-in for the real tc that passes its first N calls on and then runs THEN
 * (shell code); the caller puts DIR first in PATH. */
static void stand_in_tc(const char *dir, int n, const char *then)
{
    char real[PATH_MAX], path[PATH_MAX + 64];
    if (sh("command -v tc") != 0)
        fail_msg("no tc: %s", out);
    snprintf(real, sizeof real, "%.*s", (int)strcspn(out, "\n"), out);
    if (mkdir(dir, 0755) != 0)
        fail_msg("mkdir %s failed", dir);
    snprintf(path, sizeof path, "%s/tc", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    fprintf(f, "#!/bin/sh\nn=$(cat '%s/count' 2>/dev/null || echo 0)\necho $((n + 1)) >'%s/count'\n"
               "if [ \"$n\" -ge %d ]; then %s; fi\nexec '%s' \"$@\"\n",
            dir, dir, n, then, real);
    fclose(f);
    chmod(path, 0755);
}

/* remove DIR and what the stand-in and the test wrote there (out, the last output, is kept) */
static void remove_stand_in(const char *dir)
{
    static const char *const files[] = {"tc", "count", "waiting", "err"};
    char path[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (snprintf(path, sizeof path, "%s/%s", dir, files[i]) < (int)sizeof path)
            unlink(path);
    }
    rmdir(dir);
}

static void rollback(void **st)
{
    need_netns("rollback");
    /* tc fails at its 21st call: up has made namespaces, bridges and links by then */
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s", sim_tmp_path("badtc"));
    stand_in_tc(dir, 20, "echo 'RTNETLINK answers: No buffer space available' >&2; exit 2");
    int rc = sh("PATH='%s':\"$PATH\" " DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit "
                "2>'%s/err' >/dev/null; echo rc=$?; cat '%s/err'",
                dir, dir, dir);
    remove_stand_in(dir);
    if (rc != 0 || !strstr(out, "rc=0\n") || lines(out) != 2 || !strstr(out, "cannot build network namespaces") ||
        !strstr(out, "No buffer space"))
        fail_msg("up where tc fails part way: want exit 0 and one line falling back with tc's error; got %s", out);
    if (sh(LIST_MRTB " | grep .") == 0)
        fail_msg("up where tc fails part way left mrtb objects: %s", out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=loopback\n"))
        fail_msg("status after the failed build: want the loopback fallback, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0)
        fail_msg("down: got %d: %s", rc, out);

    /* TERM (to up and its children, as a ^C would) while up waits in its 11th tc */
    snprintf(dir, sizeof dir, "%s", sim_tmp_path("slowtc"));
    stand_in_tc(dir, 10, "touch \"$(dirname \"$0\")/waiting\"; exec sleep 100");
    rc = sh("PATH='%s':\"$PATH\" setsid validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit "
            ">/dev/null 2>&1 & pid=$!; i=0; while [ ! -e '%s/waiting' ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); "
            "done; env kill -TERM -- -$pid; i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; "
            "i=$((i + 1)); done; env kill -KILL -- -$pid 2>/dev/null; wait $pid; echo rc=$?",
            dir, dir);
    remove_stand_in(dir);
    if (rc != 0 || strstr(out, "rc=0\n") || !strstr(out, "rc=143\n"))
        fail_msg("up terminated while building: want it to end with 143 (TERM), got %d: %s", rc, out);
    if (sh(LIST_MRTB " | grep .") == 0)
        fail_msg("up terminated while building left mrtb objects: %s", out);
    if (state_exists())
        fail_msg("up terminated while building left a state file");
}

/* ---- 8. objects up did not make ---- */

static void foreign(void **st)
{
    need_netns("foreign");
    if (sh("ip netns add mrtb-r7") != 0)
        fail_msg("ip netns add mrtb-r7: %s", out);
    int rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit");
    if (rc != 2 || lines(out) != 1 || !strstr(out, "mrtb-r7") || !strstr(out, "--force"))
        fail_msg("up beside an mrtb namespace it did not make: want exit 2, one line naming it, got %d: %s", rc, out);
    if (state_exists())
        fail_msg("the refused up made a state file");
    rc = sh(DEADLINE " validation/testbed down");
    if (sh("ip netns list | grep -q '^mrtb-r7'") != 0)
        fail_msg("down without --force removed a namespace it did not record");
    rc = sh(DEADLINE " validation/testbed down --force");
    if (rc != 0)
        fail_msg("down --force: got %d: %s", rc, out);
    if (sh(LIST_MRTB " | grep .") == 0)
        fail_msg("down --force left mrtb objects: %s", out);
}

static int force_teardown(void **st)
{
    sh("ip netns del mrtb-r7 2>/dev/null");
    return down_teardown(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(bad_input, down_teardown),
        cmocka_unit_test(help),
        cmocka_unit_test_teardown(no_testbed, down_teardown),
        cmocka_unit_test_teardown(loopback, down_teardown),
        cmocka_unit_test_teardown(fallback, down_teardown),
        cmocka_unit_test_teardown(netns_2x2, down_teardown),
        cmocka_unit_test_teardown(netns_racks, down_teardown),
        cmocka_unit_test_teardown(rollback, down_teardown),
        cmocka_unit_test_teardown(foreign, force_teardown),
    };
    return cmocka_run_group_tests(tests, testbed_group_setup, sim_tmp_teardown);
}

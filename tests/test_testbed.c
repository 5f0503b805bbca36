/* test_testbed.c - validation/testbed, the emulated two-level cluster of issue 5.
 *
 * 1. Bad input (unknown command or flag, N or R not positive integers, bad RATE, bad MTU, -n beyond
 *    the testbed): exit 2, one line naming the value, nothing made.  --help for each command.
 * 2. No testbed: status exits 1 ("no testbed"), exec exits 2 in one line, down exits 0.
 * 3. --loopback: one node of N*R ranks; exec places every rank on lo with UCX over TCP; a 2x2
 *    mring-bench sweep runs with 0 wrong; up again is a no-op with the same parameters and exit 2
 *    with others; down removes it.
 * 4. Fallback: where `ip netns add` fails (a stand-in ip here) up says why in one line and makes the
 *    loopback testbed, exit 0.
 * 5. Namespaces (root, where `ip netns add` works and no other testbed exists; skipped with the
 *    reason otherwise): 2 nodes x 2 ranks at 1gbit; status; tbf on each node; ranks 0,1 in
 *    10.77.0.1 and 2,3 in 10.77.0.2; a 2x2 mring-bench sweep with 0 wrong whose traffic crosses the
 *    shaped links; up idempotent; down leaves no mrtb interface or namespace (run on failure too).
 * The state lives in a scratch directory (MRING_TESTBED_STATE); every command has a deadline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_cli.h"

/* every command: a deadline, and a short finalize watchdog (see validation/testbed exec --help) */
#define DEADLINE "timeout -k 5 150"

static char state_dir[PATH_MAX + 64]; /* MRING_TESTBED_STATE: <scratch>/tb, made and removed by the testbed */
static char out[65536];

/* Run a shell command line (sh) in the repository root with the test's state directory exported; its
 * stdout and stderr (unless the line redirects them) land in out.  Returns the exit status (the last
 * command's: no pipelines where it matters), -1 when killed. */
static int sh(const char *fmt, ...)
{
    char line[4096], cmd[sizeof line + 3 * PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && export MRING_TESTBED_STATE='%s' MRING_TESTBED_FINALIZE_GRACE=3 && { %s\n} 2>&1",
             sim_repo_root(), state_dir, line);
    int st = cli_shell(cmd, out, sizeof out);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

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

static int have_mpi(void)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s", sim_repo_path("build/bin/mring-bench"));
    return access(p, X_OK) == 0 && system("command -v mpiexec >/dev/null 2>&1") == 0;
}

static int state_exists(void)
{
    char p[PATH_MAX + 128];
    snprintf(p, sizeof p, "%s/state", state_dir);
    return access(p, F_OK) == 0;
}

/* Remove whatever testbed this test's state directory has (also after a failed test). */
static int down_teardown(void **st)
{
    sh(DEADLINE " validation/testbed down");
    rmdir(state_dir);
    return 0;
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
        {"up --nodes 2 --ranks-per-node 2", "--rate"},
        {"up --nodes 255 --ranks-per-node 2 --rate 1gbit", "'255'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --mtu 100", "'100'"},
        {"up --nodes 2 --ranks-per-node 2 --rate 1gbit --bogus", "'--bogus'"},
        {"up --nodes", "--nodes"},
        {"down --bogus", "'--bogus'"},
        {"status --bogus", "'--bogus'"},
        {"exec --bogus -- true", "'--bogus'"},
        {"exec", "no command"},
    };
    static char before[sizeof out];
    sh("ip -o link show 2>/dev/null | grep -c mrtb; ip netns list 2>/dev/null | grep -c mrtb");
    snprintf(before, sizeof before, "%s", out);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sh(DEADLINE " validation/testbed %s", cases[i].args);
        if (rc != 2 || lines(out) != 1 || !strstr(out, cases[i].names))
            fail_msg("testbed %s: want exit 2 and one line naming %s; got %d: %s", cases[i].args, cases[i].names, rc,
                     out);
        if (state_exists())
            fail_msg("testbed %s made a state file", cases[i].args);
    }
    sh("ip -o link show 2>/dev/null | grep -c mrtb; ip netns list 2>/dev/null | grep -c mrtb");
    if (strcmp(before, out) != 0)
        fail_msg("bad input changed the mrtb interfaces or namespaces: before %s after %s", before, out);
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

/* ---- running an MPI job on the testbed ---- */

/* exec a small 2x2 mring-bench sweep; check exit 0, rows, and 0 wrong in every row */
static void bench_2x2(void)
{
    char err[PATH_MAX + 64];
    snprintf(err, sizeof err, "%s", sim_tmp_path("bench.err"));
    int rc = sh(DEADLINE " validation/testbed exec -- build/bin/mring-bench --topo 2x2 -b 1K -e 1M -f 32 -n 2 -w 1 "
                         "--format csv 2>'%s'",
                err);
    char errtext[4096] = "";
    FILE *f = fopen(err, "r");
    if (f) {
        size_t n = fread(errtext, 1, sizeof errtext - 1, f);
        errtext[n] = '\0';
        fclose(f);
    }
    if (rc != 0)
        fail_msg("exec mring-bench 2x2: exit %d; stdout: %.2000s; stderr: %.2000s", rc, out, errtext);
    if (errtext[0])
        print_message("exec mring-bench 2x2 stderr: %s", errtext);
    /* the header names the columns; find "wrong" */
    char *save = NULL, *line = strtok_r(out, "\n", &save);
    int wrong_col = -1, rows = 0, col = 0;
    assert_non_null(line);
    for (char *p = line, *c; (c = strsep(&p, ",")) != NULL; col++)
        if (strcmp(c, "wrong") == 0)
            wrong_col = col;
    if (wrong_col < 0)
        fail_msg("mring-bench CSV header has no 'wrong' column");
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char copy[1024], *p = copy, *c = NULL;
        snprintf(copy, sizeof copy, "%s", line);
        for (int i = 0; i <= wrong_col && (c = strsep(&p, ",")) != NULL; i++)
            ;
        if (!c || strcmp(c, "0") != 0)
            fail_msg("mring-bench row with wrong elements (or not CSV): %s", line);
        rows++;
    }
    if (rows != 6)
        fail_msg("mring-bench 1K..1M factor 32: want 6 rows (3 sizes, out of place and in place), got %d", rows);
}

/* ---- 3. --loopback ---- */

static void loopback(void **st)
{
    int rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit --loopback");
    if (rc != 0 || !strstr(out, "loopback"))
        fail_msg("up --loopback: want exit 0, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=loopback\n") || !strstr(out, "nodes=1\n") ||
        !strstr(out, "ranks_per_node=4\n") || !strstr(out, "reason=--loopback\n"))
        fail_msg("status of a --loopback testbed of 2x2: want mode=loopback, nodes=1, ranks_per_node=4; got %d: %s",
                 rc, out);

    rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit --loopback");
    if (rc != 0 || !strstr(out, "already"))
        fail_msg("up again, same parameters: want exit 0 doing nothing, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed up --nodes 3 --ranks-per-node 2 --rate 1gbit --loopback");
    if (rc != 2 || lines(out) != 1 || !strstr(out, "down"))
        fail_msg("up again, other parameters: want exit 2 and one line telling to run down, got %d: %s", rc, out);
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
        bench_2x2();
    } else {
        print_message("loopback: no mpiexec or build/bin/mring-bench; MPI jobs not run\n");
    }

    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down: want exit 0 and no state file, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 1)
        fail_msg("status after down: want exit 1, got %d: %s", rc, out);
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

/* ---- 5. network namespaces ---- */

/* bytes sent through the tbf of both nodes */
static long long shaped_bytes(void)
{
    long long total = 0;
    for (int n = 0; n < 2; n++) {
        long long b = -1;
        sh("tc -n mrtb-n%d -s qdisc show dev mrtb0 | sed -n 's/^ *Sent \\([0-9]*\\) bytes.*/\\1/p' | head -n 1", n);
        if (sscanf(out, "%lld", &b) != 1)
            fail_msg("no tbf statistics on mrtb-n%d: %s", n, out);
        total += b;
    }
    return total;
}

static void netns(void **st)
{
    if (sh("if [ \"$(id -u)\" != 0 ]; then echo not root; exit 1; fi; ip netns add mrtbprobe$$ && "
           "ip netns del mrtbprobe$$") != 0) {
        print_message("netns: skipped, network namespaces cannot be made here (not root, no ip, or refused): %s\n",
                      out);
        skip();
    }
    if (sh("ip -o link show | grep -q ' mrtb-' || ip netns list | grep -q '^mrtb-'") == 0) {
        print_message("netns: skipped, a testbed of another MRING_TESTBED_STATE exists (mrtb-* present)\n");
        skip();
    }
    int rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit");
    if (rc == 0 && strstr(out, "loopback")) {
        print_message("netns: skipped, up fell back to loopback: %s\n", out);
        skip();
    }
    if (rc != 0 || !strstr(out, "netns"))
        fail_msg("up --nodes 2 --ranks-per-node 2 --rate 1gbit: want exit 0, netns; got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed status");
    if (rc != 0 || !strstr(out, "mode=netns\n") || !strstr(out, "nodes=2\n") || !strstr(out, "ranks_per_node=2\n") ||
        !strstr(out, "namespaces=mrtb-n0 mrtb-n1\n"))
        fail_msg("status: want mode=netns, 2 nodes x 2 ranks; got %d: %s", rc, out);
    for (int n = 0; n < 2; n++) {
        rc = sh("tc -n mrtb-n%d qdisc show dev mrtb0", n);
        if (rc != 0 || !strstr(out, "tbf") || !strstr(out, "rate 1Gbit"))
            fail_msg("node %d: want a tbf of rate 1Gbit on mrtb0, got %d: %s", n, rc, out);
    }

    rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 1gbit");
    if (rc != 0 || !strstr(out, "already"))
        fail_msg("up again, same parameters: want exit 0 doing nothing, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed up --nodes 2 --ranks-per-node 2 --rate 2gbit");
    if (rc != 2 || lines(out) != 1)
        fail_msg("up again, another rate: want exit 2 in one line, got %d: %s", rc, out);

    if (have_mpi()) {
        /* rank r on node r / 2: ranks 0,1 in 10.77.0.1 and 2,3 in 10.77.0.2 */
        char *rank_line[4], copy[sizeof out];
        rc = sh(DEADLINE " validation/testbed exec -- sh -c 'echo \"$PMI_RANK $(ip -o -4 addr show dev mrtb0)\"'");
        snprintf(copy, sizeof copy, "%s", out);
        if (rc != 0 || by_rank(out, rank_line, 4) != 4)
            fail_msg("exec placement: want 4 lines, got %d: %s", rc, copy);
        for (int r = 0; r < 4; r++) {
            char addr[64];
            snprintf(addr, sizeof addr, "inet 10.77.0.%d/24", r / 2 + 1);
            if (!rank_line[r] || !strstr(rank_line[r], addr))
                fail_msg("exec placement: rank %d should be on node %d (%s); got: %s", r, r / 2, addr, copy);
        }

        long long before = shaped_bytes();
        bench_2x2();
        long long sent = shaped_bytes() - before;
        /* every size's inter-node phase moves at least half the vector out of each node */
        if (sent < 1000000)
            fail_msg("the 2x2 sweep sent %lld bytes through the shaped links; want its inter-node traffic there", sent);
    } else {
        print_message("netns: no mpiexec or build/bin/mring-bench; MPI jobs not run\n");
    }

    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down: want exit 0 and no state, got %d: %s", rc, out);
    rc = sh("ip -o link show | grep ' mrtb'; ip netns list | grep '^mrtb'");
    if (rc == 0)
        fail_msg("after down, mrtb interfaces or namespaces remain: %s", out);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0)
        fail_msg("down again: want exit 0, got %d: %s", rc, out);
}

static int group_setup(void **st)
{
    if (sim_tmp_setup(st) != 0)
        return -1;
    snprintf(state_dir, sizeof state_dir, "%s/tb", sim_tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(bad_input, down_teardown),
        cmocka_unit_test(help),
        cmocka_unit_test_teardown(no_testbed, down_teardown),
        cmocka_unit_test_teardown(loopback, down_teardown),
        cmocka_unit_test_teardown(fallback, down_teardown),
        cmocka_unit_test_teardown(netns, down_teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, sim_tmp_teardown);
}

/* test_testbed_watchdog.c - the finalize watchdog of `validation/testbed exec`.
 *
 * MPICH 4.0.2 with UCX over TCP can hang in MPI_Finalize (openucx/ucx#8738): ranks block reading their
 * PMI socket while one rank, still holding TCP connections, never finishes closing them.  The watchdog
 * looks for that state and closes the spinning rank's connections.  Here, on a --loopback testbed of 2
 * ranks, Python stand-ins make the state: rank 0 writes its pid and blocks reading its PMI socket
 * (PMI_FD); rank 1 opens a TCP connection to itself and waits on it.  Each runs under a shell that waits
 * for it, so the watchdog must look below the processes it finds first.  Wanted: one line naming rank 0
 * blocked and rank 1 spinning, and rank 1's connection closed under it (its recv fails: "1 closed"), or
 * rank 1 killed where the kernel cannot close sockets (ss -K).  Rank 1 then ends rank 0.  The test
 * asserts what the watchdog did, not when; every command has a deadline.  Needs mpiexec, python3, and
 * nsenter and ss usable (root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testbed_sh.h"

/* the stand-ins, one script for both ranks; argv[1]: the file for rank 0's pid */
static const char standin_py[] =
    "import os, signal, socket, sys, time\n"
    "if os.environ['PMI_RANK'] == '0':\n"
    "    with open(sys.argv[1] + '.tmp', 'w') as f:\n"
    "        f.write(str(os.getpid()))\n"
    "    os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
    "    os.read(int(os.environ['PMI_FD']), 1)  # as in MPI_Finalize's PMI barrier: never answered\n"
    "else:\n"
    "    srv = socket.create_server(('127.0.0.1', 0))\n"
    "    c = socket.create_connection(srv.getsockname())\n"
    "    a, _ = srv.accept()\n"
    "    try:\n"
    "        got = c.recv(1)\n"
    "    except OSError:\n"
    "        got = b''\n"
    "    print('1 closed' if got == b'' else '1 data', flush=True)\n"
    "    while not os.path.exists(sys.argv[1]):\n"
    "        time.sleep(0.1)\n"
    "    os.kill(int(open(sys.argv[1]).read()), signal.SIGTERM)\n";

static void finalize_hang(void **st)
{
    (void)st;
    if (!have_mpi() || system("command -v python3 >/dev/null 2>&1") != 0) {
        print_message("finalize_hang: skipped, no mpiexec, build/bin/mring-bench or python3\n");
        skip();
    }
    /* the watchdog lists a rank's connections from inside its namespace (nsenter -n, ss -p) */
    if (sh("nsenter -t $$ -n ss -tnpH state established >/dev/null") != 0) {
        print_message("finalize_hang: skipped, nsenter -n or ss cannot be used here: %s\n", out);
        skip();
    }
    char script[PATH_MAX + 64], pidfile[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s", sim_tmp_path("standin.py"));
    snprintf(pidfile, sizeof pidfile, "%s", sim_tmp_path("rank0.pid"));
    FILE *f = fopen(script, "w");
    if (!f || fputs(standin_py, f) == EOF || fclose(f) != 0)
        fail_msg("writing %s failed", script);
    int rc = sh(DEADLINE " validation/testbed up --nodes 1 --ranks-per-node 2 --rate 1gbit --loopback");
    if (rc != 0)
        fail_msg("up --loopback: want exit 0, got %d: %s", rc, out);
    rc = sh(DEADLINE " validation/testbed exec -n 2 -- sh -c 'python3 \"$0\" \"$1\"; echo \"$PMI_RANK wrapper done\"' "
                     "'%s' '%s'",
            script, pidfile);
    if (rc == -1 || rc == 124 || rc == 137)
        fail_msg("exec of the stand-ins: the watchdog did not end the hang (exit %d): %s", rc, out);
    if (!strstr(out, "rank(s) 0 wait in MPI_Finalize while rank 1 spins"))
        fail_msg("the watchdog's line naming rank 0 blocked and rank 1 spinning is missing: %s", out);
    if (!strstr(out, "1 closed") && !strstr(out, "killing rank 1"))
        fail_msg("rank 1's connection was neither closed nor the rank killed: %s", out);
    if (strstr(out, "1 data"))
        fail_msg("rank 1 received data on its own idle connection: %s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(finalize_hang, down_teardown),
    };
    return cmocka_run_group_tests(tests, testbed_group_setup, sim_tmp_teardown);
}

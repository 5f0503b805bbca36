/* testbed_sh.h - what tests/test_testbed*.c share: validation/testbed commands run through sh in the
 * repository root, with the test's own state directory (MRING_TESTBED_STATE under the scratch
 * directory) and a deadline on every command; the checks every namespace test starts and ends with;
 * an MPI job on the testbed; tc's rates in bit/s.  Header-only: each test_*.c is one translation unit.
 * Include after <cmocka.h>.
 */
#ifndef MRING_TESTS_TESTBED_SH_H
#define MRING_TESTS_TESTBED_SH_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim_cli.h"

/* every command: a deadline, and a short finalize watchdog (see validation/testbed exec --help) */
#define DEADLINE "timeout -k 5 150"

static char state_dir[PATH_MAX + 64]; /* MRING_TESTBED_STATE: <scratch>/tb, made and removed by the testbed */
static char out[65536];

/* Run a shell command line (sh) in the repository root with the test's state directory exported; its
 * stdout and stderr (unless the line redirects them) land in out.  Returns the exit status (the last
 * command's: no pipelines where it matters), -1 when killed. */
static inline int sh(const char *fmt, ...)
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

/* the number of lines of s */
static inline int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* 1 when build/bin/mring-bench is built and mpiexec is installed */
static inline int have_mpi(void)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s", sim_repo_path("build/bin/mring-bench"));
    return access(p, X_OK) == 0 && system("command -v mpiexec >/dev/null 2>&1") == 0;
}

/* Remove whatever testbed this test's state directory has (also after a failed test). */
static inline int down_teardown(void **st)
{
    (void)st;
    sh(DEADLINE " validation/testbed down");
    rmdir(state_dir);
    return 0;
}

/* Group setup: the scratch directory, and the state directory's path in it. */
static inline int testbed_group_setup(void **st)
{
    if (sim_tmp_setup(st) != 0)
        return -1;
    snprintf(state_dir, sizeof state_dir, "%s/tb", sim_tmp);
    return 0;
}

/* every mrtb namespace, and every mrtb link of this namespace and of each mrtb namespace */
#define LIST_MRTB                                                                                                      \
    "{ ip netns list | awk '$1 ~ /^mrtb/ { print \"netns \" $1 }'; ip -o link show | awk -F': ' '$2 ~ /^mrtb/'; "   \
    "for n in $(ip netns list | awk '$1 ~ /^mrtb/ { print $1 }'); do ip -n $n -o link show | "                        \
    "awk -F': ' '$2 ~ /^mrtb/'; done; } 2>/dev/null"

static inline int state_exists(void)
{
    char p[PATH_MAX + 128];
    snprintf(p, sizeof p, "%s/state", state_dir);
    return access(p, F_OK) == 0;
}

/* Skip unless namespaces can be made here and no mrtb object exists (another testbed's). */
static inline void need_netns(const char *test)
{
    if (sh("if [ \"$(id -u)\" != 0 ]; then echo not root; exit 1; fi; ip netns add mrtbprobe$$ && "
           "ip netns del mrtbprobe$$") != 0) {
        print_message("%s: skipped, network namespaces cannot be made here (not root, no ip, or refused): %s\n", test,
                      out);
        skip();
    }
    if (sh(LIST_MRTB " | grep -q .") == 0) {
        print_message("%s: skipped, mrtb objects exist (another testbed, or another MRING_TESTBED_STATE)\n", test);
        skip();
    }
}

/* up with ARGS must make a namespace testbed (skip when it falls back: the reason is printed) */
static inline void up_netns(const char *args)
{
    int rc = sh(DEADLINE " validation/testbed up %s", args);
    if (rc == 0 && strstr(out, "loopback")) {
        print_message("skipped, up fell back to loopback: %s\n", out);
        skip();
    }
    if (rc != 0 || !strstr(out, "netns"))
        fail_msg("up %s: want exit 0, netns; got %d: %s", args, rc, out);
}

/* down must leave no mrtb object and no state; down again is fine */
static inline void down_clean(void)
{
    int rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || state_exists())
        fail_msg("down: want exit 0 and no state, got %d: %s", rc, out);
    if (sh(LIST_MRTB " | grep .") == 0)
        fail_msg("after down, mrtb namespaces or links remain: %s", out);
    rc = sh(DEADLINE " validation/testbed down");
    if (rc != 0 || !strstr(out, "no testbed"))
        fail_msg("down again: want exit 0 and 'no testbed', got %d: %s", rc, out);
}

/* exec mring-bench ARGS over 1K..1M; check exit 0, the rows, and 0 wrong in every row */
static inline void bench(const char *args)
{
    char err[PATH_MAX + 64];
    snprintf(err, sizeof err, "%s", sim_tmp_path("bench.err"));
    int rc = sh(DEADLINE " validation/testbed exec -- build/bin/mring-bench %s -b 1K -e 1M -f 32 -n 2 -w 1 "
                         "--format csv 2>'%s'",
                args, err);
    char errtext[4096] = "";
    FILE *f = fopen(err, "r");
    if (f) {
        size_t n = fread(errtext, 1, sizeof errtext - 1, f);
        errtext[n] = '\0';
        fclose(f);
    }
    unlink(err);
    if (rc != 0)
        fail_msg("exec mring-bench %s: exit %d; stdout: %.2000s; stderr: %.2000s", args, rc, out, errtext);
    if (errtext[0])
        print_message("exec mring-bench %s stderr: %s", args, errtext);
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

/* a tc rate as tc prints it ("500Mbit", "2500Mbit", "2Gbit") in bit/s, or -1 */
static inline double tc_bits(const char *word)
{
    double v;
    char unit[16] = "";
    if (sscanf(word, "%lf%15s", &v, unit) < 1)
        return -1;
    double scale = !strcmp(unit, "bit") ? 1 : !strcmp(unit, "Kbit") ? 1e3 : !strcmp(unit, "Mbit") ? 1e6
                 : !strcmp(unit, "Gbit") ? 1e9 : -1;
    return scale < 0 ? -1 : v * scale;
}

#endif

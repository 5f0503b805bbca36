/* testbed_sh.h - what tests/test_testbed*.c share: validation/testbed commands run through sh in the
 * repository root, with the test's own state directory (MRING_TESTBED_STATE under the scratch
 * directory) and a deadline on every command.  Header-only: each test_*.c is one translation unit.
 * Include after <cmocka.h>.
 */
#ifndef MRING_TESTS_TESTBED_SH_H
#define MRING_TESTS_TESTBED_SH_H

#include <stdarg.h>

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

#endif

/*
 * fuzz_platform.c - the platform loader: SimGrid XML through mring's own checks (sim_platform_check.c,
 * the resource and route checks of sim_platform.c) and SimGrid's parser, as `mring simulate
 * --platform` loads it, with the --cfg options it takes.
 *
 * Input: optional leading lines "--cfg NAME:VALUE", then the platform XML.  SimGrid can be started once
 * per process, so every input is loaded in a child process (fork), as the command would: the child
 * runs the command-line loader (cli_cfg_opt, cli_platform_load) and, when the platform loads and has
 * at most 64 ranks, simulates a small allreduce on it.
 * Contract: the child exits 0, or 2 with exactly one line on stderr ("mring simulate: ..."); it never
 * aborts, crashes or runs past 60 s (SimGrid's own aborts, hangs and multi-line messages are what mring
 * must catch first); a simulated time is finite and > 0.
 */
#include "fuzz.h"

#include "cli.h"
#include "config.h"
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD "simulate"

/* Where the input after a "--cfg NAME:VALUE" line at `at` starts (past its newline), or `at` when no
 * such line starts there. */
static size_t next_cfg(const uint8_t *data, size_t size, size_t at)
{
    if (size - at <= 6 || memcmp(data + at, "--cfg ", 6))
        return at;
    const uint8_t *nl = memchr(data + at, '\n', size - at);
    return nl ? (size_t)(nl - data) + 1 : size;
}

/* The child ends with _exit: exit() would run libFuzzer's handler, which reports the process's exit as
 * the target's ("fuzz target exited") and turns the status into its own. */
static _Noreturn void quit(int status)
{
    fflush(NULL);
    _exit(status);
}

/* The child: load as the command does, simulate when it loaded; exit 0, or 2 through cli_usage_error. */
static _Noreturn void child(const uint8_t *data, size_t size)
{
    cli_cfgs_t cfgs = {0};
    mring_platform_t pf;
    char path[64];
    size_t at = 0;
    alarm(60); /* a hang ends as SIGALRM, which the parent reports */
    for (size_t next; (next = next_cfg(data, size, at)) > at; at = next) { /* the leading --cfg lines */
        char arg[256];
        size_t end = data[next - 1] == '\n' ? next - 1 : next;
        snprintf(arg, sizeof arg, "%.*s", (int)(end - at - 6), (const char *)data + at + 6);
        cli_cfg_opt(CMD, &cfgs, OPT_CFG, arg);
    }
    fuzz_file(data + at, size - at, path, sizeof path);
    cli_platform_load(CMD, &cfgs, path, &pf);
    if (pf.nranks <= 64) {
        mring_config_t c;
        mring_sim_result_t res;
        char err[512];
        mring_config_default(&c, &pf.topo);
        if (mring_simulate(&pf, &c, (mring_call_t){1024, 4}, 0, 0, &res, err, sizeof err))
            fuzz_fail("the simulation on a platform that loaded failed: %s", err);
        if (!(isfinite(res.time) && res.time > 0))
            fuzz_fail("the simulated allreduce took %g s", res.time);
        mring_sim_result_free(&res);
    }
    quit(0);
}

/* mring's own XML check, in this process too: libFuzzer sees coverage only here, not in the child, so
 * this is what steers the mutations towards well-formed platforms; it must agree with the child. */
static int precheck(const uint8_t *data, size_t size)
{
    size_t at = 0;
    char path[64], err[512] = "";
    for (size_t next; (next = next_cfg(data, size, at)) > at;)
        at = next;
    int fd = fuzz_file(data + at, size - at, path, sizeof path), rc = mring_platform_precheck(path, err, sizeof err);
    close(fd);
    if (rc)
        fuzz_one_line("mring_platform_precheck", err);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fds[2], status, refused = precheck(data, size);
    char out[4096];
    size_t n = 0;
    ssize_t r;
    pid_t pid;
    if (pipe(fds))
        fuzz_fail("pipe failed");
    fflush(NULL);
    if ((pid = fork()) < 0)
        fuzz_fail("fork failed");
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        cli_set_program("mring", 0, quit);
        child(data, size);
    }
    close(fds[1]);
    /* until end of file; libFuzzer's -timeout timer (SIGALRM) interrupts reads and waits: retried */
    for (char skip[512]; (r = n < sizeof out - 1 ? read(fds[0], out + n, sizeof out - 1 - n)
                                                 : read(fds[0], skip, sizeof skip)) != 0;) { /* beyond out: drained */
        if (r < 0 && errno != EINTR)
            fuzz_fail("reading the child's output failed");
        n += r > 0 && n < sizeof out - 1 ? (size_t)r : 0;
    }
    close(fds[0]);
    out[n] = '\0';
    while ((r = waitpid(pid, &status, 0)) != pid)
        if (r < 0 && errno != EINTR)
            fuzz_fail("waitpid failed");
    if (WIFSIGNALED(status))
        fuzz_fail("loading the platform ended by signal %d (%s)%s%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
                  n ? "; it printed: " : "", out);
    if (WEXITSTATUS(status) == 0) {
        if (refused)
            fuzz_fail("mring_platform_precheck refused a platform that loads");
        return 0;
    }
    if (WEXITSTATUS(status) != 2)
        fuzz_fail("loading the platform exited %d; expected 0 or 2; it printed: %s", WEXITSTATUS(status), out);
    if (strncmp(out, "mring " CMD ": ", strlen("mring " CMD ": ")) || !n || out[n - 1] != '\n' ||
        strchr(out, '\n') != out + n - 1)
        fuzz_fail("a refused platform printed other than one line: %s", out);
    return 0;
}

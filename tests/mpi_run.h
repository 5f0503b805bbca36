/* mpi_run.h - run an MPI job (mpiexec ...) for a test: its own process group, MPIEXEC_TIMEOUT, a
 * hard stop past the limit, stdout and stderr captured (cli_run.h's struct cli_result).  Header-only;
 * include after cli_run.h. */
#ifndef MRING_TESTS_MPI_RUN_H
#define MRING_TESTS_MPI_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* run argv (argv[0] from PATH) in its own process group with `in` on stdin (NULL: /dev/null) and
 * MPIEXEC_TIMEOUT=limit; past limit + 5 s the group is killed (exited = 0).  Sets *secs.  Returns 0,
 * or -1 when it could not run. */
static inline int mpi_run_input(const char *const *argv, const char *in, int limit, struct cli_result *r, double *secs)
{
    int fo = cli_tmpfile(), fe = cli_tmpfile(), fi = cli_tmpfile(), st = 0;
    size_t used = 0;
    struct timespec t0, t;
    *secs = 0;
    for (int i = 0; argv[i] && used < sizeof r->cmd; i++)
        used += (size_t)snprintf(r->cmd + used, sizeof r->cmd - used, "%s%s", i ? " " : "", argv[i]);
    if (fi < 0 || (in && write(fi, in, strlen(in)) != (ssize_t)strlen(in)) || lseek(fi, 0, SEEK_SET) != 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fo >= 0 && fe >= 0 ? fork() : -1, w = -1;
    if (pid == 0) {
        char lim[16];
        snprintf(lim, sizeof lim, "%d", limit);
        if (setpgid(0, 0) || setenv("MPIEXEC_TIMEOUT", lim, 1) || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 ||
            dup2(fe, 2) < 0)
            _exit(126);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    for (*secs = 0; pid > 0 && (w = waitpid(pid, &st, WNOHANG)) != pid && !(w < 0 && errno != EINTR);) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        *secs = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
        if (*secs > limit + 5) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        usleep(20000);
    }
    r->exited = WIFEXITED(st);
    r->status = r->exited ? WEXITSTATUS(st) : WTERMSIG(st);
    r->out = pid > 0 ? cli_slurp(fo, &r->out_len) : NULL;
    r->err = pid > 0 ? cli_slurp(fe, &r->err_len) : NULL;
    close(fo);
    close(fe);
    close(fi);
    return pid > 0 && r->out && r->err ? 0 : -1;
}

#endif

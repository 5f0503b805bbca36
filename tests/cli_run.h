/* cli_run.h - run build/bin/mring as a child process and capture what it does.
 *
 * Header-only so that each tests/test_cli*.c stays one translation unit (the build makes one
 * program per tests/test_*.c).  The binary comes from $MRING_BIN (set by `scons test`),
 * falling back to build/bin/mring.  stdout and stderr go to unlinked temp files (no pipe
 * deadlock on large output); the child gets a 300 s alarm so a hang fails instead of blocking.
 */
#ifndef MRING_TESTS_CLI_RUN_H
#define MRING_TESTS_CLI_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLI_MAX_ARGS 32

struct cli_result {
    int exited;   /* 1: exited normally, status = exit code; 0: killed, status = signal */
    int status;
    char *out;    /* NUL-terminated captured stdout */
    size_t out_len;
    char *err;    /* NUL-terminated captured stderr */
    size_t err_len;
    char cmd[1024]; /* the command line, for failure messages */
};

static inline const char *cli_bin(void)
{
    const char *b = getenv("MRING_BIN");
    return b && *b ? b : "build/bin/mring";
}

/* a temp file that is already unlinked; -1 on failure */
static inline int cli_tmpfile(void)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/mring-test-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* the whole content of fd as a NUL-terminated string */
static inline char *cli_slurp(int fd, size_t *len)
{
    struct stat st;
    *len = 0;
    if (fstat(fd, &st) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        return NULL;
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf)
        return NULL;
    while (*len < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + *len, (size_t)st.st_size - *len);
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    buf[*len] = '\0';
    return buf;
}

/* run mring with args (NULL-terminated, without argv[0]); 0 on success, -1 if it could not run */
static inline int cli_run(const char *const *args, struct cli_result *r)
{
    const char *argv[CLI_MAX_ARGS + 2] = {cli_bin()};
    size_t n = 0, used = (size_t)snprintf(r->cmd, sizeof r->cmd, "mring");
    for (; args[n] && n < CLI_MAX_ARGS; n++) {
        argv[n + 1] = args[n];
        if (used < sizeof r->cmd)
            used += (size_t)snprintf(r->cmd + used, sizeof r->cmd - used, " '%s'", args[n]);
    }
    argv[n + 1] = NULL;
    int fo = cli_tmpfile(), fe = cli_tmpfile(), st = 0;
    pid_t pid = fo >= 0 && fe >= 0 ? fork() : -1;
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        alarm(300);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    r->exited = WIFEXITED(st);
    r->status = r->exited ? WEXITSTATUS(st) : WTERMSIG(st);
    r->out = pid > 0 ? cli_slurp(fo, &r->out_len) : NULL;
    r->err = pid > 0 ? cli_slurp(fe, &r->err_len) : NULL;
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    return pid > 0 && r->out && r->err ? 0 : -1;
}

static inline void cli_free(struct cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* 1 when s is exactly one line ending in '\n' (how a refusal is written), else 0 */
static inline int cli_one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && !nl[1];
}

/* "exit N" or "killed by signal N", for messages */
static inline const char *cli_how(const struct cli_result *r, char *buf, size_t size)
{
    snprintf(buf, size, r->exited ? "exit %d" : "killed by signal %d", r->status);
    return buf;
}

/* Run a shell command line (its own timeout included), stdout and stderr into out (len bytes,
 * truncated); returns pclose's status. */
static inline int cli_shell(const char *cmd, char *out, size_t len)
{
    size_t n = 0;
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (!p)
        return -1;
    while (n + 1 < len && fgets(out + n, (int)(len - n), p))
        n = strlen(out);
    return pclose(p);
}

/* Run args and require exit 0 with an empty stderr; the caller frees r. */
static inline void cli_run_ok(const char *const *args, struct cli_result *r)
{
    char how[64];
    if (cli_run(args, r) != 0)
        fail_msg("could not run %s (%s)", r->cmd, cli_bin());
    if (!r->exited || r->status != 0 || r->err_len != 0)
        fail_msg("%s: want exit 0 and empty stderr, got %s; stderr: %.600s", r->cmd, cli_how(r, how, sizeof how),
                 r->err);
}

#endif

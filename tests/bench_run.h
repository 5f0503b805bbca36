/*
 * bench_run.h - how bench_sim runs a command: fork/exec with a time limit and a limit on the private
 * memory of its process tree (sampled), wall time (CLOCK_MONOTONIC) and peak RSS (wait4), stdout and
 * stderr to files of the scratch directory, the bench's time budget; and the readers of their outputs
 * (a CSV column, key=value, rows, a platform's rank hosts).  Header-only: one includer (bench_sim.c).
 */
#ifndef MRING_TESTS_BENCH_RUN_H
#define MRING_TESTS_BENCH_RUN_H

#define _GNU_SOURCE /* wait4 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 48
#define DIR_MAX 1024 /* the root and scratch directories (longer is refused); file paths get PATH_MAX */
#ifndef BENCH_BUDGET_S
#define BENCH_BUDGET_S 500.0
#endif
#define PRIVATE_LIMIT_KB (12LL * 1024 * 1024) /* kill a run whose process tree holds > 12 GiB privately */

static char workdir[DIR_MAX]; /* scratch: outputs, the generated platform, the SMPI program */
static int failures;
static double deadline; /* CLOCK_MONOTONIC second by which every run must have ended */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- running a command ---- */

typedef struct {
    int skipped;      /* not run: the time budget is spent */
    int started;      /* fork/exec succeeded */
    int exited;       /* exited normally (status in code) */
    int code;         /* exit status, or the signal that ended it (exited == 0) */
    int timed_out;    /* killed at the time limit */
    int mem_killed;   /* killed at the private-memory limit */
    double wall_s;    /* fork to reaped */
    long maxrss_kb;   /* wait4 ru_maxrss */
    long long private_peak_kb; /* largest sampled RssAnon + RssShmem summed over the process tree */
    char out[PATH_MAX], err[PATH_MAX]; /* files holding stdout and stderr */
} run_t;

static int run_ok(const run_t *r) { return r->started && r->exited && r->code == 0; }

/* RssAnon + RssShmem (kB) of pid and, recursively, its children (Linux /proc). */
static long long tree_private_kb(pid_t pid, int depth)
{
    char path[64], line[256];
    long long kb = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        long long v;
        if (sscanf(line, "RssAnon: %lld", &v) == 1 || sscanf(line, "RssShmem: %lld", &v) == 1)
            kb += v;
    }
    fclose(f);
    if (depth > 4)
        return kb;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    f = fopen(path, "r");
    if (!f)
        return kb;
    int child;
    while (fscanf(f, "%d", &child) == 1)
        kb += tree_private_kb((pid_t)child, depth + 1);
    fclose(f);
    return kb;
}

/*
 * Run argv (argv[0] a path or a name looked up in PATH) in the current directory, stdout and
 * stderr into files named after tag in workdir; wait up to limit_s.  The child leads its own
 * process group so that a kill reaches what it started (smpirun is a shell script).
 */
static void run_cmd(run_t *r, const char *tag, double limit_s, char *const argv[])
{
    memset(r, 0, sizeof *r);
    snprintf(r->out, sizeof r->out, "%s/%s.out", workdir, tag);
    snprintf(r->err, sizeof r->err, "%s/%s.err", workdir, tag);
    if (limit_s < 1) {
        r->skipped = 1;
        return;
    }

    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);

    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "bench_sim: fork: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        return;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        setpgid(0, 0);
        int o = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int n = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || n < 0)
            _exit(126);
        dup2(n, 0);
        dup2(o, 1);
        dup2(e, 2);
        execvp(argv[0], argv);
        dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    r->started = 1;

    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            fprintf(stderr, "bench_sim: wait4: %s\n", strerror(errno));
            r->started = 0;
            break;
        }
        long long priv = tree_private_kb(pid, 0);
        if (priv > r->private_peak_kb)
            r->private_peak_kb = priv;
        double left = limit_s - (now_s() - t0);
        if (!r->timed_out && !r->mem_killed && (left <= 0 || priv > PRIVATE_LIMIT_KB)) {
            if (left <= 0)
                r->timed_out = 1;
            else
                r->mem_killed = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
        /* sleep until the child changes state or 50 ms pass */
        struct timespec ts = {0, 50 * 1000 * 1000};
        sigtimedwait(&chld, NULL, &ts);
    }
    r->wall_s = now_s() - t0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    kill(-pid, SIGKILL); /* anything the child left behind in its group */
    r->maxrss_kb = ru.ru_maxrss;
    if (WIFEXITED(status)) {
        r->exited = 1;
        r->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->code = WTERMSIG(status);
    }
}

/* Read a whole (small) file; NULL when unreadable.  The caller frees. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Seconds a run may take: want, or less when the bench's budget is nearly spent. */
static double limit_for(double want)
{
    double left = deadline - now_s();
    return want < left ? want : left;
}

/*
 * Print why a run did not succeed.  Skipped (budget spent) and timed out (wall > limit,
 * compared with target when > 0) are measurements; anything else is printed with the tail of
 * the run's stderr and stdout, and is a failure when counts (SMPI's tools are optional).
 */
static void report_failure(const char *what, const run_t *r, double limit_s, double target_s, int counts)
{
    if (r->skipped) {
        printf("  %s: skipped: the bench's time budget (%.0f s) is spent\n", what, BENCH_BUDGET_S);
        return;
    }
    if (r->timed_out) {
        printf("  %s: not finished within its %.0f s limit: wall > %.0f s", what, limit_s, limit_s);
        if (target_s > 0)
            printf(" (target %.1f s: %s)", target_s, limit_s >= target_s ? "MISSED" : "unknown");
        printf("\n");
        return;
    }
    failures += counts;
    if (!r->started)
        printf("  %s: could not be started\n", what);
    else if (r->mem_killed)
        printf("  %s: killed: its processes held over %lld MiB of private memory\n", what,
               PRIVATE_LIMIT_KB / 1024);
    else if (r->exited)
        printf("  %s: exit status %d\n", what, r->code);
    else
        printf("  %s: ended by signal %d\n", what, r->code);
    for (int k = 0; k < 2; k++) {
        char *text = slurp(k ? r->out : r->err);
        if (!text || !*text) {
            free(text);
            continue;
        }
        size_t len = strlen(text);
        const char *tail = len > 1200 ? text + len - 1200 : text;
        printf("  --- %s (last lines) ---\n%s%s", k ? "stdout" : "stderr", tail,
               text[len - 1] == '\n' ? "" : "\n");
        free(text);
    }
}

/* ---- parsing ---- */

/* The value of column col in the first data row of a CSV output (header row starts "source,"). */
static int csv_value(const char *path, const char *col, double *value)
{
    char *text = slurp(path);
    if (!text)
        return -1;
    int rc = -1, idx = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (idx < 0) {
            if (strncmp(line, "source,", 7) != 0)
                continue;
            int i = 0;
            for (char *p = line; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
                size_t n = strcspn(p, ",");
                if (n == strlen(col) && strncmp(p, col, n) == 0) {
                    idx = i;
                    break;
                }
            }
            if (idx < 0)
                break;
            continue;
        }
        const char *p = line;
        for (int i = 0; i < idx && p; i++) {
            p = strchr(p, ',');
            p = p ? p + 1 : NULL;
        }
        if (p) {
            char *end;
            *value = strtod(p, &end);
            rc = end != p ? 0 : -1;
        }
        break;
    }
    free(text);
    return rc;
}

/* The number after "key=" in a file; -1 when absent. */
static int kv_value(const char *path, const char *key, double *value)
{
    char *text = slurp(path);
    if (!text)
        return -1;
    int rc = -1;
    char pat[64];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *p = strstr(text, pat);
    if (p) {
        char *end;
        *value = strtod(p + strlen(pat), &end);
        rc = end != p + strlen(pat) ? 0 : -1;
    }
    free(text);
    return rc;
}

/* Count the lines of a file that start with a space or a digit (tune's result rows). */
static int count_rows(const char *path)
{
    char *text = slurp(path);
    if (!text)
        return 0;
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#' && strspn(line, " ") < strlen(line))
            n++;
    free(text);
    return n;
}

/*
 * The mring rank hosts of a SimGrid platform in rank order: every <host id="X"> whose body
 * holds <prop id="mring_rank" value="R"/>; also the speed of rank 0's host in flop/s (bytes of
 * reduced output per second for mring).  Returns the rank count, or -1.
 */
static int platform_rank_hosts(const char *path, char ***hosts_out, double *speed0)
{
    char *text = slurp(path);
    if (!text)
        return -1;
    int cap = 64, n = 0;
    char **hosts = calloc((size_t)cap, sizeof *hosts);
    *speed0 = 0;
    for (char *p = strstr(text, "<host "); p && hosts; p = strstr(p + 1, "<host ")) {
        char *next = strstr(p + 1, "<host ");
        char *idp = strstr(p, "id=\"");
        char *rp = strstr(p, "mring_rank\" value=\"");
        if (!idp || !rp || (next && rp > next))
            continue;
        char *close = strstr(p, "</host>");
        if (close && rp > close)
            continue;
        int rank = atoi(rp + strlen("mring_rank\" value=\""));
        if (rank < 0 || rank > 1000000)
            continue;
        while (rank >= cap) {
            char **nh = realloc(hosts, (size_t)cap * 2 * sizeof *hosts);
            if (!nh) {
                free(hosts);
                hosts = NULL;
                break;
            }
            memset(nh + cap, 0, (size_t)cap * sizeof *nh);
            hosts = nh;
            cap *= 2;
        }
        if (!hosts)
            break;
        idp += 4;
        hosts[rank] = strndup(idp, strcspn(idp, "\""));
        if (rank + 1 > n)
            n = rank + 1;
        char *sp = strstr(p, "speed=\"");
        if (rank == 0 && sp && (!next || sp < next)) {
            char *end;
            double v = strtod(sp + 7, &end);
            double mult = *end == 'k' ? 1e3 : *end == 'M' ? 1e6 : *end == 'G' ? 1e9 : *end == 'T' ? 1e12 : 1;
            *speed0 = v * mult;
        }
    }
    free(text);
    if (!hosts)
        return -1;
    for (int i = 0; i < n; i++)
        if (!hosts[i]) {
            for (int j = 0; j < n; j++)
                free(hosts[j]);
            free(hosts);
            return -1;
        }
    *hosts_out = hosts;
    return n;
}

/* Is name an executable in PATH? */
static int in_path(const char *name, char *found, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(found, cap, "%.*s/%s", (int)n, path, name);
        if (n && access(found, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

static void print_cmd(char *const argv[])
{
    printf("  $");
    for (int i = 0; argv[i]; i++)
        printf(" %s", argv[i]);
    printf("\n");
}

static const char *verdict(double measured, double target) { return measured <= target ? "met" : "MISSED"; }

#endif

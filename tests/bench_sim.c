/*
 * bench_sim.c - how fast `mring simulate` and `mring tune` run, and how they compare with
 * SimGrid's own MPI emulation (SMPI).  A benchmark: it measures and prints, it asserts
 * nothing about speed; it exits 1 only when an mring run cannot be started or fails (an
 * SMPI tool that is missing or fails is reported, and the bench goes on).
 *
 * Targets are issue 13's, printed as measured / target / ratio.
 * Section 1: one 256-rank simulation of the 64-node Minsky platform (multiring 4x16x4,
 *            2 rings) at 100 MB and at 1 KB: best wall of 3 against 0.10 s and 0.05 s, beside the
 *            start-up floor (best of 3 of `mring profiles`: the process and SimGrid's libraries).
 * Section 2: 4096 ranks = 1024 Minsky nodes in 64 racks (`mring platform minsky`), multiring
 *            4x64x16 at 100 MB: wall time and peak RSS against 10 s and 4 GiB; then wall and
 *            peak RSS at 64, 256 and 1024 ranks, the growth of the cost with P.
 * Section 3: SMPI side by side: tests/smpi_ring_allreduce.c compiled with smpicc and run by
 *            smpirun on the 256 GPUs of minsky-64 with the logical-ring allreduce (lr), the
 *            CM02 network model and no cross-traffic (mring's defaults), against
 *            `mring simulate --algo ring` at 1 MB and 100 MB: wall times, their ratio (target >= 100), the
 *            predicted times and their relative difference.  Skipped, with the reason, when
 *            smpicc/smpirun are missing or fail (not a failure of the bench).
 * Section 4: `mring tune` over 1K..1G (factor 2) on minsky-64: wall time against 10 s
 *            (last: it takes minutes, and is cut short when the bench's budget runs out).
 *
 * The binary is <build>/bin/mring next to this program's <build>/tests/ (found from
 * /proc/self/exe, as `scons bench` does not set MRING_BIN); the repository root is the
 * first directory above it that holds platforms/minsky-64.xml, and the runs start there.
 * Wall times are CLOCK_MONOTONIC around fork/exec and wait4; peak RSS is wait4's ru_maxrss
 * (which covers the child's waited-for descendants).  Every run has a time limit, and its
 * process tree a limit on private memory (anonymous + shmem RSS, sampled every 50 ms),
 * past which the run is killed: SMPI runs all 256 ranks in one process.  The whole program
 * keeps within BENCH_BUDGET_S (the sections run in order; a run's limit is cut to what is
 * left, and a run is skipped when nothing is).  A run that reaches its time limit is a
 * measurement (wall > limit), not a failure; a run that cannot start or fails is one.
 */
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

/* issue 13's targets */
static const double TARGET_256_S = 0.10, TARGET_256_1K_S = 0.05, TARGET_4096_S = 10.0, TARGET_4096_KB = 4.0 * 1024 * 1024,
                    TARGET_TUNE_S = 10.0, TARGET_SMPI_RATIO = 100.0;

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

/* ---- the sections ---- */

static char mring_bin[PATH_MAX];

/* Best wall of 3 runs of argv (-1 when a run failed; counted).  sim_us: the last run's time_us, when wanted. */
static double best_of_3(const char *what, char *const argv[], double target_s, double *sim_us)
{
    double best = -1;
    printf("  %-5s %12s %14s %12s\n", "run", "wall (s)", "simulated (us)", "peak RSS (MiB)");
    for (int rep = 1; rep <= 3; rep++) {
        run_t r;
        double limit = limit_for(60), us = -1;
        run_cmd(&r, "s1", limit, argv);
        if (!run_ok(&r)) {
            report_failure(what, &r, limit, target_s, 1);
            return -1;
        }
        if (sim_us && csv_value(r.out, "time_us", &us)) {
            failures++;
            printf("  no time_us in the output of run %d\n", rep);
            return -1;
        }
        if (sim_us)
            *sim_us = us;
        printf("  %-5d %12.3f %14.2f %12.1f\n", rep, r.wall_s, us, r.maxrss_kb / 1024.0);
        if (best < 0 || r.wall_s < best)
            best = r.wall_s;
    }
    return best;
}

static void target_row(const char *what, double measured, double target)
{
    printf("  %-40s %10.3f %10.3f %8.2f %s\n", what, measured, target, measured / target, verdict(measured, target));
}

static void section_256(void)
{
    printf("\n== 1. mring simulate: 256 ranks, minsky-64, multiring 4x16x4, 2 rings, at 100 MB and 1 KB ==\n");
    char *floor_argv[] = {mring_bin, "profiles", NULL};
    char *argv[] = {mring_bin, "simulate", "--platform", "platforms/minsky-64.xml", "--topo", "4x16x4", "--rings", "2",
                    "-b", "100M", "-e", "100M", "--format", "csv", NULL};
    char *argv1k[] = {mring_bin, "simulate", "--platform", "platforms/minsky-64.xml", "--topo", "4x16x4", "--rings",
                      "2", "-b", "1K", "-e", "1K", "--format", "csv", NULL};
    double us = -1, us1k = -1;
    print_cmd(argv);
    double best = best_of_3("mring simulate (256 ranks, 100 MB)", argv, TARGET_256_S, &us);
    print_cmd(argv1k);
    double best1k = best_of_3("mring simulate (256 ranks, 1 KB)", argv1k, TARGET_256_1K_S, &us1k);
    printf("  the start-up floor: a command that loads SimGrid and no platform\n");
    print_cmd(floor_argv);
    double floor_s = best_of_3("mring profiles", floor_argv, 0, NULL);
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    if (best > 0)
        target_row("wall at 100 MB, best of 3 (s)", best, TARGET_256_S);
    if (best1k > 0)
        target_row("wall at 1 KB, best of 3 (s)", best1k, TARGET_256_1K_S);
    if (floor_s > 0)
        printf("  %-40s %10.3f  (process start and SimGrid's libraries: no command linked with them starts faster)\n",
               "start-up floor, best of 3 (s)", floor_s);
    if (us > 0)
        printf("  simulated allreduce time at 100 MB: %.2f us (busbw %.2f GB/s)\n", us,
               104857600.0 / (us * 1e-6) * 2.0 * 255 / 256 / 1e9);
}

/* Wall time and peak RSS of a 100 MB multiring simulation on a generated Minsky platform of `nodes` nodes
 * in `racks` racks (its natural topology, 1 ring), one run: the cost's growth with the rank count. */
static void scaling_row(int nodes, int racks)
{
    char plat[PATH_MAX], n[16], k[16];
    snprintf(plat, sizeof plat, "%s/minsky-%d.xml", workdir, nodes);
    snprintf(n, sizeof n, "%d", nodes);
    snprintf(k, sizeof k, "%d", racks);
    char *gen[] = {mring_bin, "platform", "minsky", "--nodes", n, "--racks", k, "-o", plat, NULL};
    char *argv[] = {mring_bin, "simulate", "--platform", plat, "-b", "100M", "-e", "100M", "--format", "csv", NULL};
    run_t g, r;
    run_cmd(&g, "s2gen", limit_for(120), gen);
    if (!run_ok(&g)) {
        report_failure("mring platform", &g, 120, 0, 1);
        return;
    }
    const double limit = limit_for(180);
    run_cmd(&r, "s2", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring simulate (scaling)", &r, limit, 0, 1);
        return;
    }
    printf("  %7d %10.3f %12.1f\n", 4 * nodes, r.wall_s, r.maxrss_kb / 1024.0);
}

static void section_4096(void)
{
    printf("\n== 2. mring simulate: 4096 ranks (1024 Minsky nodes, 64 racks), multiring 4x64x16, 100 MB ==\n");
    char plat[PATH_MAX];
    snprintf(plat, sizeof plat, "%s/minsky-1024.xml", workdir);
    char *gen[] = {mring_bin, "platform", "minsky", "--nodes", "1024", "--racks", "64", "-o", plat, NULL};
    print_cmd(gen);
    run_t g;
    double glimit = limit_for(120);
    run_cmd(&g, "s2gen", glimit, gen);
    if (!run_ok(&g)) {
        report_failure("mring platform", &g, glimit, 0, 1);
        return;
    }
    struct stat st;
    long long bytes = stat(plat, &st) == 0 ? (long long)st.st_size : -1;
    printf("  platform written in %.3f s (%.1f MB of XML; natural topology 4x16x64, simulated as 4x64x16)\n",
           g.wall_s, bytes / 1e6);

    char *argv[] = {mring_bin, "simulate", "--platform", plat, "--topo", "4x64x16", "-b", "100M", "-e", "100M",
                    "--format", "csv", NULL};
    print_cmd(argv);
    const double limit = limit_for(180);
    run_t r;
    run_cmd(&r, "s2", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring simulate (4096 ranks)", &r, limit, TARGET_4096_S, 1);
        if (r.timed_out)
            printf("  peak private memory while it ran: %.1f MiB (target %.0f MiB)\n", r.private_peak_kb / 1024.0,
                   TARGET_4096_KB / 1024);
        return;
    }
    double us = -1;
    csv_value(r.out, "time_us", &us);
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    target_row("wall (s)", r.wall_s, TARGET_4096_S);
    target_row("peak RSS (MiB)", r.maxrss_kb / 1024.0, TARGET_4096_KB / 1024);
    printf("  simulated allreduce time: %.2f us (1 ring per dimension)\n", us);
    printf("  growth with the rank count (multiring on the natural topology, 100 MB, one run each;\n"
           "  4096 is the run above):\n  %7s %10s %12s\n", "ranks", "wall (s)", "peak RSS (MiB)");
    scaling_row(16, 1);
    scaling_row(64, 4);
    scaling_row(256, 16);
    printf("  %7d %10.3f %12.1f\n", 4096, r.wall_s, r.maxrss_kb / 1024.0);
}

static void section_tune(void)
{
    printf("\n== 4. mring tune: minsky-64, 1K..1G, factor 2 ==\n");
    char *argv[] = {mring_bin, "tune", "--platform", "platforms/minsky-64.xml", "-b", "1K", "-e", "1G", "-f", "2", NULL};
    print_cmd(argv);
    const double limit = limit_for(400);
    run_t r;
    run_cmd(&r, "s3", limit, argv);
    if (!run_ok(&r)) {
        report_failure("mring tune", &r, limit, TARGET_TUNE_S, 1);
        if (r.timed_out)
            printf("  %d sizes tuned by then (of 21)\n", count_rows(r.out));
        return;
    }
    printf("  %-40s %10s %10s %8s %s\n", "", "measured", "target", "ratio", "");
    target_row("wall (s)", r.wall_s, TARGET_TUNE_S);
    printf("  %d sizes tuned, peak RSS %.1f MiB\n", count_rows(r.out), r.maxrss_kb / 1024.0);
}

typedef struct {
    const char *label;
    long long bytes;
} size_case;

static void section_smpi(const char *root)
{
    printf("\n== 3. SMPI (smpirun, allreduce lr) vs mring simulate --algo ring: 256 ranks on minsky-64 ==\n");
    char smpicc[PATH_MAX], smpirun[PATH_MAX];
    if (!in_path("smpicc", smpicc, sizeof smpicc) || !in_path("smpirun", smpirun, sizeof smpirun)) {
        printf("  skipped: smpicc or smpirun not found in PATH (Debian: apt-get install libsimgrid-dev)\n");
        return;
    }

    /* the hostfile: the platform's mring_rank hosts in rank order (n0-gpu0, n0-gpu1, ...) */
    char **hosts = NULL;
    double gpu_speed = 0;
    int nranks = platform_rank_hosts("platforms/minsky-64.xml", &hosts, &gpu_speed);
    if (nranks <= 0) {
        printf("  skipped: no mring_rank hosts found in platforms/minsky-64.xml\n");
        return;
    }
    char hostfile[PATH_MAX];
    snprintf(hostfile, sizeof hostfile, "%s/hosts", workdir);
    FILE *hf = fopen(hostfile, "w");
    for (int i = 0; hf && i < nranks; i++)
        fprintf(hf, "%s\n", hosts[i]);
    if (!hf || fclose(hf)) {
        printf("  skipped: cannot write %s\n", hostfile);
        return;
    }
    printf("  hostfile: %d hosts, %s .. %s\n", nranks, hosts[0], hosts[nranks - 1]);
    for (int i = 0; i < nranks; i++)
        free(hosts[i]);
    free(hosts);

    /* compile the MPI program */
    char src[PATH_MAX], prog[PATH_MAX];
    snprintf(src, sizeof src, "%s/tests/smpi_ring_allreduce.c", root);
    snprintf(prog, sizeof prog, "%s/smpi_ring_allreduce", workdir);
    char *cc[] = {smpicc, "-O2", "-o", prog, src, NULL};
    print_cmd(cc);
    run_t c;
    double climit = limit_for(120);
    run_cmd(&c, "s4cc", climit, cc);
    if (!run_ok(&c)) {
        if (!c.skipped)
            printf("  SMPI comparison skipped: smpicc did not succeed\n");
        report_failure("smpicc", &c, climit, 0, 0);
        return;
    }
    printf("  compiled in %.2f s\n", c.wall_s);

    char np[16];
    snprintf(np, sizeof np, "%d", nranks);
    const size_case sizes[] = {{"1 MB", 1LL << 20}, {"100 MB", 100LL << 20}};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    double mr_wall[NSIZES], mr_us[NSIZES], sm_wall[NSIZES], sm_us[NSIZES], sm_priv[NSIZES], sm_rss[NSIZES];
    int ok[NSIZES];
    double sum_wall = -1, sum_us = -1;

    for (int s = 0; s < NSIZES; s++) {
        ok[s] = 0;
        char bytes[32], count[32];
        snprintf(bytes, sizeof bytes, "%lld", sizes[s].bytes);
        snprintf(count, sizeof count, "%lld", sizes[s].bytes / 4);

        char *mr[] = {mring_bin, "simulate", "--algo", "ring", "--platform", "platforms/minsky-64.xml", "-b", bytes,
                      "-e", bytes, "--format", "csv", NULL};
        if (s == 0)
            print_cmd(mr);
        run_t r;
        double limit = limit_for(120);
        run_cmd(&r, "s4mring", limit, mr);
        if (!run_ok(&r) || csv_value(r.out, "time_us", &mr_us[s])) {
            if (run_ok(&r)) {
                failures++;
                printf("  no time_us in the output of mring simulate --algo ring\n");
            } else {
                report_failure("mring simulate --algo ring", &r, limit, 0, 1);
            }
            continue;
        }
        mr_wall[s] = r.wall_s;

        /* noop: the same simulation without the real float sums on this CPU (see the MPI program) */
        char *sm[MAX_ARGS] = {smpirun,
                              "-np",
                              np,
                              "-platform",
                              "platforms/minsky-64.xml",
                              "-hostfile",
                              hostfile,
                              "-no-privatize",
                              "--cfg=smpi/allreduce:lr",
                              "--cfg=network/model:CM02",
                              "--cfg=network/crosstraffic:0",
                              "--cfg=smpi/host-speed:1Gf",
                              prog,
                              count,
                              "noop", /* index OPARG */
                              NULL};
        enum { OPARG = 14 };
        if (s == 0)
            print_cmd(sm);
        run_t m;
        limit = limit_for(120);
        run_cmd(&m, "s4smpi", limit, sm);
        double t = -1;
        if (!run_ok(&m) || kv_value(m.out, "time_s", &t)) {
            printf("  smpirun at %s did not succeed; its row is left out\n", sizes[s].label);
            if (run_ok(&m)) {
                printf("  no time_s= in the output of the MPI program\n");
            } else {
                report_failure("smpirun", &m, limit, 0, 0);
            }
            continue;
        }
        sm_wall[s] = m.wall_s;
        sm_us[s] = t * 1e6;
        sm_priv[s] = (double)m.private_peak_kb;
        sm_rss[s] = (double)m.maxrss_kb;
        ok[s] = 1;

        if (s == 0) { /* once with MPI_SUM, to show the reductions cost wall time but no simulated time */
            sm[OPARG] = "sum";
            limit = limit_for(120);
            run_cmd(&m, "s4smpisum", limit, sm);
            if (run_ok(&m) && kv_value(m.out, "time_s", &t) == 0) {
                sum_wall = m.wall_s;
                sum_us = t * 1e6;
            } else {
                report_failure("smpirun (MPI_SUM)", &m, limit, 0, 0);
            }
        }
    }

    printf("  %-7s | %9s %9s %7s | %12s %12s %9s | %10s %11s\n", "size", "mring (s)", "SMPI (s)", "SMPI/",
           "mring (us)", "SMPI (us)", "rel.diff", "SMPI priv.", "SMPI maxrss");
    printf("  %-7s | %9s %9s %7s | %12s %12s %9s | %10s %11s\n", "", "wall", "wall", "mring", "predicted",
           "predicted", "", "peak (MiB)", "(MiB)");
    for (int s = 0; s < NSIZES; s++) {
        if (!ok[s]) {
            printf("  %-7s | (failed, see above)\n", sizes[s].label);
            continue;
        }
        printf("  %-7s | %9.3f %9.3f %7.2f | %12.2f %12.2f %+8.2f%% | %10.1f %11.1f\n", sizes[s].label, mr_wall[s],
               sm_wall[s], sm_wall[s] / mr_wall[s], mr_us[s], sm_us[s], 100.0 * (mr_us[s] - sm_us[s]) / sm_us[s],
               sm_priv[s] / 1024, sm_rss[s] / 1024);
    }
    for (int s = 0; s < NSIZES; s++)
        if (ok[s])
            printf("  SMPI wall / mring wall at %-7s %8.2f, target >= %.0f: %s (ratio to target %.3f)\n", sizes[s].label,
                   sm_wall[s] / mr_wall[s], TARGET_SMPI_RATIO,
                   sm_wall[s] / mr_wall[s] >= TARGET_SMPI_RATIO ? "met" : "MISSED",
                   sm_wall[s] / mr_wall[s] / TARGET_SMPI_RATIO);
    printf("  rel.diff = (mring - SMPI) / SMPI.  SMPI runs use a no-op reduction (op noop) on SMPI_SHARED_MALLOC\n"
           "  buffers: SMPI performs a collective's reductions for real but charges them no simulated time,\n"
           "  whereas mring charges them at the GPU speed");
    if (gpu_speed > 0) {
        printf(" (%.0f GB/s here: about", gpu_speed / 1e9);
        for (int s = 0; s < NSIZES; s++)
            printf("%s %.1f us at %s", s ? "," : "",
                   1e6 * (double)sizes[s].bytes * (nranks - 1) / nranks / gpu_speed, sizes[s].label);
        printf(")");
    }
    printf(".\n");
    if (sum_wall >= 0)
        printf("  SMPI with MPI_SUM at 1 MB: wall %.3f s (%.2fx the no-op run), predicted %.2f us\n"
               "  (at 100 MB the sums take minutes of CPU and page faults on the shared mappings: not run).\n",
               sum_wall, ok[0] ? sum_wall / sm_wall[0] : 0.0, sum_us);
    printf("  SMPI maxrss counts the shared-malloc file pages once per rank mapping; 'priv. peak' is the sampled\n"
           "  anonymous + shmem RSS of the smpirun process tree, i.e. the memory it really holds.\n");
}

/* <build>/bin/mring from /proc/self/exe = <build>/tests/bench_sim; the root is found above it. */
static int locate(char *root, size_t cap)
{
    char exe[DIR_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/'); /* <build>/tests/bench_sim -> <build>/tests */
    if (!slash)
        return -1;
    *slash = '\0';
    if (!(slash = strrchr(exe, '/'))) /* -> <build> */
        return -1;
    *slash = '\0';
    snprintf(mring_bin, sizeof mring_bin, "%s/bin/mring", exe);
    snprintf(root, cap, "%s", exe);
    while ((slash = strrchr(root, '/'))) {
        *slash = '\0';
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%s/platforms/minsky-64.xml", *root ? root : "");
        if (access(probe, R_OK) == 0) {
            if (!*root)
                snprintf(root, cap, "/");
            return 0;
        }
    }
    return -1;
}

static void remove_workdir(void)
{
    static const char *const names[] = {"s1",     "s2gen",  "s2",      "s3",          "s4cc",
                                        "s4mring", "s4smpi", "s4smpisum"};
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.out", workdir, names[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s.err", workdir, names[i]);
        unlink(path);
    }
    static const char *const files[] = {"minsky-1024.xml", "hosts", "smpi_ring_allreduce"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", workdir, files[i]);
        unlink(path);
    }
    rmdir(workdir);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char root[DIR_MAX];
    if (locate(root, sizeof root)) {
        fprintf(stderr, "bench_sim: cannot find the repository root (platforms/minsky-64.xml) above /proc/self/exe\n");
        return 1;
    }
    if (access(mring_bin, X_OK)) {
        fprintf(stderr, "bench_sim: %s: %s (build it with scons)\n", mring_bin, strerror(errno));
        return 1;
    }
    if (chdir(root)) {
        fprintf(stderr, "bench_sim: chdir %s: %s\n", root, strerror(errno));
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/bench_sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        fprintf(stderr, "bench_sim: mkdtemp %s: %s\n", workdir, strerror(errno));
        return 1;
    }
    {
        run_t v;
        char *help[] = {mring_bin, "simulate", "--help", NULL};
        run_cmd(&v, "s1", 30, help);
        char *text = slurp(v.out);
        int sim = run_ok(&v) || (text && strstr(text, "--platform"));
        free(text);
        if (!sim) {
            printf("bench_sim: %s has no `simulate` (built without SimGrid?): nothing to measure\n", mring_bin);
            remove_workdir();
            return 0;
        }
    }
    printf("bench_sim: %s (cwd %s; scratch %s)\n", mring_bin, root, workdir);
    printf("wall times: CLOCK_MONOTONIC around fork/exec..wait4; RSS: wait4 ru_maxrss; each run once unless said\n");

    double t0 = now_s();
    deadline = t0 + BENCH_BUDGET_S;
    section_256();
    section_4096();
    section_smpi(root);
    section_tune();
    printf("\nbench_sim: %.1f s in all, %d failure(s)\n", now_s() - t0, failures);
    remove_workdir();
    return failures ? 1 : 0;
}

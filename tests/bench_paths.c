/*
 * bench_paths.c - the targets of multi-path rings (per-ring embeddings, rails, chunks pipelined
 * through the dimensions), measured by `mring tune` on the simulator and printed beside each
 * target with their ratio.  A benchmark: it prints, it asserts nothing; it exits 1 only when an
 * mring run fails.  Every figure is a simulated time (deterministic), so one run is the figure.
 *
 * A: minsky-64 (one EDR port per node), 1 KB..1 GB, factor 4: the tuned configuration of every
 *    size, whether it is from the multiring family (the multiring generator, any dim-algo, chunks
 *    or embedding) and faster than the flat ring; from 256 MB its busbw against the bound one EDR
 *    port per node sets: a node must send 2 S (N-1)/N bytes through it (N nodes, S bytes per
 *    rank), so busbw <= B (P-1)/P x N/(N-1), B = 12.5 GB/s (P = 256, N = 64: 12.65 GB/s).
 * B: DGX-1, 4 nodes, 4 EDR ports each (`mring platform dgx1 --nodes 4 --racks 1`), 512 MB: the
 *    tuned busbw against 4 x 12.5 GB/s x (P-1)/P x N/(N-1) (P = 32, N = 4: 64.6 GB/s).
 * C: one DGX-1 node (8 P100 on the hybrid cube-mesh), 512 MB: the tuned busbw, out of place and
 *    in place, against the NVLink bound: every GPU has 4 NVLinks of 18 GB/s per direction in the
 *    platform, and an allreduce sends 2 S (P-1)/P bytes from every GPU, so busbw <= 4 x 18 = 72 GB/s.
 * D: the emulated testbed's sign agreement, from validation/run's last report (it needs root and hours):
 *    where the simulator predicts a chunked multiring faster than the plain one, the measured speed-up
 *    must be > 1 and within 10% (the validation's accuracy target) of the predicted one; measured in
 *    validation/pairs' jobs (the configurations alternated call by call in one job) where a shape has them,
 *    else in validation/run's rounds.  Judged on all sizes; the counts from 256 KiB and below it are
 *    printed beside, with the measured cause of the misses below it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char bin[PATH_MAX + 16], root[PATH_MAX];
static int failures;

/* The build's mring (<build>/tests/.. /bin/mring) and the repository root (holding platforms/). */
static int locate(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    *strrchr(self, '/') = '\0'; /* <build>/tests */
    *strrchr(self, '/') = '\0'; /* <build> */
    snprintf(bin, sizeof bin, "%s/bin/mring", self);
    snprintf(root, sizeof root, "%s", self);
    for (char *slash; (slash = strrchr(root, '/'));) {
        char probe[PATH_MAX + 32];
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/platforms/minsky-64.xml", root);
        if (access(probe, R_OK) == 0)
            return access(bin, X_OK);
    }
    return -1;
}

/* One row of `mring tune`'s table. */
typedef struct row {
    long long size;
    char config[1024];
    double time_us, busbw, vs_ring;
} row_t;

/* Run `mring tune ARGS` (in the root) and read its rows; returns how many, -1 when it failed. */
static int tune(const char *args, row_t *rows, int max)
{
    char cmd[3 * PATH_MAX], line[8192];
    int n = 0;
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout 1800 '%s' tune %s 2>&1", root, bin, args);
    printf("$ mring tune %s\n", args);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    while (fgets(line, sizeof line, p)) {
        row_t r;
        char *cfg = strstr(line, "--algo"), *end;
        if (line[0] == '#' || !cfg || n == max || sscanf(line, "%lld", &r.size) != 1)
            continue;
        end = strstr(cfg, "  "); /* the configuration ends at the column gap */
        if (!end || sscanf(end, "%lf %lf %lfx", &r.time_us, &r.busbw, &r.vs_ring) != 3)
            continue;
        snprintf(r.config, sizeof r.config, "%.*s", (int)(end - cfg), cfg);
        rows[n++] = r;
    }
    if (pclose(p) != 0) {
        printf("  FAILED: mring tune %s\n", args);
        failures++;
        return -1;
    }
    return n;
}

static void target(const char *what, double measured, double goal)
{
    printf("  %-62s target %8.3f  measured %8.3f  ratio %.3f  %s\n", what, goal, measured, measured / goal,
           measured >= goal ? "met" : "MISSED");
}

static void section_minsky(void)
{
    row_t rows[32];
    int n = tune("--platform platforms/minsky-64.xml -b 1K -e 1G -f 4", rows, 32), family = 0, faster = 0;
    double bound = 12.5 * 255.0 / 256.0 * 64.0 / 63.0, worst = 1e300;
    printf("A. minsky-64: the tuned configuration per size (bound from 256 MB: %.3f GB/s busbw)\n", bound);
    for (int i = 0; i < n; i++) {
        int mr = !strncmp(rows[i].config, "--algo multiring", 16);
        family += mr;
        faster += rows[i].vs_ring > 1.0;
        printf("  %11lld  %-70s  %9.2f us  %6.2f GB/s  %5.2fx ring%s\n", rows[i].size, rows[i].config,
               rows[i].time_us, rows[i].busbw, rows[i].vs_ring, mr ? "" : "  (not multiring)");
        if (rows[i].size >= 256LL << 20 && rows[i].busbw / bound < worst)
            worst = rows[i].busbw / bound;
    }
    if (n > 0) {
        target("sizes whose pick is from the multiring family (of all sizes)", family, n);
        target("sizes whose pick is faster than the flat ring (of all sizes)", faster, n);
        target("from 256 MB: busbw / one-EDR-port bound (the worst size)", worst, 0.95);
    }
}

static void section_platform(const char *name, const char *gen, double bound, const char *what)
{
    char plat[PATH_MAX + 64], cmd[4 * PATH_MAX], args[PATH_MAX + 128];
    row_t rows[4];
    snprintf(plat, sizeof plat, "/tmp/mring-bench-%s-%d.xml", name, (int)getpid());
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' platform %s -o '%s'", root, bin, gen, plat);
    if (system(cmd) != 0) {
        printf("  FAILED: %s\n", cmd);
        failures++;
        return;
    }
    snprintf(args, sizeof args, "--platform %s -b 512M -e 512M", plat);
    if (tune(args, rows, 4) == 1) {
        printf("  512 MB: %s  %.2f us  %.2f GB/s busbw (bound %.2f GB/s)\n", rows[0].config, rows[0].time_us,
               rows[0].busbw, bound);
        target(what, rows[0].busbw / bound, 0.90);
        /* the same configuration in place (no copy of the input into the output first) */
        static char sim[8 * PATH_MAX]; /* the configuration is shell-safe as mring writes it */
        snprintf(sim, sizeof sim, "cd '%s' && '%s' simulate --platform '%s' %s --inplace -b 512M -e 512M --format csv "
                 "| tail -1 | cut -d, -f12", root, bin, plat, rows[0].config);
        FILE *p = popen(sim, "r");
        double inplace = 0;
        if (p && fscanf(p, "%lf", &inplace) == 1)
            printf("  in place: %.2f GB/s busbw, %.3f of the bound\n", inplace, inplace / bound);
        if (p)
            pclose(p);
    }
    unlink(plat);
}

/* Counts of one overlap CSV of validation/report (overlap.csv from validation/run's rounds, overlap-pairs.csv
 * from validation/pairs' alternated pairs: the same first 7 columns), its rows printed when verbose.  Returns 0,
 * or -1 when the file cannot be read. */
typedef struct {
    int gains, agree, within;
    int big_gains, big_agree, big_within; /* of them, from BIG bytes */
} gains_t;

/* Below this size a call's messages are a few frames at MTU 9000, and the testbed's token buckets pass the first
 * 2 (18.4 KB) of them free after an idle moment, where a NIC takes size / rate (validation/README.md, "Left to
 * do"); every gain predicted from it on agreed on all three shapes (2026-12-07) */
#define BIG (256 * 1024)

static void gains_add(gains_t *to, const gains_t *g)
{
    to->gains += g->gains, to->agree += g->agree, to->within += g->within;
    to->big_gains += g->big_gains, to->big_agree += g->big_agree, to->big_within += g->big_within;
}

static int overlap_counts(const char *path, int verbose, gains_t *g)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char cfg[256], sign[8], in10[8];
        long long size;
        double ps, ms;
        if (sscanf(line, "%255[^,],%*[^,],%lld,%lf,%lf,%7[^,],%7[^,\n]", cfg, &size, &ps, &ms, sign, in10) != 6)
            continue; /* the header */
        if (verbose)
            printf("  %-50s %11lld  predicted speed-up %.3f  measured %.3f  sign %s  within 10%% %s\n", cfg, size, ps,
                   ms, sign, in10);
        int gain = ps > 1, agree = !strcmp(sign, "yes"), within = agree && !strcmp(in10, "yes");
        g->gains += gain, g->agree += agree, g->within += within;
        if (size >= BIG)
            g->big_gains += gain, g->big_agree += agree, g->big_within += within;
    }
    fclose(f);
    return 0;
}

/* The value of KEY= in a run's meta file (the last one), or DEF. */
static void meta_value(const char *shape, const char *key, char *out, size_t n, const char *def)
{
    char path[PATH_MAX + 64], line[1024];
    size_t k = strlen(key);
    snprintf(out, n, "%s", def);
    snprintf(path, sizeof path, "%s/validation/results/%s/meta", root, shape);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, k) && line[k] == '=')
            snprintf(out, n, "%.*s", (int)strcspn(line + k + 1, "\n"), line + k + 1);
    if (f)
        fclose(f);
}

/* D on one shape: the chunked multirings against the plain ones on the emulated testbed, as validation/report
 * judged them (validation/results/<shape>/: it needs root and hours, so it is read here, with its dates, not
 * rerun).  Where validation/pairs measured the gains again in alternated pairs (overlap-pairs.csv), those
 * rows are printed and added to *pairs, and the rounds' counts (overlap.csv) are printed beside and added to
 * *rounds; else the rounds' rows are printed and added to both. */
static void testbed_shape(const char *shape, gains_t *rounds, gains_t *pairs)
{
    char path[PATH_MAX + 64], date[128], queues[32], again[128], paired[128];
    meta_value(shape, "date", date, sizeof date, "unknown date");
    meta_value(shape, "queues", queues, sizeof queues, "fifo (not recorded)"); /* recorded since 2026-12-05 */
    meta_value(shape, "repredicted", again, sizeof again, "");                  /* validation/repredict */
    meta_value(shape, "pairs", paired, sizeof paired, "");                      /* validation/pairs */
    printf("  %s (%s, queues %s%s%s%s%s)\n", shape, date, queues, *again ? ", predicted again " : "", again,
           *paired ? ", pairs alternated call by call " : "", paired);
    gains_t r = {0}, p = {0};
    snprintf(path, sizeof path, "%s/validation/results/%s/overlap-pairs.csv", root, shape);
    int have_pairs = overlap_counts(path, 1, &p) == 0;
    snprintf(path, sizeof path, "%s/validation/results/%s/overlap.csv", root, shape);
    if (overlap_counts(path, !have_pairs, &r) < 0) {
        printf("  no %s: run validation/run --shape %s as root\n", path, shape);
        return;
    }
    if (have_pairs)
        printf("  (in validation/run's rounds: %d gains, %d in sign, %d within 10%%)\n", r.gains, r.agree, r.within);
    else
        p = r;
    gains_add(rounds, &r);
    gains_add(pairs, &p);
}

/* D: every shape validation/run measures (validation/README.md), the predicted gains counted together.  The
 * target is judged on validation/pairs' figures where a shape has them: a speed-up is a ratio of two
 * configurations' times, and the pairs measure both side by side (call by call in one job), where the rounds
 * measure each in its own job and can put a spell of the host's stops, or a slow job, on one and not the other
 * (validation/README.md, "Alternated pairs"); the rounds' counts are printed beside, not judged. */
static void section_testbed(void)
{
    static const char *const shapes[] = {"2x2", "2x4", "2x2x2"};
    gains_t rounds = {0}, pairs = {0};
    printf("\nD. emulated testbed: chunked multiring against plain (validation/run, then validation/pairs)\n");
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        testbed_shape(shapes[i], &rounds, &pairs);
    printf("  validation/run's rounds alone: %d predicted gains, %d in sign, %d also within 10%% (not judged)\n",
           rounds.gains, rounds.agree, rounds.within);
    target("predicted gains the measurement confirms in sign (of all)", pairs.agree, pairs.gains);
    target("... and within 10% of the predicted speed-up (of all)", pairs.within, pairs.gains);
    printf("  of them from 256 KiB: %d gains, %d in sign, %d within 10%%; below: %d, %d, %d (below 256 KiB a call's\n"
           "  messages are a few frames at MTU 9000, and the testbed's token buckets pass the first 2 free after an\n"
           "  idle moment where a NIC takes size / rate: measured in validation/README.md, \"Left to do\")\n",
           pairs.big_gains, pairs.big_agree, pairs.big_within, pairs.gains - pairs.big_gains,
           pairs.agree - pairs.big_agree, pairs.within - pairs.big_within);
}

int main(void)
{
    if (locate()) {
        fprintf(stderr, "bench_paths: cannot find build/bin/mring and the repository root\n");
        return 1;
    }
    printf("bench_paths: targets of multi-path rings (simulated times; deterministic, one run each)\n\n");
    section_minsky();
    printf("\nB. DGX-1, 4 nodes, 4 EDR rails each\n");
    section_platform("dgx1-4", "dgx1 --nodes 4 --racks 1", 4 * 12.5 * 31.0 / 32.0 * 4.0 / 3.0,
                     "512 MB: busbw / 4-EDR-ports bound");
    printf("\nC. one DGX-1 node (hybrid cube-mesh NVLink)\n");
    section_platform("dgx1-1", "dgx1 --nodes 1 --racks 1", 4 * 18.0, "512 MB: busbw / NVLink bound (out of place)");
    section_testbed();
    return failures ? 1 : 0;
}

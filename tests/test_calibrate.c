/* test_calibrate.c - the testbed's calibration: mring-calibrate, `mring platform testbed` and
 * validation/calibrate.
 *
 * 1. mring-calibrate under mpiexec on 4 ranks, 2 per node (all local here): the JSON's structure and
 *    sanity (alpha > 0, bandwidth = 1/beta > 0, one point per size, fit_s = alpha + beta * bytes,
 *    residuals finite and consistent, reduction throughput > 0); with racks the rack level and the
 *    uplink's bulk test (its flows and capacity = flows / beta); the connection probe (two messages to
 *    one peer: the earlier first, conn=pair below a ratio of 0.75, and the profile saying so).
 * 2. mring-calibrate --fit-only (no MPI): points on a line give that line's alpha and beta exactly
 *    (and so does the unweighted fit reported beside it); scattered points give the weighted
 *    least-squares fit of weights 1/t^2 (checked against the closed form computed here).
 * 3. `mring platform testbed`: `mring route` between two ranks of a node gives exactly --intra,
 *    between ranks of two nodes exactly --inter, between racks --rack's latency through the narrower
 *    of the NIC and the uplink; --comment lines land in the file.
 * 4. validation/calibrate --local end to end: the platform's routes are the fits of its JSON.
 * 5. Bad input to mring-calibrate and to `mring platform testbed`: one stderr line naming the
 *    value, exit 2.
 * MPI parts skip without mpiexec or mring-calibrate (no MPICH or GSL), route checks without SimGrid.
 * Every run has a deadline (the process group is killed past it).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim_cli.h"
#include "mpi_run.h"

#define LIMIT_S 60

/* ---- running things ---- */

/* build/bin/<name> next to $MRING_BIN, or NULL when missing */
static const char *bin_file(const char *name)
{
    static char path[PATH_MAX + 256];
    char bin[PATH_MAX], *slash;
    if (!realpath(cli_bin(), bin) || !(slash = strrchr(bin, '/')))
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/%s", bin, name);
    return access(path, X_OK) == 0 ? path : NULL;
}

/* mring-calibrate, skipping the test when it (or mpiexec, when mpi) is missing */
static const char *calibrate_bin(int mpi)
{
    const char *p = bin_file("mring-calibrate");
    if (!p || (mpi && system("command -v mpiexec >/dev/null 2>&1") != 0))
        skip();
    return p;
}

/* run argv (argv[0] from PATH) with `in` on stdin (NULL: /dev/null) and MPIEXEC_TIMEOUT=LIMIT_S
 * (mpi_run.h).  The caller frees r. */
static void run(const char *const *argv, const char *in, struct cli_result *r)
{
    double secs;
    if (mpi_run_input(argv, in, LIMIT_S, r, &secs))
        fail_msg("could not run %s", r->cmd);
    print_message("%s: %s\n", r->cmd, r->exited ? "exited" : "killed");
}

static void want_exit0(const struct cli_result *r)
{
    char how[64];
    if (!r->exited || r->status != 0)
        fail_msg("%s: want exit 0, got %s\nstdout: %.2000s\nstderr: %.2000s", r->cmd, cli_how(r, how, sizeof how),
                 r->out, r->err);
}

/* exit 2 and exactly one stderr line holding `word` */
static void want_usage_error(const struct cli_result *r, const char *word)
{
    char how[64];
    const char *nl = strchr(r->err, '\n');
    if (!r->exited || r->status != 2 || !nl || nl[1] || !strstr(r->err, word))
        fail_msg("%s: want exit 2 and one stderr line naming '%s'; got %s, stderr:\n%s", r->cmd, word,
                 cli_how(r, how, sizeof how), r->err);
}

static json_t *parse_json(const struct cli_result *r)
{
    json_error_t e;
    json_t *j = json_loads(r->out, 0, &e);
    if (!j || !json_is_object(j))
        fail_msg("%s: stdout is not a JSON object (%s, line %d):\n%.2000s", r->cmd, e.text, e.line, r->out);
    return j;
}

static double num(const json_t *o, const char *key, const char *cmd)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("%s: no number \"%s\"", cmd, key);
    return json_number_value(v);
}

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

/* ---- 1. mring-calibrate on 4 ranks ---- */

#define ATTEMPTS 3 /* measurements on a loaded machine can be noise: the sanity checks get 3 runs */

/* A level's object: its points (sizes first, 2 first, 4 first ..., nsizes of them), fit_s = alpha +
 * beta * bytes, the residuals and bandwidth consistent with them (else the test fails).  Returns 1
 * when the fit is also physical (alpha > 0, beta > 0), else 0 with the reason in why. */
static int check_level(const json_t *l, int nsizes, double first, const char *name, const char *cmd, char *why,
                       size_t whylen)
{
    double a, b, bw, maxr, rms, worst = 0;
    const json_t *pts = json_object_get(l, "points");
    if (!json_is_object(l) || !json_is_array(pts))
        fail_msg("%s: \"%s\" is not a level object with points", cmd, name);
    a = num(l, "alpha_s", cmd), b = num(l, "beta_s_per_byte", cmd), bw = num(l, "bandwidth_Bps", cmd);
    maxr = num(l, "max_rel_residual", cmd), rms = num(l, "rms_rel_residual", cmd);
    if (!(b > 0 ? close_rel(bw, 1 / b, 1e-12) : bw == 0) || !isfinite(a) || !isfinite(maxr) || !(rms <= maxr))
        fail_msg("%s: %s: alpha %g s, beta %g s/B, bandwidth %g B/s (want 1/beta), residuals max %g rms %g", cmd, name,
                 a, b, bw, maxr, rms);
    if ((int)json_array_size(pts) != nsizes)
        fail_msg("%s: %s has %zu points; want %d", cmd, name, json_array_size(pts), nsizes);
    for (int i = 0; i < nsizes; i++) {
        const json_t *p = json_array_get(pts, (size_t)i);
        double m = num(p, "bytes", cmd), t = num(p, "time_s", cmd), f = num(p, "fit_s", cmd),
               r = num(p, "rel_residual", cmd), t0 = num(p, "min_s", cmd);
        if (m != ldexp(first, i) || !(t0 > 0 && t0 <= t) || !close_rel(f, a + b * m, 1e-12) ||
            !close_rel(r, (t - f) / t, 1e-9))
            fail_msg("%s: %s point %d: bytes %g (want %g), time %g s (min %g), fit %g s (want %.17g), residual %g",
                     cmd, name, i, m, ldexp(first, i), t, t0, f, a + b * m, r);
        worst = fmax(worst, fabs(r));
    }
    if (!close_rel(worst, maxr, 1e-9))
        fail_msg("%s: %s: max_rel_residual %g but the points' largest is %g", cmd, name, maxr, worst);
    snprintf(why, whylen, "%s: alpha %g s, beta %g s/B", name, a, b);
    return a > 0 && b > 0;
}

/* The connection probe: two messages of maxb bytes, the earlier first, their ratio, conn=pair below 0.75
 * (one ordered connection: about 0.5) and the profile's text form saying so. */
static void check_connection(const json_t *j, double maxb, const char *cmd, const char *out)
{
    const json_t *c = json_object_get(j, "connection");
    const char *conn = json_string_value(json_object_get(c, "conn")),
               *sw = json_string_value(json_object_get(json_object_get(j, "profile"), "mring_sw"));
    double f = num(c, "first_s", cmd), sec = num(c, "second_s", cmd), ratio = num(c, "ratio", cmd);
    if (num(c, "bytes", cmd) != maxb || !(f > 0 && f <= sec) || !close_rel(ratio, f / sec, 1e-12) || !conn || !sw ||
        strcmp(conn, ratio < 0.75 ? "pair" : "stream") || !strstr(sw, "conn=pair") != !strcmp(conn, "stream"))
        fail_msg("%s: want the connection probe's %g B messages, the first no later than the second, their ratio, "
                 "conn=pair below 0.75 and in the profile's mring_sw:\n%s", cmd, maxb, out);
}

/* run mring-calibrate on 4 ranks, 2 per node; 1 when both levels' fits are physical */
static int calibrate_json_once(void)
{
    const char *argv[] = {"mpiexec", "-n", "4", calibrate_bin(1), "--ranks-per-node", "2", "--sizes", "1:64K",
                          "--iters", "5", "--format", "json", NULL};
    struct cli_result r;
    char why[2][256];
    run(argv, NULL, &r);
    want_exit0(&r);
    json_t *j = parse_json(&r);
    if (num(j, "ranks", r.cmd) != 4 || num(j, "ranks_per_node", r.cmd) != 2 || num(j, "nodes", r.cmd) != 2 ||
        !json_is_string(json_object_get(j, "fit")) || !strstr(json_string_value(json_object_get(j, "fit")), "wlinear"))
        fail_msg("%s: want ranks 4, ranks_per_node 2, nodes 2 and the fit named:\n%s", r.cmd, r.out);
    int sane = check_level(json_object_get(j, "intra"), 17, 1, "intra", r.cmd, why[0], sizeof why[0]);
    sane &= check_level(json_object_get(j, "inter"), 17, 1, "inter", r.cmd, why[1], sizeof why[1]);
    char ring_why[256];
    check_level(json_object_get(j, "ring"), 17, 1, "ring", r.cmd, ring_why, sizeof ring_why); /* structure only */
    const json_t *prof = json_object_get(j, "profile");
    const char *level = json_string_value(json_object_get(prof, "level")),
               *wire = json_string_value(json_object_get(prof, "wire"));
    if (num(json_object_get(j, "ring"), "pairs", r.cmd) != 4 || !level || strcmp(level, "ring") || !wire ||
        strcmp(wire, "inter"))
        fail_msg("%s: want a ring of 4 ranks and the profile fitted to its steps on the inter line:\n%s", r.cmd, r.out);
    check_connection(j, 65536, r.cmd, r.out);
    if (num(json_object_get(j, "intra"), "pairs", r.cmd) != 2 || num(json_object_get(j, "inter"), "pairs", r.cmd) != 2 ||
        !(num(j, "o_send_s", r.cmd) > 0) || !(num(j, "o_recv_s", r.cmd) > 0))
        fail_msg("%s: want 2 pairs at once per level and o measured:\n%s", r.cmd, r.out);
    if (!(num(j, "reduce_Bps", r.cmd) > 0) || !(num(j, "reduce_all_Bps", r.cmd) > 0) ||
        num(j, "reduce_bytes", r.cmd) != 64 << 20)
        fail_msg("%s: want reduction throughputs > 0 over 64 MiB:\n%s", r.cmd, r.out);
    if (!sane)
        print_message("%s: a fit is not physical (%s; %s): noise, measuring again\n", r.cmd, why[0], why[1]);
    json_decref(j);
    cli_free(&r);
    return sane;
}

static void test_calibrate_json(void **state)
{
    int attempt = 1;
    while (!calibrate_json_once())
        if (++attempt > ATTEMPTS)
            fail_msg("%d runs in a row gave a fit with alpha <= 0 or beta <= 0", ATTEMPTS);
}

/* one rank per node: no intra level (null); one node: no inter level (structure only: 2 iterations) */
static void test_calibrate_levels_skipped(void **state)
{
    const char *one_per_node[] = {"mpiexec", "-n", "2", calibrate_bin(1), "--ranks-per-node", "1", "--sizes", "1K:64K",
                                  "--iters", "2", "--reduce-bytes", "1M", "--format", "json", NULL};
    const char *one_node[] = {"mpiexec", "-n", "2", calibrate_bin(1), "--ranks-per-node", "2", "--sizes", "1K:64K",
                              "--iters", "2", "--reduce-bytes", "1M", "--format", "json", NULL};
    struct cli_result r;
    char why[256];
    run(one_per_node, NULL, &r);
    want_exit0(&r);
    json_t *j = parse_json(&r);
    if (!json_is_null(json_object_get(j, "intra")))
        fail_msg("%s: want \"intra\": null:\n%s", r.cmd, r.out);
    check_level(json_object_get(j, "inter"), 7, 1024, "inter", r.cmd, why, sizeof why);
    json_decref(j);
    cli_free(&r);
    run(one_node, NULL, &r);
    want_exit0(&r);
    j = parse_json(&r);
    if (!json_is_null(json_object_get(j, "inter")))
        fail_msg("%s: want \"inter\": null:\n%s", r.cmd, r.out);
    check_level(json_object_get(j, "intra"), 7, 1024, "intra", r.cmd, why, sizeof why);
    json_decref(j);
    cli_free(&r);
}

/* racks (8 ranks, 2 per node, 2 nodes per rack): the rack level, then the uplink's bulk test over the top 4
 * sizes with the 4 pairs of rack 0 -> rack 1 at once (--one-pair: 1), its capacity = flows / beta;
 * without racks no uplink */
static void test_calibrate_uplink(void **state)
{
    const char *racks[] = {"mpiexec", "-n", "8", calibrate_bin(1), "--ranks-per-node", "2", "--nodes-per-rack", "2",
                           "--sizes", "1K:64K", "--iters", "2", "--reduce-bytes", "1M", "--format", "json", NULL, NULL};
    const int flows[] = {4, 1};
    struct cli_result r;
    char why[256];
    for (int one = 0; one < 2; one++) {
        racks[16] = one ? "--one-pair" : NULL;
        run(racks, NULL, &r);
        want_exit0(&r);
        json_t *j = parse_json(&r), *up = json_object_get(j, "uplink");
        check_level(json_object_get(j, "rack"), 7, 1024, "rack", r.cmd, why, sizeof why);
        check_level(up, 4, 8192, "uplink", r.cmd, why, sizeof why);
        double b = num(up, "beta_s_per_byte", r.cmd), link = num(up, "link_Bps", r.cmd);
        if (num(up, "flows", r.cmd) != flows[one] || num(up, "pairs", r.cmd) != flows[one] ||
            !(b > 0 ? close_rel(link, flows[one] / b, 1e-12) : link == 0))
            fail_msg("%s: uplink: want %d flows and link_Bps = flows / beta; got:\n%s", r.cmd, flows[one], r.out);
        json_decref(j);
        cli_free(&r);
    }
    const char *flat[] = {"mpiexec", "-n", "4", calibrate_bin(1), "--ranks-per-node", "2", "--sizes", "1K:64K",
                          "--iters", "2", "--reduce-bytes", "1M", "--format", "json", NULL};
    run(flat, NULL, &r);
    want_exit0(&r);
    json_t *j = parse_json(&r);
    if (!json_is_null(json_object_get(j, "uplink")) || !json_is_null(json_object_get(j, "rack")))
        fail_msg("%s: want \"rack\": null and \"uplink\": null without racks:\n%s", r.cmd, r.out);
    json_decref(j);
    cli_free(&r);
}

/* ---- 2. the fit ---- */

/* fit "bytes seconds" lines with --fit-only; returns the level object (caller decrefs the root) */
static json_t *fit(const char *pairs, json_t **root)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--format", "json", NULL};
    struct cli_result r;
    run(argv, pairs, &r);
    want_exit0(&r);
    *root = parse_json(&r);
    json_t *l = json_object_get(*root, "level");
    if (!json_is_object(l))
        fail_msg("%s: no \"level\" object:\n%s", r.cmd, r.out);
    cli_free(&r);
    return l;
}

/* points exactly on t = a + b m over 1 B .. 4 MiB give a and b (to rounding) and zero residuals */
static void test_fit_exact_line(void **state)
{
    const double lines[][2] = {{2e-6, 1e-10}, {5e-5, 8e-9}, {1.5e-7, 6.25e-11}};
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        char pairs[4096];
        size_t n = 0;
        json_t *root;
        for (long m = 1; m <= 4L << 20; m *= 4)
            n += (size_t)snprintf(pairs + n, sizeof pairs - n, "%ld %.17g\n", m, lines[k][0] + lines[k][1] * m);
        json_t *l = fit(pairs, &root);
        double a = num(l, "alpha_s", "fit"), b = num(l, "beta_s_per_byte", "fit");
        if (!close_rel(a, lines[k][0], 1e-12) || !close_rel(b, lines[k][1], 1e-12) ||
            !(num(l, "max_rel_residual", "fit") < 1e-12) || json_array_size(json_object_get(l, "points")) != 12)
            fail_msg("line %zu: fitted alpha %.17g beta %.17g, want %.17g and %.17g exactly, 12 points", k, a, b,
                     lines[k][0], lines[k][1]);
        const json_t *u = json_object_get(l, "unweighted"); /* the comparison fit agrees on a line */
        if (!close_rel(num(u, "alpha_s", "fit"), lines[k][0], 1e-9) ||
            !close_rel(num(u, "beta_s_per_byte", "fit"), lines[k][1], 1e-9))
            fail_msg("line %zu: the unweighted fit is not the line", k);
        json_decref(root);
    }
}

/* two regimes (a fast start, then the sustained rate from 256 KiB): beta is the large sizes' slope */
static void test_fit_bandwidth_regime(void **state)
{
    const double m[] = {1, 1024, 65536, 262144, 1048576, 4194304};
    char pairs[1024];
    size_t n = 0;
    json_t *root;
    (void)state;
    for (int i = 0; i < 6; i++) {
        double t = m[i] < 262144 ? 2e-6 + 1e-9 * m[i] : 1e-4 + 8e-9 * m[i];
        n += (size_t)snprintf(pairs + n, sizeof pairs - n, "%.0f %.17g\n", m[i], t);
    }
    json_t *l = fit(pairs, &root);
    double fb = num(l, "beta_s_per_byte", "fit");
    if (!close_rel(fb, 8e-9, 1e-9))
        fail_msg("two regimes: beta %.10g, want the sustained 8e-9 s/B", fb);
    json_decref(root);
}

/* run --fit-only argv on pairs: its "profile" object, checked to have 4 segments (the run in *r, the whole
 * output in *root: the caller frees both) */
static json_t *fit_profile(const char *const *argv, const char *pairs, struct cli_result *r, json_t **root)
{
    run(argv, pairs, r);
    want_exit0(r);
    *root = parse_json(r);
    json_t *p = json_object_get(*root, "profile");
    if (!json_is_object(p) || json_array_size(json_object_get(p, "factors")) != 4)
        fail_msg("%s: want a profile of 4 segments:\n%s", r->cmd, r->out);
    return p;
}

/* "bytes seconds" lines, 1 B to 4 MiB in powers of 2, of a known profile: 2 o = 4 us, the wire 10 us +
 * 0.05 ns/B, latency factor L[s] and bandwidth factor B[s] in segment s (from 0, 4 KiB, 64 KiB, 1 MiB) */
static void profile_pairs(const double *L, const double *B, char *pairs, size_t len)
{
    size_t n = 0;
    for (long m = 1; m <= 4L << 20; m *= 2) {
        int s = m >= 1048576 ? 3 : m >= 65536 ? 2 : m >= 4096 ? 1 : 0;
        n += (size_t)snprintf(pairs + n, len - n, "%ld %.17g\n", m, 4e-6 + 10e-6 * L[s] + 0.05e-9 * m / B[s]);
    }
}

/* points from a known profile (o = 2 us, wire 10 us + 0.05 ns/B, factors per segment, every segment's latency
 * resolvable up to 4 MiB; from 256 KiB one line, so the level's beta is the wire's): --fit-only --o 2us gives
 * back the bandwidth factors, the latency factors relative to the first segment's, and zero residual */
static void test_fit_profile(void **state)
{
    const double L[] = {1, 2, 3, 3}, B[] = {0.5, 0.25, 1, 1}, from[] = {0, 4096, 65536, 1048576};
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--o", "2us", "--format", "json", NULL};
    char pairs[4096];
    struct cli_result r;
    (void)state;
    profile_pairs(L, B, pairs, sizeof pairs);
    json_t *root, *p = fit_profile(argv, pairs, &r, &root), *f = json_object_get(p, "factors");
    if (num(p, "o_s", r.cmd) != 2e-6 ||
        !(num(p, "max_rel_residual", r.cmd) < 1e-9) || !json_is_string(json_object_get(p, "mring_sw")))
        fail_msg("%s: want a profile of o 2 us, 4 segments, zero residual:\n%s", r.cmd, r.out);
    json_t *f0 = json_array_get(f, 0);
    for (int s = 0; s < 4; s++) {
        json_t *fs = json_array_get(f, (size_t)s);
        double lr = num(fs, "lat_factor", r.cmd) / num(f0, "lat_factor", r.cmd), bw = num(fs, "bw_factor", r.cmd);
        if (num(fs, "from_bytes", r.cmd) != from[s] || !close_rel(lr, L[s], 1e-9) || !close_rel(bw, B[s], 1e-9))
            fail_msg("%s: segment %d: from %g, latency ratio %.12g (want %g), bandwidth factor %.12g (want %g)", r.cmd,
                     s, num(fs, "from_bytes", r.cmd), lr, L[s], bw, B[s]);
    }
    json_decref(root);
    cli_free(&r);
}

/* the same with the wire line given (--wire 14us:20GBps: alpha 14 us with 2 o, 0.05 ns/B) and the points
 * slower in the first segment than that wire (a ring step that waits for its neighbours: latency x12): the
 * factors come back as they are, not relative to the points' own line */
static void test_fit_profile_wire(void **state)
{
    const double L[] = {12, 2, 3, 3}, B[] = {0.5, 0.25, 1, 1};
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--o", "2us", "--wire", "14us:20GBps", "--format", "json",
                          NULL};
    char pairs[4096];
    struct cli_result r;
    (void)state;
    profile_pairs(L, B, pairs, sizeof pairs);
    json_t *root, *p = fit_profile(argv, pairs, &r, &root), *f = json_object_get(p, "factors");
    if (!close_rel(num(p, "wire_alpha_s", r.cmd), 10e-6, 1e-12) ||
        !close_rel(num(p, "beta_s_per_byte", r.cmd), 0.05e-9, 1e-12) || !(num(p, "max_rel_residual", r.cmd) < 1e-9))
        fail_msg("%s: want 4 segments on the wire 10 us + 0.05 ns/B, zero residual:\n%s", r.cmd, r.out);
    for (int s = 0; s < 4; s++) {
        json_t *fs = json_array_get(f, (size_t)s);
        double lat = num(fs, "lat_factor", r.cmd), bw = num(fs, "bw_factor", r.cmd);
        if (!close_rel(lat, L[s], 1e-9) || !close_rel(bw, B[s], 1e-9))
            fail_msg("%s: segment %d: latency factor %.12g (want %g), bandwidth factor %.12g (want %g)", r.cmd, s, lat,
                     L[s], bw, B[s]);
    }
    json_decref(root);
    cli_free(&r);
}

/* a ring step's wait for its neighbours: flat below 4 KiB (2 o + 150 us, the wire 10 us + 0.05 ns/B under
 * it), the wire line above: the first segment gets a latency factor, the weighted mean of t - 2 o - m beta
 * over alpha, and bandwidth 1 (a bandwidth factor would explain a flat wait as bytes) */
static void test_fit_profile_flat(void **state)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--o", "2us", "--wire", "14us:20GBps", "--format", "json",
                          NULL};
    char pairs[4096];
    size_t n = 0;
    double sw = 0, swa = 0;
    struct cli_result r;
    (void)state;
    for (long m = 1; m <= 4L << 20; m *= 2) {
        double t = m < 4096 ? 154e-6 : 14e-6 + 0.05e-9 * m;
        n += (size_t)snprintf(pairs + n, sizeof pairs - n, "%ld %.17g\n", m, t);
        if (m < 4096)
            sw += 1 / (t * t), swa += (t - 4e-6 - 0.05e-9 * m) / (t * t);
    }
    json_t *root, *f = json_object_get(fit_profile(argv, pairs, &r, &root), "factors"), *f0 = json_array_get(f, 0);
    double lat = num(f0, "lat_factor", r.cmd), bw = num(f0, "bw_factor", r.cmd);
    if (!close_rel(lat, swa / sw / 10e-6, 1e-9) || bw != 1)
        fail_msg("%s: segment 0: latency factor %.12g (want %.12g), bandwidth factor %.12g (want 1)", r.cmd, lat,
                 swa / sw / 10e-6, bw);
    for (int s = 1; s < 4; s++) {
        json_t *fs = json_array_get(f, (size_t)s);
        if (!close_rel(num(fs, "lat_factor", r.cmd), 1, 1e-9) || !close_rel(num(fs, "bw_factor", r.cmd), 1, 1e-9))
            fail_msg("%s: segment %d: want factors 1 and 1 on the wire line:\n%s", r.cmd, s, r.out);
    }
    json_decref(root);
    cli_free(&r);
}

/* a token bucket's ping-pong (wire 12 us, 16 ns/B, the first 128 KiB of a message passed at once): the
 * segments look faster than the wire, which no collective sees (its steps keep the bucket empty).  Every
 * bandwidth factor stays 1, and from 4 KiB, where the latency is not resolved or the times lie under the
 * line, the latency factor too (the unconstrained fit gave bandwidth factors of 4.2, 3.3 and 1.25 and a
 * latency factor of 1153 on such data) */
static void test_fit_profile_bucket(void **state)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--o", "2us", "--format", "json", NULL};
    char pairs[4096];
    size_t n = 0;
    struct cli_result r;
    (void)state;
    for (long m = 1; m <= 4L << 20; m *= 2)
        n += (size_t)snprintf(pairs + n, sizeof pairs - n, "%ld %.17g\n", m,
                              16e-6 + 16e-9 * (double)(m > 131072 ? m - 131072 : 0));
    json_t *root, *f = json_object_get(fit_profile(argv, pairs, &r, &root), "factors");
    for (int s = 0; s < 4; s++) {
        json_t *fs = json_array_get(f, (size_t)s);
        double lat = num(fs, "lat_factor", r.cmd), bw = num(fs, "bw_factor", r.cmd);
        if (bw != 1 || (s > 0 && lat != 1) || !(lat > 0))
            fail_msg("%s: segment %d: latency factor %.12g, bandwidth factor %.12g: want bandwidth 1, latency 1 "
                     "from 4 KiB", r.cmd, s, lat, bw);
    }
    json_decref(root);
    cli_free(&r);
}

/* scattered points: the fit minimises sum ((t - a - b m) / t)^2, i.e. weights 1/t^2 (closed form) */
static void test_fit_weighted(void **state)
{
    const double m[] = {1, 64, 4096, 65536, 1048576, 4194304}, t[] = {1.1e-6, 0.9e-6, 2.0e-6, 9e-6, 1.3e-4, 4.6e-4};
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    char pairs[1024];
    size_t n = 0;
    json_t *root;
    for (int i = 0; i < 6; i++) {
        double w = 1 / (t[i] * t[i]);
        sw += w, sx += w * m[i], sy += w * t[i], sxx += w * m[i] * m[i], sxy += w * m[i] * t[i];
        n += (size_t)snprintf(pairs + n, sizeof pairs - n, "# point %d\n%.0f %.17g\n", i, m[i], t[i]);
    }
    double b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx), a = (sy - b * sx) / sw;
    json_t *l = fit(pairs, &root);
    double fa = num(l, "alpha_s", "fit"), fb = num(l, "beta_s_per_byte", "fit");
    if (!close_rel(fa, a, 1e-9) || !close_rel(fb, b, 1e-9))
        fail_msg("weighted fit: got alpha %.10g beta %.10g; want %.10g and %.10g (weights 1/t^2)", fa, fb, a, b);
    json_decref(root);
}

static void test_fit_bad_input(void **state)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", NULL};
    const struct {
        const char *in, *word;
    } cases[] = {{"1 2e-6\n64 x\n", "'64 x'"}, {"8 1e-6\n", "2 different sizes"}, {"8 1e-6\n8 2e-6\n", "2 different"},
                 {"1 1e-6\n2 -1e-6\n", "time > 0"}, {"", "2 different sizes"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cli_result r;
        run(argv, cases[i].in, &r);
        want_usage_error(&r, cases[i].word);
        cli_free(&r);
    }
    const char *wire[][8] = {{calibrate_bin(0), "--fit-only", "--o", "2us", "--wire", "14us", NULL},
                             {calibrate_bin(0), "--fit-only", "--o", "2us", "--wire", "14us:fast", NULL},
                             {calibrate_bin(0), "--fit-only", "--wire", "14us:20GBps", NULL}};
    const char *word[] = {"'14us'", "'14us:fast'", "--wire"};
    for (size_t i = 0; i < sizeof wire / sizeof *wire; i++) {
        struct cli_result r;
        run(wire[i], "1 1e-6\n2 2e-6\n", &r);
        want_usage_error(&r, word[i]);
        cli_free(&r);
    }
}

/* ---- 3. mring platform testbed ---- */

/* skip when mring was built without `mring platform` (no libxml2) */
static void need_platform(void)
{
    const char *help[] = {"platform", "--help", NULL};
    struct cli_result r = {0};
    cli_run(help, &r);
    if (!r.exited || r.status != 0)
        skip();
    cli_free(&r);
}

/* the summary line of `mring route --platform file a b`; skips without SimGrid */
static void route_summary(const char *file, const char *a, const char *b, char *line, size_t len)
{
    const char *args[] = {"route", "--platform", file, a, b, NULL}, *help[] = {"route", "--help", NULL};
    struct cli_result r = {0};
    cli_run(help, &r);
    if (!r.exited || r.status != 0)
        skip(); /* built without SimGrid */
    cli_free(&r);
    cli_run_ok(args, &r);
    const char *s = strstr(r.out, "\n# ");
    if (!s)
        fail_msg("%s: no summary line:\n%s", r.cmd, r.out);
    snprintf(line, len, "%.*s", (int)strcspn(s + 1, "\n"), s + 1);
    cli_free(&r);
}

static void want_route(const char *file, const char *a, const char *b, const char *figures)
{
    char line[512];
    route_summary(file, a, b, line, sizeof line);
    if (!strstr(line, figures))
        fail_msg("mring route %s %s on %s: want '%s' in: %s", a, b, file, figures, line);
}

static void test_platform_testbed_routes(void **state)
{
    char file[PATH_MAX + 32], *xml;
    snprintf(file, sizeof file, "%s/tb-3x2.xml", sim_tmp);
    const char *args[] = {"platform", "testbed", "--nodes", "3", "--gpus-per-node", "2", "--intra", "3.7us:5GBps",
                          "--inter", "51us:125MBps", "--reduce", "3GBps", "--comment", "intra: fitted on a test",
                          "--comment", "inter: also", "-o", file, NULL};
    struct cli_result r = {0};
    size_t len;
    need_platform();
    cli_run_ok(args, &r);
    cli_free(&r);
    int fd = open(file, O_RDONLY);
    xml = fd >= 0 ? cli_slurp(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (!xml || !strstr(xml, "<!-- intra: fitted on a test -->") || !strstr(xml, "<!-- inter: also -->") ||
        !strstr(xml, "<prop id=\"mring_topo\" value=\"2x3\"/>"))
        fail_msg("%s: want both --comment lines as XML comments and mring_topo 2x3", file);
    free(xml);
    want_route(file, "0", "1", "latency 3.7 us, bandwidth 5 GBps");
    want_route(file, "5", "4", "latency 3.7 us, bandwidth 5 GBps");
    want_route(file, "0", "2", "latency 51 us, bandwidth 0.125 GBps");
    want_route(file, "5", "0", "latency 51 us, bandwidth 0.125 GBps");
    want_route(file, "1", "4", "latency 51 us, bandwidth 0.125 GBps");
}

/* racks: a route between racks has the --rack latency exactly and the bandwidth of its narrowest link,
 * the NIC's (--inter) where the uplink (--rack's BW) is wider, else the uplink's */
static void test_platform_testbed_racks(void **state)
{
    const char *uplink[] = {"250MBps", "100MBps"}, *want[] = {"latency 80 us, bandwidth 0.125 GBps",
                                                                "latency 80 us, bandwidth 0.1 GBps"};
    need_platform();
    for (int i = 0; i < 2; i++) {
        char file[PATH_MAX + 32], rack[64];
        snprintf(file, sizeof file, "%s/tb-2x2x2-%d.xml", sim_tmp, i);
        snprintf(rack, sizeof rack, "80us:%s", uplink[i]);
        const char *args[] = {"platform", "testbed", "--nodes", "4", "--gpus-per-node", "2", "--racks", "2",
                              "--intra", "3.7us:5GBps", "--inter", "51us:125MBps", "--rack", rack, "--reduce",
                              "3GBps", "-o", file, NULL};
        struct cli_result r = {0};
        cli_run_ok(args, &r);
        cli_free(&r);
        want_route(file, "0", "4", want[i]);
        want_route(file, "7", "2", want[i]);
        want_route(file, "0", "2", "latency 51 us, bandwidth 0.125 GBps");
    }
}

/* one node: no --inter needed, routes inside the node still exact */
static void test_platform_testbed_one_node(void **state)
{
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/tb-1x4.xml", sim_tmp);
    const char *args[] = {"platform", "testbed", "--nodes", "1", "--gpus-per-node", "4", "--intra", "12.5us:2.25GBps",
                          "--reduce", "3GBps", "-o", file, NULL};
    struct cli_result r = {0};
    need_platform();
    cli_run_ok(args, &r);
    cli_free(&r);
    want_route(file, "0", "3", "latency 12.5 us, bandwidth 2.25 GBps");
    want_route(file, "2", "1", "latency 12.5 us, bandwidth 2.25 GBps");
}

static void test_platform_testbed_bad(void **state)
{
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/bad.xml", sim_tmp);
    const struct {
        const char *args[14], *word;
    } cases[] = {
        {{"platform", "testbed", "--intra", "3us:5GBps", "--reduce", "3GBps", "-o", file, NULL}, "--inter"},
        {{"platform", "testbed", "--intra", "3us:5GBps", "--inter", "1us:1GBps", "-o", file, NULL}, "--reduce"},
        {{"platform", "testbed", "--intra", "3us", "--inter", "1us:1GBps", "--reduce", "3GBps", "-o", file, NULL},
         "'3us'"},
        {{"platform", "testbed", "--intra", "3us:5GBps", "--inter", "1us:0Bps", "--reduce", "3GBps", "-o", file, NULL},
         "'1us:0Bps'"},
        {{"platform", "cluster", "--intra", "3us:5GBps", "-o", file, NULL}, "--intra"},
        {{"platform", "testbed", "--intra", "3us:5GBps", "--inter", "1us:1GBps", "--reduce", "3GBps", "--comment",
          "a -- b", "-o", file, NULL},
         "'a -- b'"},
    };
    need_platform();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cli_result r = {0};
        if (cli_run(cases[i].args, &r) != 0)
            fail_msg("could not run %s", r.cmd);
        want_usage_error(&r, cases[i].word);
        cli_free(&r);
    }
    assert_int_equal(access(file, F_OK), -1); /* nothing written */
}

/* ---- 4. validation/calibrate --local ---- */

static void test_validation_calibrate_local(void **state)
{
    char out[PATH_MAX + 32], json[PATH_MAX + 32], intra[64], inter[64];
    const char *script = sim_repo_path("validation/calibrate");
    snprintf(out, sizeof out, "%s/cal.xml", sim_tmp);
    snprintf(json, sizeof json, "%s/cal.json", sim_tmp);
    const char *argv[] = {script, "--local", "-n", "4", "--ranks-per-node", "2", "--sizes", "64:1M", "--iters", "5",
                          "--reduce-bytes", "1M", "--out", out, "--json", json, NULL};
    struct cli_result r;
    json_error_t e;
    calibrate_bin(1);
    need_platform();
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        skip();
    for (int attempt = 1;; attempt++) { /* a fit that is not physical (noise) makes it refuse: again */
        run(argv, NULL, &r);
        if (attempt == ATTEMPTS || r.status != 1 || !strstr(r.err, "measure again"))
            break;
        print_message("%s: %s", r.cmd, r.err);
        cli_free(&r);
    }
    want_exit0(&r);
    cli_free(&r);
    json_t *j = json_load_file(json, 0, &e);
    if (!j)
        fail_msg("%s: %s", json, e.text);
    /* routes: the fitted latency less the software profile's 2 o (the platform's mring_sw carries o), the
     * fitted bandwidth; between nodes a rank's own port is crossed too (the larger latency, the smaller
     * bandwidth of the two levels) */
    const json_t *a = json_object_get(j, "intra"), *b = json_object_get(j, "inter"), *p = json_object_get(j, "profile");
    double o = json_is_object(p) ? num(p, "o_s", json) : 0, bwa = num(a, "bandwidth_Bps", json),
           bwb = num(b, "bandwidth_Bps", json);
    snprintf(intra, sizeof intra, "latency %.4g us, bandwidth %.4g GBps", fmax(num(a, "alpha_s", json) - 2 * o, 0) * 1e6,
             bwa / 1e9);
    double la = fmax(num(a, "alpha_s", json) - 2 * o, 0), lb = fmax(num(b, "alpha_s", json) - 2 * o, 0);
    snprintf(inter, sizeof inter, "latency %.4g us, bandwidth %.4g GBps", fmax(la, lb) * 1e6, fmin(bwa, bwb) / 1e9);
    json_decref(j);
    want_route(out, "0", "1", intra);
    want_route(out, "0", "2", inter);
}

/* ---- 5. bad input to mring-calibrate ---- */

static void test_calibrate_bad(void **state)
{
    const char *bin = calibrate_bin(1);
    const struct {
        const char *args[8], *word;
    } cases[] = {{{"--ranks-per-node", "3", NULL}, "--ranks-per-node 3"}, /* 4 ranks; the others on 2 */
                 {{"--ranks-per-node", "0", NULL}, "'0'"},
                 {{NULL}, "--ranks-per-node"},
                 {{"--ranks-per-node", "2", "--sizes", "64K:1", NULL}, "'64K:1'"},
                 {{"--ranks-per-node", "2", "--sizes", "1-8", NULL}, "'1-8'"},
                 {{"--ranks-per-node", "2", "--iters", "0", NULL}, "'0'"},
                 {{"--ranks-per-node", "2", "--format", "xml", NULL}, "'xml'"},
                 {{"--ranks-per-node", "2", "--reduce-bytes", "5", NULL}, "'5'"},
                 {{"--ranks-per-node", "2", "extra", NULL}, "'extra'"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *argv[16] = {"mpiexec", "-n", i ? "2" : "4", bin};
        struct cli_result r;
        for (int k = 0; cases[i].args[k]; k++)
            argv[4 + k] = cases[i].args[k];
        run(argv, NULL, &r);
        want_usage_error(&r, cases[i].word);
        cli_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_exact_line),
        cmocka_unit_test(test_fit_weighted),
        cmocka_unit_test(test_fit_bandwidth_regime),
        cmocka_unit_test(test_fit_bad_input),
        cmocka_unit_test(test_fit_profile),
        cmocka_unit_test(test_fit_profile_bucket),
        cmocka_unit_test(test_fit_profile_wire),
        cmocka_unit_test(test_fit_profile_flat),
        cmocka_unit_test(test_platform_testbed_routes),
        cmocka_unit_test(test_platform_testbed_racks),
        cmocka_unit_test(test_platform_testbed_one_node),
        cmocka_unit_test(test_platform_testbed_bad),
        cmocka_unit_test(test_calibrate_bad),
        cmocka_unit_test(test_calibrate_json),
        cmocka_unit_test(test_calibrate_levels_skipped),
        cmocka_unit_test(test_calibrate_uplink),
        cmocka_unit_test(test_validation_calibrate_local),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

/* test_calibrate_fit.c - the fits of mring-calibrate, through --fit-only (no MPI):
 * - points on a line give that line's alpha and beta exactly (and so does the unweighted fit reported
 *   beside it); scattered points give the weighted least-squares fit of weights 1/t^2 (checked against
 *   the closed form computed here); beta comes from the sustained regime of the large sizes;
 * - the software profile: points built from known factors give them back exactly, with a given wire
 *   line too; a flat wait becomes a latency factor, a token bucket's burst no factor above 1;
 * - passes over one sweep: the median per size is fitted (a profile no single pass had), each pass
 *   alone gives the factors' ranges; points marked stopped are left out of their size's median;
 * - bad input: one stderr line naming it, exit 2.
 * Skips without mring-calibrate (no MPICH or GSL).
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

#include "calib_run.h"

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

/* passes with points marked stopped (a stop of the machine overlapped them, mring-calibrate --stops): two passes
 * on the line t = a + b m, but pass 2 three times slower at 1 KiB and 64 KiB there, marked stopped: their
 * sizes' medians are pass 1's alone, so the fit is the line exactly (the median of both, 2 t, would bend
 * it); at 16 KiB both passes stopped, on the line: all passes count.  Without the marks it is not the line. */
static void test_fit_stopped_points(void **state)
{
    const double a = 5e-5, b = 8e-9;
    for (int marked = 1; marked >= 0; marked--) {
        char pairs[4096];
        size_t n = 0;
        json_t *root;
        for (int k = 0; k < 2; k++)
            for (long m = 1; m <= 4L << 20; m *= 4) {
                int slow = k == 1 && (m == 1024 || m == 65536), stopped = slow || m == 16384;
                n += (size_t)snprintf(pairs + n, sizeof pairs - n, "%ld %.17g%s\n", m, (slow ? 3 : 1) * (a + b * m),
                                      marked && stopped ? " stopped" : "");
            }
        json_t *l = fit(pairs, &root);
        double fa = num(l, "alpha_s", "fit"), fb = num(l, "beta_s_per_byte", "fit");
        int line = close_rel(fa, a, 1e-12) && close_rel(fb, b, 1e-12) && num(l, "max_rel_residual", "fit") < 1e-12;
        if (line != marked)
            fail_msg("%s: fitted alpha %.17g beta %.17g (max residual %g), want %s the line %g + %g m", marked ?
                     "stopped points marked" : "no marks", fa, fb, num(l, "max_rel_residual", "fit"),
                     marked ? "exactly" : "not", a, b);
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

/* three passes of known profiles on the wire 10 us + 0.05 ns/B (o 2 us), each with the other segments'
 * factors of test_fit_profile_wire: latency x10, x14, x12 below 4 KiB and bandwidth x0.25, x0.5, x0.2
 * from 4 KiB.  The median per size is the third pass below 4 KiB and the first from 4 KiB: the profile
 * fitted is latency x12 and bandwidth x0.25, which no pass had alone; the ranges are the passes'. */
static void test_fit_profile_passes(void **state)
{
    const double L0[] = {10, 14, 12}, B1[] = {0.25, 0.5, 0.2};
    const char *argv[] = {calibrate_bin(0), "--fit-only", "--o", "2us", "--wire", "14us:20GBps", "--format", "json",
                          NULL};
    char pairs[3 * 4096];
    size_t n = 0;
    struct cli_result r;
    (void)state;
    for (int k = 0; k < 3; k++) {
        const double L[] = {L0[k], 2, 3, 3}, B[] = {0.5, B1[k], 1, 1};
        n += (size_t)snprintf(pairs + n, sizeof pairs - n, "# pass %d\n", k + 1);
        profile_pairs(L, B, pairs + n, sizeof pairs - n);
        n += strlen(pairs + n);
    }
    json_t *root, *p = fit_profile(argv, pairs, &r, &root), *f = json_object_get(p, "factors");
    const double want_lat[] = {12, 2, 3, 3}, want_bw[] = {0.5, 0.25, 1, 1}, lat_lo[] = {10, 2, 3, 3},
                 lat_hi[] = {14, 2, 3, 3}, bw_lo[] = {0.5, 0.2, 1, 1}, bw_hi[] = {0.5, 0.5, 1, 1};
    if (num(root, "passes", r.cmd) != 3 || num(p, "passes", r.cmd) != 3 || !(num(p, "max_rel_residual", r.cmd) < 1e-9))
        fail_msg("%s: want 3 passes and the median fitted with zero residual:\n%s", r.cmd, r.out);
    for (int s = 0; s < 4; s++) {
        json_t *fs = json_array_get(f, (size_t)s), *lr = json_object_get(fs, "lat_factor_range"),
               *br = json_object_get(fs, "bw_factor_range");
        double v[6] = {num(fs, "lat_factor", r.cmd), num(fs, "bw_factor", r.cmd),
                       json_number_value(json_array_get(lr, 0)), json_number_value(json_array_get(lr, 1)),
                       json_number_value(json_array_get(br, 0)), json_number_value(json_array_get(br, 1))},
               w[6] = {want_lat[s], want_bw[s], lat_lo[s], lat_hi[s], bw_lo[s], bw_hi[s]};
        for (int i = 0; i < 6; i++)
            if (json_array_size(lr) != 2 || json_array_size(br) != 2 || !close_rel(v[i], w[i], 1e-9))
                fail_msg("%s: segment %d: latency x%.12g [%.12g, %.12g], bandwidth x%.12g [%.12g, %.12g]; want "
                         "x%g [%g, %g], x%g [%g, %g]", r.cmd, s, v[0], v[2], v[3], v[1], v[4], v[5], w[0], w[2],
                         w[3], w[1], w[4], w[5]);
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

/* Times that fall with the size fit a negative beta: the fit is kept (exit 0) with one warning naming it */
static void test_fit_unphysical_warns(void **state)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", NULL};
    struct cli_result r;
    (void)state;
    run(argv, "1 5e-6\n2 4e-6\n4 3e-6\n", &r);
    if (!r.exited || r.status != 0 || !strstr(r.err, "warning: alpha ") ||
        !strstr(r.err, "is not physical: the times are noise or not of one link\n") ||
        strchr(r.err, '\n') != strrchr(r.err, '\n'))
        fail_msg("%s: want exit 0 and one warning that the fit is not physical; got %d: %s", r.cmd, r.status, r.err);
    cli_free(&r);
}

static void test_fit_bad_input(void **state)
{
    const char *argv[] = {calibrate_bin(0), "--fit-only", NULL};
    char many_passes[17 * 8 + 1] = "";
    for (int k = 0; k < 17; k++) /* each line a pass: its size is no larger than the line before's */
        strcat(many_passes, "1 1e-6\n");
    const struct {
        const char *in, *word;
    } cases[] = {{"1 2e-6\n64 x\n", "'64 x'"}, {"1 2e-6\n64 3e-6 stop\n", "'64 3e-6 stop'"},
                 {"1 2e-6\n64 3e-6 stopped 1\n", "'64 3e-6 stopped 1'"}, {"8 1e-6\n", "2 different sizes"}, {"8 1e-6\n8 2e-6\n", "2 different"},
                 {"1 1e-6\n2 -1e-6\n", "time > 0"}, {"", "2 different sizes"},
                 {"1 1e-6\n2 2e-6\n4 3e-6\n1 1e-6\n4 3e-6\n", "pass 2 is not over the first pass's sizes"},
                 {"1 1e-6\n2 2e-6\n1 1e-6\n", "pass 2 is not over"}, {many_passes, "more than 16 passes"},
                 /* bytes not whole, or past 2^53 (1024.5 was fitted as such; 1e23 named another error) */
                 {"1024.5 1e-6\n2048 2e-6\n", "'1024.5' is not a whole number"},
                 {"1e23 1e-6\n2048 2e-6\n", "is not a whole number of bytes"}};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_exact_line),
        cmocka_unit_test(test_fit_stopped_points),
        cmocka_unit_test(test_fit_weighted),
        cmocka_unit_test(test_fit_bandwidth_regime),
        cmocka_unit_test(test_fit_bad_input),
        cmocka_unit_test(test_fit_unphysical_warns),
        cmocka_unit_test(test_fit_profile),
        cmocka_unit_test(test_fit_profile_bucket),
        cmocka_unit_test(test_fit_profile_wire),
        cmocka_unit_test(test_fit_profile_flat),
        cmocka_unit_test(test_fit_profile_passes),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

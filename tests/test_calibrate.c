/* test_calibrate.c - the testbed's calibration: mring-calibrate (its platform: test_calibrate_platform.c).
 *
 * 1. mring-calibrate under mpiexec on 4 ranks, 2 per node (all local here): the JSON's structure and
 *    sanity (alpha > 0, bandwidth = 1/beta > 0, one point per size, fit_s = alpha + beta * bytes,
 *    residuals finite and consistent, reduction throughput > 0); the ports' bulk test (pairs of a node
 *    exchanging: 1 flow each way through a port) and the NIC's (2 ranks a node;
 *    its flows and capacity = flows / beta, the profile's wire line the inter alpha with the NIC's
 *    bandwidth), with racks the rack level and the uplink's bulk test too; the connection probe (two messages to
 *    one peer: the earlier first, conn=pair below a ratio of 0.75, and the profile saying so).
 * 2. (--fit-only, the fits alone: test_calibrate_fit.c)
 * 3. Bad input to mring-calibrate: one stderr line naming the value, exit 2.
 * Skips without mpiexec or mring-calibrate (no MPICH or GSL).
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

#include "calib_run.h"

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

/* A measurement's passes (l: the ring, a bulk test; passes_s: npasses arrays of nsizes times) and its points their
 * median per size (the middle one of an odd count, exactly: with every point stopped, or none, all passes count);
 * passes_stopped all `stopped`. */
static void check_level_passes(const json_t *l, const char *name, int npasses, int nsizes, int stopped, const char *cmd,
                               const char *out)
{
    const json_t *pass = json_object_get(l, "passes_s"), *marks = json_object_get(l, "passes_stopped");
    if (json_array_size(pass) != (size_t)npasses || json_array_size(marks) != (size_t)npasses)
        fail_msg("%s: want %d passes of the %s and whether each stopped:\n%s", cmd, npasses, name, out);
    for (int i = 0; i < nsizes; i++) {
        double t[16], med = num(json_array_get(json_object_get(l, "points"), (size_t)i), "time_s", cmd);
        int below = 0, above = 0;
        for (int k = 0; k < npasses; k++) {
            const json_t *pk = json_array_get(pass, (size_t)k), *mark = json_array_get(json_array_get(marks, (size_t)k), (size_t)i);
            if (json_array_size(pk) != (size_t)nsizes || !json_is_number(json_array_get(pk, (size_t)i)))
                fail_msg("%s: %s pass %d: want %d times:\n%s", cmd, name, k + 1, nsizes, out);
            if (!json_is_boolean(mark) || json_is_true(mark) != stopped)
                fail_msg("%s: %s pass %d size %d: want passes_stopped %s:\n%s", cmd, name, k + 1, i + 1,
                         stopped ? "true" : "false", out);
            t[k] = json_number_value(json_array_get(pk, (size_t)i));
            below += t[k] < med, above += t[k] > med;
        }
        int equal = npasses - below - above;
        if (!(equal >= 1 && below <= npasses / 2 && above <= npasses / 2))
            fail_msg("%s: %s size %d: time %.17g s is not the median of its %d passes", cmd, name, i + 1, med, npasses);
    }
}

/* The ring's passes (check_level_passes) and the profile fitted to each pass too: a range per factor, least
 * first. */
static void check_passes(const json_t *j, int npasses, int nsizes, int stopped, const char *cmd, const char *out)
{
    const json_t *prof = json_object_get(j, "profile");
    if (num(prof, "passes", cmd) != npasses)
        fail_msg("%s: want the profile fitted to each of the ring's %d passes:\n%s", cmd, npasses, out);
    check_level_passes(json_object_get(j, "ring"), "ring", npasses, nsizes, stopped, cmd, out);
    for (size_t s = 0; s < json_array_size(json_object_get(prof, "factors")); s++) {
        const json_t *f = json_array_get(json_object_get(prof, "factors"), s);
        for (int b = 0; b < 2; b++) {
            const json_t *range = json_object_get(f, b ? "bw_factor_range" : "lat_factor_range");
            double lo = json_number_value(json_array_get(range, 0)), hi = json_number_value(json_array_get(range, 1));
            if (json_array_size(range) != 2 || !(lo > 0 && lo <= hi))
                fail_msg("%s: profile segment %zu: want a %s factor range 0 < least <= greatest:\n%s", cmd, s,
                         b ? "bandwidth" : "latency", out);
        }
    }
}

/* A bulk test's object (port, nic, uplink) over the top 4 sizes up to 64 KiB: `flows` flows (and pairs) at once,
 * the link's capacity flows / beta; npasses passes, their points all `stopped` or none (check_level_passes). */
static void check_bulk(const json_t *j, const char *key, int flows, int npasses, int stopped, const char *cmd,
                       const char *out)
{
    const json_t *l = json_object_get(j, key);
    char why[256];
    check_level(l, 4, 8192, key, cmd, why, sizeof why);
    check_level_passes(l, key, npasses, 4, stopped, cmd, out);
    double b = num(l, "beta_s_per_byte", cmd), link = num(l, "link_Bps", cmd);
    if (num(l, "flows", cmd) != flows || num(l, "pairs", cmd) != flows ||
        !(b > 0 ? close_rel(link, flows / b, 1e-12) : link == 0))
        fail_msg("%s: %s: want %d flows and link_Bps = flows / beta; got:\n%s", cmd, key, flows, out);
}

/* The profile's wire line where a bulk test (nic between nodes, port on one node) gave a bandwidth: the level's
 * alpha (inter, intra) less 2 o, and the bulk test's bandwidth. */
static void check_wire_bulk(const json_t *j, const char *level, const char *bulk, const char *cmd, const char *out)
{
    const json_t *prof = json_object_get(j, "profile");
    double link = num(json_object_get(j, bulk), "link_Bps", cmd), alpha = num(json_object_get(j, level), "alpha_s", cmd);
    if (!close_rel(num(prof, "beta_s_per_byte", cmd), 1 / link, 1e-12) ||
        !close_rel(num(prof, "wire_alpha_s", cmd), alpha - 2 * num(prof, "o_s", cmd), 1e-12))
        fail_msg("%s: want the profile's wire line = the %s alpha less 2 o and 1 / the %s's link_Bps:\n%s", cmd, level,
                 bulk, out);
}

/* a --stops file with the given rows after the witness's header, in the scratch directory; its path */
static const char *stops_file(const char *rows)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s", sim_tmp_path("stops.csv"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "cpu,from_s,to_s,late_ms\n%s", rows);
    fclose(f);
    return path;
}

/* run mring-calibrate on 4 ranks, 2 per node; 1 when both levels' fits are physical.  The first attempt with
 * --stops naming a stop over all of it (from the epoch to 1e11 s) after a stop long before it whose line is
 * over 2 KiB long (late_ms written with 2100 digits; a fixed line buffer once ended the reading there, without
 * a word): every point of the ring's and the bulk tests' passes stopped, so every pass counts in the medians
 * all the same; a second attempt without it: none stopped. */
static int calibrate_json_once(int attempt)
{
    char rows[2200] = "0,0,1,1";
    size_t n = strlen(rows);
    memset(rows + n, '0', 2100);
    snprintf(rows + n + 2100, sizeof rows - n - 2100, "\n0,0,100000000000,1e14\n");
    const char *stops = stops_file(rows);
    const char *argv[] = {"mpiexec", "-n", "4", calibrate_bin(1), "--ranks-per-node", "2", "--sizes", "1:64K",
                          "--iters", "5", "--passes", "3", "--format", "json", attempt == 1 ? "--stops" : NULL,
                          stops, NULL};
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
    check_bulk(j, "port", 1, 3, attempt == 1, r.cmd, r.out);
    check_bulk(j, "nic", 2, 3, attempt == 1, r.cmd, r.out);
    int nic = num(json_object_get(j, "nic"), "link_Bps", r.cmd) > 0; /* 0: a fit of noise (shared memory here) */
    if (num(json_object_get(j, "ring"), "pairs", r.cmd) != 4 || !level || strcmp(level, "ring") || !wire ||
        strcmp(wire, nic ? "inter+nic" : "inter"))
        fail_msg("%s: want a ring of 4 ranks and the profile fitted to its steps on the %s line:\n%s", r.cmd,
                 nic ? "inter+nic" : "inter", r.out);
    if (nic)
        check_wire_bulk(j, "inter", "nic", r.cmd, r.out);
    check_connection(j, 65536, r.cmd, r.out);
    check_passes(j, 3, 17, attempt == 1, r.cmd, r.out);
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
    while (!calibrate_json_once(attempt))
        if (++attempt > ATTEMPTS)
            fail_msg("%d runs in a row gave a fit with alpha <= 0 or beta <= 0", ATTEMPTS);
}

/* one rank per node: no intra level and no port test (null), and with --stops naming one stop long before it
 * (0 to 1 s after the epoch) no point of the ring stopped; one node: no inter level, the ports' bulk test, and
 * the profile fitted on the intra line at the ports' capacity where it gave one (structure only: 2 iterations) */
static void test_calibrate_levels_skipped(void **state)
{
    const char *stops = stops_file("0,0,1,1000\n");
    const char *one_per_node[] = {"mpiexec", "-n", "2", calibrate_bin(1), "--ranks-per-node", "1", "--sizes", "1K:64K",
                                  "--iters", "2", "--reduce-bytes", "1M", "--format", "json", "--stops", stops, NULL};
    const char *one_node[] = {"mpiexec", "-n", "2", calibrate_bin(1), "--ranks-per-node", "2", "--sizes", "1K:64K",
                              "--iters", "2", "--reduce-bytes", "1M", "--format", "json", NULL};
    struct cli_result r;
    char why[256];
    run(one_per_node, NULL, &r);
    want_exit0(&r);
    json_t *j = parse_json(&r);
    if (!json_is_null(json_object_get(j, "intra")) || !json_is_null(json_object_get(j, "nic")) ||
        !json_is_null(json_object_get(j, "port")))
        fail_msg("%s: want \"intra\", \"port\" and \"nic\": null (one rank a node shares no NIC):\n%s", r.cmd, r.out);
    check_level(json_object_get(j, "inter"), 7, 1024, "inter", r.cmd, why, sizeof why);
    const json_t *marks = json_object_get(json_object_get(j, "ring"), "passes_stopped");
    for (size_t k = 0; k < 5; k++)
        for (size_t i = 0; i < 7; i++)
            if (!json_is_false(json_array_get(json_array_get(marks, k), i)))
                fail_msg("%s: want 5 passes of 7 sizes in passes_stopped, all false:\n%s", r.cmd, r.out);
    json_decref(j);
    cli_free(&r);
    run(one_node, NULL, &r);
    want_exit0(&r);
    j = parse_json(&r);
    if (!json_is_null(json_object_get(j, "inter")) || !json_is_null(json_object_get(j, "nic")))
        fail_msg("%s: want \"inter\": null and \"nic\": null:\n%s", r.cmd, r.out);
    check_level(json_object_get(j, "intra"), 7, 1024, "intra", r.cmd, why, sizeof why);
    check_bulk(j, "port", 1, 5, 0, r.cmd, r.out); /* the default passes */
    int port = num(json_object_get(j, "port"), "link_Bps", r.cmd) > 0; /* 0: a fit of noise (shared memory here) */
    const json_t *prof = json_object_get(j, "profile"); /* null where the fit failed, which it must say */
    const char *wire = json_string_value(json_object_get(prof, "wire"));
    if (json_is_null(prof) ? !strstr(r.err, "no software profile") : !wire || strcmp(wire, port ? "intra+port" : "intra"))
        fail_msg("%s: want the profile fitted on the %s line (or a warning that none was):\n%s%s", r.cmd,
                 port ? "intra+port" : "intra", r.out, r.err);
    if (port && !json_is_null(prof))
        check_wire_bulk(j, "intra", "port", r.cmd, r.out);
    json_decref(j);
    cli_free(&r);
}

/* racks (8 ranks, 2 per node, 2 nodes per rack): the rack level, then the bulk tests over the top 4 sizes:
 * the NIC's with node 0's 2 ranks sending to node 1 at once, the uplink's with the 4 pairs of rack 0 -> rack 1
 * (--one-pair: 1 each); without racks no uplink; with one rank a node no NIC test */
static void test_calibrate_bulk(void **state)
{
    const char *racks[] = {"mpiexec", "-n", "8", calibrate_bin(1), "--ranks-per-node", "2", "--nodes-per-rack", "2",
                           "--sizes", "1K:64K", "--iters", "2", "--passes", "3", "--reduce-bytes", "1M", "--format",
                           "json", NULL, NULL};
    const int uplink[] = {4, 1}, nic[] = {2, 1};
    struct cli_result r;
    char why[256];
    for (int one = 0; one < 2; one++) {
        racks[18] = one ? "--one-pair" : NULL;
        run(racks, NULL, &r);
        want_exit0(&r);
        json_t *j = parse_json(&r);
        check_level(json_object_get(j, "rack"), 7, 1024, "rack", r.cmd, why, sizeof why);
        check_bulk(j, "uplink", uplink[one], 3, 0, r.cmd, r.out);
        check_bulk(j, "nic", nic[one], 3, 0, r.cmd, r.out);
        check_bulk(j, "port", 1, 3, 0, r.cmd, r.out); /* one flow each way through rank 0's port, --one-pair or not */
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

/* ---- 3. bad input to mring-calibrate ---- */

static void test_calibrate_bad(void **state)
{
    const char *bin = calibrate_bin(1);
    char readme[PATH_MAX + 256]; /* sim_repo_path's buffers are reused */
    snprintf(readme, sizeof readme, "%s", sim_repo_path("README.md"));
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
                 {{"--ranks-per-node", "2", "--passes", "0", NULL}, "--passes"},
                 {{"--ranks-per-node", "2", "--passes", "17", NULL}, "--passes"},
                 {{"--ranks-per-node", "2", "--stops", "/nonexistent/stops.csv", NULL}, "'/nonexistent/stops.csv'"},
                 /* a file without from_s and to_s: refused before measuring (was: after, exit 1 and MPI_Abort) */
                 {{"--ranks-per-node", "2", "--stops", readme, NULL}, "no header with columns from_s and to_s"},
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
        cmocka_unit_test(test_calibrate_bad),
        cmocka_unit_test(test_calibrate_json),
        cmocka_unit_test(test_calibrate_levels_skipped),
        cmocka_unit_test(test_calibrate_bulk),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

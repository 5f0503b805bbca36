/* test_calibrate_platform.c - from the calibration's figures to a SimGrid platform: `mring platform
 * testbed` and validation/calibrate --local end to end (mring-calibrate itself: test_calibrate.c).
 *
 * 1. `mring platform testbed`: `mring route` between two ranks of a node gives exactly --intra,
 *    between ranks of two nodes exactly --inter, between racks --rack's latency through the narrower
 *    of the NIC and the uplink; --comment lines land in the file; bad input: one stderr line naming
 *    the value, exit 2.
 * 2. validation/calibrate --local: the platform's routes are the fits of its JSON (inside a node the
 *    ports' bulk capacity, rank 0's port at it, between nodes the NIC's, node 0's veth at it, each with a
 *    comment saying so), and calibration-fit reads a JSON of a build before the NIC's or the ports' test
 *    as nic=0 or port=0.
 * The MPI part skips without mpiexec or mring-calibrate (no MPICH or GSL), route checks without SimGrid.
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

#define ATTEMPTS 3 /* measurements on a loaded machine can be noise: a fit that is not physical gets 3 runs */

/* ---- 1. mring platform testbed ---- */

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

/* ---- 2. validation/calibrate --local ---- */

/* an output it cannot write: one line naming it, exit 2, before measuring (found after: exit 1, a raw cp line) */
static void test_calibrate_script_bad_out(void **state)
{
    const char *flags[] = {"--out", "--json"};
    (void)state;
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {sim_repo_path("validation/calibrate"), "--local", flags[i], "/nonexistent-mring-dir/x",
                              NULL};
        struct cli_result r;
        run(argv, NULL, &r);
        want_usage_error(&r, "'/nonexistent-mring-dir/x' cannot be written");
        cli_free(&r);
    }
}

/* The platform routes at a bulk test's capacity (bps, B/s): the link `id` (n0-veth: node 0's NIC; n0-lo0: rank 0's
 * port) has that bandwidth (to the 6 digits the script writes) and a comment says where it came from. */
static void want_bulk_link(const char *xml, const char *file, const char *id, const char *comment, double bps)
{
    char head[64];
    snprintf(head, sizeof head, "<link id=\"%s\" bandwidth=\"", id);
    const char *link = xml ? strstr(xml, head) : NULL;
    char *end = NULL;
    double gbps = link ? strtod(link + strlen(head), &end) : 0;
    if (!link || !end || strncmp(end, "GBps\"", 5) || !close_rel(gbps * 1e9, bps, 1e-5) || !strstr(xml, comment))
        fail_msg("%s: want %s at the bulk test's capacity %.6g GB/s and a comment '%s'", file, id, bps / 1e9, comment);
}

/* calibration-fit's output for j, with the beta of `level` replaced by beta (s/B; 0: kept) and without the key
 * `drop` (NULL: none dropped); the caller frees r. */
static void fit_of(const json_t *j, const char *level, double beta, const char *drop, struct cli_result *r)
{
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/fit.json", sim_tmp);
    json_t *c = json_deep_copy(j);
    if (drop)
        json_object_del(c, drop);
    if (beta != 0)
        json_object_set_new(json_object_get(c, level), "beta_s_per_byte", json_real(beta));
    if (json_dump_file(c, file, 0))
        fail_msg("cannot write %s", file);
    json_decref(c);
    const char *argv[] = {sim_repo_path("validation/calibration-fit"), file, NULL};
    run(argv, NULL, r);
    want_exit0(r);
}

/* calibration-fit on the JSON j of a build before the bulk test `bulk` (nic, port) of `level` (inter, intra):
 * bulk=0 and no figures of it, so validation/calibrate routes at the level's own bandwidth, which must then be
 * positive; with the bulk test (link_Bps > 0) a ping-pong fit of negative beta is still usable (its latency). */
static void want_fit_bulk_bw(const json_t *j, const char *level, const char *bulk)
{
    struct cli_result r;
    char want[3][64];
    snprintf(want[0], sizeof want[0], "\n%s=0\n", bulk);
    snprintf(want[1], sizeof want[1], "%s_bw=", bulk);
    snprintf(want[2], sizeof want[2], "\n%s=1\n", level);
    fit_of(j, level, 0, bulk, &r);
    if (!strstr(r.out, want[0]) || strstr(r.out, want[1]) || !strstr(r.out, want[2]))
        fail_msg("%s: want %s=0 and no %s_bw for a JSON without \"%s\":\n%s", r.cmd, bulk, bulk, bulk, r.out);
    cli_free(&r);
    snprintf(want[0], sizeof want[0], "\n%s_alpha_ok=0\n", level);
    fit_of(j, level, -1e-9, bulk, &r);
    if (!strstr(r.out, want[0]))
        fail_msg("%s: want %s_alpha_ok=0 for beta < 0 without the %s test:\n%s", r.cmd, level, bulk, r.out);
    cli_free(&r);
    if (!(num(json_object_get(j, bulk), "link_Bps", bulk) > 0))
        return;
    int ok = num(json_object_get(j, level), "alpha_s", level) >= 0; /* the latency alone decides */
    snprintf(want[0], sizeof want[0], "\n%s_alpha_ok=%d\n", level, ok);
    fit_of(j, level, -1e-9, NULL, &r);
    if (!strstr(r.out, want[0]))
        fail_msg("%s: want %s_alpha_ok=%d for beta < 0 with the %s's bulk bandwidth:\n%s", r.cmd, level, ok, bulk, r.out);
    cli_free(&r);
}

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
    /* routes: the fitted latency less the software profile's 2 o (the platform's mring_sw carries o), the ports'
     * bulk capacity inside a node (its pairs exchanging at once), the NIC's between nodes (its 2 ranks share it);
     * between nodes a rank's own port is crossed too (the larger latency, the smaller bandwidth of the two) */
    const json_t *a = json_object_get(j, "intra"), *b = json_object_get(j, "inter"), *p = json_object_get(j, "profile");
    double o = json_is_object(p) ? num(p, "o_s", json) : 0, bwa = num(json_object_get(j, "port"), "link_Bps", json),
           bwb = num(json_object_get(j, "nic"), "link_Bps", json);
    snprintf(intra, sizeof intra, "latency %.4g us, bandwidth %.4g GBps", fmax(num(a, "alpha_s", json) - 2 * o, 0) * 1e6,
             bwa / 1e9);
    double la = fmax(num(a, "alpha_s", json) - 2 * o, 0), lb = fmax(num(b, "alpha_s", json) - 2 * o, 0);
    snprintf(inter, sizeof inter, "latency %.4g us, bandwidth %.4g GBps", fmax(la, lb) * 1e6, fmin(bwa, bwb) / 1e9);
    int has_profile = json_is_object(p);
    want_fit_bulk_bw(j, "inter", "nic");
    want_fit_bulk_bw(j, "intra", "port");
    json_decref(j);
    want_route(out, "0", "1", intra);
    want_route(out, "0", "2", inter);
    size_t len; /* the profile's comment says what it was fitted to: the median of the ring's 5 passes */
    int fd = open(out, O_RDONLY);
    char *xml = fd >= 0 ? cli_slurp(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (has_profile && (!xml || !strstr(xml, "the median per size of 5 passes over the sweep")))
        fail_msg("%s: want the profile's comment to name the median of the ring's 5 passes", out);
    want_bulk_link(xml, out, "n0-veth", "inter-node NIC bandwidth (the route's): measured by validation/calibrate", bwb);
    want_bulk_link(xml, out, "n0-lo0", "intra-node port bandwidth (the route's): measured by validation/calibrate", bwa);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_testbed_routes),
        cmocka_unit_test(test_platform_testbed_racks),
        cmocka_unit_test(test_platform_testbed_one_node),
        cmocka_unit_test(test_platform_testbed_bad), cmocka_unit_test(test_calibrate_script_bad_out),
        cmocka_unit_test(test_validation_calibrate_local),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

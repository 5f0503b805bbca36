/* test_calibrate_platform.c - from the calibration's figures to a SimGrid platform: `mring platform
 * testbed` and validation/calibrate --local end to end (mring-calibrate itself: test_calibrate.c).
 *
 * 1. `mring platform testbed`: `mring route` between two ranks of a node gives exactly --intra,
 *    between ranks of two nodes exactly --inter, between racks --rack's latency through the narrower
 *    of the NIC and the uplink; --comment lines land in the file; bad input: one stderr line naming
 *    the value, exit 2.
 * 2. validation/calibrate --local: the platform's routes are the fits of its JSON (between nodes the
 *    NIC's bulk capacity, node 0's veth at it with a comment saying so), and calibration-fit reads a
 *    JSON of a build before the NIC's test as nic=0.
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

/* The platform routes between nodes at the NIC's bulk capacity (nic_bps, B/s): node 0's veth has that
 * bandwidth (to the 6 digits the script writes) and the comment says where it came from. */
static void want_nic_link(const char *xml, const char *file, double nic_bps)
{
    const char *link = xml ? strstr(xml, "<link id=\"n0-veth\" bandwidth=\"") : NULL;
    char *end = NULL;
    double gbps = link ? strtod(link + strlen("<link id=\"n0-veth\" bandwidth=\""), &end) : 0;
    if (!link || !end || strncmp(end, "GBps\"", 5) || !close_rel(gbps * 1e9, nic_bps, 1e-5) ||
        !strstr(xml, "inter-node NIC bandwidth (the route's): measured by validation/calibrate"))
        fail_msg("%s: want n0-veth at the NIC's bulk capacity %.6g GB/s and a comment saying so", file, nic_bps / 1e9);
}

/* calibration-fit's output for j, with the inter level's beta replaced by inter_beta (s/B; 0: kept) and
 * without "nic" when drop_nic; the caller frees r. */
static void fit_of(const json_t *j, double inter_beta, int drop_nic, struct cli_result *r)
{
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/fit.json", sim_tmp);
    json_t *c = json_deep_copy(j);
    if (drop_nic)
        json_object_del(c, "nic");
    if (inter_beta != 0)
        json_object_set_new(json_object_get(c, "inter"), "beta_s_per_byte", json_real(inter_beta));
    if (json_dump_file(c, file, 0))
        fail_msg("cannot write %s", file);
    json_decref(c);
    const char *argv[] = {sim_repo_path("validation/calibration-fit"), file, NULL};
    run(argv, NULL, r);
    want_exit0(r);
}

/* calibration-fit on the JSON j of a build before the NIC's test (no "nic"): nic=0 and no NIC figures, so
 * validation/calibrate routes at the inter level's own bandwidth, which must then be positive; with the
 * NIC's bulk test (link_Bps > 0) an inter ping-pong fit of negative beta is still usable (its latency). */
static void want_fit_inter_bw(const json_t *j)
{
    struct cli_result r;
    fit_of(j, 0, 1, &r);
    if (!strstr(r.out, "\nnic=0\n") || strstr(r.out, "nic_bw=") || !strstr(r.out, "\ninter=1\n"))
        fail_msg("%s: want nic=0 and no nic_bw for a JSON without \"nic\":\n%s", r.cmd, r.out);
    cli_free(&r);
    fit_of(j, -1e-9, 1, &r);
    if (!strstr(r.out, "\ninter_alpha_ok=0\n"))
        fail_msg("%s: want inter_alpha_ok=0 for beta < 0 without the NIC's test:\n%s", r.cmd, r.out);
    cli_free(&r);
    if (!(num(json_object_get(j, "nic"), "link_Bps", "nic") > 0))
        return;
    int ok = num(json_object_get(j, "inter"), "alpha_s", "inter") >= 0; /* the latency alone decides */
    fit_of(j, -1e-9, 0, &r);
    if (!strstr(r.out, ok ? "\ninter_alpha_ok=1\n" : "\ninter_alpha_ok=0\n"))
        fail_msg("%s: want inter_alpha_ok=%d for beta < 0 with the NIC's bulk bandwidth:\n%s", r.cmd, ok, r.out);
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
    /* routes: the fitted latency less the software profile's 2 o (the platform's mring_sw carries o), the
     * fitted bandwidth inside a node, the NIC's bulk capacity between nodes (its 2 ranks share it); between
     * nodes a rank's own port is crossed too (the larger latency, the smaller bandwidth of the two) */
    const json_t *a = json_object_get(j, "intra"), *b = json_object_get(j, "inter"), *p = json_object_get(j, "profile");
    double o = json_is_object(p) ? num(p, "o_s", json) : 0, bwa = num(a, "bandwidth_Bps", json),
           bwb = num(json_object_get(j, "nic"), "link_Bps", json);
    snprintf(intra, sizeof intra, "latency %.4g us, bandwidth %.4g GBps", fmax(num(a, "alpha_s", json) - 2 * o, 0) * 1e6,
             bwa / 1e9);
    double la = fmax(num(a, "alpha_s", json) - 2 * o, 0), lb = fmax(num(b, "alpha_s", json) - 2 * o, 0);
    snprintf(inter, sizeof inter, "latency %.4g us, bandwidth %.4g GBps", fmax(la, lb) * 1e6, fmin(bwa, bwb) / 1e9);
    int has_profile = json_is_object(p);
    want_fit_inter_bw(j);
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
    want_nic_link(xml, out, bwb);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_testbed_routes),
        cmocka_unit_test(test_platform_testbed_racks),
        cmocka_unit_test(test_platform_testbed_one_node),
        cmocka_unit_test(test_platform_testbed_bad),
        cmocka_unit_test(test_validation_calibrate_local),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

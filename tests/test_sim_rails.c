/* test_sim_rails.c - rails (issue 11), through the mring binary: every NIC of a node is its own port
 * n<k>-rail<r> and GPU g's traffic between nodes leaves and enters through its own NIC: on DGX-1 P100
 * (4 rails, GPU pair {2s, 2s+1} on NIC s, one leaf per rack: different rails meet in the leaf) and on
 * DGX H100 (8 rails, NIC g for GPU g, a leaf per rail: different rails cross leaf uplink, spine, leaf
 * uplink; GPUs of a node talk over NVSwitch only); the dgxh100 platform simulates; `mring platform
 * --nics` places the NICs (Minsky: one per socket; DGX-1: spread over the PCIe switches) and rejects a
 * count the node cannot hold (one stderr line, exit 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_cli.h"

#define DGX1 "platforms/dgx1-p100-32.xml"
#define DGXH100 "platforms/dgxh100-32.xml"

/* Does the route hold exactly the links want[0..n-1] among those containing part, in that order? */
static void expect_links(const char *platform, const char *from, const char *to, const char *part,
                         const char *const *want, int nwant)
{
    char names[SIM_MAX_LINKS][64], cmd[1024], got[1024] = "";
    int n = sim_route_links(platform, from, to, names, cmd, sizeof cmd), k = 0, ok = 1;
    for (int i = 0; i < n; i++)
        if (strstr(names[i], part)) {
            ok &= k < nwant && !strcmp(names[i], want[k]);
            k++;
            snprintf(got + strlen(got), sizeof got - strlen(got), " %.63s", names[i]);
        }
    if (!ok || k != nwant)
        fail_msg("%s: links containing '%s' are%s; want %d, %s first", cmd, part, *got ? got : " none", nwant,
                 want[0]);
}

/* The route from GPU g of node 0 to GPU h of node 1 crosses n0-rail<rg>, n1-rail<rh> and no other NIC port. */
static void expect_rails(const char *platform, int g, int h, int rg, int rh)
{
    char from[32], to[32], a[32], b[32];
    snprintf(from, sizeof from, "n0-gpu%d", g);
    snprintf(to, sizeof to, "n1-gpu%d", h);
    snprintf(a, sizeof a, "n0-rail%d", rg);
    snprintf(b, sizeof b, "n1-rail%d", rh);
    const char *const want[] = {a, b};
    expect_links(platform, from, to, "-rail", want, 2);
}

/* ---- DGX-1 P100: NIC s for GPUs 2s and 2s+1 ---- */

static void test_dgx1_own_rail(void **state)
{
    for (int g = 0; g < 8; g++)
        expect_rails(sim_repo_path(DGX1), g, g, g / 2, g / 2);
}

/* one leaf per rack: the two rails meet there, no uplink, no NVLink on the way */
static void test_dgx1_cross_rail(void **state)
{
    static const char *const none[] = {""};
    expect_rails(sim_repo_path(DGX1), 0, 7, 0, 3);
    expect_links(sim_repo_path(DGX1), "n0-gpu0", "n1-gpu7", "uplink", none, 0);
    expect_links(sim_repo_path(DGX1), "n0-gpu0", "n1-gpu7", "-nv-", none, 0);
}

/* ---- DGX H100: NIC g for GPU g, a leaf per rail ---- */

static void test_dgxh100_own_rail(void **state)
{
    static const char *const none[] = {""};
    for (int g = 0; g < 8; g++) {
        char from[32], to[32];
        expect_rails(sim_repo_path(DGXH100), g, g, g, g);
        snprintf(from, sizeof from, "n0-gpu%d", g);
        snprintf(to, sizeof to, "n1-gpu%d", g);
        expect_links(sim_repo_path(DGXH100), from, to, "-up", none, 0); /* rail g's leaf only */
    }
}

/* different rails: PCIe, port, leaf 0's uplink to the spine, leaf 3's uplink down, port, PCIe (no NVLink) */
static void test_dgxh100_cross_rail(void **state)
{
    static const char *const want[] = {"n0-pcie0", "n0-rail0", "r0-leaf0-up", "r0-leaf3-up", "n1-rail3", "n1-pcie3"};
    expect_links(sim_repo_path(DGXH100), "n0-gpu0", "n1-gpu3", "", want, 6);
}

static void test_dgxh100_nvswitch(void **state)
{
    static const char *const want[] = {"n0-nvl0", "n0-nvl5"};
    expect_links(sim_repo_path(DGXH100), "n0-gpu0", "n0-gpu5", "", want, 2);
}

/* two scalable units: GPU 2 of SU 0 to GPU 5 of SU 1 through both leaves' uplinks and the SUs' spine side */
static void test_dgxh100_two_units(void **state)
{
    static const char *const want[] = {"n0-pcie2",    "n0-rail2",  "r0-leaf2-up", "r0-uplink",
                                       "r1-uplink",   "r1-leaf5-up", "n32-rail5", "n32-pcie5"};
    const char *out = sim_tmp_path("dgxh100-64.xml");
    const char *args[] = {"platform", "dgxh100", "--nodes", "64", "--racks", "2", "-o", out, NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    cli_free(&r);
    expect_links(out, "n0-gpu2", "n32-gpu5", "", want, 8);
}

static void test_dgxh100_simulate(void **state)
{
    const char *args[] = {"simulate", "--platform", sim_repo_path(DGXH100), "-b", "1M", "-e", "1M", NULL};
    struct cli_result r = {0};
    unsigned long long size = 0;
    double busbw = 0;
    cli_run_ok(args, &r);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (l[0] != '#')
            sscanf(l, "%llu %*s %*s %*s %*s %*s %lf", &size, &busbw);
    if (size != 1048576 || !(busbw > 0))
        fail_msg("%s: want a row of 1048576 bytes with a busbw > 0; got size %llu, busbw %g", r.cmd, size, busbw);
    cli_free(&r);
}

/* ---- --nics ---- */

static const char *platform(const char *kind, const char *nics)
{
    static char name[4][64];
    static int next;
    char *n = name[next++ % 4];
    snprintf(n, sizeof name[0], "%s-nics%s.xml", kind, nics);
    const char *out = sim_tmp_path(n),
               *args[] = {"platform", kind, "--nodes", "2", "--racks", "1", "--nics", nics, "-o", out, NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    cli_free(&r);
    return out;
}

/* Minsky: two NICs, one per socket; one NIC on socket 0, socket 1's GPUs reach it over the X-bus */
static void test_nics_minsky(void **state)
{
    static const char *const xbus[] = {"n0-xbus"};
    const char *two = platform("minsky", "2"), *one = platform("minsky", "1");
    for (int g = 0; g < 4; g++) {
        expect_rails(two, g, g, g / 2, g / 2);
        expect_rails(one, g, g, 0, 0);
    }
    expect_links(one, "n0-gpu2", "n1-gpu0", "xbus", xbus, 1);
}

/* DGX-1: 2 NICs, one per CPU (PCIe switches 0-1 and 2-3); 1 NIC for all four switches */
static void test_nics_dgx1(void **state)
{
    const char *two = platform("dgx1", "2"), *one = platform("dgx1", "1");
    for (int g = 0; g < 8; g++) {
        expect_rails(two, g, g, g / 4, g / 4);
        expect_rails(one, g, 7 - g, 0, 0);
    }
}

static void test_nics_bad(void **state)
{
    static const char *const bad[][2] = {{"minsky", "3"}, {"dgx1", "3"}, {"dgx1", "8"}, {"dgxh100", "3"},
                                         {"dgx1", "0"}, {"minsky", "x"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"platform", bad[i][0], "--nics", bad[i][1], "-o", sim_tmp_path("bad.xml"), NULL};
        struct cli_result r = {0};
        char how[64];
        if (cli_run(args, &r) != 0)
            fail_msg("could not run %s (%s)", r.cmd, cli_bin());
        const char *nl = strchr(r.err, '\n');
        if (!(r.exited && r.status == 2 && nl && nl == r.err + r.err_len - 1 && r.out_len == 0 &&
              strstr(r.err, "--nics")))
            fail_msg("%s: want exit 2 and one stderr line naming --nics; got %s, stderr: %.400s", r.cmd,
                     cli_how(&r, how, sizeof how), r.err);
        cli_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx1_own_rail),       cmocka_unit_test(test_dgx1_cross_rail),
        cmocka_unit_test(test_dgxh100_own_rail),    cmocka_unit_test(test_dgxh100_cross_rail),
        cmocka_unit_test(test_dgxh100_nvswitch),    cmocka_unit_test(test_dgxh100_two_units),
        cmocka_unit_test(test_dgxh100_simulate),    cmocka_unit_test(test_nics_minsky),
        cmocka_unit_test(test_nics_dgx1),           cmocka_unit_test(test_nics_bad),
    };
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_sim_rails: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    return cmocka_run_group_tests_name("sim_rails", tests, sim_tmp_setup, sim_tmp_teardown);
}

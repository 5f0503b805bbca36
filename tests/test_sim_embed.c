/*
 * test_sim_embed.c - embeddings through the mring binary: `--embed auto` on one DGX-1 node finds two
 * edge-disjoint Hamiltonian cycles of the NVLink cube-mesh (every hop one NVLink), the verifier
 * proves the rings that follow them, and 4 rings on them beat 4 rings in rank order in simulated
 * time; multiring's search is per dimension; `auto` without a platform and a bad embedding are one
 * stderr line and exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_cli.h"

/* The DGX-1 P100 hybrid cube-mesh: GPU pairs joined by one NVLink each (platgen_node.c, [DGXWP]). */
static const int cube_mesh[16][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 5}, {2, 3},
                                     {2, 6}, {3, 7}, {4, 5}, {4, 6}, {4, 7}, {5, 6}, {5, 7}, {6, 7}};
/* rank -> GPU inside a DGX-1 node: ranks follow the NVLink ring 0-1-2-3-7-6-5-4 */
static const int gpu_of_rank[8] = {0, 1, 2, 3, 7, 6, 5, 4};

static int edge(int a, int b)
{
    for (int e = 0; e < 16; e++)
        if ((cube_mesh[e][0] == a && cube_mesh[e][1] == b) || (cube_mesh[e][0] == b && cube_mesh[e][1] == a))
            return e;
    return -1;
}

/* The last CSV row's time (column 10) and config (the last column) of `mring simulate ... --format csv`. */
static double simulate(const char *const *args, char *config, size_t len)
{
    struct cli_result r = {0};
    char *last = NULL;
    double t = 0;
    cli_run_ok(args, &r);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        last = l;
    assert_non_null(last);
    for (int col = 1; col < 10; col++)
        last = strchr(last, ',') + 1;
    t = strtod(last, NULL);
    snprintf(config, len, "%s", strrchr(last, ',') + 1);
    cli_free(&r);
    return t;
}

static void verify_ok(const char *topo, const char *algo, const char *rings, const char *embed)
{
    const char *args[] = {"verify", "--topo", topo, "--algo", algo, "--rings", rings, "--embed", embed,
                          "--count", "0,1,7,8,9,100,1001", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    if (strstr(r.out, "FAIL") || !strstr(r.out, "ok "))
        fail_msg("%s: %s", r.cmd, r.out);
    cli_free(&r);
}

static void test_dgx1_node_disjoint_cycles(void **state)
{
    const char *plat = sim_tmp_path("dgx1-1.xml");
    const char *gen[] = {"platform", "dgx1", "--nodes", "1", "--racks", "1", "-o", plat, NULL};
    const char *automatic[] = {"simulate", "--platform", plat, "--algo", "ring", "--rings", "4", "--embed", "auto",
                               "-b", "64M", "-e", "64M", "--format", "csv", NULL};
    const char *natural[] = {"simulate", "--platform", plat, "--algo", "ring", "--rings", "4", "-b", "64M", "-e",
                             "64M", "--format", "csv", NULL};
    struct cli_result r = {0};
    char config[1024], unused[1024];
    int used[16] = {0}, cyc[2][8];
    (void)state;
    cli_run_ok(gen, &r);
    cli_free(&r);
    double t_auto = simulate(automatic, config, sizeof config), t_nat = simulate(natural, unused, sizeof unused);
    const char *e = strstr(config, "--embed ");
    assert_non_null(e);
    e += 8;
    if (sscanf(e, "%d.%d.%d.%d.%d.%d.%d.%d/%d.%d.%d.%d.%d.%d.%d.%d", &cyc[0][0], &cyc[0][1], &cyc[0][2], &cyc[0][3],
               &cyc[0][4], &cyc[0][5], &cyc[0][6], &cyc[0][7], &cyc[1][0], &cyc[1][1], &cyc[1][2], &cyc[1][3],
               &cyc[1][4], &cyc[1][5], &cyc[1][6], &cyc[1][7]) != 16)
        fail_msg("--embed auto gave '%s', expected two cycles of 8 ranks", e);
    for (int k = 0; k < 2; k++)
        for (int x = 0; x < 8; x++) {
            int a = gpu_of_rank[cyc[k][x]], b = gpu_of_rank[cyc[k][(x + 1) % 8]], ed = edge(a, b);
            if (ed < 0 || used[ed]++)
                fail_msg("cycle %d of '%s': GPU %d -> %d is %s", k + 1, e, a, b, ed < 0 ? "no NVLink" : "used twice");
        }
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)strcspn(e, " \n"), e);
    verify_ok("8", "ring", "4", text);
    /* both directions of 16 NVLinks against both directions of 8: well above 1.7x faster */
    if (!(t_nat > 1.7 * t_auto))
        fail_msg("4 rings on '%s' took %g us, 4 rings in rank order %g us: expected at least 1.7x faster", text, t_auto,
                 t_nat);
}

/* Multiring's search is per dimension: on 2 DGX-1 nodes (8x2, rings 4,1) dimension 1 gets the two NVLink
 * cycles and dimension 2 stays natural, and the verifier proves it; on Minsky a node's 4 GPUs have one
 * cycle worth taking (any cycle crosses the X-bus twice), so the search stops at the repeated cycle and
 * the embedding is natural (no --embed in the configuration). */
static void test_multiring_auto_per_dimension(void **state)
{
    const char *plat = sim_tmp_path("dgx1-2.xml");
    const char *gen[] = {"platform", "dgx1", "--nodes", "2", "--racks", "1", "-o", plat, NULL};
    const char *dgx[] = {"simulate", "--platform", plat, "--rings", "4,1", "--embed", "auto", "-b", "1M", "-e", "1M",
                         "--format", "csv", NULL};
    const char *minsky[] = {"simulate", "--platform", sim_repo_path("platforms/minsky-64.xml"), "--rings", "4,1,1",
                            "--embed", "auto", "-b", "1M", "-e", "1M", "--format", "csv", NULL};
    struct cli_result r = {0};
    char config[4096];
    (void)state;
    cli_run_ok(gen, &r);
    cli_free(&r);
    simulate(dgx, config, sizeof config);
    const char *want = "--embed '0.1.2.3.4.5.6.7/0.2.5.7.4.6.1.3;-'";
    if (!strstr(config, want))
        fail_msg("2 DGX-1 nodes, rings 4,1, --embed auto: got the configuration '%s', expected it to hold %s", config,
                 want);
    verify_ok("8x2", "multiring", "4,1", "0.1.2.3.4.5.6.7/0.2.5.7.4.6.1.3;-");
    simulate(minsky, config, sizeof config);
    if (strstr(config, "--embed"))
        fail_msg("minsky-64, rings 4,1,1, --embed auto: got '%s', expected the natural embedding", config);
}

static void test_bad_embeddings(void **state)
{
    static const struct {
        const char *args[16];
        const char *want;
    } cases[] = {
        {{"model", "--topo", "8", "--embed", "auto", "--links", "1us:10GBps", NULL}, "--embed auto searches"},
        {{"verify", "--topo", "4", "--embed", "0.1.2.2", "--count", "4", NULL}, "--embed: cycle 1 of dimension 1"},
        {{"simulate", "--platform", "platforms/minsky-64.xml", "--algo", "rd", "--embed", "auto", NULL},
         "--embed auto: --embed applies to multiring, ring only"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *args[16];
        struct cli_result r = {0};
        for (int k = 0; k < 16; k++)
            args[k] = cases[i].args[k] && !strcmp(cases[i].args[k], "platforms/minsky-64.xml")
                          ? sim_repo_path(cases[i].args[k])
                          : cases[i].args[k];
        cli_run(args, &r);
        if (r.status != 2 || !strstr(r.err, cases[i].want) || strchr(r.err, '\n') != strrchr(r.err, '\n'))
            fail_msg("%s: want exit 2 and one line with '%s'; got %d, '%s'", r.cmd, cases[i].want, r.status, r.err);
        cli_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx1_node_disjoint_cycles),
        cmocka_unit_test(test_multiring_auto_per_dimension),
        cmocka_unit_test(test_bad_embeddings),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

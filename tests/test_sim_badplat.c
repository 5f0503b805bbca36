/* test_sim_badplat.c - bad platforms and SimGrid options (issue 15): what SimGrid aborts on, crashes on or
 * never returns from gets one line on stderr naming the file (and XML line) or the option, exit 2, and
 * nothing on stdout.  Each platform is a generated 2x2 testbed platform with one thing broken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_cli.h"

static char good[PATH_MAX + 64];

static int setup(void **state)
{
    struct cli_result r;
    if (sim_tmp_setup(state))
        return -1;
    snprintf(good, sizeof good, "%s/good.xml", sim_tmp);
    const char *argv[] = {"platform", "testbed", "--nodes", "2", "--gpus-per-node", "2", "--intra", "10us:250MBps",
                          "--inter", "12us:62.5MBps", "--reduce", "4GBps", "-o", good, NULL};
    return cli_run(argv, &r) || !r.exited || r.status ? -1 : (cli_free(&r), 0);
}

/* good.xml with the first `from` replaced by `to` (when `from` is an attribute's `name="`, its value is replaced;
 * from == NULL: the text from `cut` to the end of its element's closing tag `to` is cut), written to NAME.xml in
 * the scratch directory; returns its path */
static const char *broken(const char *name, const char *from, const char *to, const char *cut)
{
    static char path[PATH_MAX + 64];
    FILE *f = fopen(good, "r");
    char *s = calloc(1, 1 << 20), *p;
    assert_non_null(f);
    assert_non_null(s);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    fclose(f);
    s[n] = '\0';
    snprintf(path, sizeof path, "%s/%s.xml", sim_tmp, name);
    f = fopen(path, "w");
    assert_non_null(f);
    if (from) {
        size_t k = strlen(from);
        assert_non_null(p = strstr(s, from));
        if (k >= 2 && !strcmp(from + k - 2, "=\"")) /* an attribute: keep the name, replace the value */
            fprintf(f, "%.*s%s%s", (int)(p + k - s), s, to, strchr(p + k, '"'));
        else
            fprintf(f, "%.*s%s%s", (int)(p - s), s, to, p + k);
    } else {
        char *a = strstr(s, cut), *b = a ? strstr(a, to) : NULL;
        assert_non_null(b);
        fprintf(f, "%.*s%s", (int)(a - s), s, b + strlen(to));
    }
    fclose(f);
    free(s);
    return path;
}

/* `mring CMD --platform PLATFORM [extra]` exits 2 with one line on stderr holding every '|'-separated part
 * of want, and prints nothing */
static void expect_bad2(const char *cmd, const char *platform, const char *extra, const char *extra2, const char *want)
{
    struct cli_result r;
    char how[64], parts[256];
    const char *argv[] = {cmd, "--platform", platform, "-b", "64K", "-e", "64K", extra, extra ? extra2 : NULL, NULL};
    if (!strcmp(cmd, "route")) /* route takes two ranks, no sizes */
        argv[3] = "0", argv[4] = "2", argv[5] = extra, argv[6] = extra ? extra2 : NULL, argv[7] = NULL;
    assert_int_equal(cli_run(argv, &r), 0);
    int lines = 0;
    for (const char *c = r.err; *c; c++)
        lines += *c == '\n';
    if (!r.exited || r.status != 2 || lines != 1 || r.out_len != 0)
        fail_msg("%s: %s, %d stderr lines, %zu bytes on stdout; want exit 2, one line, nothing:\n%s", r.cmd,
                 cli_how(&r, how, sizeof how), lines, r.out_len, r.err);
    snprintf(parts, sizeof parts, "%s", want);
    for (char *w = strtok(parts, "|"); w; w = strtok(NULL, "|"))
        if (!strstr(r.err, w))
            fail_msg("%s: stderr does not name '%s':\n%s", r.cmd, w, r.err);
    cli_free(&r);
}

static void expect_bad(const char *cmd, const char *platform, const char *extra, const char *want)
{
    expect_bad2(cmd, platform, extra, NULL, want);
}

static void test_good_platform_runs(void **state)
{
    struct cli_result r;
    const char *argv[] = {"simulate", "--platform", good, "-b", "64K", "-e", "64K", NULL};
    assert_int_equal(cli_run(argv, &r), 0);
    assert_true(r.exited && r.status == 0 && r.err_len == 0);
    cli_free(&r);
}

static void test_speed_zero(void **state)
{
    const char *p = broken("speed0", "speed=\"", "0f", NULL);
    expect_bad("simulate", p, NULL, "speed0.xml|n0-rank0|speed 0");
    expect_bad("route", p, NULL, "speed0.xml|n0-rank0");
}

static void test_speed_negative(void **state)
{
    expect_bad("simulate", broken("speedneg", "speed=\"", "-1Gf", NULL), NULL, "speedneg.xml|speed -1e+09");
}

static void test_link_bandwidth_zero(void **state)
{
    expect_bad("simulate", broken("bw0", "bandwidth=\"", "0Bps", NULL), NULL,
               "bw0.xml|bandwidth 0 B/s");
}

static void test_link_latency_negative(void **state)
{
    expect_bad("simulate", broken("latneg", "latency=\"", "-1us", NULL), NULL,
               "latneg.xml|latency -1e-06");
}

static void test_link_twice(void **state)
{
    expect_bad("simulate", broken("duplink", "<link id=\"n0-lo1\"", "<link id=\"n0-lo0\"", NULL), NULL,
               "duplink.xml:|link id 'n0-lo0' is declared again");
}

static void test_routing_unknown(void **state)
{
    expect_bad("route", broken("routing", "routing=\"Full\"", "routing=\"Bogus\"", NULL), NULL,
               "routing.xml:|'Bogus'");
}

static void test_no_route(void **state)
{
    const char *p = broken("noroute", NULL, "</zoneRoute>", "<zoneRoute src=\"n0\" dst=\"n1\"");
    expect_bad("simulate", p, NULL, "noroute.xml|no route from host n0-rank0 to host n1-rank0");
    expect_bad("route", p, NULL, "noroute.xml|no route");
    /* a Full zone without the <route> between two of its hosts: SimGrid 3.32 finds an empty route, no error,
     * and aborts the run (once: SIGABRT after the table's header; model and route said 0 links, exit 0) */
    p = broken("emptyroute", NULL, "</route>", "<route src=\"n0-rank0\" dst=\"n0-rank1\"");
    expect_bad("simulate", p, NULL, "emptyroute.xml|no route from host n0-rank0 to host n0-rank1");
    expect_bad("model", p, NULL, "emptyroute.xml|no route");
    expect_bad("route", p, NULL, "emptyroute.xml|no route");
}

static void test_not_xml(void **state)
{
    /* libxml2 (the precheck) finds it before SimGrid's parser: the file, its line, what is wrong */
    expect_bad("simulate", broken("notxml", "</platform>", "</plat", NULL), NULL,
               "notxml.xml:95: not well-formed XML|expected '>'");
}

static void test_directory(void **state)
{
    expect_bad("simulate", sim_tmp, NULL, "not a regular file");
}

static void test_cfg_model_unknown(void **state)
{
    expect_bad("simulate", good, "--cfg=network/model:BOGUS", "network/model|'BOGUS'|CM02");
    /* SimGrid's own models that abort on a platform with links (Constant) or without ns-3's set-up */
    expect_bad("simulate", good, "--cfg=network/model:Constant", "network/model|'Constant'|CM02");
    expect_bad("simulate", good, "--cfg=network/model:ns-3", "network/model|'ns-3'|CM02");
}

static void test_cfg_precision(void **state)
{
    expect_bad("simulate", good, "--cfg=maxmin/precision:-5", "maxmin/precision|'-5'");
    expect_bad("simulate", good, "--cfg=surf/precision:0", "surf/precision|'0'");
    expect_bad("simulate", good, "--cfg=network/bandwidth-factor:-1", "network/bandwidth-factor|'-1'");
    /* SimGrid 3.32 aborted on these (SIGABRT): "The Impossible Did Happen", "Please use a valid factory" */
    expect_bad("simulate", good, "--cfg=maxmin/precision:1e9", "maxmin/precision|'1e9'|< 1");
    expect_bad("simulate", good, "--cfg=contexts/factory:foo", "contexts/factory|'foo'");
    /* 0 left every flow unstarted (the run ended with operations pending), -5 was taken for no limit */
    expect_bad("simulate", good, "--cfg=maxmin/concurrency-limit:0", "maxmin/concurrency-limit|'0'");
    expect_bad("simulate", good, "--cfg=maxmin/concurrency-limit:-5", "maxmin/concurrency-limit|'-5'");
    /* SimGrid's own line names neither: mring names the options given */
    expect_bad("simulate", good, "--cfg=network/crosstraffic:maybe", "network/crosstraffic:maybe|not a boolean");
}

/* a bandwidth factor beside the platform's software profile (its factor callbacks): SimGrid refuses the mix */
static void test_cfg_factor_with_profile(void **state)
{
    expect_bad2("simulate", good, "--profile=lat=0:2;bw=0:0.5", "--cfg=network/bandwidth-factor:2",
                "good.xml|cannot be combined");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_platform_runs), cmocka_unit_test(test_speed_zero),
        cmocka_unit_test(test_speed_negative),     cmocka_unit_test(test_link_bandwidth_zero),
        cmocka_unit_test(test_link_latency_negative), cmocka_unit_test(test_link_twice),
        cmocka_unit_test(test_routing_unknown),    cmocka_unit_test(test_no_route),
        cmocka_unit_test(test_not_xml),            cmocka_unit_test(test_directory),
        cmocka_unit_test(test_cfg_model_unknown),  cmocka_unit_test(test_cfg_precision),
        cmocka_unit_test(test_cfg_factor_with_profile),
    };
    return cmocka_run_group_tests(tests, setup, sim_tmp_teardown);
}

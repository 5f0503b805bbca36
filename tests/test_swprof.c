/*
 * test_swprof.c - software profiles (model/cost/swprof.h): LogGP's o and piecewise latency/bandwidth
 * factors, in the model (closed form and walk) and in the simulator (SimGrid's factor callbacks and
 * an execution of o per message end).
 *
 * 1. Parsing: the text form round-trips (conn= too); named profiles; bad parts get one line naming them.  Every
 *    named profile parses; nccl2 reproduces NCCL's per-step figures (3.4 us over an NVLink hop of
 *    0.5 us, 9.6 us over a 3.5 us node-to-node route) to 0.01 us.
 * 2. Exact costs on a contention-free crossbar (`mring platform cluster`, 2 ranks): a ring of 2
 *    ranks sends 2 messages per rank one after the other, so o adds exactly 4 o, a latency factor
 *    adds what the model says, and bandwidth factors 0.5 and 0.25 make the transfer term 2x and 4x.
 * 3. Model == simulate (1e-9 relative) for every profile and configuration on a 4-rank crossbar,
 *    streams sharing the CPU (2 rings pay their o twice) and flows sharing a link under a factor.
 * 4. The platform's mring_sw property is read; --profile replaces it; a bad one exits 2.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_table.h"
#include "sim_cli.h"
#include "swprof.h"

/* ---- 1. parsing ---- */

static void parse_roundtrip(void **st)
{
    mring_swprof_t a, b;
    char err[256], text[1024];
    (void)st;
    assert_int_equal(mring_swprof_parse("o=1.5us;lat=0:2,64K:3;bw=0:0.5,1M:0.9", &a, err, sizeof err), 0);
    assert_true(a.o == 1.5e-6);
    assert_int_equal(a.nlat, 2);
    assert_true(a.lat[1].bytes == 65536 && a.lat[1].factor == 3);
    assert_true(a.bw[1].bytes == 1048576 && a.bw[1].factor == 0.9);
    assert_true(mring_swprof_factor(a.lat, a.nlat, 65535) == 2 && mring_swprof_factor(a.lat, a.nlat, 65536) == 3);
    assert_true(mring_swprof_factor(a.bw, 0, 1e9) == 1);
    mring_swprof_format(&a, text, sizeof text);
    assert_int_equal(mring_swprof_parse(text, &b, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(mring_swprof_parse("mpi-tcp", &b, err, sizeof err), 0);
    assert_int_equal(b.nlat, 9);
    assert_true(b.bw[8].bytes == 65472 && b.bw[8].factor == 0.940694);
    assert_int_equal(mring_swprof_parse("none", &b, err, sizeof err), 0);
    assert_false(mring_swprof_active(&b));
    assert_true(mring_swprof_active(&a));
    /* connections: conn=pair is kept in the text form and makes a profile active; conn=stream is the default */
    assert_int_equal(mring_swprof_parse("bw=0:0.5;conn=pair", &a, err, sizeof err), 0);
    assert_int_equal(a.conn_pair, 1);
    assert_string_equal(mring_swprof_format(&a, text, sizeof text), "bw=0:0.5;conn=pair");
    assert_int_equal(mring_swprof_parse("conn=pair", &a, err, sizeof err), 0);
    assert_true(mring_swprof_active(&a));
    assert_string_equal(mring_swprof_format(&a, text, sizeof text), "conn=pair");
    assert_int_equal(mring_swprof_parse("conn=stream", &b, err, sizeof err), 0);
    assert_false(b.conn_pair || mring_swprof_active(&b));
}

/* Every named profile parses and changes costs (but none); nccl2's step costs are NCCL's. */
static void named_profiles(void **st)
{
    mring_swprof_t sw;
    const char *name, *spec, *source;
    char err[256];
    int n = 0;
    (void)st;
    for (int i = 0; (name = mring_swprof_named(i, &spec, &source)); i++, n++) {
        assert_int_equal(mring_swprof_parse(name, &sw, err, sizeof err), 0);
        assert_int_equal(mring_swprof_active(&sw), strcmp(name, "none") != 0);
        assert_true(strlen(source) > 20);
    }
    assert_int_equal(n, 5);
    assert_int_equal(mring_swprof_parse("nccl2", &sw, err, sizeof err), 0);
    double nvlink = 0.5e-6 * mring_swprof_factor(sw.lat, sw.nlat, 4096) + 2 * sw.o;
    double net = 3.5e-6 * mring_swprof_factor(sw.lat, sw.nlat, 4096) + 2 * sw.o;
    assert_true(fabs(nvlink - 3.4e-6) <= 0.01e-6);
    assert_true(fabs(net - 9.6e-6) <= 0.01e-6);
    assert_int_equal(mring_swprof_parse("gloo-tcp", &sw, err, sizeof err), 0);
    assert_true(fabs(sw.o - 27.5e-6) < 1e-18 && sw.nbw == 9 && sw.nlat == 0);
}

static void parse_errors(void **st)
{
    static const struct {
        const char *in, *names;
    } bad[] = {{"bogus", "'bogus'"},         {"o=fast", "'fast'"},         {"lat=1:2", "'1'"},
               {"lat=0:2,0:3", "'0'"},       {"bw=0:0", "'0'"},            {"bw=0:-1", "'-1'"},
               {"bw=0:nan", "'nan'"},        {"x=1", "'x'"},               {"lat=0", "'0'"},
               {"o=1us;lat=0:1,4K:x", "'x'"}, {"conn=tcp", "'tcp'"},
               /* past the bounds (1e6, 1 s): bw=0:1e300 hung mring simulate, o=1e300s ended it with ops pending */
               {"bw=0:1e300", "'1e300'"},    {"lat=0:2e6", "'2e6'"},       {"o=1e300s", "'1e300s'"},
               {"o=2s", "'2s'"}};
    mring_swprof_t sw;
    char err[256];
    (void)st;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (mring_swprof_parse(bad[i].in, &sw, err, sizeof err) != -1 || !strstr(err, bad[i].names) ||
            strchr(err, '\n'))
            fail_msg("'%s': want one line naming %s, got '%s'", bad[i].in, bad[i].names, err);
    }
}

/* ---- 2, 3: costs ---- */

/* The times (us) of `mring CMD [--method M] --platform P CFG --profile PROF -b MIN -e MAX -f 32 --format csv`,
 * one per size, into t[] (at most 8); their count. */
static int times_us(const char *cmd, const char *method, const char *platform, const char *cfg, const char *prof,
                    const char *min, const char *max, double *t)
{
    char buf[512];
    const char *args[64];
    int n = 0, k = 0;
    snprintf(buf, sizeof buf, "%s", cfg);
    args[n++] = cmd;
    if (method)
        args[n++] = "--method", args[n++] = method;
    args[n++] = "--platform", args[n++] = platform, args[n++] = "--profile", args[n++] = prof;
    args[n++] = "-b", args[n++] = min, args[n++] = "-e", args[n++] = max, args[n++] = "-f", args[n++] = "32";
    args[n++] = "--format", args[n++] = "csv";
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < 62; tok = strtok_r(NULL, " ", &save))
        args[n++] = tok;
    args[n] = NULL;
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    struct csv_table tab;
    csv_read_ok(r.out, &tab, r.cmd);
    if (tab.nrows == 0 || tab.nrows > 8)
        fail_msg("%s: %d rows, want 1 to 8", r.cmd, tab.nrows);
    for (k = 0; k < tab.nrows; k++)
        t[k] = csv_need(&tab, k, "time_us");
    csv_free(&tab);
    cli_free(&r);
    return k;
}

/* The time (us) of one size. */
static double time_us(const char *cmd, const char *method, const char *platform, const char *cfg, const char *prof,
                      const char *size)
{
    double t[8];
    times_us(cmd, method, platform, cfg, prof, size, size, t);
    return t[0];
}

static void exact_two_ranks(void **st)
{
    const char *p = sim_tmp_path("c2.xml"), *cfg = "--algo ring --topo 2";
    (void)st;
    double base = time_us("simulate", NULL, p, cfg, "none", "64M"), o = time_us("simulate", NULL, p, cfg, "o=10us", "64M");
    double small = time_us("simulate", NULL, p, cfg, "none", "4"), lat3 = time_us("simulate", NULL, p, cfg, "lat=0:3", "4");
    double bw2 = time_us("simulate", NULL, p, cfg, "bw=0:0.5", "64M");
    double model_small = time_us("model", NULL, p, cfg, "none", "4"), model_lat3 = time_us("model", NULL, p, cfg, "lat=0:3", "4");
    /* o: 2 messages per rank in sequence, o at each end: 4 x 10 us */
    assert_true(fabs(o - base - 40.0) < 1e-5 * base);
    /* a 4-byte call is latency plus a negligible transfer: latency x 3 adds 2 x the latency term, so the
     * simulated and modelled increments agree and are twice the model's latency part */
    assert_true(fabs((lat3 - small) - (model_lat3 - model_small)) < 1e-6 * lat3);
    assert_true(lat3 > small * 2.5);
    /* bandwidth factors 0.5 and 0.25: the transfer term T becomes 2T and 4T (the reductions keep their
     * time), so the second increment is 3 times the first; simulate equals the model */
    double bw4 = time_us("simulate", NULL, p, cfg, "bw=0:0.25", "64M");
    assert_true(fabs(bw2 - time_us("model", NULL, p, cfg, "bw=0:0.5", "64M")) < 1e-9 * bw2);
    assert_true(fabs((bw4 - base) - 3 * (bw2 - base)) < 1e-5 * bw4); /* CSV times have 6 digits */
    assert_true(bw2 - base > 0.5 * base);
}

static void model_equals_simulate(void **st)
{
    static const char *cfgs[] = {"--algo ring --topo 4", "--algo ring --topo 4 --rings 2",
                                 "--algo rabenseifner --topo 4", "--algo multiring --topo 2x2",
                                 "--algo multiring --topo 2x2 --rings 2", "--algo rd --topo 4"};
    static const char *profs[] = {"o=10us", "lat=0:2,64K:3;bw=0:0.5,1M:0.9", "mpi-tcp", "o=2us;bw=0:0.25"};
    const char *p = sim_tmp_path("c4.xml");
    (void)st;
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        for (size_t j = 0; j < sizeof profs / sizeof profs[0]; j++) { /* 4 KiB, 128 KiB, 4 MiB */
            double s[8], c[8], w[8];
            int n = times_us("simulate", NULL, p, cfgs[i], profs[j], "4K", "4M", s);
            assert_int_equal(times_us("model", "closed", p, cfgs[i], profs[j], "4K", "4M", c), n);
            assert_int_equal(times_us("model", "walk", p, cfgs[i], profs[j], "4K", "4M", w), n);
            assert_int_equal(n, 3);
            for (int k = 0; k < n; k++)
                if (fabs(s[k] - c[k]) > 1e-9 * s[k] || fabs(s[k] - w[k]) > 1e-9 * s[k])
                    fail_msg("%s --profile '%s', size %d: simulate %.6f, closed %.6f, walk %.6f us", cfgs[i], profs[j],
                             k, s[k], c[k], w[k]);
        }
    /* two rings pay their o twice (they share the rank's CPU): +10 us per message end and step */
    double one = time_us("simulate", NULL, p, cfgs[0], "o=10us", "4K"), two = time_us("simulate", NULL, p, cfgs[1], "o=10us", "4K");
    double one0 = time_us("simulate", NULL, p, cfgs[0], "none", "4K"), two0 = time_us("simulate", NULL, p, cfgs[1], "none", "4K");
    assert_true(fabs((one - one0) - 6 * 2 * 10.0) < 1e-5 * one); /* CSV times have 6 digits */
    assert_true(fabs((two - two0) - 6 * 2 * 2 * 10.0) < 1e-5 * two);
}

/* ---- 4. the platform's mring_sw ---- */

static void platform_property(void **st)
{
    const char *src = sim_tmp_path("c2.xml"), *dst = sim_tmp_path("c2sw.xml");
    char cmd[3 * PATH_MAX], out[4096];
    (void)st;
    snprintf(cmd, sizeof cmd,
             "sed 's|<prop id=\"mring_topo\"|<prop id=\"mring_sw\" value=\"o=10us\"/><prop id=\"mring_topo\"|' '%s' > '%s'",
             src, dst);
    assert_int_equal(cli_shell(cmd, out, sizeof out), 0);
    double plain = time_us("simulate", NULL, src, "--algo ring --topo 2", "none", "4K");
    const char *args[] = {"simulate", "--platform", dst, "--algo", "ring", "-b", "4K", "-e", "4K", "--format", "csv", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    struct csv_table tab;
    csv_read_ok(r.out, &tab, r.cmd);
    assert_int_equal(tab.nrows, 1);
    double with = csv_need(&tab, 0, "time_us");
    csv_free(&tab);
    cli_free(&r);
    assert_true(fabs(with - plain - 40.0) < 1e-5 * with);
    /* --profile none replaces it */
    assert_true(fabs(time_us("simulate", NULL, dst, "--algo ring --topo 2", "none", "4K") - plain) < 1e-9 * plain);
    /* a bad property or option: exit 2, one line naming it */
    snprintf(cmd, sizeof cmd, "sed -i 's|o=10us|o=soon|' '%s'", dst);
    assert_int_equal(cli_shell(cmd, out, sizeof out), 0);
    const char *bad[][12] = {{"simulate", "--platform", dst, NULL},
                             {"simulate", "--platform", src, "--profile", "lat=4K:2", NULL},
                             {"model", "--topo", "2", "--links", "1us:1GBps", "--profile", "bw=0:0", NULL},
                             {"tune", "--platform", src, "--profile", "nccl", NULL}};
    const char *names[] = {"'soon'", "'4K'", "'0'", "'nccl'"};
    for (int i = 0; i < 4; i++) {
        cli_run(bad[i], &r);
        if (!r.exited || r.status != 2 || !strstr(r.err, names[i]) || strchr(r.err, '\n') != strrchr(r.err, '\n'))
            fail_msg("%s: want exit 2 and one line naming %s, got %d: %s", r.cmd, names[i], r.status, r.err);
        cli_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_roundtrip),     cmocka_unit_test(named_profiles), cmocka_unit_test(parse_errors),
        cmocka_unit_test(exact_two_ranks),     cmocka_unit_test(model_equals_simulate),
        cmocka_unit_test(platform_property),
    };
    return cmocka_run_group_tests(tests, sim_crossbars_setup, sim_tmp_teardown);
}

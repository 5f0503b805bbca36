/*
 * test_scaling.c - `mring scaling`: bucketing, overlap and the efficiency arithmetic against closed forms.
 *
 * The platform is a contention-free crossbar of 4 one-GPU nodes (`mring platform cluster`): every
 * route between two GPUs has latency L = 22 us (10 us GPU link + 0.5 us PCIe + 0.5 us NIC per side)
 * and bandwidth BW = 1 GB/s (the GPU links); a GPU reduces at S = 4 GB/s.  On it an in-place ring
 * allreduce of b bytes per block (n = P b bytes) takes, exactly (the simulation equals the model on
 * such a crossbar, test_sim.c),  T(P, b) = (P - 1)(L + b/BW + b/S) + (P - 1)(L + b/BW).
 * The workload has two layers of 1 Mi float32 gradients each: "conv" (3 MMAC/image) then "fc"
 * (1 MMAC/image); at batch 10 an iteration computes 0.1 s, half of it backward.  Backward runs fc
 * first: its gradient is ready at 1/4 of backward (12.5 ms), conv's at the end (50 ms).
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

#define L 22e-6
#define BW 1e9
#define S 4e9
#define MIB 1048576.0

static double T(int P, double b) { return (P - 1) * (L + b / BW + b / S) + (P - 1) * (L + b / BW); }

static const char workload_json[] =
    "{\"name\": \"two-layers\", \"description\": \"two layers of 1 Mi parameters\",\n"
    " \"layers\": [{\"name\": \"conv\", \"macs\": 3e6, \"tensors\": [{\"name\": \"conv.weight\", \"elements\": 1048576}]},\n"
    "            {\"name\": \"fc\", \"macs\": 1e6, \"tensors\": [{\"name\": \"fc.weight\", \"elements\": 1048576}]}],\n"
    " \"default_batch\": 10,\n"
    " \"compute\": {\"gpu\": \"test GPU\", \"batch\": 10, \"images_per_s\": 100, \"backward_share\": 0.5,\n"
    "             \"source\": \"made up for the test\"}}\n";

/* One CSV row of `mring scaling`. */
struct row {
    int gpus, buckets;
    double forward, backward, comm, exposed, iter, ips, eff; /* seconds, images/s, fraction */
};

static int run_scaling(const char *const *extra, struct row *rows, int max)
{
    const char *args[32] = {"scaling", "--platform", sim_tmp_path("c4.xml"), "--workload", sim_tmp_path("w.json"),
                            "--format", "csv"};
    int n = 7, k = 0;
    struct cli_result r = {0};
    for (int i = 0; extra[i]; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    cli_run_ok(args, &r);
    struct csv_table t;
    csv_read_ok(r.out, &t, r.cmd);
    if (t.nrows > max)
        fail_msg("%s: %d rows, at most %d expected", r.cmd, t.nrows, max);
    for (k = 0; k < t.nrows; k++) {
        struct row *w = &rows[k];
        w->gpus = (int)csv_need_int(&t, k, "gpus");
        w->buckets = (int)csv_need_int(&t, k, "buckets");
        w->forward = csv_need(&t, k, "forward_ms") / 1e3;
        w->backward = csv_need(&t, k, "backward_ms") / 1e3;
        w->comm = csv_need(&t, k, "comm_ms") / 1e3;
        w->exposed = csv_need(&t, k, "exposed_ms") / 1e3;
        w->iter = csv_need(&t, k, "iter_ms") / 1e3;
        w->ips = csv_need(&t, k, "images_per_s");
        w->eff = csv_need(&t, k, "efficiency");
    }
    csv_free(&t);
    cli_free(&r);
    return k;
}

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-6 * fabs(want) + 2e-9))
        fail_msg("%s: got %.9g, want %.9g", what, got, want);
}

/* The figures of a row whose allreduces end at `end` s after backward starts, busy `comm` s. */
static void check_row(const struct row *r, int buckets, double end, double comm)
{
    double exposed = end > 0.05 ? end - 0.05 : 0, iter = 0.1 + exposed;
    assert_int_equal(r->buckets, buckets);
    near(r->forward, 0.05, "forward");
    near(r->backward, 0.05, "backward");
    near(r->comm, comm, "communication");
    near(r->exposed, exposed, "exposed communication");
    near(r->iter, iter, "iteration");
    near(r->ips, r->gpus * 10 / iter, "images/s");
    near(r->eff, 0.1 / iter, "efficiency against one node (1 GPU: 0.1 s)");
}

/* Overlap on, 4 MiB buckets: fc's bucket runs alone from 12.5 ms, conv's from 50 ms. */
static void buckets_overlap(void **state)
{
    const char *extra[] = {"--gpus", "1,2,4", "--bucket", "4M", NULL};
    struct row r[3];
    (void)state;
    assert_int_equal(run_scaling(extra, r, 3), 3);
    check_row(&r[0], 0, 0, 0); /* one GPU: nothing to exchange */
    assert_int_equal(r[1].gpus, 2);
    check_row(&r[1], 2, 0.05 + T(2, 2 * MIB), 2 * T(2, 2 * MIB));
    assert_int_equal(r[2].gpus, 4);
    check_row(&r[2], 2, 0.05 + T(4, MIB), 2 * T(4, MIB));
}

/* --bucket 0: one fused allreduce of 8 MiB after backward. */
static void fused(void **state)
{
    const char *extra[] = {"--gpus", "4", "--bucket", "0", NULL};
    struct row r[1];
    (void)state;
    assert_int_equal(run_scaling(extra, r, 1), 1);
    check_row(&r[0], 1, 0.05 + T(4, 2 * MIB), T(4, 2 * MIB));
}

/* Overlap off, one allreduce in flight (NCCL's stream): both buckets issued at 50 ms, one after the other. */
static void in_order(void **state)
{
    const char *extra[] = {"--gpus", "4", "--bucket", "4M", "--overlap", "off", NULL};
    struct row r[1];
    (void)state;
    assert_int_equal(run_scaling(extra, r, 1), 1);
    check_row(&r[0], 2, 0.05 + 2 * T(4, MIB), 2 * T(4, MIB));
}

/* Overlap off, no limit in flight: both buckets start at 50 ms and share every link and GPU in
 * lockstep, each at half the bandwidth and reduction speed: T(4, 2 MiB) for both, the fused time. */
static void shared_network(void **state)
{
    const char *extra[] = {"--gpus", "4", "--bucket", "4M", "--overlap", "off", "--inflight", "0", NULL};
    struct row r[1];
    (void)state;
    assert_int_equal(run_scaling(extra, r, 1), 1);
    check_row(&r[0], 2, 0.05 + T(4, 2 * MIB), T(4, 2 * MIB));
}

/* A cap above the whole gradient is one bucket, ready at the end of backward. */
static void one_big_bucket(void **state)
{
    const char *extra[] = {"--gpus", "4", "--bucket", "1G", NULL};
    struct row r[1];
    (void)state;
    assert_int_equal(run_scaling(extra, r, 1), 1);
    check_row(&r[0], 1, 0.05 + T(4, 2 * MIB), T(4, 2 * MIB));
}

/* Bad input: one line naming the value, exit 2. */
static void bad_input(void **state)
{
    static const char *const cases[][3] = {{"--gpus", "5", "5"},          {"--gpus", "0", "0"},
                                           {"--bucket", "lots", "lots"},  {"--overlap", "maybe", "maybe"},
                                           {"--batch", "0", "0"},          {"--workload", "nosuchnet", "nosuchnet"},
                                           {"--format", "xml", "xml"},    {"--algo", "tree", "tree"},
                                           {"--gpus", "2,,4", "2,,4"},    {"--gpus", "2,2", "2 twice"},
                                           {"--gpus", "8", "--gpus 8"},   {"--inflight", "-1", "-1"},
                                           {"--plot", "/nonexistent/e.png", "/nonexistent"},
                                           {"--cfg", "foo:bar", "foo"}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"scaling", "--platform", sim_tmp_path("c4.xml"), "--workload", sim_tmp_path("w.json"),
                              cases[i][0], cases[i][1], NULL};
        struct cli_result r = {0};
        cli_run(args, &r);
        if (!r.exited || r.status != 2 || !r.err || !strstr(r.err, cases[i][2]) || strchr(r.err, '\n') != strrchr(r.err, '\n'))
            fail_msg("%s: want exit 2 and one line naming '%s'; got status %d, stderr: %s", r.cmd, cases[i][2],
                     r.status, r.err ? r.err : "");
        cli_free(&r);
    }
}

/* More buckets in flight than SimGrid has actors for (each needs memory mappings: vm.max_map_count)
 * is refused before the run, in one line, instead of SimGrid's "Failed to protect stack" abort: the
 * workload gets enough one-element layers to pass this machine's limit at 4 GPUs, --inflight 0. */
static void too_many_actors(void **state)
{
    long maps = 65530, layers;
    FILE *m = fopen("/proc/sys/vm/max_map_count", "r"), *f;
    (void)state;
    if (m) {
        if (fscanf(m, "%ld", &maps) != 1)
            maps = 65530;
        fclose(m);
    }
    layers = maps / 8 + 1; /* 4 actors a bucket in flight: more than maps / 2 */
    assert_non_null(f = fopen(sim_tmp_path("many.json"), "w"));
    fprintf(f, "{\"name\": \"many\", \"layers\": [");
    for (long i = 0; i < layers; i++)
        fprintf(f, "%s{\"name\": \"l%ld\", \"macs\": 1000, \"tensors\": [{\"name\": \"w%ld\", \"elements\": 1}]}",
                i ? "," : "", i, i);
    fprintf(f, "], \"default_batch\": 1, \"compute\": {\"gpu\": \"x\", \"batch\": 1, \"images_per_s\": 100, "
               "\"backward_share\": 0.5, \"source\": \"made up for the test\"}}\n");
    fclose(f);
    const char *args[] = {"scaling", "--platform", sim_tmp_path("c4.xml"), "--workload", sim_tmp_path("many.json"),
                          "--gpus", "4", "--bucket", "4", "--inflight", "0", NULL};
    struct cli_result r = {0};
    cli_run(args, &r);
    if (!r.exited || r.status != 2 || !r.err || !strstr(r.err, "SimGrid actors at once, more than fit") ||
        strchr(r.err, '\n') != strrchr(r.err, '\n'))
        fail_msg("%s: want exit 2 and one line about SimGrid actors; got status %d, stderr: %.300s", r.cmd, r.status,
                 r.err ? r.err : "");
    cli_free(&r);
}

/* The command on minsky-64 (ResNet-50): a row per GPU count from one node to 256, compute
 * from the profile (32 images at 195 img/s), efficiency 1 on one node and below it on 256 GPUs. */
static void minsky_resnet50(void **state)
{
    const char *args[] = {"scaling", "--platform", sim_repo_path("platforms/minsky-64.xml"), "--workload", "resnet50",
                          "--format", "csv", NULL};
    struct cli_result r = {0};
    struct csv_table t;
    (void)state;
    cli_run_ok(args, &r);
    csv_read_ok(r.out, &t, r.cmd);
    assert_int_equal(t.nrows, 7);
    for (int i = 0; i < 7; i++) {
        assert_string_equal(csv_str(&t, i, "workload"), "resnet50");
        assert_int_equal(csv_need_int(&t, i, "gpus"), 4 << i);
        near(csv_need(&t, i, "forward_ms") + csv_need(&t, i, "backward_ms"), 1e3 * 32 / 195.0,
             "compute per iteration (ms)");
    }
    double eff[2] = {csv_need(&t, 0, "efficiency"), csv_need(&t, 6, "efficiency")};
    csv_free(&t);
    cli_free(&r);
    near(eff[0], 1, "efficiency of one node");
    if (!(eff[1] < 1 && eff[1] > 0.5))
        fail_msg("efficiency on 256 GPUs is %g", eff[1]);
}

/* --plot writes a PNG. */
static void plot_png(void **state)
{
    const char *png = sim_tmp_path("eff.png");
    const char *args[] = {"scaling", "--platform", sim_tmp_path("c4.xml"), "--workload", sim_tmp_path("w.json"),
                          "--plot", png, NULL};
    struct cli_result r = {0};
    unsigned char magic[8] = {0};
    (void)state;
    cli_run_ok(args, &r);
    cli_free(&r);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
}

/* --tuning: the file's entries serve the GPU count it was tuned for (4), the command line's
 * configuration the others; the tuned iteration is no slower than multiring's. */
static void tuning(void **state)
{
    const char *tune[] = {"tune", "--platform", sim_tmp_path("c4.xml"), "-b", "1M", "-e", "8M", "--out",
                          sim_tmp_path("tuning.json"), NULL};
    const char *args[] = {"scaling", "--platform", sim_tmp_path("c4.xml"), "--workload", sim_tmp_path("w.json"),
                          "--format", "csv", "--bucket", "4M", "--gpus", "2,4", NULL, NULL, NULL};
    struct cli_result r = {0};
    double iter[2][2];
    (void)state;
    cli_run_ok(tune, &r);
    cli_free(&r);
    for (int k = 0; k < 2; k++) {
        struct csv_table t;
        args[11] = k ? "--tuning" : NULL;
        args[12] = k ? sim_tmp_path("tuning.json") : NULL;
        cli_run_ok(args, &r);
        csv_read_ok(r.out, &t, r.cmd);
        assert_int_equal(t.nrows, 2);
        assert_int_equal(csv_need_int(&t, 0, "gpus"), 2);
        assert_int_equal(csv_need_int(&t, 1, "gpus"), 4);
        assert_int_equal(csv_need_int(&t, 0, "tuned_buckets"), 0);         /* the file is for 4 ranks */
        assert_int_equal(csv_need_int(&t, 1, "tuned_buckets"), k ? 2 : 0); /* both 4 MiB buckets */
        iter[k][0] = csv_need(&t, 0, "iter_ms");
        iter[k][1] = csv_need(&t, 1, "iter_ms");
        csv_free(&t);
        cli_free(&r);
    }
    near(iter[1][0], iter[0][0], "2 GPUs, untouched by the tuning file");
    if (!(iter[1][1] <= iter[0][1] * (1 + 1e-9)))
        fail_msg("4 GPUs: tuned iteration %g ms, multiring %g ms", iter[1][1], iter[0][1]);
}

/* validation/paper: the three published cases, each with a predicted efficiency in (0, 100]%. */
static void paper(void **state)
{
    static char out[65536];
    char cmd[PATH_MAX + 64];
    int found = 0;
    (void)state;
    snprintf(cmd, sizeof cmd, "%s 2>&1", sim_repo_path("validation/paper"));
    int status = cli_shell(cmd, out, sizeof out);
    if (status != 0)
        fail_msg("%s exited with %d:\n%s", cmd, status, out);
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        double pub, pred;
        if (sscanf(l, " published %lf%%", &pub) == 1) {
            char *next = strtok_r(NULL, "\n", &save);
            if (!next || sscanf(next, " predicted %lf%%", &pred) != 1 || !(pred > 0 && pred <= 100) || !(pub > 80))
                fail_msg("a published figure without a predicted one: '%s' / '%s'", l, next ? next : "");
            found++;
        }
    }
    assert_int_equal(found, 3);
}

static int setup(void **state)
{
    const char *args[] = {"platform", "cluster", "--nodes", "4", "--gpus-per-node", "1", "--nvlink-bw", "1GBps",
                          "--nvlink-lat", "10us", "--gpu-speed", "4GBps", "-o", NULL, NULL};
    if (sim_tmp_setup(state))
        return -1;
    args[13] = sim_tmp_path("c4.xml");
    FILE *f = fopen(sim_tmp_path("w.json"), "w");
    if (!f || fputs(workload_json, f) < 0 || fclose(f))
        return -1;
    return sim_setup_run(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets_overlap), cmocka_unit_test(fused),     cmocka_unit_test(in_order),
        cmocka_unit_test(shared_network),
        cmocka_unit_test(one_big_bucket),  cmocka_unit_test(bad_input), cmocka_unit_test(too_many_actors),
        cmocka_unit_test(minsky_resnet50),
        cmocka_unit_test(plot_png),        cmocka_unit_test(tuning),    cmocka_unit_test(paper),
    };
    return cmocka_run_group_tests(tests, setup, sim_tmp_teardown);
}

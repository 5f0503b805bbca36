/* test_cli.c - bad input to the mring command.
 *
 * Project rule: every bad input gets exactly ONE line on stderr naming the bad value (and what
 * was expected), exit status 2, and nothing on stdout.  Each row of the table below is its
 * own cmocka test, named after the case; `bad` lists what stderr must mention (alternatives
 * separated by '|').  The good paths are in test_cli_good.c.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli_run.h"

#define L3 "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4" /* links for 4x16x4 */
#define L2 "1us:36GBps,2us:12.5GBps:4"                 /* links for 4x2 */

struct bad_case {
    const char *name;
    const char *bad; /* stderr must contain one of these ('|'-separated) */
    const char *args[CLI_MAX_ARGS + 1];
};

static const struct bad_case cases[] = {
    /* the command line itself */
    {"unknown_flag", "--bogus", {"model", "--bogus", "--topo", "4x2", "--links", L2}},
    {"unknown_flag_verify", "--frob", {"verify", "--topo", "4x2", "--count", "8", "--frob"}},
    {"flag_of_other_command", "--links", {"verify", "--topo", "4x2", "--count", "8", "--links", L2}},
    {"unknown_command", "frobnicate", {"frobnicate", "--topo", "4x2"}},
    {"missing_value_topo", "--topo", {"model", "--links", L2, "--topo"}},
    {"missing_value_count", "--count", {"verify", "--topo", "4x2", "--count"}},
    {"profiles_extra_argument", "extra", {"profiles", "extra"}},
    {"extra_argument", "extra", {"verify", "--topo", "4x2", "--count", "8", "extra"}},
    /* topology */
    {"topo_4x0", "4x0", {"model", "--topo", "4x0", "--links", L2}},
    {"topo_4xx2", "4xx2", {"model", "--topo", "4xx2", "--links", L2}},
    {"topo_abc", "abc", {"model", "--topo", "abc", "--links", "1us:1GBps"}},
    {"topo_empty", "''", {"model", "--topo", "", "--links", "1us:1GBps"}},
    {"topo_0", "0", {"model", "--topo", "0", "--links", "1us:1GBps"}},
    {"topo_trailing_x", "4x16x4x", {"verify", "--topo", "4x16x4x", "--count", "1"}},
    {"topo_negative", "4x-2", {"verify", "--topo", "4x-2", "--count", "1"}},
    {"topo_dim_too_large", "65537", {"model", "--topo", "65537", "--links", "1us:1GBps"}},
    {"topo_dim_too_large_verify", "65537", {"verify", "--topo", "65537", "--count", "1"}},
    {"topo_product_too_large", "300x300", {"model", "--topo", "300x300", "--links", L2}},
    {"topo_product_too_large_verify", "300x300", {"verify", "--topo", "300x300", "--count", "1"}},
    {"topo_product_too_large_schedule", "300x300",
     {"schedule", "--topo", "300x300", "--count", "1", "--rank", "0"}},
    /* sizes */
    {"minbytes_1Q", "1Q", {"model", "--topo", "4x16x4", "--links", L3, "-b", "1Q"}},
    {"maxbytes_below_minbytes", "1K|1024", {"model", "--topo", "4x16x4", "--links", L3, "-b", "1M", "-e", "1K"}},
    {"minbytes_overflow", "99999999999999999999",
     {"model", "--topo", "4x2", "--links", L2, "-b", "99999999999999999999"}},
    {"stepfactor_abc", "abc", {"model", "--topo", "4x2", "--links", L2, "-f", "abc"}},
    {"stepfactor_1_with_range", "-f", {"model", "--topo", "4x2", "--links", L2, "-b", "1K", "-e", "1M", "-f", "1"}},
    {"stepbytes_negative", "-1", {"model", "--topo", "4x2", "--links", L2, "-b", "1K", "-e", "4K", "-i", "-1"}},
    /* 4097 sizes: the sweep was cut at 4096 without a word */
    {"sweep_too_many_sizes", "4096 sizes", {"model", "--topo", "4x2", "--links", L2, "-b", "1", "-e", "4097", "-i", "1",
                                            "--type", "int8"}},
    /* counts and ranks */
    {"count_negative", "-5", {"verify", "--topo", "4x2", "--count", "-5"}},
    /* 70 zeros and a 5: once cut to 63 characters, it read as 0 */
    {"count_too_long", "'00000000000000000000000000000000000000000000000000000000000000000000005'", {"verify", "--topo", "4x2", "--count", "1,00000000000000000000000000000000000000000000000000000000000000000000005"}},
    {"count_garbage", "x", {"verify", "--topo", "4x2", "--count", "1,x"}},
    {"count_overflow", "99999999999999999999", {"verify", "--topo", "4x2", "--count", "99999999999999999999"}},
    {"count_list_for_schedule", "8,9", {"schedule", "--topo", "4x2", "--count", "8,9", "--rank", "0"}},
    {"rank_out_of_range", "8", {"schedule", "--topo", "4x2", "--count", "8", "--rank", "8"}},
    {"rank_negative", "-1", {"schedule", "--topo", "4x2", "--count", "8", "--rank", "-1"}},
    /* algorithms and rings */
    {"algo_unknown", "bogus", {"verify", "--topo", "4x2", "--count", "1", "--algo", "bogus"}},
    {"algo_unknown_model", "bogus", {"model", "--topo", "4x2", "--links", L2, "--algo", "bogus"}},
    {"algo_all_for_schedule", "all", {"schedule", "--topo", "4x2", "--count", "8", "--rank", "0", "--algo", "all"}},
    {"rings_wrong_entries", "2,1", {"verify", "--topo", "4x16x4", "--count", "1", "--rings", "2,1"}},
    {"rings_wrong_entries_model", "2,1", {"model", "--topo", "4x16x4", "--links", L3, "--rings", "2,1"}},
    {"rings_0", "0", {"verify", "--topo", "4x16x4", "--count", "1", "--rings", "0"}},
    {"rings_trailing_comma", "2,", {"verify", "--topo", "4x2", "--count", "8", "--rings", "2,"}},
    {"rings_per_dim_for_ring", "2,1", {"verify", "--algo", "ring", "--rings", "2,1", "--topo", "4x2", "--count", "8"}},
    {"rings_per_dim_for_ring_model", "2,1",
     {"model", "--algo", "ring", "--rings", "2,1", "--topo", "4x2", "--links", L2}},
    {"rings_2_for_rd", "2", {"verify", "--algo", "rd", "--rings", "2", "--topo", "4x2", "--count", "8"}},
    /* links and gamma */
    {"links_wrong_entries", L2, {"model", "--topo", "4x16x4", "--links", L2}},
    {"links_bad_latency", "abc", {"model", "--topo", "4x2", "--links", "abc:36GBps,1us:1GBps"}},
    {"links_bad_bandwidth", "fast", {"model", "--topo", "4x2", "--links", "1us:fast,1us:1GBps"}},
    {"links_bad_share", "0", {"model", "--topo", "4x2", "--links", "1us:1GBps:0,1us:1GBps"}},
    {"links_too_many_fields", "1us:1GBps:4:5", {"model", "--topo", "4x2", "--links", "1us:1GBps:4:5,1us:1GBps"}},
    {"links_negative_latency", "-1us", {"model", "--topo", "4x2", "--links", "-1us:1GBps,1us:1GBps"}},
    {"links_zero_bandwidth", "0GBps", {"model", "--topo", "4x2", "--links", "1us:0GBps,1us:1GBps"}},
    {"gamma_nope", "nope", {"model", "--topo", "4x2", "--links", L2, "--gamma", "nope"}},
    /* enumerations */
    {"format_xml", "xml", {"model", "--topo", "4x2", "--links", L2, "--format", "xml"}},
    {"method_guess", "guess", {"model", "--topo", "4x2", "--links", L2, "--method", "guess"}},
    {"type_float8", "float8", {"model", "--topo", "4x2", "--links", L2, "--type", "float8"}},
    {"type_float8_verify", "float8", {"verify", "--topo", "4x2", "--count", "8", "--type", "float8"}},
    {"op_mean", "mean", {"model", "--topo", "4x2", "--links", L2, "--op", "mean"}},
    /* per-dimension algorithms */
    {"dim_algo_not_pof2", "3", {"verify", "--topo", "4x3x4", "--count", "5", "--dim-algo", "ring,rabenseifner,ring"}},
    {"dim_algo_all_not_pof2", "3", {"model", "--topo", "3x4", "--links", "1us:1GBps,1us:1GBps", "--dim-algo",
                                    "rabenseifner"}},
    {"dim_algo_unknown", "tree", {"verify", "--topo", "4x2", "--count", "8", "--dim-algo", "ring,tree"}},
    {"dim_algo_entries", "ring,ring,ring", {"verify", "--topo", "4x2", "--count", "8", "--dim-algo", "ring,ring,ring"}},
    {"dim_algo_not_multiring", "ring", {"verify", "--topo", "4x2", "--count", "8", "--algo", "ring", "--dim-algo",
                                        "rabenseifner"}},
    /* chunks and embeddings */
    {"chunks_zero", "--chunks '0'", {"verify", "--topo", "4x2", "--count", "8", "--chunks", "0"}},
    {"chunks_not_multiring", "--chunks 2", {"verify", "--topo", "8", "--count", "8", "--algo", "ring", "--chunks", "2"}},
    {"embed_repeated", "0.1.1.3", {"verify", "--topo", "4x2", "--count", "8", "--embed", "0.1.1.3;-"}},
    {"embed_trailing_dot", "0.1.2.3.", {"verify", "--topo", "4x2", "--count", "8", "--embed", "0.1.2.3.;-"}},
    {"embed_parts", "part(s)", {"verify", "--topo", "4x2", "--count", "8", "--embed", "0.1.2.3"}},
    {"embed_auto_no_platform", "--embed auto", {"model", "--topo", "4x2", "--links", L2, "--embed", "auto"}},
    {"embed_scaling", "--embed '0.1.2.3;-;-'", {"scaling", "--platform", "platforms/minsky-64.xml", "--embed",
                                               "0.1.2.3;-;-"}},
    {"platform_unwritable_dir", "/nonexistent-mring-dir", {"platform", "minsky", "-o", "/nonexistent-mring-dir/x.xml"}},
    {"platform_out_dir", "-o '/tmp'", {"platform", "minsky", "-o", "/tmp"}},
    /* an op MPI does not define on the type (mring-bench refused it, model and simulate printed a row) */
    {"model_op_not_on_type", "--op sum is not defined on --type bool", {"model", "--topo", "4x2", "--links", L2, "--op",
                                                                        "sum", "--type", "bool"}},
    /* a directory (was: "'[' or '{' expected near end of file") */
    {"workload_directory", "/tmp: not a regular file", {"workload", "/tmp"}},
    /* the root zone named as a zone inside (SimGrid refused the file it wrote); link figures a kind has no link for
     * (the file was the same without them) */
    {"platform_name_rack_zone", "--name 'r0'", {"platform", "minsky", "--nodes", "4", "--name", "r0", "-o",
                                                "/tmp/mring-test-never.xml"}},
    {"platform_testbed_link_figure", "--nvlink-bw", {"platform", "testbed", "--nodes", "2", "--gpus-per-node", "2",
                                                     "--intra", "1us:1GBps", "--inter", "1us:1GBps", "--reduce",
                                                     "1GBps", "--nvlink-bw", "1GBps", "-o", "/tmp/mring-test-never.xml"}},
    {"platform_cluster_xbus", "--xbus-bw", {"platform", "cluster", "--xbus-bw", "1GBps", "-o",
                                            "/tmp/mring-test-never.xml"}},
    /* a --segment that cuts a call into millions of pieces: simulate, model and verify grew without an end */
    {"segment_pieces_model", "into more than 4194304 pieces", {"model", "--topo", "4x2", "--links", L2, "--segment",
                                                               "4", "-b", "1G", "-e", "1G"}},
    {"segment_pieces_verify", "into more than 4194304 pieces", {"verify", "--topo", "2x4", "--segment", "4", "--count",
                                                                "100000000"}},
    /* per-dimension entries on a one-dimensional topology (said "give 1 or 1") */
    {"rings_entries_one_dim", "topology 4 has 1 dimension (give 1)", {"verify", "--topo", "4", "--rings", "2,2",
                                                                        "--count", "5"}},
    /* a rate that overflows to inf in bytes per second (the file was written; SimGrid refused it) */
    {"platform_bw_overflow", "--nic-bw '1e300GBps'", {"platform", "minsky", "--nic-bw", "1e300GBps", "-o",
                                                      "/tmp/mring-test-never.xml"}},
    {"platform_oversubscription_one_rack", "--oversubscription", {"platform", "cluster", "--racks", "1",
                                                                  "--oversubscription", "2", "-o",
                                                                  "/tmp/mring-test-never.xml"}},
    /* outputs are checked before any work (a tune or scaling run takes minutes) */
    {"tune_out_unwritable", "/nonexistent-mring-dir", {"tune", "--platform", "platforms/minsky-64.xml", "--out",
                                                       "/nonexistent-mring-dir/t.json"}},
    {"tune_plot_dir", "--plot '/tmp/'", {"tune", "--platform", "platforms/minsky-64.xml", "--plot", "/tmp/"}},
    {"simulate_trace_unwritable", "/nonexistent-mring-dir", {"simulate", "--platform", "platforms/minsky-64.xml",
                                                             "--trace", "/nonexistent-mring-dir/t.json"}},
    {"scaling_plot_unwritable", "/nonexistent-mring-dir", {"scaling", "--platform", "platforms/minsky-64.xml",
                                                           "--plot", "/nonexistent-mring-dir/p.png"}},
    /* sweeps */
    {"step_and_factor", "-f", {"model", "--topo", "4x2", "--links", L2, "-f", "2", "-i", "1K"}},
    {"factor_one", "1", {"model", "--topo", "4x2", "--links", L2, "-f", "1"}},
    {"factor_inf", "-f 'inf'", {"model", "--topo", "4x2", "--links", L2, "-f", "inf"}},
    {"factor_nan", "-f 'nan'", {"model", "--topo", "4x2", "--links", L2, "-f", "nan"}},
    {"no_command", "command", {NULL}},
    /* segments */
    {"segment_1_float32", "1", {"model", "--topo", "4x2", "--links", L2, "--segment", "1"}},
    {"segment_1_float32_verify", "1", {"verify", "--topo", "4x2", "--count", "8", "--segment", "1"}},
    {"segment_3_float64", "3", {"model", "--topo", "4x2", "--links", L2, "--segment", "3", "--type", "float64"}},
    {"segment_1Q", "1Q", {"model", "--topo", "4x2", "--links", L2, "--segment", "1Q"}},
    /* missing required flags */
    {"model_missing_topo", "--topo", {"model", "--links", L2}},
    {"model_missing_links", "--links", {"model", "--topo", "4x2"}},
    {"verify_missing_topo", "--topo", {"verify", "--count", "1"}},
    {"verify_missing_count", "--count", {"verify", "--topo", "4x2"}},
    {"schedule_missing_topo", "--topo", {"schedule", "--count", "8", "--rank", "0"}},
    {"schedule_missing_count", "--count", {"schedule", "--topo", "4x2", "--rank", "0"}},
    {"schedule_missing_rank", "--rank", {"schedule", "--topo", "4x2", "--count", "8"}},
};

/* does s contain a as a whole token (not inside a longer word or number, so "8" is not found in
 * "4x2 (8 ranks)"'s "28")? */
static int has_token(const char *s, const char *a)
{
    size_t n = strlen(a);
    for (const char *p = strstr(s, a); p; p = strstr(p + 1, a)) {
        int before = p > s && isalnum((unsigned char)p[-1]) && isalnum((unsigned char)a[0]);
        int after = isalnum((unsigned char)p[n]) && isalnum((unsigned char)a[n - 1]);
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* does s name one of the '|'-separated alternatives in alts? */
static int contains_any(const char *s, const char *alts)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", alts);
    for (char *save = NULL, *a = strtok_r(buf, "|", &save); a; a = strtok_r(NULL, "|", &save))
        if (has_token(s, a))
            return 1;
    return 0;
}

static void test_bad_input(void **state)
{
    const struct bad_case *c = *state;
    struct cli_result r = {0};
    char how[64], why[512] = "";
    size_t w = 0;
    if (cli_run(c->args, &r) != 0)
        fail_msg("case %s: could not run %s (%s)", c->name, r.cmd, cli_bin());
    if (!r.exited || r.status != 2)
        w += (size_t)snprintf(why + w, sizeof why - w, " want exit 2, got %s;", cli_how(&r, how, sizeof how));
    if (!cli_one_line(r.err))
        w += (size_t)snprintf(why + w, sizeof why - w, " want exactly one stderr line ending in '\\n';");
    if (w < sizeof why && !contains_any(r.err, c->bad))
        w += (size_t)snprintf(why + w, sizeof why - w, " stderr does not name '%s';", c->bad);
    if (w < sizeof why && r.out_len != 0)
        w += (size_t)snprintf(why + w, sizeof why - w, " stdout not empty (%zu bytes);", r.out_len);
    if (w > 0) {
        print_error("case %s: %s\n  problems:%s\n  stderr (%zu bytes): %.600s\n  stdout: %.300s\n", c->name, r.cmd,
                    why, r.err_len, r.err, r.out);
        cli_free(&r);
        fail_msg("case %s failed", c->name);
    }
    cli_free(&r);
}

int main(void)
{
    enum { N = sizeof cases / sizeof cases[0] };
    struct CMUnitTest tests[N];
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_cli: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        tests[i] = (struct CMUnitTest){cases[i].name, test_bad_input, NULL, NULL, (void *)&cases[i]};
    return cmocka_run_group_tests_name("cli_bad_input", tests, NULL, NULL);
}

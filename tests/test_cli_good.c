/* test_cli_good.c - good input to the mring command: exit 0, nothing on stderr, and output of
 * the promised shape (the acceptance `verify` runs, the model table/csv/json, a schedule, help).
 * Bad input is in test_cli.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli_run.h"

#define LINKS "1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4"
#define MODEL_ARGS "model", "--topo", "4x16x4", "--links", LINKS, "--gamma", "240GBps", "-b", "1K", "-e", "1G", "-f", "4"
#define NROWS 11 /* 1K, 4K, ..., 1G */
#define CSV_HEADER "source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps,config"

static const char *const fields[] = {"source", "algo", "topo", "rings", "ranks", "size", "count",
                                     "type", "redop", "time_us", "algbw_gbps", "busbw_gbps", "config"};

/* run args and require exit 0 with an empty stderr; the caller frees r */
/* ---- verify: one "ok" line per (algorithm, count), no FAIL ---- */

static const char *const counts[] = {"0", "1", "255", "256", "257", "1000003"};
enum { NCOUNTS = 6 };
static const char *const algos[] = {"multiring", "ring", "rd", "rabenseifner", "hier"};

/* Runs verify with args and expects one "ok" line for each of the first nalgos algorithms at each of
 * the ncnt counts cnt[] (the counts args gives), and no FAIL. */
static void check_verify_counts(const char *const *args, size_t nalgos, const char *const *cnt, size_t ncnt)
{
    struct cli_result r = {0};
    int seen[5][NCOUNTS] = {{0}};
    assert_true(ncnt <= NCOUNTS);
    cli_run_ok(args, &r);
    if (strstr(r.out, "FAIL"))
        fail_msg("%s: output has FAIL:\n%s", r.cmd, r.out);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char algo[32], *c = strstr(l, " count ");
        if (strncmp(l, "ok ", 3) != 0 || sscanf(l + 3, "%31s", algo) != 1 || !c)
            continue;
        for (size_t a = 0; a < nalgos; a++)
            for (size_t k = 0; k < ncnt; k++)
                if (!strcmp(algo, algos[a]) && strtoull(c + 7, NULL, 10) == strtoull(cnt[k], NULL, 10))
                    seen[a][k]++;
    }
    for (size_t a = 0; a < nalgos; a++)
        for (size_t k = 0; k < ncnt; k++)
            if (seen[a][k] != 1)
                fail_msg("%s: %d 'ok' lines for %s count %s, want 1", r.cmd, seen[a][k], algos[a], cnt[k]);
    cli_free(&r);
}

static void check_verify(const char *const *args, size_t nalgos) { check_verify_counts(args, nalgos, counts, NCOUNTS); }

static void test_verify_rings_2(void **state)
{
    const char *args[] = {"verify", "--topo", "4x16x4", "--rings", "2", "--count", "0,1,255,256,257,1000003", NULL};
    check_verify(args, 1);
}

static void test_verify_rings_421(void **state)
{
    const char *args[] = {"verify", "--topo", "4x16x4", "--rings", "4,2,1", "--count", "0,1,255,256,257,1000003",
                          NULL};
    check_verify(args, 1);
}

static void test_verify_algo_all(void **state)
{
    const char *args[] = {"verify", "--topo", "4x16x4", "--algo", "all", "--count", "0,1,255,256,257,1000003", NULL};
    check_verify(args, 5);
}

static void test_verify_algo_all_rings_2(void **state)
{
    const char *args[] = {"verify",  "--topo", "4x16x4", "--rings", "2", "--algo", "all",
                          "--count", "0,1,255,256,257,1000003", NULL};
    check_verify(args, 5);
}

/* 65,536 ranks (the most a topology takes), every algorithm, a short buffer: a ring of P ranks on
 * fewer than P elements skips its idle steps, rank sets are interval lists and the driver polls only
 * ranks whose messages matched, so this runs in seconds (issue 15 measured 231 s and 1.1 GB for one
 * algorithm when each rank walked all P - 1 steps, kept P-bit rank sets and every rank was polled each
 * round; 1.5 s and 300 MB measured after). */
static void test_verify_65536_ranks(void **state)
{
    static const char *const few[] = {"1", "3"};
    const char *args[] = {"verify", "--topo", "65536", "--algo", "all", "--count", "1,3", NULL};
    check_verify_counts(args, 5, few, 2);
}

/* ---- model: 11 rows of sizes 1K * 4^i, positive times ---- */

static void check_row(const char *cmd, int i, unsigned long long size, double t)
{
    if (size != 1024ULL << (2 * i) || !(t > 0))
        fail_msg("%s: row %d has size %llu time %g, want size %llu and time > 0", cmd, i, size, t, 1024ULL << (2 * i));
}

static void test_model_table(void **state)
{
    const char *args[] = {MODEL_ARGS, NULL};
    struct cli_result r = {0};
    int rows = 0;
    cli_run_ok(args, &r);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        unsigned long long size, count;
        char type[16], op[16];
        double t, algbw, busbw;
        if (l[0] == '#')
            continue;
        if (sscanf(l, "%llu %llu %15s %15s %lf %lf %lf", &size, &count, type, op, &t, &algbw, &busbw) != 7)
            fail_msg("%s: data row %d is not size count type redop time algbw busbw: '%s'", r.cmd, rows, l);
        check_row(r.cmd, rows++, size, t);
    }
    if (rows != NROWS)
        fail_msg("%s: %d data rows, want %d", r.cmd, rows, NROWS);
    cli_free(&r);
}

/* csv rows must start with prefix; size is field 6, time_us field 10 (rings may be quoted) */
static void check_csv(const char *const *args, const char *prefix)
{
    struct cli_result r = {0};
    int rows = -1;
    cli_run_ok(args, &r);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save), rows++) {
        if (rows < 0) {
            if (strcmp(l, CSV_HEADER) != 0)
                fail_msg("%s: header is '%s', want '%s'", r.cmd, l, CSV_HEADER);
            continue;
        }
        if (strncmp(l, prefix, strlen(prefix)) != 0)
            fail_msg("%s: row %d '%s' does not start with '%s'", r.cmd, rows, l, prefix);
        unsigned long long size;
        double t;
        const char *p = l + strlen(prefix);
        if (sscanf(p, "%*[0-9],%llu,%*[0-9],%*[a-z0-9],%*[a-z],%lf,", &size, &t) != 2)
            fail_msg("%s: row %d '%s' does not parse", r.cmd, rows, l);
        check_row(r.cmd, rows, size, t);
    }
    if (rows != NROWS)
        fail_msg("%s: %d rows after the header, want %d", r.cmd, rows, NROWS);
    cli_free(&r);
}

static void test_model_csv(void **state)
{
    const char *args[] = {MODEL_ARGS, "--format", "csv", NULL};
    check_csv(args, "model,multiring,4x16x4,1,");
}

static void test_model_csv_rings_quoted(void **state)
{
    const char *args[] = {MODEL_ARGS, "--rings", "2,1,1", "--format", "csv", NULL};
    check_csv(args, "model,multiring,4x16x4,\"2,1,1\",");
}

static void test_model_json(void **state)
{
    const char *args[] = {MODEL_ARGS, "--rings", "2,1,1", "--format", "json", NULL};
    struct cli_result r = {0};
    json_error_t e;
    cli_run_ok(args, &r);
    json_t *doc = json_loadb(r.out, r.out_len, 0, &e), *rows = json_object_get(doc, "rows");
    if (!doc)
        fail_msg("%s: output is not JSON: line %d: %s", r.cmd, e.line, e.text);
    if (!json_is_array(rows) || json_array_size(rows) != NROWS)
        fail_msg("%s: want a \"rows\" array of %d objects", r.cmd, NROWS);
    for (size_t i = 0; i < NROWS; i++) {
        json_t *row = json_array_get(rows, i);
        if (!json_is_object(row) || json_object_size(row) != sizeof fields / sizeof fields[0])
            fail_msg("%s: rows[%zu] is not an object of %zu fields", r.cmd, i, sizeof fields / sizeof fields[0]);
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            if (!json_object_get(row, fields[f]))
                fail_msg("%s: rows[%zu] has no \"%s\"", r.cmd, i, fields[f]);
        const char *rings = json_string_value(json_object_get(row, "rings"));
        if (!rings || strcmp(rings, "2,1,1") != 0 || !json_is_integer(json_object_get(row, "size")))
            fail_msg("%s: rows[%zu] wants rings \"2,1,1\" and an integer size", r.cmd, i);
        check_row(r.cmd, (int)i, (unsigned long long)json_integer_value(json_object_get(row, "size")),
                  json_number_value(json_object_get(row, "time_us")));
    }
    json_decref(doc);
    cli_free(&r);
}

/* ---- schedule and help ---- */

/* every word in want must appear in r's stdout */
static void check_mentions(struct cli_result *r, const char *const *want)
{
    for (; *want; want++)
        if (!strstr(r->out, *want))
            fail_msg("%s: stdout does not mention '%s'", r->cmd, *want);
}

static void test_schedule(void **state)
{
    const char *args[] = {"schedule", "--topo", "4x2", "--count", "8", "--rank", "0", NULL};
    const char *want[] = {"SEND", "RECV", "REDUCE", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    check_mentions(&r, want);
    cli_free(&r);
}

static void test_help(void **state)
{
    const char *args[] = {"--help", NULL};
    const char *want[] = {"model", "verify", "schedule", "--help", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    check_mentions(&r, want);
    cli_free(&r);
}

static void test_model_help(void **state)
{
    const char *args[] = {"model", "--help", NULL};
    const char *want[] = {"--topo",      "--algo", "--rings", "--segment", "--links",     "--gamma",
                          "-b",          "--minbytes", "-e",  "--maxbytes", "-f", "--stepfactor",
                          "-i",          "--stepbytes", "--type", "--op", "--inplace", "--method",
                          "--format",    NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    check_mentions(&r, want);
    cli_free(&r);
}

static void test_verify_schedule_help(void **state)
{
    const char *vargs[] = {"verify", "--help", NULL}, *sargs[] = {"schedule", "--help", NULL};
    const char *vwant[] = {"--topo", "--algo", "--rings", "--segment", "--type", "--count", NULL};
    const char *swant[] = {"--topo", "--algo", "--rings", "--segment", "--type", "--count", "--rank", NULL};
    struct cli_result r = {0};
    cli_run_ok(vargs, &r);
    check_mentions(&r, vwant);
    cli_free(&r);
    cli_run_ok(sargs, &r);
    check_mentions(&r, swant);
    cli_free(&r);
}

/* mring profiles: every named profile, its text form and its source */
static void test_profiles(void **state)
{
    const char *args[] = {"profiles", NULL};
    const char *want[] = {"none", "mpi-tcp", "nccl2", "mpi-ib", "gloo-tcp", "o=1.18us;lat=0:2.07", "source: ", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    check_mentions(&r, want);
    cli_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify_rings_2),        cmocka_unit_test(test_verify_rings_421),
        cmocka_unit_test(test_verify_algo_all),       cmocka_unit_test(test_verify_algo_all_rings_2),
        cmocka_unit_test(test_verify_65536_ranks),
        cmocka_unit_test(test_model_table),           cmocka_unit_test(test_model_csv),
        cmocka_unit_test(test_model_csv_rings_quoted), cmocka_unit_test(test_model_json),
        cmocka_unit_test(test_schedule),              cmocka_unit_test(test_help),
        cmocka_unit_test(test_model_help),            cmocka_unit_test(test_verify_schedule_help),
        cmocka_unit_test(test_profiles),
    };
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_cli_good: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    return cmocka_run_group_tests_name("cli_good_input", tests, NULL, NULL);
}

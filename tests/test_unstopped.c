/* test_unstopped.c - validation/unstopped: mring-bench's rows from the calls no stop of the machine fell in.
 *
 * A crafted mring-bench CSV of 2 ranks (sizes 2500000 B out of place and in place, 1000 B) with its
 * --per-call file: 5 calls 10 ms apart per row, each rank's times whole microseconds chosen so the
 * means of the calls kept are whole (a stop over call 2 of the first row leaves 4 calls: rank 0
 * 1000, 2000, 3000, 2000 -> 2000 us, rank 1 2000, 2000, 4000, 4000 -> 3000 us, so time_us 2500,
 * min 2000, max 3000, algbw 2500000 B / 2.5 ms = 1 GB/s, busbw x 2 (P - 1) / P = 1).  Cases: that stop;
 * no stop (every call); a stop that ends exactly where a call starts (no overlap: kept); a stop over
 * every call of a row (all used, counted); the counts appended to COUNTS; the other columns kept
 * (config with spaces); two configurations alternated at one size (mring-bench --alternate: the rows told
 * apart by their place, the calls by --per-call's config column), a stop over one call of the second.  Bad
 * input: a missing column, a row without calls, an alternate row without its calls, a time that is not a
 * number (exit 1), a wrong argument count (exit 2), one stderr line each.  Needs python3.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim_cli.h"
#include "mpi_run.h"

#define LIMIT_S 60

#include "calib_run.h"

#define BENCH_HEADER "source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps,inplace,wrong," \
                     "time_min_us,time_max_us,config\n"
/* the bench rows: times as mring-bench printed them (from all calls: they must be recomputed) */
#define BENCH BENCH_HEADER                                                                                      \
    "real,ring,2,1,2,2500000,625000,float32,sum,4000,0.625,0.625,0,0,3800,4200,--algo ring --topo 2 --rings 1\n" \
    "real,ring,2,1,2,2500000,625000,float32,sum,4000,0.625,0.625,1,0,3800,4200,--algo ring --topo 2 --rings 1\n" \
    "real,ring,2,1,2,1000,250,float32,sum,9,0.1,0.1,0,0,9,9,--algo ring --topo 2 --rings 1\n"

/* call i of every row starts at 100 + 0.01 i s on both ranks (the in-place row 1 s later, 1000 B 2 s) */
static const char *percall(void)
{
    static char text[4096];
    static const int t[3][2][5] = {{{1000, 2000, 9000, 3000, 2000}, {2000, 2000, 9000, 4000, 4000}},
                                   {{1000, 1000, 1000, 1000, 1000}, {3000, 3000, 3000, 3000, 3000}},
                                   {{8, 8, 8, 8, 8}, {16, 16, 16, 16, 16}}};
    static const long size[3] = {2500000, 2500000, 1000};
    size_t used = (size_t)snprintf(text, sizeof text, "size,inplace,call,rank,start_s,time_us\n");
    for (int row = 0; row < 3; row++)
        for (int r = 0; r < 2; r++)
            for (int i = 0; i < 5; i++)
                used += (size_t)snprintf(text + used, sizeof text - used, "%ld,%d,%d,%d,%.6f,%d.000\n", size[row],
                                         row == 1, i, r, 100 + row + 0.01 * i, t[row][r][i]);
    return text;
}

/* the text into the scratch file name; its path (kept: sim_tmp_path's buffer is reused) */
static const char *put(const char *name, const char *text)
{
    static char paths[16][PATH_MAX + 64];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, sizeof paths[0], "%s", sim_tmp_path(name));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static void unstopped(const char *bench, const char *pc, const char *stops, const char *counts, struct cli_result *r)
{
    const char *argv[] = {sim_repo_path("validation/unstopped"), bench, pc, stops, counts, NULL};
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        skip();
    run(argv, NULL, r);
}

/* the stops (a header as validation/run writes it, then from_s,to_s pairs), the CSV and counts wanted */
static const struct {
    const char *what, *stops, *want, *counts;
} cases[] = {
    {"a stop over call 2 of the first row: its 4 other calls (2500 us; 2000 and 3000); the others from all",
     "measure,1,x,y,0,100.021,100.025,4.0\n",
     BENCH_HEADER "real,ring,2,1,2,2500000,625000,float32,sum,2500,1,1,0,0,2000,3000,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,2500000,625000,float32,sum,2000,1.25,1.25,1,0,1000,3000,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,1000,250,float32,sum,12,0.0833333,0.0833333,0,0,8,16,--algo ring --topo 2 --rings 1\n",
     "2500000,0,5,1,4\n2500000,1,5,0,5\n1000,0,5,0,5\n"},
    {"no stop: every call (the first row: rank 0 3400 us, rank 1 4200 -> 3800)", "",
     BENCH_HEADER "real,ring,2,1,2,2500000,625000,float32,sum,3800,0.657895,0.657895,0,0,3400,4200,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,2500000,625000,float32,sum,2000,1.25,1.25,1,0,1000,3000,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,1000,250,float32,sum,12,0.0833333,0.0833333,0,0,8,16,--algo ring --topo 2 --rings 1\n",
     "2500000,0,5,0,5\n2500000,1,5,0,5\n1000,0,5,0,5\n"},
    {"a stop from after call 1 ended to where call 2 starts, one after the row's last call: no overlap",
     "measure,1,x,y,0,100.013,100.02,7.0\nmeasure,1,x,y,1,100.05,100.06,10.0\n",
     BENCH_HEADER "real,ring,2,1,2,2500000,625000,float32,sum,3800,0.657895,0.657895,0,0,3400,4200,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,2500000,625000,float32,sum,2000,1.25,1.25,1,0,1000,3000,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,1000,250,float32,sum,12,0.0833333,0.0833333,0,0,8,16,--algo ring --topo 2 --rings 1\n",
     "2500000,0,5,0,5\n2500000,1,5,0,5\n1000,0,5,0,5\n"},
    {"a stop over every call of the in-place row: all 5 used, counted", "measure,1,x,y,1,100.5,101.5,1000.0\n",
     BENCH_HEADER "real,ring,2,1,2,2500000,625000,float32,sum,3800,0.657895,0.657895,0,0,3400,4200,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,2500000,625000,float32,sum,2000,1.25,1.25,1,0,1000,3000,--algo ring --topo 2 --rings 1\n"
                  "real,ring,2,1,2,1000,250,float32,sum,12,0.0833333,0.0833333,0,0,8,16,--algo ring --topo 2 --rings 1\n",
     "2500000,0,5,0,5\n2500000,1,5,5,5\n1000,0,5,0,5\n"},
};

static void test_unstopped_cases(void **state)
{
    (void)state;
    char stops[512];
    const char *bench = put("bench.csv", BENCH), *pc = put("percall.csv", percall());
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct cli_result r;
        char counts[256];
        print_message("case: %s\n", cases[k].what);
        snprintf(stops, sizeof stops, "step,round,config,sizes,cpu,from_s,to_s,late_ms\n%s", cases[k].stops);
        const char *counts_path = put("counts.csv", "earlier\n");
        unstopped(bench, pc, put("stops.csv", stops), counts_path, &r);
        want_exit0(&r);
        if (strcmp(r.out, cases[k].want))
            fail_msg("%s (%s): want\n%s\ngot\n%s", r.cmd, cases[k].what, cases[k].want, r.out);
        snprintf(counts, sizeof counts, "earlier\n%s", cases[k].counts); /* appended */
        if (strcmp(slurp(counts_path), counts))
            fail_msg("%s (%s): counts want\n%s\ngot\n%s", r.cmd, cases[k].what, counts, slurp(counts_path));
        cli_free(&r);
    }
}

/* mring-bench --alternate: two configurations at 1000 B out of place, 3 calls each on 2 ranks, the
 * second's calls 5 ms after the first's */
#define BENCH_ALT BENCH_HEADER                                                                      \
    "real,ring,2,1,2,1000,250,float32,sum,9,0.1,0.1,0,0,9,9,--algo ring --topo 2 --rings 1\n" \
    "real,ring,2,2,2,1000,250,float32,sum,9,0.1,0.1,0,0,9,9,--algo ring --topo 2 --rings 2\n"
#define PERCALL_ALT                                                                                                   \
    "size,inplace,config,call,rank,start_s,time_us\n"                                                                 \
    "1000,0,0,0,0,200.000000,8.000\n1000,0,0,1,0,200.010000,8.000\n1000,0,0,2,0,200.020000,8.000\n"                  \
    "1000,0,0,0,1,200.000000,16.000\n1000,0,0,1,1,200.010000,16.000\n1000,0,0,2,1,200.020000,16.000\n"               \
    "1000,0,1,0,0,200.005000,4.000\n1000,0,1,1,0,200.015000,4.000\n1000,0,1,2,0,200.025000,900.000\n"                \
    "1000,0,1,0,1,200.005000,6.000\n1000,0,1,1,1,200.015000,6.000\n1000,0,1,2,1,200.025000,900.000\n"

/* A stop over the second configuration's last call (200.0252-200.0255 s) leaves its calls 0 and 1 (rank 0
 * 4 us, rank 1 6 -> 5 us, algbw 1000 B / 5 us = 0.2 GB/s, busbw x 2 (P - 1) / P = 1) and none of the first's. */
static void test_unstopped_alternate(void **state)
{
    (void)state;
    struct cli_result r;
    const char *counts = put("counts.csv", "");
    const char *want = BENCH_HEADER
        "real,ring,2,1,2,1000,250,float32,sum,12,0.0833333,0.0833333,0,0,8,16,--algo ring --topo 2 --rings 1\n"
        "real,ring,2,2,2,1000,250,float32,sum,5,0.2,0.2,0,0,4,6,--algo ring --topo 2 --rings 2\n";
    unstopped(put("bench.csv", BENCH_ALT), put("percall.csv", PERCALL_ALT),
              put("stops.csv", "from_s,to_s\n200.0252,200.0255\n"), counts, &r);
    want_exit0(&r);
    if (strcmp(r.out, want))
        fail_msg("%s: want\n%s\ngot\n%s", r.cmd, want, r.out);
    assert_string_equal(slurp(counts), "1000,0,3,0,3\n1000,0,3,1,2\n");
    cli_free(&r);
}

/* bad input: one stderr line naming it, no CSV, COUNTS untouched; exit 1 for a bad file, 2 for bad usage */
static void test_unstopped_bad_input(void **state)
{
    (void)state;
    const char *bench = put("bench.csv", BENCH), *pc = put("percall.csv", percall());
    const char *stops = put("stops.csv", "from_s,to_s\n");
    const char *counts = put("counts.csv", "");
    struct {
        const char *b, *p, *s, *word;
    } bad[] = {
        {put("nosize.csv", "source,time_us\nreal,1\n"), pc, stops, "no column size"},
        {bench, put("fewer.csv", "size,inplace,call,rank,start_s,time_us\n1000,0,0,0,100,8\n"), stops, "2500000 bytes"},
        {bench, pc, put("nan.csv", "from_s,to_s\n100,abc\n"), "to_s 'abc'"},
        {put("alt.csv", BENCH_ALT), put("noconfig.csv", "size,inplace,call,rank,start_s,time_us\n1000,0,0,0,100,8\n"), stops,
         "in place 0, configuration 1"},
        {bench, pc, put("nostops.csv", "cpu,late_ms\n"), "no column from_s, to_s"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        struct cli_result r;
        unstopped(bad[k].b, bad[k].p, bad[k].s, counts, &r);
        want_refusal(&r, 1, bad[k].word);
        assert_string_equal(slurp(counts), "");
        cli_free(&r);
    }
    struct cli_result r;
    unstopped(bench, pc, stops, NULL, &r);
    want_refusal(&r, 2, "usage");
    cli_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unstopped_cases),
        cmocka_unit_test(test_unstopped_alternate),
        cmocka_unit_test(test_unstopped_bad_input),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

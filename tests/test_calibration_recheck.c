/* test_calibration_recheck.c - validation/calibration-recheck: did the machine keep the calibration?
 *
 * Crafted mring-calibrate JSONs: a first calibration whose ring of exchanges has the step T at every
 * size and passes of 0.75 T, T and 1.5 T (0.5 T, T, 1.25 T at 8 KiB), profile segments from 0, 4 KiB and
 * 64 KiB; steps of binary fractions, so the ratios are exact (1.05 and 0.95, which are not, print as
 * 1.050 and 0.950 all the same).  Against a second one (a table of cases): per segment the median of
 * the second's step / the first's, the median of the passes' range, and moved = outside it, both ways,
 * by more than 5%; the first against itself moves nowhere; without a profile one segment from 0 B; a
 * second that lacks a size, a file that is not JSON, a wrong argument count: one stderr line, exit 1
 * or 2.  Needs python3 (skips without it).
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

#define T 0.0009765625 /* 2^-10 s: the first calibration's step at every size */

static const json_int_t sizes[] = {1, 2, 4, 4096, 8192, 65536};
#define NSIZES (sizeof sizes / sizeof *sizes)

/* a calibration JSON at path: the ring's steps step[i] x T, its passes (when passes) T x {lo[i], 1, hi[i]},
 * the profile's segments from 0, 4096, 65536 (when profile) */
static void write_calibration(const char *path, const double *step, int passes, int profile)
{
    static const double lo[NSIZES] = {0.75, 0.75, 0.75, 0.75, 0.5, 0.75}, hi[NSIZES] = {1.5, 1.5, 1.5, 1.5, 1.25, 1.5};
    json_t *points = json_array(), *pass[3] = {json_array(), json_array(), json_array()};
    for (size_t i = 0; i < NSIZES; i++) {
        json_array_append_new(points, json_pack("{s:I, s:f}", "bytes", sizes[i], "time_s", step[i] * T));
        json_array_append_new(pass[0], json_real(lo[i] * T));
        json_array_append_new(pass[1], json_real(T));
        json_array_append_new(pass[2], json_real(hi[i] * T));
    }
    json_t *ring = json_pack("{s:o}", "points", points), *j = json_pack("{s:i, s:o}", "ranks", 8, "ring", ring);
    if (passes)
        json_object_set_new(ring, "passes_s", json_pack("[o, o, o]", pass[0], pass[1], pass[2]));
    else
        for (int k = 0; k < 3; k++)
            json_decref(pass[k]);
    if (profile)
        json_object_set_new(j, "profile", json_pack("{s:s, s:[{s:f}, {s:f}, {s:f}]}", "mring_sw", "o=1us",
                                                    "factors", "from_bytes", 0.0, "from_bytes", 4096.0, "from_bytes",
                                                    65536.0));
    if (json_dump_file(j, path, 0))
        fail_msg("cannot write %s", path);
    json_decref(j);
}

static void recheck(const char *first, const char *second, struct cli_result *r)
{
    const char *argv[] = {sim_repo_path("validation/calibration-recheck"), first, second, NULL};
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        skip();
    run(argv, NULL, r);
}

static const double ones[NSIZES] = {1, 1, 1, 1, 1, 1}; /* the first calibration's steps, in T */

#define HEADER "from_bytes,sizes,ratio,pass_low,pass_high,moved\n"

/* one comparison: the first calibration (its passes or one pass, with or without the profile's segments)
 * against a second with steps again[i] x T, and the CSV wanted */
struct recheck_case {
    const char *what;
    int passes, profile;
    double again[NSIZES];
    const char *want;
};

static const struct recheck_case cases[] = {
    {"3 segments: from 0 2, 2, 1.25 -> 2 above 1.5; from 4 KiB 1.25, 1 -> 1.125 inside [0.625, 1.375]; "
     "from 64 KiB 0.5 below 0.75",
     1, 1, {2, 2, 1.25, 1.25, 1, 0.5},
     HEADER "0,3,2.000,0.750,1.500,yes\n4096,2,1.125,0.625,1.375,no\n65536,1,0.500,0.750,1.500,yes\n"},
    {"the first against itself", 1, 1, {1, 1, 1, 1, 1, 1},
     HEADER "0,3,1.000,0.750,1.500,no\n4096,2,1.000,0.625,1.375,no\n65536,1,1.000,0.750,1.500,no\n"},
    {"no profile: one segment from 0 B over all 6 sizes, 1.25 inside the passes' medians 0.75 (five 0.75, one "
     "0.5) and 1.5",
     1, 0, {2, 2, 1.25, 1.25, 1, 0.5}, HEADER "0,6,1.250,0.750,1.500,no\n"},
    {"one pass: its range is the step itself, so 1.25 moves", 0, 0, {2, 2, 1.25, 1.25, 1, 0.5},
     HEADER "0,6,1.250,1.000,1.000,yes\n"},
    {"outside the passes but not over 5% from 1 (the accuracy aimed at from 256 KiB): 1.05 is no move", 0, 0,
     {1.05, 1.05, 1.05, 1.05, 1.05, 1.05}, HEADER "0,6,1.050,1.000,1.000,no\n"},
    {"0.95 is no move", 0, 0, {0.95, 0.95, 0.95, 0.95, 0.95, 0.95}, HEADER "0,6,0.950,1.000,1.000,no\n"},
    {"1.0625 (printed 1.062) is a move", 0, 0, {1.0625, 1.0625, 1.0625, 1.0625, 1.0625, 1.0625},
     HEADER "0,6,1.062,1.000,1.000,yes\n"},
};

static void test_recheck_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const struct recheck_case *c = &cases[k];
        struct cli_result r;
        print_message("case: %s\n", c->what);
        write_calibration(sim_tmp_path("first.json"), ones, c->passes, c->profile);
        write_calibration(sim_tmp_path("second.json"), c->again, 1, c->profile);
        recheck(sim_tmp_path("first.json"), sim_tmp_path("second.json"), &r);
        want_exit0(&r);
        if (strcmp(r.out, c->want))
            fail_msg("%s (%s): want\n%s\ngot\n%s", r.cmd, c->what, c->want, r.out);
        cli_free(&r);
    }
}

static void want_error(const char *first, const char *second, int status, const char *word)
{
    struct cli_result r;
    char how[64];
    recheck(first, second, &r);
    const char *nl = strchr(r.err, '\n');
    if (!r.exited || r.status != status || !nl || nl[1] || !strstr(r.err, word) || r.out[0])
        fail_msg("%s: want exit %d, no stdout and one stderr line naming '%s'; got %s, stdout:\n%s\nstderr:\n%s", r.cmd,
                 status, word, cli_how(&r, how, sizeof how), r.out, r.err);
    cli_free(&r);
}

static void test_recheck_bad_input(void **state)
{
    (void)state;
    write_calibration(sim_tmp_path("first.json"), ones, 1, 1);
    FILE *f = fopen(sim_tmp_path("short.json"), "w"); /* a second calibration without the 64 KiB step */
    assert_non_null(f);
    fputs("{\"ring\": {\"points\": [{\"bytes\": 1, \"time_s\": 1e-3}, {\"bytes\": 2, \"time_s\": 1e-3}, {\"bytes\": 4, "
          "\"time_s\": 1e-3}, {\"bytes\": 4096, \"time_s\": 1e-3}, {\"bytes\": 8192, \"time_s\": 1e-3}]}}",
          f);
    fclose(f);
    want_error(sim_tmp_path("first.json"), sim_tmp_path("short.json"), 1, "65536 bytes");
    f = fopen(sim_tmp_path("text.json"), "w");
    assert_non_null(f);
    fputs("not json\n", f);
    fclose(f);
    want_error(sim_tmp_path("text.json"), sim_tmp_path("first.json"), 1, "text.json");
    want_error(sim_tmp_path("first.json"), NULL, 2, "usage");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recheck_cases),
        cmocka_unit_test(test_recheck_bad_input),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

/* test_calibration_recheck.c - validation/calibration-recheck: did the machine keep the calibration?
 *
 * Crafted mring-calibrate JSONs: a first calibration whose ring of exchanges has the step T at every
 * size and passes of 0.75 T, T and 1.5 T (0.5 T, T, 1.25 T at 8 KiB), profile segments from 0, 4 KiB and
 * 64 KiB; steps of binary fractions, so the ratios are exact (1.05 and 0.95, which are not, print as
 * 1.050 and 0.950 all the same).  Against a second one (a table of cases): per segment the median of
 * the second's step / the first's, the median of the passes' range, and moved = outside it, both ways,
 * by more than 5%; a bulk test both have the same over its sizes, a row named after it; the first against
 * itself moves nowhere; passes marked stopped left out of a band; without a profile one segment from 0 B; a
 * second that lacks a size, a file that is not JSON, a wrong argument count: one stderr line, exit 1
 * or 2.  Needs python3 (skips without it).  And validation/calibration-used: which of a run's calibration tries
 * the predictions use, on crafted calibration-tries.csv files (settled, once, the quietest, ties, no witness;
 * bad files and usage).
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

/* a calibration JSON at path: the ring's steps step[i] x T and, when passes, 5 passes of step[i] x T x
 * {hi, lo / 2, 1, 2 hi, lo}[i] (out of order; without the fastest and the slowest, the band is lo..hi);
 * the profile's segments from 0, 4096, 65536 when profile; with bulk, a NIC's bulk test the same as the ring
 * and no port's (null) */
static void write_calibration(const char *path, const double *step, int passes, int profile, int bulk)
{
    static const double lo[NSIZES] = {0.75, 0.75, 0.75, 0.75, 0.5, 0.75}, hi[NSIZES] = {1.5, 1.5, 1.5, 1.5, 1.25, 1.5};
    json_t *points = json_array(), *pass[5];
    for (int k = 0; k < 5; k++)
        pass[k] = json_array();
    for (size_t i = 0; i < NSIZES; i++) {
        const double t = step[i] * T, of[5] = {hi[i], lo[i] / 2, 1, 2 * hi[i], lo[i]};
        json_array_append_new(points, json_pack("{s:I, s:f}", "bytes", sizes[i], "time_s", t));
        for (int k = 0; k < 5; k++)
            json_array_append_new(pass[k], json_real(of[k] * t));
    }
    json_t *ring = json_pack("{s:o}", "points", points), *j = json_pack("{s:i, s:o}", "ranks", 8, "ring", ring);
    if (passes)
        json_object_set_new(ring, "passes_s", json_pack("[o, o, o, o, o]", pass[0], pass[1], pass[2], pass[3], pass[4]));
    else
        for (int k = 0; k < 5; k++)
            json_decref(pass[k]);
    if (bulk) {
        json_object_set_new(j, "nic", json_deep_copy(ring));
        json_object_set_new(j, "port", json_null());
    }
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

#define HEADER "from_bytes,sizes,ratio,pass_low,pass_high,second_low,second_high,moved\n"
#define ALL(x) {x, x, x, x, x, x}

/* one comparison: the first calibration (5 passes or one) against a second (likewise) with steps again[i]
 * x T, both with or without the profile's segments, and the CSV wanted (each band over the first's step) */
struct recheck_case {
    const char *what;
    int first_passes, second_passes, profile;
    double again[NSIZES];
    const char *want;
    int bulk; /* both with a NIC's bulk test like their ring (and a null port) */
};

static const struct recheck_case cases[] = {
    {"3 segments. From 0: 2, 2, 1.25 -> 2, outside the first's band 0.75..1.5, and 1 outside the second's "
     "(median 2 x 0.75, 2 x 0.75, 1.25 x 0.75 -> 1.5, to 3): a move. From 4 KiB: 1.125 inside the first's "
     "0.625..1.375 (medians of 0.75, 0.5 and 1.5, 1.25), 1 inside the second's 0.703..1.547: none. From "
     "64 KiB: 0.5 outside 0.75..1.5 and 1 outside 0.375..0.75: a move",
     1, 1, 1, {2, 2, 1.25, 1.125, 1.125, 0.5},
     HEADER "0,3,2.000,0.750,1.500,1.500,3.000,yes\n4096,2,1.125,0.625,1.375,0.703,1.547,no\n"
            "65536,1,0.500,0.750,1.500,0.375,0.750,yes\n", 0},
    {"the first against itself", 1, 1, 1, ALL(1),
     HEADER "0,3,1.000,0.750,1.500,0.750,1.500,no\n4096,2,1.000,0.625,1.375,0.625,1.375,no\n"
            "65536,1,1.000,0.750,1.500,0.750,1.500,no\n", 0},
    {"no profile: one segment from 0 B over all 6 sizes; 1.2 inside the first's band (medians of five 0.75 "
     "and 0.5, five 1.5 and 1.25), 1 inside the second's 0.9..1.8: none",
     1, 1, 0, ALL(1.2), HEADER "0,6,1.200,0.750,1.500,0.900,1.800,no\n", 0},
    {"the first of one pass: its band is its step, 1.2 outside it: a move", 0, 1, 0, ALL(1.2),
     HEADER "0,6,1.200,1.000,1.000,0.900,1.800,yes\n", 0},
    {"the second of one pass: 1.25 inside the first's band, but 1 outside the second's 1.25..1.25: a move", 1, 0, 0,
     ALL(1.25), HEADER "0,6,1.250,0.750,1.500,1.250,1.250,yes\n", 0},
    {"apart but not over 5% from 1 (the accuracy aimed at from 256 KiB): 1.05 is no move", 0, 0, 0, ALL(1.05),
     HEADER "0,6,1.050,1.000,1.000,1.050,1.050,no\n", 0},
    {"0.95 is no move", 0, 0, 0, ALL(0.95), HEADER "0,6,0.950,1.000,1.000,0.950,0.950,no\n", 0},
    {"1.0625 (printed 1.062) is a move", 0, 0, 0, ALL(1.0625), HEADER "0,6,1.062,1.000,1.000,1.062,1.062,yes\n", 0},
    {"a bulk test both have: a row named nic after the segments, its figures as the ring's over its 6 sizes; the "
     "null port none",
     1, 1, 1, {2, 2, 1.25, 1.125, 1.125, 0.5},
     HEADER "0,3,2.000,0.750,1.500,1.500,3.000,yes\n4096,2,1.125,0.625,1.375,0.703,1.547,no\n"
            "65536,1,0.500,0.750,1.500,0.375,0.750,yes\nnic,6,1.188,0.750,1.500,0.891,1.781,no\n", 1},
};

static void test_recheck_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const struct recheck_case *c = &cases[k];
        struct cli_result r;
        print_message("case: %s\n", c->what);
        write_calibration(sim_tmp_path("first.json"), ones, c->first_passes, c->profile, c->bulk);
        write_calibration(sim_tmp_path("second.json"), c->again, c->second_passes, c->profile, c->bulk);
        recheck(sim_tmp_path("first.json"), sim_tmp_path("second.json"), &r);
        want_exit0(&r);
        if (strcmp(r.out, c->want))
            fail_msg("%s (%s): want\n%s\ngot\n%s", r.cmd, c->what, c->want, r.out);
        cli_free(&r);
    }
}

/* the first calibration with passes 1 and 4 (x1.5 and x3: x1.25 and x2.5 at 8 KiB) marked stopped at every size
 * (passes_stopped, mring-calibrate --stops): its band is its other passes' middle one, 0.75 (0.5 at 8 KiB; median
 * 0.75), so a second 1.25 x slower with 5 passes (band 0.938..1.875, 1 inside) moved; without the marks the
 * first's band 0.75..1.5 holds 1.25: no move */
static void test_recheck_stopped_passes(void **state)
{
    (void)state;
    for (int marked = 1; marked >= 0; marked--) {
        const double slower[NSIZES] = ALL(1.25);
        struct cli_result r;
        json_error_t e;
        write_calibration(sim_tmp_path("first.json"), ones, 1, 0, 0);
        json_t *j = json_load_file(sim_tmp_path("first.json"), 0, &e), *marks = json_array();
        assert_non_null(j);
        for (int k = 0; k < 5; k++) {
            json_t *m = json_array();
            for (size_t i = 0; i < NSIZES; i++)
                json_array_append_new(m, json_boolean(marked && (k == 0 || k == 3)));
            json_array_append_new(marks, m);
        }
        json_object_set_new(json_object_get(j, "ring"), "passes_stopped", marks);
        assert_int_equal(json_dump_file(j, sim_tmp_path("first.json"), 0), 0);
        json_decref(j);
        write_calibration(sim_tmp_path("second.json"), slower, 1, 0, 0);
        recheck(sim_tmp_path("first.json"), sim_tmp_path("second.json"), &r);
        want_exit0(&r);
        const char *want = marked ? HEADER "0,6,1.250,0.750,0.750,0.938,1.875,yes\n"
                                  : HEADER "0,6,1.250,0.750,1.500,0.938,1.875,no\n";
        if (strcmp(r.out, want))
            fail_msg("%s (%s): want\n%s\ngot\n%s", r.cmd, marked ? "passes 1 and 4 stopped" : "none stopped", want, r.out);
        cli_free(&r);
    }
}

static void want_error(const char *first, const char *second, int status, const char *word)
{
    struct cli_result r;
    recheck(first, second, &r);
    want_refusal(&r, status, word);
    cli_free(&r);
}

/* the JSON text into the scratch file name; its path */
static const char *put(const char *name, const char *text)
{
    const char *path = sim_tmp_path(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define PT(b, t) "{\"bytes\": " #b ", \"time_s\": " #t "}"

/* bad input: one stderr line naming what is wrong, no CSV; exit 1 for a bad file, 2 for bad usage */
static void test_recheck_bad_input(void **state)
{
    (void)state;
    write_calibration(sim_tmp_path("first.json"), ones, 1, 1, 0);
    char first[PATH_MAX + 64];
    snprintf(first, sizeof first, "%s", sim_tmp_path("first.json"));
    static const struct {
        const char *name, *text, *word;
    } bad[] = {
        {"short.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) ", " PT(2, 1e-3) ", " PT(4, 1e-3) ", " PT(4096, 1e-3) ", "
                       PT(8192, 1e-3) "]}}", "65536 bytes"},
        {"text.json", "not json\n", "text.json"},
        {"noring.json", "{\"profile\": null}", "KeyError: 'ring'"},
        {"empty.json", "{\"ring\": {\"points\": []}}", "no points"},
        {"twice.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) ", " PT(1, 2e-3) "]}}", "a size twice"},
        {"zero.json", "{\"ring\": {\"points\": [" PT(1, 0) "]}}", "time of 0"},
        {"negative.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) "], \"passes_s\": [[-1e-3]]}}", "time of -0.001"},
        {"passes.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) ", " PT(2, 1e-3) "], \"passes_s\": [[1e-3]]}}",
         "passes_s"},
        {"profile.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) "]}, \"profile\": {\"factors\": [{}]}}", "from_bytes"},
        {"stopped.json", "{\"ring\": {\"points\": [" PT(1, 1e-3) "], \"passes_s\": [[1e-3]], \"passes_stopped\": [[1]]}}",
         "passes_stopped"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *path = put(bad[k].name, bad[k].text);
        if (k == 0) /* a second calibration without FIRST's 64 KiB step */
            want_error(first, path, 1, bad[k].word);
        else /* a FIRST that is not a calibration's ring */
            want_error(path, first, 1, bad[k].word);
    }
    want_error(first, NULL, 2, "usage");
    want_error("--bogus", first, 2, "unknown option '--bogus'"); /* was read as a file: exit 1 */
}

/* validation/calibration-used on TRIES (the text of a calibration-tries.csv) -> its output, or the refusal
 * (status, word) */
static void used(const char *tries, const char *want, int status, const char *word)
{
    const char *argv[] = {sim_repo_path("validation/calibration-used"), put("tries.csv", tries), NULL};
    struct cli_result r;
    run(argv, NULL, &r);
    if (want) {
        want_exit0(&r);
        if (strcmp(r.out, want))
            fail_msg("%s on\n%swant\n%sgot\n%s", r.cmd, tries, want, r.out);
    } else {
        want_refusal(&r, status, word);
    }
    cli_free(&r);
}

#define TRIES "try,late_wakeups,moved\n"
#define USED "try,late_wakeups,moved,used\n"

/* which calibration the predictions use: settled or once, the last; not settled, the fewest late wake-ups,
 * the later one on a tie (no witness: empty counts, all 0, the last); bad input exit 1, usage exit 2 */
static void test_calibration_used(void **state)
{
    (void)state;
    used(TRIES "1,19,-\n2,1,none\n", USED "1,19,-,no\n2,1,none,yes\n", 0, NULL);
    used(TRIES "1,5,-\n", USED "1,5,-,yes\n", 0, NULL);
    used(TRIES "1,19,-\n2,1,0 B x0.821\n3,59,0 B x1.254; 4096 B x1.273\n",
         USED "1,19,-,no\n2,1,0 B x0.821,yes\n3,59,0 B x1.254; 4096 B x1.273,no\n", 0, NULL);
    used(TRIES "1,3,-\n2,1,nic x1.2\n3,1,port x0.8\n", USED "1,3,-,no\n2,1,nic x1.2,no\n3,1,port x0.8,yes\n", 0, NULL);
    used(TRIES "1,1,-\n2,4,nic x1.2\n3,1,port x0.8\n", USED "1,1,-,no\n2,4,nic x1.2,no\n3,1,port x0.8,yes\n", 0, NULL);
    used(TRIES "1,0,-\n2,2,nic x1.2\n3,1,port x0.8\n", USED "1,0,-,yes\n2,2,nic x1.2,no\n3,1,port x0.8,no\n", 0, NULL);
    used(TRIES "1,,-\n2,,nic x1.2\n3,,port x0.8\n", USED "1,,-,no\n2,,nic x1.2,no\n3,,port x0.8,yes\n", 0, NULL);
    used("try,late,moved\n1,1,-\n", NULL, 1, "header is not try,late_wakeups,moved");
    used(TRIES "1,1,-\n2,x,none\n", NULL, 1, "row 3 is not try 2");
    used(TRIES "1,1,-\n3,1,none\n", NULL, 1, "row 3 is not try 2");
    used(TRIES, NULL, 1, "no tries");
    const char *none[] = {sim_repo_path("validation/calibration-used"), "/nonexistent/tries.csv", NULL};
    struct cli_result r;
    run(none, NULL, &r);
    want_refusal(&r, 2, "usage");
    cli_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_used),
        cmocka_unit_test(test_recheck_cases),
        cmocka_unit_test(test_recheck_stopped_passes),
        cmocka_unit_test(test_recheck_bad_input),
    };
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

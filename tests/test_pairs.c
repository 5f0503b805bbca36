/* test_pairs.c - validation/pairs' alternated pairs, as validation/report judges them, and the bad input
 * validation/pairs refuses before it measures anything.
 *
 * A crafted run directory (no testbed, no root): joined.csv with a plain multiring and its twin with 2
 * chunks at 4 KiB, 64 KiB and 1 MiB (predicted speed-ups 0.8, 1.2 = 1200 / 1000 us and 1.375 = 4400 / 3200
 * us), and a pairs.csv of 3 pairs and a 4th without its chunked job.  At 64 KiB the pairs' speed-ups are
 * 1000/1000, 1100/1000 and 1300/1000: median 1.1 (the rounds' 1.25 must not be taken), within 10% of 1.2
 * (1.2 / 1.1 - 1 = 0.0909), spread 1.3 / 1 - 1 = 0.3; at 1 MiB 4000/4000, 4000/5000 and 4000/2500: median 1,
 * sign disagrees, spread 1.6 / 0.8 - 1 = 1; 4 KiB predicts no gain and gets no row.  The report's section
 * counts 2 gains, 1 in sign, 1 within 10%, target missed, and names the method (pairs of jobs, or with
 * pairs_method=calls in meta one job alternating the configurations call by call).  validation/pairs: no directory, an unknown
 * option, --pairs 0 or x, a directory without meta, a run that is not on the testbed (mode loopback) and one
 * whose overlap.csv predicts no gain: exit 2 and one line naming it, the directory unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_cli.h"

#define PLAIN "--algo multiring --topo 2x2"
#define CHUNKED PLAIN " --chunks 2"

/* the crafted run of the header comment; mode is meta's mode= */
static void craft_run(const char *mode)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd %s && : > measured-rows.csv && "
             "printf 'mode=%s\\nnodes=2\\nranks_per_node=2\\nrate=500mbit\\nquick=0\\nrounds=1\\niters=5\\n"
             "iters_small=20\\npairs=2026-12-07 01:00 UTC\\npairs_count=3\\n' > meta && "
             "printf 'config,ranks,size,measured_us,sim_us,model_us\\n"
             PLAIN ",4,4096,100,100,100\\n" PLAIN ",4,65536,1000,1200,1200\\n" PLAIN ",4,1048576,4000,4400,4400\\n"
             CHUNKED ",4,4096,125,125,125\\n" CHUNKED ",4,65536,800,1000,1000\\n" CHUNKED ",4,1048576,3200,3200,3200\\n'"
             " > joined.csv",
             sim_tmp, mode);
    sim_shell_ok(cmd);
    /* pairs 1-3 of both, pair 4 of the plain one alone: (plain, chunked) us at 64 KiB and at 1 MiB */
    static const int at64k[4][2] = {{1000, 1000}, {1100, 1000}, {1300, 1000}, {999, 0}},
                     at1m[4][2] = {{4000, 4000}, {4000, 5000}, {4000, 2500}, {1, 0}};
    FILE *f = fopen(sim_tmp_path("pairs.csv"), "w");
    assert_non_null(f);
    fprintf(f, "pair,order,config,size,time_us,calls,used\n");
    for (int j = 0; j < 4; j++) {
        fprintf(f, "%d,plain-first," PLAIN ",4096,7,20,20\n%d,plain-first," PLAIN ",65536,%d,20,19\n"
                   "%d,plain-first," PLAIN ",1048576,%d,5,5\n", j + 1, j + 1, at64k[j][0], j + 1, at1m[j][0]);
        if (j < 3)
            fprintf(f, "%d,plain-first," CHUNKED ",4096,9,20,20\n%d,plain-first," CHUNKED ",65536,%d,20,20\n"
                       "%d,plain-first," CHUNKED ",1048576,%d,5,4\n", j + 1, j + 1, at64k[j][1], j + 1, at1m[j][1]);
    }
    assert_int_equal(fclose(f), 0);
}

static void report_judges_pairs(void **st)
{
    char cmd[PATH_MAX + 64], out[1 << 14];
    (void)st;
    craft_run("netns");
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", sim_repo_path("validation/report"), sim_tmp);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s failed: %s", cmd, out);
    char *text = sim_read_file(sim_tmp_path("overlap-pairs.csv"));
    assert_string_equal(text, "config,plain,size,predicted_speedup,measured_speedup,sign_agrees,within_10pct,pairs_spread,pairs\n"
                              CHUNKED "," PLAIN ",65536,1.2,1.1,yes,yes,0.3,3\n"
                              CHUNKED "," PLAIN ",1048576,1.375,1,no,no,1,3\n");
    free(text);
    /* the rounds' judgement stays beside it (1.25 measured at 64 KiB, 1.25 at 1 MiB) */
    text = sim_read_file(sim_tmp_path("overlap.csv"));
    assert_non_null(strstr(text, CHUNKED "," PLAIN ",65536,1.2,1.25,yes,yes,-\n"));
    free(text);
    text = sim_read_file(sim_tmp_path("REPORT.md"));
    assert_non_null(strstr(text, "| " CHUNKED " | 64 KiB | 1.200 | 1.100 | yes | yes | 30.0% |"));
    assert_non_null(strstr(text, "Predicted gains measured in pairs: 2; the measurement agrees in sign at 1 and is also "
                                 "within 10% at 1 (target: all 2: missed)."));
    assert_non_null(strstr(text, "`validation/pairs` 2026-12-07 01:00 UTC: 3 pairs of jobs per configuration"));
    free(text);
    /* measured alternated call by call (pairs_method=calls): the same figures, the method said */
    snprintf(cmd, sizeof cmd, "echo pairs_method=calls >> %s && %s %s 2>&1", sim_tmp_path("meta"),
             sim_repo_path("validation/report"), sim_tmp);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s failed: %s", cmd, out);
    text = sim_read_file(sim_tmp_path("REPORT.md"));
    assert_non_null(strstr(text, "`validation/pairs` 2026-12-07 01:00 UTC: 3 jobs per plain configuration, each running "
                                 "it and its chunked twins\nalternated call by call (`mring-bench --alternate`"));
    assert_non_null(strstr(text, "| " CHUNKED " | 64 KiB | 1.200 | 1.100 | yes | yes | 30.0% |"));
    assert_null(strstr(text, "pairs of jobs"));
    free(text);
    /* without pairs.csv the report has no pairs (an earlier overlap-pairs.csv is removed) */
    snprintf(cmd, sizeof cmd, "rm %s && %s %s 2>&1", sim_tmp_path("pairs.csv"), sim_repo_path("validation/report"), sim_tmp);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s failed: %s", cmd, out);
    assert_int_equal(access(sim_tmp_path("overlap-pairs.csv"), F_OK), -1);
    text = sim_read_file(sim_tmp_path("REPORT.md"));
    assert_null(strstr(text, "alternated pairs"));
    free(text);
}

/* validation/pairs ARGS after the shell command BEFORE, both with $d the run directory: its exit status,
 * its output in out */
static int pairs(const char *before, const char *args, char *out, size_t len)
{
    char cmd[4 * PATH_MAX + 1024];
    snprintf(cmd, sizeof cmd,
             "d=%s; { %s \"$d\" >/dev/null && %s; } || { echo \"setup failed: exit 99\"; exit 0; }; "
             "%s %s 2>&1; echo \"exit $?\"",
             sim_tmp, sim_repo_path("validation/report"), before, sim_repo_path("validation/pairs"), args);
    assert_int_equal(cli_shell(cmd, out, len), 0);
    return sim_last_exit(out);
}

static void pairs_refuses_bad_input(void **st)
{
    char out[1 << 14];
    (void)st;
    static const struct {
        const char *before, *args, *says; /* shell words, $d the run directory */
    } bad[] = {
        {"true", "", "no run directory given"},
        {"true", "\"$d\" -x", "unknown option '-x'"},
        {"true", "\"$d\" --pairs 0", "--pairs '0' is not a positive integer"},
        {"true", "\"$d\" --pairs x", "--pairs 'x' is not a positive integer"},
        {"true", "/nonexistent-run", "/nonexistent-run/meta is missing"},
        {"sed -i 's/^mode=netns/mode=loopback/' \"$d/meta\"", "\"$d\"", "mode 'loopback' is not netns"},
        {"sed -i 's/,1.2,1.25,/,0.9,1.25,/; s/,1.375,1.25,/,0.5,1.25,/' \"$d/overlap.csv\"", "\"$d\"", "predicts no gain"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        craft_run("netns");
        char *pairs_before = sim_read_file(sim_tmp_path("pairs.csv"));
        int status = pairs(bad[i].before, bad[i].args, out, sizeof out);
        if (status != 2 || !strstr(out, bad[i].says) || strchr(out, '\n') + 1 != strstr(out, "exit "))
            fail_msg("pairs %s: want one line saying '%s' and exit 2, got: %s", bad[i].args, bad[i].says, out);
        char *pairs_after = sim_read_file(sim_tmp_path("pairs.csv"));
        assert_string_equal(pairs_after, pairs_before);
        free(pairs_before);
        free(pairs_after);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(report_judges_pairs), cmocka_unit_test(pairs_refuses_bad_input)};
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

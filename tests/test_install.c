/* test_install.c - validation/install: a finished testbed run made the one a results directory shows.
 *
 * The run: a copy of the shipped validation/results/2x2 in the scratch directory as a run left there (its
 * meta's platform and platform_file, and the tuner's tune.txt and tuning.json, naming the copy's
 * platform.xml).  Installed as 2x2 into a results directory of the scratch directory (--into): the
 * measurements and the pairs byte for byte, meta and the tuner's files naming the installed platform and
 * not the run's, the report redrawn on the installed platform (its software profile read from it); a
 * second install replaces the first and leaves nothing beside it.  Bad input (a shape that is not the
 * run's or not a shape, a run without pairs, one not on the testbed, an unknown option, a missing
 * argument): exit 2, one line naming it, the installed run as it was; a report that fails: exit 1, the
 * same.  No root, no testbed.
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

/* the run directory and the results directory in the scratch directory */
static char run_dir[PATH_MAX + 16], res_dir[PATH_MAX + 16];

/* a fresh copy of the shipped 2x2 run at run_dir, naming its own platform; then the shell command `then`
 * in it */
static void make_run(const char *then)
{
    char cmd[8 * PATH_MAX + 1024];
    snprintf(cmd, sizeof cmd,
             "set -e; rm -rf '%s'; cp -r '%s' '%s'; cd '%s'; "
             "sed -i '/^platform=/d; /^platform_file=/d' meta; "
             "printf 'platform=%s/platform.xml\\nplatform_file=%s/platform.xml\\n' >> meta; "
             "sed -i 's|validation/results/2x2/platform.xml|%s/platform.xml|' tune.txt tuning.json; %s",
             run_dir, sim_repo_path("validation/results/2x2"), run_dir, run_dir, run_dir, run_dir, run_dir, then);
    sim_shell_ok(cmd);
}

/* validation/install ARGS: its exit status, its output in out */
static int install(const char *args, char *out, size_t len)
{
    char cmd[2 * PATH_MAX + 512];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1; echo \"exit $?\"", sim_repo_path("validation/install"), args);
    assert_int_equal(cli_shell(cmd, out, len), 0);
    return sim_last_exit(out);
}

/* the installed file name under res_dir/2x2 (malloc'd) */
static char *installed(const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/2x2/%s", res_dir, name);
    return sim_read_file(path);
}

static void installs_a_run(void **st)
{
    char args[2 * PATH_MAX + 64], out[1 << 14], want[2 * PATH_MAX + 128], cmd[3 * PATH_MAX + 64];
    (void)st;
    snprintf(run_dir, sizeof run_dir, "%s/run", sim_tmp);
    snprintf(res_dir, sizeof res_dir, "%s/results", sim_tmp);
    sim_shell_ok((snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", res_dir, res_dir), cmd));
    make_run("");
    snprintf(args, sizeof args, "'%s' 2x2 --into '%s'", run_dir, res_dir);
    for (int again = 0; again < 2; again++) { /* the second replaces the first */
        if (install(args, out, sizeof out) != 0)
            fail_msg("validation/install %s: %s", args, out);
        const char *same[] = {"joined.csv", "measured-rows.csv", "overlap-pairs.csv", "pairs.csv", "platform.xml"};
        for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
            char path[PATH_MAX + 64], *a, *b;
            snprintf(path, sizeof path, "%s/%s", run_dir, same[i]);
            a = sim_read_file(path), b = installed(same[i]);
            if (strcmp(a, b))
                fail_msg("%s: not the run's", same[i]);
            free(a), free(b);
        }
        const char *named[] = {"meta", "tune.txt", "tuning.json", "REPORT.md"};
        snprintf(want, sizeof want, "%s/2x2/platform.xml", res_dir);
        for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
            char *text = installed(named[i]), run_platform[PATH_MAX + 32];
            snprintf(run_platform, sizeof run_platform, "%s/platform.xml", run_dir);
            if (!strstr(text, want) || strstr(text, run_platform))
                fail_msg("%s: want the installed platform %s named, not the run's: %s", named[i], want, text);
            free(text);
        }
        char *meta = installed("meta"), *report = installed("REPORT.md");
        snprintf(want, sizeof want, "\nplatform=%s/2x2/platform.xml\nplatform_file=%s/2x2/platform.xml\n", res_dir, res_dir);
        if (!strstr(meta, want))
            fail_msg("meta: want%s", want);
        if (!strstr(report, "\n`mring_sw = lat=")) /* the profile read from the installed platform */
            fail_msg("REPORT.md: want the platform's software profile");
        free(meta), free(report);
    }
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = 2x2", res_dir);
    sim_shell_ok(cmd);
}

/* bad input: exit 2 and one line naming it; a failing report: exit 1; the installed run untouched */
static void refuses_bad_input(void **st)
{
    char args[2 * PATH_MAX + 64], out[1 << 14];
    const struct {
        const char *then, *args, *word; /* the run's change, the arguments after the run dir, the word named */
        int status;
    } cases[] = {
        {"", "2x4", "'2x4'", 2},
        {"", "2x", "'2x'", 2},
        {"", "2x1x2", "'2x1x2'", 2},
        {"rm overlap-pairs.csv", "2x2", "overlap-pairs.csv", 2},
        {"sed -i 's/^mode=.*/mode=loopback/' meta", "2x2", "'loopback'", 2},
        {"", "2x2 --force", "'--force'", 2},
        {"", "", "got 1 arguments", 2},
        {"rm smpi.csv; mkdir smpi.csv", "2x2", "failed (above)", 1},
    };
    (void)st;
    char *before = installed("REPORT.md");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        make_run(cases[i].then);
        snprintf(args, sizeof args, "'%s' %s --into '%s'", run_dir, cases[i].args, res_dir);
        int status = install(args, out, sizeof out);
        /* its line: the output's only one (bad input), or its last before "exit N" (the report's lines above it) */
        const char *line = strstr(out, "validation/install: "), *end = line ? strchr(line, '\n') : NULL;
        int one = line && end && !strncmp(end + 1, "exit ", 5) && (cases[i].status != 2 || line == out);
        if (status != cases[i].status || !one || !strstr(line, cases[i].word) || strstr(line, cases[i].word) > end)
            fail_msg("validation/install %s: want exit %d and a line naming %s, got %d: %s", args, cases[i].status,
                     cases[i].word, status, out);
        char *after = installed("REPORT.md");
        if (strcmp(before, after))
            fail_msg("validation/install %s: the installed run changed", args);
        free(after);
    }
    free(before);
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = 2x2 && rm -rf '%s' '%s'", res_dir, res_dir, run_dir);
    sim_shell_ok(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(installs_a_run), cmocka_unit_test(refuses_bad_input)};
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

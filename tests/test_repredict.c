/* test_repredict.c - validation/repredict: a finished validation run predicted again with this build.
 *
 * A crafted run directory (no testbed, no root): `mring platform testbed` 2 nodes x 2 ranks, meta of a
 * quick run, and measured-rows.csv as mring-bench writes it (the label, then its 17 columns) for the quick
 * run's 4 configurations at its 3 sizes, row k's time 1000 + k us, crafted from mring simulate's own rows
 * on that platform.  joined.csv is then corrupted (one row of ones) and smpi.csv holds crafted SMPI times
 * with a wrong mring column.  After validation/repredict: joined.csv holds every measured row's crafted
 * time beside mring simulate's and mring model's times on the platform, field for field as those print
 * them (mring model and simulate run here beside it); smpi.csv keeps SMPI's times and gets mring
 * simulate's again (conn=pair made conn=stream: the testbed's profile has conn=pair); meta ends with
 * platform=, platform_file= (the crafted run's point elsewhere, as a copied run's do) and repredicted=,
 * everything before them kept; the report says it was predicted again, on which platform.  Bad input: no
 * directory, two, an unknown option, one without meta or platform.xml (exit 2, one line naming it); a
 * report that fails and a platform that does not load (exit 1): the run's files as they were.
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

#include "csv_table.h"
#include "sim_cli.h"

/* smpi.csv's configuration: 2 rings meet the same peers, so conn=pair and conn=stream give other times */
#define SMPI_CONFIG "--algo multiring --topo 2x2 --rings 2"
#define NCONFIGS 4
static const char *const configs[NCONFIGS] = {"--algo multiring --topo 2x2", "--algo multiring --topo 2x2 --chunks 4",
                                              "--algo ring --topo 4", "--algo mpi"};

/* mring CMD's time_us (as it prints it) for CONFIG at SIZE bytes on the scratch platform, with software
 * profile PROFILE (NULL: the platform's own), into buf */
static void predicted(const char *cmd, const char *config, const char *profile, long size, char *buf, size_t len)
{
    char line[16384], out[1 << 12], prof[256] = "";
    if (!strcmp(config, "--algo mpi")) /* as validation/predict predicts MPICH's */
        config = size <= 2048 ? "--algo rd --topo 4" : "--algo rabenseifner --topo 4";
    if (profile)
        snprintf(prof, sizeof prof, "--profile '%s'", profile);
    snprintf(line, sizeof line, "%s %s --platform %s %s %s -b %ld -e %ld --format csv | awk -F, 'NR == 2 { print $10 }'",
             cli_bin(), cmd, sim_tmp_path("platform.xml"), prof, config, size, size);
    if (cli_shell(line, out, sizeof out) != 0 || !*out)
        fail_msg("%s gave no time", line);
    snprintf(buf, len, "%.*s", (int)strcspn(out, "\n"), out);
}

/* the crafted run: platform, meta, measured rows (row k: 1000 + k us), a corrupt joined.csv, smpi.csv */
static void craft_run(void)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd %s && %s platform testbed --nodes 2 --gpus-per-node 2 --intra 10us:130MBps --inter 15us:31MBps "
             "--reduce 3.5GBps --profile 'o=20us;conn=pair' -o platform.xml && "
             "printf 'mode=netns\\nnodes=2\\nranks_per_node=2\\nrate=500mbit\\nplatform=elsewhere/platform.xml\\n"
             "platform_file=/elsewhere/platform.xml\\nquick=1\\nrecheck=no\\niters=5\\niters_small=20\\nrounds=1\\n"
             "date=2026-12-06 12:00 UTC\\nrepredicted=an earlier one\\n' > meta && "
             "for c in '%s' '%s' '%s' '%s'; do a=$c; [ \"$c\" = '--algo mpi' ] && a='--algo rabenseifner --topo 4'; "
             "%s simulate --platform platform.xml $a -b 64K -e 4M -f 8 --format csv | "
             "awk -F, -v l=\"$c\" 'NR > 1 { $10 = 1000 + n++; print l \",real,\" $2 \",\" $3 \",\" $4 \",\" $5 \",\" "
             "$6 \",\" $7 \",\" $8 \",\" $9 \",\" $10 \",1,1,0,0,\" $10 \",\" $10 \",\" $13 }'; done > measured-rows.csv && "
             "printf 'config,ranks,size,measured_us,sim_us,model_us\\nX,1,1,1,1,1\\n' > joined.csv && "
             "printf 'config,ranks,size,smpi_us,sim_us\\n" SMPI_CONFIG ",4,65536,777,1\\n"
             SMPI_CONFIG ",4,4194304,888,1\\n' > smpi.csv",
             sim_tmp, cli_bin(), configs[0], configs[1], configs[2], configs[3], cli_bin());
    sim_shell_ok(cmd);
}

static void predicts_again(void **st)
{
    char cmd[16384], want_sim[64], want_model[64], out[1 << 14];
    (void)st;
    craft_run();
    char *meta_before = sim_read_file(sim_tmp_path("meta"));
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", sim_repo_path("validation/repredict"), sim_tmp);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s failed: %s", cmd, out);
    struct csv_table t;
    const char *path = sim_tmp_path("joined.csv");
    char *text = sim_read_file(path);
    csv_read_ok(text, &t, path);
    assert_int_equal(t.nrows, NCONFIGS * 3);
    for (int i = 0; i < t.nrows; i++) {
        char want_measured[32];
        long size = csv_need_int(&t, i, "size");
        assert_string_equal(csv_str(&t, i, "config"), configs[i / 3]);
        assert_int_equal(size, 65536L << (3 * (i % 3)));
        snprintf(want_measured, sizeof want_measured, "%d", 1000 + i % 3);
        assert_string_equal(csv_str(&t, i, "measured_us"), want_measured);
        predicted("simulate", configs[i / 3], NULL, size, want_sim, sizeof want_sim);
        predicted("model", configs[i / 3], NULL, size, want_model, sizeof want_model);
        assert_string_equal(csv_str(&t, i, "sim_us"), want_sim);
        assert_string_equal(csv_str(&t, i, "model_us"), want_model);
    }
    csv_free(&t);
    free(text);
    /* smpi.csv: SMPI's times kept, mring simulate's on conn=stream beside them */
    path = sim_tmp_path("smpi.csv");
    text = sim_read_file(path);
    csv_read_ok(text, &t, path);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(csv_str(&t, 0, "smpi_us"), "777");
    assert_string_equal(csv_str(&t, 1, "smpi_us"), "888");
    for (int i = 0; i < 2; i++) {
        char stream[64], pair[64];
        predicted("simulate", SMPI_CONFIG, "o=20us;conn=stream", csv_need_int(&t, i, "size"), stream, sizeof stream);
        predicted("simulate", SMPI_CONFIG, "o=20us;conn=pair", csv_need_int(&t, i, "size"), pair, sizeof pair);
        assert_string_equal(csv_str(&t, i, "sim_us"), stream);
        assert_string_not_equal(stream, pair); /* so the check tells the profiles apart */
    }
    csv_free(&t);
    free(text);
    /* meta: the run's lines kept but platform= and platform_file= (now DIR's: the crafted run's were
     * elsewhere) and repredicted= (the earlier one replaced), which come last; crafted, they are the 5th, the
     * 6th and the last line */
    text = sim_read_file(sim_tmp_path("meta"));
    char want[1 << 14], *pf = strstr(meta_before, "platform="), *pf_end = strchr(strchr(pf, '\n') + 1, '\n');
    *strstr(meta_before, "repredicted=") = '\0';
    snprintf(want, sizeof want, "%.*s%splatform=%s/platform.xml\nplatform_file=%s/platform.xml\nrepredicted=20",
             (int)(pf - meta_before), meta_before, pf_end + 1, sim_tmp, sim_tmp);
    const char *date_end = strncmp(text, want, strlen(want)) ? NULL : strchr(text + strlen(want), '\n');
    if (!date_end || date_end[1])
        fail_msg("meta after repredict:\n%s\nwant:\n%s...(a date, one line)", text, want);
    free(text);
    free(meta_before);
    text = sim_read_file(sim_tmp_path("REPORT.md"));
    assert_non_null(strstr(text, "**Predicted again** 20"));
    char on[PATH_MAX + 64];
    snprintf(on, sizeof on, "on `%s/platform.xml`", sim_tmp); /* the platform it predicted on */
    assert_non_null(strstr(text, on));
    free(text);
}

/* the run's files a failed repredict must leave as they were */
#define NKEPT 3
static const char *const kept[NKEPT] = {"joined.csv", "meta", "smpi.csv"};

/* repredict ARGS (a shell word list) after the shell command BEFORE; its exit status, its output in out */
static int repredict(const char *before, const char *args, char *out, size_t len)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s; %s %s 2>&1; echo \"exit $?\"", before, sim_repo_path("validation/repredict"), args);
    assert_int_equal(cli_shell(cmd, out, len), 0);
    return sim_last_exit(out);
}

static void check_kept(char *const *was, const char *what)
{
    for (int k = 0; k < NKEPT; k++) {
        char *now = sim_read_file(sim_tmp_path(kept[k]));
        if (strcmp(now, was[k]))
            fail_msg("%s changed %s", what, kept[k]);
        free(now);
    }
}

/* bad input: exit 2 and one line naming what is wrong; failures: exit 1; the run's files as they were */
static void refuses_bad_runs(void **st)
{
    char out[1 << 14], args[2 * PATH_MAX + 8], *was[NKEPT];
    (void)st;
    craft_run();
    for (int k = 0; k < NKEPT; k++)
        was[k] = sim_read_file(sim_tmp_path(kept[k]));
    static const struct {
        const char *args, *says;
    } bad[] = {{"", "no run directory given"},        {NULL, "one run directory expected, got 2"},
               {"-h extra", "one run directory expected, got 2"}, {"-x", "unknown option '-x'"},
               {"/nonexistent-run", "/nonexistent-run/meta is missing"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (bad[i].args)
            snprintf(args, sizeof args, "%s", bad[i].args);
        else /* two directories */
            snprintf(args, sizeof args, "%s %s", sim_tmp, sim_tmp);
        int status = repredict(":", args, out, sizeof out);
        if (status != 2 || !strstr(out, bad[i].says) || strchr(out, '\n') + 1 != strstr(out, "exit "))
            fail_msg("repredict %s: want one line saying '%s' and exit 2, got: %s", args, bad[i].says, out);
    }
    /* the report fails (summary.csv cannot be written): exit 1, nothing replaced */
    char before[PATH_MAX + 64];
    snprintf(before, sizeof before, "rm -f %s && mkdir %s", sim_tmp_path("summary.csv"), sim_tmp_path("summary.csv"));
    if (repredict(before, sim_tmp, out, sizeof out) != 1 || !strstr(out, "is as it was"))
        fail_msg("repredict with a report that fails: want exit 1 saying the run is as it was, got: %s", out);
    check_kept(was, "a failed report");
    snprintf(before, sizeof before, "rmdir %s", sim_tmp_path("summary.csv"));
    /* a platform that does not load: a failed prediction, exit 1, nothing replaced */
    snprintf(before + strlen(before), sizeof before - strlen(before), " && echo '<platform>' > %s",
             sim_tmp_path("platform.xml"));
    if (repredict(before, sim_tmp, out, sizeof out) != 1)
        fail_msg("repredict on a platform that does not load: want exit 1, got: %s", out);
    check_kept(was, "a failed prediction");
    /* without platform.xml: exit 2 naming it */
    snprintf(before, sizeof before, "rm %s", sim_tmp_path("platform.xml"));
    if (repredict(before, sim_tmp, out, sizeof out) != 2 || !strstr(out, "platform.xml is missing"))
        fail_msg("repredict without platform.xml: want exit 2 naming it, got: %s", out);
    check_kept(was, "a run without platform.xml");
    for (int k = 0; k < NKEPT; k++)
        free(was[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(predicts_again), cmocka_unit_test(refuses_bad_runs)};
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

/*
 * test_validation.c - `validation/run --quick` end to end (issue 5): the emulated cluster (network
 * namespaces, or the one-node loopback fallback where they cannot be made), calibration, measurement
 * with mring-bench, prediction with mring simulate and mring model, the join and the report.
 * Asserted: it succeeds, every configuration and size is measured and predicted, no measured element
 * is wrong, the report has its sections, among them the chunked multiring against the plain one at
 * every size (the issue-11 sign check; its verdict is reported, not asserted); the SMPI build of the
 * executor runs under smpirun with its results checked; with --rounds 2 (the hostfile run) every row is
 * the faster of its two rounds, each kept in measured-rounds.csv, and --recheck calibrates again after the
 * measurements (recheck.csv and the report's "Did the calibration hold?"; a quick run without it has
 * neither); a failing validation/report names its
 * step and keeps the previous REPORT.md.  Accuracy is reported, never asserted (it depends on the
 * machine's load).
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
#include <sys/wait.h>
#include <unistd.h>

#include "csv_table.h"
#include "sim_cli.h"

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 20];
    size_t n;
    if (!f)
        fail_msg("cannot read %s", path);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* stops.csv: every row is a late wake-up of a job of freezes.csv (late[i]: its count there, in freezes.csv's
 * order: the calibration, then the 8 jobs), from_s before to_s, at least 10 ms late (WITNESS_LATE_MS's
 * default).  stopped-calls.csv (the quick run is on a testbed): each of the 4 configurations x 3 sizes x
 * in place or not once, 20 calls up to 1 MiB and 5 above (--iters 5), stopped at most all of them, used
 * the calls left or all of them when every call was stopped. */
static void check_stops(const long long late[9])
{
    char path[PATH_MAX + 64];
    struct csv_table t;
    long long n[2] = {0};
    snprintf(path, sizeof path, "%s/stops.csv", sim_tmp);
    csv_read_ok(slurp_file(path), &t, path);
    for (int i = 0; i < t.nrows; i++) {
        int calibration = !strcmp(csv_str(&t, i, "step"), "calibration"), measure = !strcmp(csv_str(&t, i, "step"), "measure");
        if (!(calibration || measure) || !(csv_need(&t, i, "from_s") < csv_need(&t, i, "to_s")) || csv_need(&t, i, "late_ms") < 10)
            fail_msg("stops.csv: row %d is not a stop of 10 ms or more of the calibration or a measurement", i + 2);
        n[measure]++; /* n[0] the calibration's, n[1] the measurements' */
    }
    csv_free(&t);
    long long measured = 0;
    for (int i = 1; i < 9; i++)
        measured += late[i];
    if (n[0] != late[0] || n[1] != measured)
        fail_msg("stops.csv: %lld stops of the calibration and %lld of the measurements, freezes.csv counts %lld and %lld",
                 n[0], n[1], late[0], measured);
    snprintf(path, sizeof path, "%s/stopped-calls.csv", sim_tmp);
    csv_read_ok(slurp_file(path), &t, path);
    assert_int_equal(t.nrows, 24);
    for (int i = 0; i < t.nrows; i++) {
        long long size = csv_need_int(&t, i, "size"), calls = csv_need_int(&t, i, "calls");
        long long stopped = csv_need_int(&t, i, "stopped"), used = csv_need_int(&t, i, "used");
        assert_string_equal(csv_str(&t, i, "round"), "1");
        assert_int_equal(csv_need_int(&t, i, "inplace"), i % 2);
        if (calls < (size <= 1048576 ? 20 : 5)) /* -n, or more to fill --min-time (validation/measure) */
            fail_msg("stopped-calls.csv: row %d: %lld calls at %lld bytes, fewer than -n", i + 2, calls, size);
        if (stopped < 0 || stopped > calls || used != (stopped == calls ? calls : calls - stopped))
            fail_msg("stopped-calls.csv: row %d: %lld calls, %lld stopped, %lld used", i + 2, calls, stopped, used);
    }
    csv_free(&t);
}

static void quick_run(void **state)
{
    static char out[1 << 16];
    char cmd[PATH_MAX * 2 + 64], path[PATH_MAX + 64];
    int rows = 0;
    (void)state;
    if (geteuid() != 0)
        skip(); /* the testbed needs root (namespaces, tc); CI runs as root */
    snprintf(cmd, sizeof cmd, "%s --quick --out %s 2>&1", sim_repo_path("validation/run"), sim_tmp);
    int status = cli_shell(cmd, out, sizeof out);
    print_message("%s", out);
    if (status != 0)
        fail_msg("%s exited with %d", cmd, status);
    /* joined.csv: 4 configurations x 3 sizes, each with measured, simulated and modelled times > 0 */
    snprintf(path, sizeof path, "%s/joined.csv", sim_tmp);
    struct csv_table t;
    csv_read_ok(slurp_file(path), &t, path);
    assert_int_equal(t.nrows, 12);
    for (int i = 0; i < t.nrows; i++)
        if (!(csv_need(&t, i, "measured_us") > 0 && csv_need(&t, i, "sim_us") > 0 && csv_need(&t, i, "model_us") > 0))
            fail_msg("joined.csv: row %d (%s) has a time that is not > 0", i + 1, csv_str(&t, i, "config"));
    csv_free(&t);
    /* every measured row, in place and out of place, has 0 wrong elements.  A row is the label, then
     * mring-bench's: source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps,
     * inplace,wrong,time_min_us,time_max_us,config (18 fields, wrong the 15th) */
    snprintf(path, sizeof path, "%s/measured-rows.csv", sim_tmp);
    char *save = NULL, *f[20];
    for (char *l = strtok_r(slurp_file(path), "\n", &save); l; l = strtok_r(NULL, "\n", &save), rows++)
        if (csv_split(l, f, 20) != 18 || strcmp(f[1], "real") || strcmp(f[14], "0"))
            fail_msg("measured-rows.csv: row %d is not a measured row with 0 wrong", rows + 1);
    assert_int_equal(rows, 24);
    snprintf(path, sizeof path, "%s/REPORT.md", sim_tmp);
    char *report = slurp_file(path);
    assert_non_null(strstr(report, "## Summary"));
    assert_non_null(strstr(report, "more where they take less than 0.5 s (`--min-time`)"));
    assert_non_null(strstr(report, "| --algo multiring --topo 2x2 | 3 |"));
    assert_non_null(strstr(report, "| --algo mpi | 3 |"));
    assert_non_null(strstr(report, "## Overlapping multirings (chunks) against the plain ones"));
    assert_non_null(strstr(report, "## Calibration"));
    assert_non_null(strstr(report, "## Software costs found by calibration"));
    if (strstr(report, "## Did the calibration hold?")) /* --quick without --recheck: no second calibration */
        fail_msg("%s: a quick run without --recheck reports a recheck", path);
    int pair_said = strstr(report, "data queued per pair of ranks on every link, the pairs served round robin, "
                                   "2 frames a turn;") != NULL;
    int peak_said = strstr(report, "after an idle moment a link passes at most 1.25 x its rate") != NULL;
    assert_non_null(strstr(report, "## Did the machine stop?"));
    /* (slurp_file's buffer is reused below: the report's checks come first) */
    snprintf(path, sizeof path, "%s/meta", sim_tmp);
    const char *meta = slurp_file(path);
    if (!strstr(meta, "\nrecheck=no\n"))
        fail_msg("%s: a quick run without --recheck: want recheck=no in meta", path);
    if (!strstr(meta, "\nmin_time=0.5\n"))
        fail_msg("%s: want min_time=0.5 (validation/measure's MEASURE_MIN_TIME) in meta", path);
    if (strstr(meta, "mode=netns\n") && !(strstr(meta, "queues=pair\n") && strstr(meta, "pair_turn=2\n") && pair_said))
        fail_msg("a namespace testbed's run: want queues=pair, pair_turn=2 (the defaults, 4 ranks) in meta and the report "
                 "to say it: %s",
                 meta);
    if (strstr(meta, "mode=netns\n") && !(strstr(meta, "\npeak=1.25\n") && peak_said))
        fail_msg("a namespace testbed's run: want peak=1.25 (the default) in meta and the report to say it: %s", meta);
    int watched = strstr(meta, "\nwitness=mring-witness\n") != NULL; /* CI runs as root */
    if (!watched && !strstr(meta, "\nwitness=none\n"))
        fail_msg("%s: want witness=mring-witness or witness=none", path);
    /* freezes.csv: the witness's row for the calibration, then one per job: 4 configurations x (small, large) */
    snprintf(path, sizeof path, "%s/freezes.csv", sim_tmp);
    csv_read_ok(slurp_file(path), &t, path);
    assert_int_equal(t.nrows, 9);
    assert_string_equal(csv_str(&t, 0, "step"), "calibration");
    for (int i = 1; i < t.nrows; i++) {
        assert_string_equal(csv_str(&t, i, "step"), "measure");
        assert_string_equal(csv_str(&t, i, "round"), "1");
        assert_string_equal(csv_str(&t, i, "sizes"), i % 2 ? "-b 64K -e 512K -f 8" : "-b 4M -e 4M");
    }
    for (int i = 0; watched && i < t.nrows; i++)
        if (!(csv_need_int(&t, i, "late_wakeups") >= 0 && csv_need(&t, i, "max_late_ms") >= 0))
            fail_msg("freezes.csv: row %d has a negative late wake-ups count or latest wake-up", i + 2);
    assert_string_equal(csv_str(&t, 1, "config"), csv_str(&t, 2, "config"));
    long long late[9];
    for (int i = 0; i < t.nrows; i++)
        late[i] = watched ? csv_need_int(&t, i, "late_wakeups") : 0;
    csv_free(&t);
    check_stops(late);
    /* overlap.csv: the chunked multiring against the plain one at each of the 3 sizes */
    snprintf(path, sizeof path, "%s/overlap.csv", sim_tmp);
    csv_read_ok(slurp_file(path), &t, path);
    assert_int_equal(t.nrows, 3);
    for (int i = 0; i < t.nrows; i++) {
        assert_string_equal(csv_str(&t, i, "config"), "--algo multiring --topo 2x2 --chunks 4");
        assert_string_equal(csv_str(&t, i, "plain"), "--algo multiring --topo 2x2");
        if (!(csv_need(&t, i, "predicted_speedup") > 0 && csv_need(&t, i, "measured_speedup") > 0))
            fail_msg("overlap.csv: row %d has a speedup that is not > 0", i + 1);
    }
    csv_free(&t);
}

/* --rounds 2 in dir: measured-rounds.csv holds both rounds of every row (round number first), and each
 * row of measured-rows.csv is the lower median of its rounds, for 2 rounds their faster one; overlap.csv
 * gives the rounds' spread (slowest / fastest - 1 >= 0) at each size. */
static void check_rounds(const char *dir, int nrows)
{
    char path[PATH_MAX * 2], *save = NULL, *f[20], key[64][160];
    double lo[64];
    int nkeys = 0, per_round[3] = {0};
    snprintf(path, sizeof path, "%s/measured-rounds.csv", dir);
    for (char *l = strtok_r(slurp_file(path), "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char k[160];
        int round = atoi(l), i;
        if (csv_split(l, f, 20) != 19 || round < 1 || round > 2)
            fail_msg("measured-rounds.csv: bad row (round %d, want 19 fields)", round);
        per_round[round]++;
        snprintf(k, sizeof k, "%s|%s|%s", f[1], f[7], f[14]);
        for (i = 0; i < nkeys && strcmp(key[i], k); i++)
            ;
        if (i == nkeys) {
            assert_true(nkeys < 64);
            snprintf(key[nkeys], sizeof key[0], "%s", k);
            lo[nkeys++] = strtod(f[11], NULL);
        } else if (strtod(f[11], NULL) < lo[i])
            lo[i] = strtod(f[11], NULL);
    }
    assert_int_equal(per_round[1], nrows);
    assert_int_equal(per_round[2], nrows);
    assert_int_equal(nkeys, nrows);
    snprintf(path, sizeof path, "%s/measured-rows.csv", dir);
    int rows = 0;
    for (char *l = strtok_r(slurp_file(path), "\n", &save); l; l = strtok_r(NULL, "\n", &save), rows++) {
        char k[160];
        int i;
        assert_int_equal(csv_split(l, f, 20), 18);
        snprintf(k, sizeof k, "%s|%s|%s", f[0], f[6], f[13]);
        for (i = 0; i < nkeys && strcmp(key[i], k); i++)
            ;
        if (i == nkeys || strtod(f[10], NULL) != lo[i])
            fail_msg("measured-rows.csv: %s has time %s, not the faster of its 2 rounds", k, f[10]);
    }
    assert_int_equal(rows, nrows);
    snprintf(path, sizeof path, "%s/overlap.csv", dir);
    struct csv_table t;
    csv_read_ok(slurp_file(path), &t, path);
    assert_int_equal(t.nrows, 3);
    for (int i = 0; i < t.nrows; i++)
        if (!(csv_need(&t, i, "rounds_spread") >= 0))
            fail_msg("overlap.csv: no rounds' spread in row %d", i + 1);
    csv_free(&t);
    snprintf(path, sizeof path, "%s/meta", dir);
    assert_non_null(strstr(slurp_file(path), "rounds=2\n"));
}

/* recheck.csv in dir: a row per segment of the first calibration's profile (one from 0 B without a profile),
 * the segments in order from 0 B, each over 1 size or more, then the ports' and the NICs' bulk tests (4 sizes), ratio > 0, each band low <= high, moved "yes"
 * exactly when each step lies outside the other's band (ratio outside the first's, 1 outside the second's)
 * and the ratio is over 5% from 1 (printed to 3 decimals: 1.050 is no move, 1.051 is); the second
 * calibration kept beside it and meta's recheck=done */
static void check_recheck(const char *dir)
{
    char path[PATH_MAX * 2];
    struct csv_table t;
    snprintf(path, sizeof path, "%s/calibration-recheck.json", dir);
    if (access(path, R_OK) != 0)
        fail_msg("%s: missing", path);
    snprintf(path, sizeof path, "%s/recheck.csv", dir);
    csv_read_ok(slurp_file(path), &t, path);
    if (t.nrows < 3)
        fail_msg("%s: want a segment and the 2 bulk tests", path);
    double from = -1;
    for (int i = 0; i < t.nrows; i++) {
        int bulk = i >= t.nrows - 2; /* 2 nodes of 2 ranks: the ports' and the NICs' bulk tests, last */
        double f = bulk ? 0 : csv_need(&t, i, "from_bytes"), r = csv_need(&t, i, "ratio"), lo = csv_need(&t, i, "pass_low"),
               hi = csv_need(&t, i, "pass_high"), slo = csv_need(&t, i, "second_low"), shi = csv_need(&t, i, "second_high");
        const char *m = csv_str(&t, i, "moved");
        int apart = r < lo || r > hi || 1 < slo || 1 > shi;
        if ((bulk ? strcmp(csv_str(&t, i, "from_bytes"), i == t.nrows - 2 ? "port" : "nic") || csv_need(&t, i, "sizes") != 4
                  : i == 0 ? f != 0 : f <= from) ||
            !(csv_need(&t, i, "sizes") >= 1) || !(r > 0) || !(lo <= hi) || !(slo <= shi) ||
            strcmp(m, apart && fabs(r - 1) > 0.0505 ? "yes" : "no"))
            fail_msg("%s: row %d is not a %s's recheck", path, i + 1, bulk ? "bulk test" : "segment");
        from = f;
    }
    csv_free(&t);
    snprintf(path, sizeof path, "%s/meta", dir);
    if (!strstr(slurp_file(path), "\nrecheck=done\n"))
        fail_msg("%s: want recheck=done", path);
}

/* A run that rechecks its calibration settles it first (validation/run's calibrate_settled): calibration-tries.csv
 * has 2 or 3 tries, the first compared with nothing (-), each later one with the try before: what moved, or none;
 * it stops at the first none (settled) or after the third; one try is marked used, the last when settled (which
 * one otherwise: test_calibration_recheck); the report's sentence says which (slurp_file's buffer
 * is reused: each file read where it is used), and freezes.csv has a calibration row per try (round = the try). */
static void check_tries(const char *dir)
{
    char path[PATH_MAX * 2];
    struct csv_table t, fz;
    snprintf(path, sizeof path, "%s/calibration-tries.csv", dir);
    csv_read_ok(slurp_file(path), &t, path);
    int n = t.nrows, settled = n >= 2 && !strcmp(csv_str(&t, n - 1, "moved"), "none");
    if (n < 2 || n > 3 || strcmp(csv_str(&t, 0, "moved"), "-") || (n == 2 && !settled))
        fail_msg("%s: want 2 or 3 tries, the first compared with none, 2 only when they agreed", path);
    int want = 0, yes = 0; /* the try marked used (validation/calibration-used; its rule: test_calibration_recheck) */
    for (int i = 0; i < n; i++) {
        if (csv_need_int(&t, i, "try") != i + 1 || (i > 0 && i < n - 1 && !strcmp(csv_str(&t, i, "moved"), "none")))
            fail_msg("%s: row %d: want try %d, and none moved only on the last", path, i + 2, i + 1);
        if (!strcmp(csv_str(&t, i, "used"), "yes"))
            want = i + 1, yes++;
    }
    if (yes != 1 || (settled && want != n))
        fail_msg("%s: want one try used (the last when settled), got %d (try %d)", path, yes, want);
    csv_free(&t);
    snprintf(path, sizeof path, "%s/REPORT.md", dir);
    char verdict[128];
    snprintf(verdict, sizeof verdict, settled ? "\nSettled before the measurements: calibrated " : "no two in a row agreed; the predictions use try %d", want);
    if (!strstr(slurp_file(path), verdict))
        fail_msg("%s/REPORT.md: want the tries' verdict (%s)", dir, verdict);
    snprintf(path, sizeof path, "%s/freezes.csv", dir);
    csv_read_ok(slurp_file(path), &fz, path);
    for (int i = 0; i < n; i++)
        if (strcmp(csv_str(&fz, i, "step"), "calibration") || csv_need_int(&fz, i, "round") != i + 1)
            fail_msg("%s: row %d: want the calibration's try %d", path, i + 2, i + 1);
    csv_free(&fz);
}

/* The real-cluster path: --hostfile with two "nodes" of this machine (mpiexec -f FILE -ppn 2): the same
 * calibration, measurement, prediction and report through the hostfile launcher; no root needed.  It
 * measures in 2 rounds (--rounds 2; check_rounds) and calibrates again after them (--recheck; check_recheck). */
static void hostfile_run(void **state)
{
    static char out[1 << 16];
    char cmd[PATH_MAX * 3 + 128], hosts[PATH_MAX + 64], dir[PATH_MAX + 64], path[PATH_MAX + 128];
    (void)state;
    snprintf(hosts, sizeof hosts, "%s/hosts", sim_tmp);
    snprintf(dir, sizeof dir, "%s/cluster", sim_tmp);
    FILE *f = fopen(hosts, "w");
    assert_non_null(f);
    fputs("# two nodes that are this machine\nlocalhost\n127.0.0.1\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s --quick --rounds 2 --recheck --hostfile %s --ranks-per-node 2 --out %s 2>&1",
             sim_repo_path("validation/run"), hosts, dir);
    int status = cli_shell(cmd, out, sizeof out);
    print_message("%s", out);
    if (status != 0)
        fail_msg("%s exited with %d", cmd, status);
    snprintf(path, sizeof path, "%s/REPORT.md", dir);
    char *report = slurp_file(path);
    assert_non_null(strstr(report, "Cluster: hostfile"));
    assert_non_null(strstr(report, "2 nodes x 2 ranks"));
    assert_non_null(strstr(report, "| --algo multiring --topo 2x2 | 3 |"));
    /* --recheck: a second calibration, compared per segment of the profile, and the report says which held */
    if (!strstr(report, "## Did the calibration hold?\n") ||
        !(strstr(report, "\nHeld: no segment and no bulk test moved.") || strstr(report, "\n**Moved** at ")))
        fail_msg("%s: want the recheck's section and its verdict", path);
    check_recheck(dir);
    check_tries(dir);
    snprintf(path, sizeof path, "%s/meta", dir);
    assert_non_null(strstr(slurp_file(path), "launcher=hostfile"));
    check_rounds(dir, 24);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir); /* the group teardown removes plain files only */
    assert_int_equal(cli_shell(cmd, out, sizeof out), 0);
    /* a hostfile that is not there: one line, exit 2 */
    snprintf(cmd, sizeof cmd, "%s --quick --hostfile %s/none --ranks-per-node 2 2>&1", sim_repo_path("validation/run"),
             sim_tmp);
    status = cli_shell(cmd, out, sizeof out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2 || !strstr(out, "none") || strchr(out, '\n') != strrchr(out, '\n'))
        fail_msg("%s: want exit 2 and one line naming the hostfile, got %d: %s", cmd, status, out);
    /* no rounds: one line naming the value, exit 2 */
    snprintf(cmd, sizeof cmd, "%s --quick --rounds 0 2>&1", sim_repo_path("validation/run"));
    status = cli_shell(cmd, out, sizeof out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2 || !strstr(out, "'0'") || strchr(out, '\n') != strrchr(out, '\n'))
        fail_msg("%s: want exit 2 and one line naming the value, got %d: %s", cmd, status, out);
}

/* The SMPI cross-check's executor: validation/smpi-bench builds mring-bench with smpicc (the build broke
 * unseen once: validation/run only says "no SMPI column"), and smpirun runs it on a platform of mring's
 * with every result checked: a chunked multiring 2x2 at 4 KiB and 64 KiB, in and out of place. */
static void smpi_executor(void **state)
{
    static char out[1 << 16];
    char cmd[PATH_MAX * 4 + 512], bin[PATH_MAX];
    (void)state;
    if (!realpath(cli_bin(), bin)) /* the commands below run in sim_tmp */
        fail_msg("%s: %s", cli_bin(), strerror(errno));
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; '%s' smpi-mring-bench; '%s' platform cluster --nodes 2 --gpus-per-node 2 -o c2.xml; "
             "grep -o '<host id=\"[^\"]*\"' c2.xml | sed 's/.*id=\"//; s/\"$//' > hosts; "
             "smpirun -np 4 -platform c2.xml -hostfile hosts --cfg=smpi/display-timing:no ./smpi-mring-bench "
             "--algo multiring --topo 2x2 --chunks 2 -b 4K -e 64K -f 16 -n 1 -w 0 --format csv 2>&1",
             sim_tmp, sim_repo_path("validation/smpi-bench"), bin);
    int status = cli_shell(cmd, out, sizeof out);
    if (status != 0)
        fail_msg("%s exited with %d: %s", cmd, status, out);
    int rows = 0;
    for (char *line = strstr(out, "real,multiring,2x2,"); line; line = strstr(line + 1, "real,multiring,2x2,")) {
        char *f = line;
        for (int k = 0; k < 13 && f; k++) /* the 14th field: wrong */
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        assert_non_null(f);
        assert_int_equal(atoi(f), 0);
        rows++;
    }
    assert_int_equal(rows, 4);
}

/* Run validation/report on a copy of the shipped 2x2 results after BREAK (a shell command in the copy's
 * directory); it must exit with the failing step's status 2, name that step in its last line, and leave
 * the previous REPORT.md as it was (it once ended silently half-way, its REPORT.md cut short). */
static void report_fails_whole(const char *brk, const char *step)
{
    static char out[1 << 16];
    char cmd[PATH_MAX * 3 + 512], path[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "set -e; rm -rf '%s/r'; cp -r '%s' '%s/r'; cd '%s/r'; printf 'previous\\n' > REPORT.md; %s",
             sim_tmp, sim_repo_path("validation/results/2x2"), sim_tmp, sim_tmp, brk);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    snprintf(cmd, sizeof cmd, "%s '%s/r' 2>&1", sim_repo_path("validation/report"), sim_tmp);
    int status = cli_shell(cmd, out, sizeof out);
    const char *last = strstr(out, "validation/report: line ");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2 || !last || !strstr(last, "failed (exit status 2): ") ||
        !strstr(last, step) || strchr(last, '\n') != strrchr(out, '\n'))
        fail_msg("%s: want exit 2 and a last line naming the step '%s', got %d: %s", cmd, step, status, out);
    snprintf(path, sizeof path, "%s/r/REPORT.md", sim_tmp);
    assert_string_equal(slurp_file(path), "previous\n");
    snprintf(path, sizeof path, "%s/r/REPORT.md.tmp", sim_tmp);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/r'", sim_tmp); /* the group teardown removes plain files only */
    assert_int_equal(cli_shell(cmd, out, sizeof out), 0);
}

/* A run directory without a file every report reads (BREAK removes it): one line naming it, exit 2, before
 * anything is written (without measured-rows.csv it once wrote summary.csv and the plots, then failed) */
static void report_refused(const char *brk, const char *file)
{
    static char out[1 << 16];
    char cmd[PATH_MAX * 3 + 512], want[64];
    snprintf(cmd, sizeof cmd, "set -e; rm -rf '%s/r'; cp -r '%s' '%s/r'; cd '%s/r'; %s; rm -f summary.csv *.png; "
             "printf 'previous\\n' > REPORT.md", sim_tmp, sim_repo_path("validation/results/2x2"), sim_tmp, sim_tmp, brk);
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    snprintf(cmd, sizeof cmd, "%s '%s/r' 2>&1; echo \"rc=$?\"; ls '%s/r'", sim_repo_path("validation/report"),
             sim_tmp, sim_tmp);
    int status = cli_shell(cmd, out, sizeof out);
    snprintf(want, sizeof want, "%s is missing or empty", file);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(out, want) || !strstr(out, "\nrc=2\n") ||
        strstr(out, "summary.csv") || strstr(out, ".png") || strstr(out, "line "))
        fail_msg("%s: want one line naming %s and nothing written, got %d: %s", cmd, file, status, out);
    snprintf(cmd, sizeof cmd, "%s/r/REPORT.md", sim_tmp);
    assert_string_equal(slurp_file(cmd), "previous\n");
    snprintf(cmd, sizeof cmd, "rm -rf '%s/r'", sim_tmp);
    assert_int_equal(cli_shell(cmd, out, sizeof out), 0);
}

/* validation/report's failures: before anything is written (no meta, no measured-rows.csv) and inside the
 * report's writing (an smpi.csv that cannot be read) */
static void report_failure(void **state)
{
    (void)state;
    report_refused("rm meta", "meta");
    report_refused("rm measured-rows.csv", "measured-rows.csv");
    report_fails_whole("rm smpi.csv; mkdir smpi.csv", "awk -F, ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(quick_run), cmocka_unit_test(hostfile_run),
                                       cmocka_unit_test(smpi_executor), cmocka_unit_test(report_failure)};
    return cmocka_run_group_tests(tests, sim_tmp_setup, sim_tmp_teardown);
}

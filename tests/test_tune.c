/*
 * test_tune.c - `mring tune` on minsky-64 over small sizes: the table, the tuning file (contiguous
 * size ranges from 0 to INT64_MAX, configurations that `mring verify` accepts), the plot, bad input,
 * and the same bytes from one worker and from 2 MPI ranks (mpiexec; skipped without it).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim_cli.h"

#include "mpi_run.h"

/* Runs tune once for the whole file: -b 1K -e 64K -f 8 (1K, 8K, 64K). */
static struct cli_result tuned;
static char *tuned_out; /* a copy of tuned.out (the table test cuts tuned.out into lines) */

static int setup(void **state)
{
    if (sim_tmp_setup(state))
        return -1;
    const char *args[] = {"tune", "--platform", sim_repo_path("platforms/minsky-64.xml"), "-b", "1K", "-e", "64K",
                          "-f", "8", "--out", sim_tmp_path("tuning.json"), "--plot", sim_tmp_path("busbw.png"), NULL};
    if (cli_run(args, &tuned) || !tuned.exited || tuned.status != 0 || !(tuned_out = malloc(tuned.out_len + 1)))
        return -1;
    memcpy(tuned_out, tuned.out, tuned.out_len + 1);
    return 0;
}

static int teardown(void **state)
{
    cli_free(&tuned);
    free(tuned_out);
    return sim_tmp_teardown(state);
}

/* One row per size; the winner is never slower than either simulated baseline. */
static void table(void **state)
{
    int rows = 0;
    (void)state;
    for (char *line = strtok(tuned.out, "\n"); line; line = strtok(NULL, "\n")) {
        long long size;
        char algo[32];
        double vs_ring, vs_rab;
        if (line[0] == '#')
            continue;
        if (sscanf(line, "%lld %31s", &size, algo) != 2)
            fail_msg("unexpected row: %s", line);
        const char *x = strrchr(line, 'x'); /* "... 3.18x 1.00x" */
        assert_non_null(x);
        if (sscanf(strstr(line, "x ") ? strstr(line, "x ") - 8 : line, "%lfx %lfx", &vs_ring, &vs_rab) != 2)
            fail_msg("no speed-ups in: %s", line);
        assert_true(vs_ring >= 1.0 && vs_rab >= 1.0);
        assert_int_equal(size, 1024LL << (3 * rows));
        rows++;
    }
    assert_int_equal(rows, 3);
}

/* Latency-bound sizes on minsky-64 (1K, 8K, 64K): the pick is a multiring with recursive doubling (and
 * halving) per dimension, strictly faster in simulation than flat rabenseifner, the baseline the tuner
 * keeps on ties (at 64K: 49.28 us against 65.65 us; halving in every dimension only tied with it). */
static void latency_sizes_multiring(void **state)
{
    int rows = 0;
    (void)state;
    for (const char *line = tuned_out; (line = strstr(line, "\n")) != NULL && line[1];) {
        line++;
        if (line[0] == '#')
            continue;
        const char *cfg = strstr(line, "--algo ");
        const char *x = strstr(line, "x ");
        double vs_ring, vs_rab;
        assert_non_null(cfg);
        assert_non_null(x);
        if (strncmp(cfg, "--algo multiring", 16) || !strstr(cfg, "rd") ||
            sscanf(x - 8, "%lfx %lfx", &vs_ring, &vs_rab) != 2 || !(vs_rab > 1.2))
            fail_msg("want a multiring with rd dimensions, over 1.2x rabenseifner; got: %.*s", (int)strcspn(line, "\n"),
                     line);
        rows++;
    }
    assert_int_equal(rows, 3);
}

/* The tuning file covers every size once, and each configuration verifies. */
static void tuning_file(void **state)
{
    json_error_t je;
    json_t *doc = json_load_file(sim_tmp_path("tuning.json"), 0, &je), *e;
    size_t i;
    json_int_t next = 0, last = -1;
    (void)state;
    if (!doc)
        fail_msg("tuning.json: %s (line %d)", je.text, je.line);
    assert_int_equal(json_integer_value(json_object_get(doc, "mring_tuning")), 1);
    assert_int_equal(json_integer_value(json_object_get(doc, "ranks")), 256);
    json_array_foreach (json_object_get(doc, "entries"), i, e) {
        const char *algo = json_string_value(json_object_get(e, "algo"));
        const char *topo = json_string_value(json_object_get(e, "topo"));
        const char *rings = json_string_value(json_object_get(e, "rings"));
        const char *dims = json_string_value(json_object_get(e, "dim_algo"));
        struct cli_result r;
        assert_int_equal(json_integer_value(json_object_get(e, "min_size")), next);
        last = json_integer_value(json_object_get(e, "max_size"));
        next = last < INT64_MAX ? last + 1 : last;
        assert_true(algo && topo && rings && dims);
        const char *args[] = {"verify", "--topo", topo, "--algo", algo, "--rings", rings, "--count", "1000",
                              strcmp(algo, "multiring") ? NULL : "--dim-algo", dims, NULL};
        cli_run_ok(args, &r);
        assert_non_null(strstr(r.out, "ok "));
        cli_free(&r);
    }
    assert_true(i >= 1);
    assert_true(last == INT64_MAX);
    json_decref(doc);
}

static void plot(void **state)
{
    unsigned char sig[8] = {0};
    FILE *f = fopen(sim_tmp_path("busbw.png"), "rb");
    (void)state;
    assert_non_null(f);
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
}

static void bad_input(void **state)
{
    static const char *const cases[][8] = {
        {"tune", NULL},
        {"tune", "--platform", "/nonexistent/platform.xml", NULL},
        {"tune", "--platform", "PLATFORM", "--type", "float8", NULL},
        {"tune", "--platform", "PLATFORM", "-b", "1M", "-e", "1K"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *args[9] = {0};
        struct cli_result r;
        for (int j = 0; j < 8 && cases[i][j]; j++)
            args[j] = strcmp(cases[i][j], "PLATFORM") ? cases[i][j] : sim_repo_path("platforms/minsky-64.xml");
        assert_int_equal(cli_run(args, &r), 0);
        if (!r.exited || r.status != 2 || r.out_len != 0 || !strchr(r.err, '\n') || strchr(r.err, '\n')[1])
            fail_msg("%s: want exit 2, one line on stderr and nothing on stdout; got stderr: %s", r.cmd, r.err);
        cli_free(&r);
    }
}

/* The whole file's bytes, or fail. */
static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (!f || fseek(f, 0, SEEK_END) || (*len = (size_t)ftell(f), fseek(f, 0, SEEK_SET)) ||
        !(buf = malloc(*len + 1)) || fread(buf, 1, *len, f) != *len)
        fail_msg("cannot read %s", path);
    fclose(f);
    return buf;
}

/* out and the tuning file at path are the setup run's (default jobs), byte for byte. */
static void assert_same_as_setup(const struct cli_result *r, const char *path)
{
    size_t a, b;
    char *want = file_bytes(sim_tmp_path("tuning.json"), &a), *got = file_bytes(path, &b);
    if (!r->exited || r->status != 0)
        fail_msg("%s: exit %d, stderr: %s", r->cmd, r->status, r->err);
    assert_int_equal(r->out_len, tuned.out_len);
    assert_memory_equal(r->out, tuned_out, tuned.out_len);
    assert_int_equal(b, a);
    assert_memory_equal(got, want, a);
    free(want);
    free(got);
}

/* The time column (us) of each row of a tune table into us[]; their number. */
static int table_times(char *out, double *us, int cap)
{
    int n = 0;
    char *lines, *words;
    for (char *line = strtok_r(out, "\n", &lines); line && n < cap; line = strtok_r(NULL, "\n", &lines)) {
        char *tok[64];
        int k = 0;
        if (line[0] == '#')
            continue;
        for (char *p = strtok_r(line, " ", &words); p && k < 64; p = strtok_r(NULL, " ", &words))
            tok[k++] = p;
        if (k >= 6)
            us[n++] = atof(tok[k - 4]);
    }
    return n;
}

/* --exhaustive simulates every candidate and variant, a superset of what the tuner simulates: at every size
 * its best is no slower, and the tuner's pick is among what it simulated (4 ranks, 1K..4M). */
static void exhaustive_bound(void **state)
{
    struct cli_result a, b;
    double ta[16], tb[16];
    (void)state;
    const char *gen[] = {"platform", "cluster", "--nodes", "4", "-o", sim_tmp_path("c4.xml"), NULL};
    cli_run_ok(gen, &a);
    cli_free(&a);
    const char *tune[] = {"tune", "--platform", sim_tmp_path("c4.xml"), "-b", "1K", "-e", "4M", "-f", "16", NULL};
    const char *all[] = {"tune", "--platform", sim_tmp_path("c4.xml"), "-b", "1K", "-e", "4M", "-f", "16",
                         "--exhaustive", NULL};
    cli_run_ok(tune, &a);
    cli_run_ok(all, &b);
    int na = table_times(a.out, ta, 16), nb = table_times(b.out, tb, 16);
    assert_int_equal(na, 4);
    assert_int_equal(nb, na);
    for (int i = 0; i < na; i++)
        if (tb[i] > ta[i])
            fail_msg("size row %d: exhaustive %.4f us is slower than the tuner's %.4f us", i, tb[i], ta[i]);
    cli_free(&a);
    cli_free(&b);
}

/* One DGX-1 node at 512 MB: the fastest configuration combines 1 MiB pieces with chunks (4 rings on the
 * cube-mesh's cycles, 8 chunks: 14027.78 us simulated; pieces alone 14606.19, the tuner's pick before it
 * combined them).  The tuner reaches a configuration with both, no slower than that one. */
static void pieces_and_chunks(void **state)
{
    struct cli_result a, b;
    double picked, direct;
    (void)state;
    const char *gen[] = {"platform", "dgx1", "--nodes", "1", "--racks", "1", "-o", sim_tmp_path("d1.xml"), NULL};
    cli_run_ok(gen, &a);
    cli_free(&a);
    const char *tune[] = {"tune", "--platform", sim_tmp_path("d1.xml"), "-b", "512M", "-e", "512M", NULL};
    const char *sim[] = {"simulate", "--platform", sim_tmp_path("d1.xml"), "--rings", "4", "--chunks", "8",
                         "--segment", "1M", "--embed", "auto", "-b", "512M", "-e", "512M", NULL};
    cli_run_ok(tune, &a);
    cli_run_ok(sim, &b);
    assert_non_null(strstr(a.out, "--segment 1M --chunks "));
    const char *row = strstr(b.out, "\n     536870912");
    assert_non_null(row);
    assert_int_equal(sscanf(row, "%*s %*s %*s %*s %lf", &direct), 1); /* size, count, type, redop, time */
    assert_int_equal(table_times(a.out, &picked, 1), 1);
    if (picked > direct)
        fail_msg("picked %.2f us is slower than --rings 4 --chunks 8 --segment 1M --embed auto (%.2f us)", picked,
                 direct);
    cli_free(&a);
    cli_free(&b);
}

/* One worker, and 2 MPI ranks each tuning its share, give the setup run's table and file exactly. */
static void spread(void **state)
{
    struct cli_result r;
    double secs;
    (void)state;
    const char *one[] = {"tune", "--platform", sim_repo_path("platforms/minsky-64.xml"), "-b", "1K", "-e", "64K",
                         "-f", "8", "--jobs", "1", "--out", sim_tmp_path("one.json"), NULL};
    cli_run_ok(one, &r);
    assert_same_as_setup(&r, sim_tmp_path("one.json"));
    cli_free(&r);
    if (system("command -v mpiexec >/dev/null 2>&1") != 0)
        skip();
    const char *mpi[] = {"mpiexec", "-n", "2", cli_bin(), "tune", "--platform",
                         sim_repo_path("platforms/minsky-64.xml"), "-b", "1K", "-e", "64K", "-f", "8", "--out",
                         sim_tmp_path("mpi.json"), NULL};
    assert_int_equal(mpi_run_input(mpi, NULL, 300, &r, &secs), 0);
    if (strstr(r.err, "built without MPI")) { /* or a sanitizer build: ASan refuses MPICH's RTLD_DEEPBIND load */
        cli_free(&r);
        skip();
    }
    assert_same_as_setup(&r, sim_tmp_path("mpi.json"));
    cli_free(&r);
}

/* A tune killed (Ctrl-C, kill -9) takes its workers with it: they simulated on for minutes, orphaned.  The tune
 * runs sizes of 16 MiB and up (seconds each) on 2 workers; once both exist the parent is killed, and the
 * workers (found by their parent's pid in /proc) must be gone, or zombies, within 60 s. */
static void workers_end_with_tune(void **state)
{
    static char cmd[4096], out[1 << 14];
    (void)state;
    snprintf(cmd, sizeof cmd,
             "kids() { awk -v p=\"$1\" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null; }\n"
             "alive() { for k in $1; do [ -r /proc/$k/stat ] && awk '$3 != \"Z\" { f = 1 } END { exit !f }' "
             "/proc/$k/stat 2>/dev/null && return 0; done; return 1; }\n"
             "'%s' tune --platform '%s' -b 16M -e 1G -f 4 --jobs 2 >/dev/null 2>&1 & p=$!\n"
             "i=0; while [ \"$(kids $p | wc -w)\" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done\n"
             "w=$(kids $p | tr '\\n' ' '); [ \"$(echo $w | wc -w)\" -ge 2 ] || { kill -9 $p; echo \"no workers seen\"; exit 1; }\n"
             "kill -9 $p; wait $p 2>/dev/null\n"
             "i=0; while alive \"$w\" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done\n"
             "alive \"$w\" && { kill -9 $w; echo \"workers $w outlived the tune\"; exit 1; }\n"
             "echo \"exit 0\"",
             cli_bin(), sim_repo_path("platforms/minsky-64.xml"));
    if (cli_shell(cmd, out, sizeof out) != 0 || sim_last_exit(out) != 0)
        fail_msg("%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(table), cmocka_unit_test(latency_sizes_multiring),
                                       cmocka_unit_test(tuning_file),
                                       cmocka_unit_test(plot), cmocka_unit_test(bad_input),
                                       cmocka_unit_test(spread), cmocka_unit_test(exhaustive_bound),
                                       cmocka_unit_test(pieces_and_chunks), cmocka_unit_test(workers_end_with_tune)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_fuzz_replay.c - every fuzz target (fuzz/README.md) run, without libFuzzer, on its seed corpus
 * (fuzz/corpus/READER/) and on the inputs that once broke a contract (fuzz/regress/READER/): each
 * target checks its reader's contract on every input and aborts when it breaks, so a reader that
 * regresses on a case fuzzing found fails here.  The replays are build/tests/fuzz_replay_READER,
 * beside $MRING_BIN's build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli_run.h"

#include <dirent.h>

/* build/bin/mring -> build/tests/fuzz_replay_<name> */
static void replay_path(const char *name, char *buf, size_t len)
{
    const char *bin = cli_bin(), *slash = strrchr(bin, '/');
    int dir = slash ? (int)(slash - bin) : 0;
    snprintf(buf, len, "%.*s%s../tests/fuzz_replay_%s", dir, bin, dir ? "/" : "", name);
}

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Regular files directly in dir (-1 when it cannot be opened). */
static int regular_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char p[1024 + sizeof e->d_name];
        struct stat st;
        snprintf(p, sizeof p, "%.1023s/%s", dir, e->d_name);
        n += !stat(p, &st) && S_ISREG(st.st_mode);
    }
    closedir(d);
    return n;
}

static void replay(const char *name)
{
    char prog[1024], cmd[4096], out[8192], regress[256];
    int files = 0;
    replay_path(name, prog, sizeof prog);
    snprintf(regress, sizeof regress, "fuzz/regress/%s", name);
    assert_true(is_dir("fuzz/corpus") && access(prog, X_OK) == 0);
    snprintf(cmd, sizeof cmd, "fuzz/corpus/%s", name);
    files = regular_files(cmd);
    if (files < 3) /* seeds of every kind the reader takes: an empty corpus would replay nothing */
        fail_msg("%s holds %d seed files; expected 3 or more", cmd, files);
    snprintf(cmd, sizeof cmd, "timeout 600 %s fuzz/corpus/%s %s 2>&1", prog, name, is_dir(regress) ? regress : "");
    int st = cli_shell(cmd, out, sizeof out);
    if (st != 0)
        fail_msg("%s: status %d:\n%s", cmd, st, out);
}

static void test_config(void **state) { replay("config"); }
static void test_tuning(void **state) { replay("tuning"); }
static void test_workload(void **state) { replay("workload"); }
static void test_platform(void **state) { replay("platform"); }

/* The replay itself can fail: an argument it cannot read is exit 2, named. */
static void test_replay_unreadable(void **state)
{
    char prog[1024], cmd[2048], out[1024];
    replay_path("config", prog, sizeof prog);
    snprintf(cmd, sizeof cmd, "%s fuzz/corpus/no-such-dir 2>&1", prog);
    int st = cli_shell(cmd, out, sizeof out);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    assert_non_null(strstr(out, "cannot read fuzz/corpus/no-such-dir"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),   cmocka_unit_test(test_tuning),
        cmocka_unit_test(test_workload), cmocka_unit_test(test_platform),
        cmocka_unit_test(test_replay_unreadable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

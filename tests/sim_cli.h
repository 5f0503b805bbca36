/* sim_cli.h - what tests/test_sim*.c share on top of cli_run.h: a run that must succeed, paths of
 * the repository's files (found from $MRING_BIN, so the tests do not depend on the cwd) and a
 * scratch directory per test program.  Header-only: each test_*.c is one translation unit.
 * Include after <cmocka.h>.
 */
#ifndef MRING_TESTS_SIM_CLI_H
#define MRING_TESTS_SIM_CLI_H

#include <dirent.h>
#include <limits.h>

#include "cli_run.h"

/* the repository root: the nearest directory above $MRING_BIN holding SConstruct and platforms/
 * (build/bin/mring, or build/<mode>/bin/mring); the cwd when there is none */
static inline const char *sim_repo_root(void)
{
    static char root[PATH_MAX];
    char probe[PATH_MAX + 64];
    if (root[0])
        return root;
    if (!realpath(cli_bin(), root))
        return strcpy(root, ".");
    for (char *slash; (slash = strrchr(root, '/')) != NULL;) {
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/platforms/minsky-64.xml", root);
        if (access(probe, R_OK) == 0 && (snprintf(probe, sizeof probe, "%s/SConstruct", root), access(probe, R_OK) == 0))
            return root;
    }
    return strcpy(root, ".");
}

/* path (static buffer, one of 4 rotating) of a file relative to the repository root */
static inline const char *sim_repo_path(const char *rel)
{
    static char buf[4][PATH_MAX + 256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", sim_repo_root(), rel);
    return p;
}

/* the scratch directory: made by sim_tmp_setup, emptied and removed by sim_tmp_teardown */
static char sim_tmp[PATH_MAX];

static inline int sim_tmp_setup(void **state)
{
    const char *dir = getenv("TMPDIR");
    snprintf(sim_tmp, sizeof sim_tmp, "%s/mring-test-sim-XXXXXX", dir && *dir ? dir : "/tmp");
    return mkdtemp(sim_tmp) ? 0 : -1;
}

static inline int sim_tmp_teardown(void **state)
{
    char path[PATH_MAX + 256];
    DIR *d = opendir(sim_tmp);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", sim_tmp, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(sim_tmp) == 0 ? 0 : -1;
}

/* path (static buffer, one of 4 rotating) of a file in the scratch directory */
static inline const char *sim_tmp_path(const char *name)
{
    static char buf[4][PATH_MAX + 256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", sim_tmp, name);
    return p;
}

/* For group setups (no cmocka assertions there): run args; 0 when it exited 0, else -1 after printing
 * the command and its stderr. */
static inline int sim_setup_run(const char *const *args)
{
    struct cli_result r = {0};
    int ok = cli_run(args, &r) == 0 && r.exited && r.status == 0;
    if (!ok)
        print_error("%s failed: %s\n", r.cmd, r.err ? r.err : "");
    cli_free(&r);
    return ok ? 0 : -1;
}

#endif

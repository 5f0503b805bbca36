/* sim_cli.h - what tests/test_sim*.c share on top of cli_run.h: a run that must succeed, paths of
 * the repository's files (found from $MRING_BIN, so the tests do not depend on the cwd), a
 * scratch directory per test program, a whole file read and a shell command that must succeed, the links of a
 * platform's route and a link's bandwidth, and a CSV line's fields.  Header-only: each test_*.c is one translation unit.
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

/* Group setup: the scratch directory with c2.xml and c4.xml, `mring platform cluster` of 2 and 4 nodes
 * (contention-free crossbars: every rank its own links).  0, or -1 when one cannot be made. */
static inline int sim_crossbars_setup(void **state)
{
    char c2[PATH_MAX + 256], c4[PATH_MAX + 256];
    const char *two[] = {"platform", "cluster", "--nodes", "2", "-o", c2, NULL},
               *four[] = {"platform", "cluster", "--nodes", "4", "-o", c4, NULL};
    if (sim_tmp_setup(state))
        return -1;
    snprintf(c2, sizeof c2, "%s", sim_tmp_path("c2.xml"));
    snprintf(c4, sizeof c4, "%s", sim_tmp_path("c4.xml"));
    return sim_setup_run(two) || sim_setup_run(four);
}

enum { SIM_MAX_LINKS = 32 };

/* The link names (without _UP/_DOWN) of `mring route --platform platform from to`, in route order,
 * into names; their count.  cmd gets the command line.  Fails the test on a bad run or no links. */
static inline int sim_route_links(const char *platform, const char *from, const char *to, char names[][64],
                                  char *cmd, size_t cmdlen)
{
    const char *args[] = {"route", "--platform", platform, from, to, NULL};
    struct cli_result r = {0};
    int n = 0;
    cli_run_ok(args, &r);
    snprintf(cmd, cmdlen, "%s", r.cmd);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#')
            continue;
        if (n == SIM_MAX_LINKS || sscanf(l, "%63s", names[n]) != 1)
            fail_msg("%s: bad link line '%s'", cmd, l);
        char *dir = strrchr(names[n], '_');
        if (dir && (!strcmp(dir, "_UP") || !strcmp(dir, "_DOWN")))
            *dir = '\0';
        n++;
    }
    cli_free(&r);
    if (n == 0)
        fail_msg("%s: no links", cmd);
    return n;
}

/* The bandwidth (B/s) of link `link` (its name without _UP/_DOWN) on the route of `mring route --platform
 * platform from to`.  Fails the test when the route has no such link or gives it in a unit other than GBps. */
static inline double sim_link_bw(const char *platform, const char *from, const char *to, const char *link)
{
    const char *args[] = {"route", "--platform", platform, from, to, NULL};
    struct cli_result r = {0};
    double bw = 0;
    char unit[16] = "";
    size_t len = strlen(link);
    cli_run_ok(args, &r);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (!strncmp(l, link, len) && l[len] == '_' && sscanf(l, "%*s %lf %15s", &bw, unit) != 2)
            fail_msg("%s: cannot read the bandwidth of '%s'", r.cmd, l);
    if (!(bw > 0) || strcmp(unit, "GBps") != 0)
        fail_msg("%s: no %s link in GBps in:\n%s", r.cmd, link, r.out);
    cli_free(&r);
    return bw * 1e9;
}

/* The whole file at path (malloc'd; the caller frees), read with cli_run.h's cli_slurp; fails the test when
 * it cannot be read. */
static inline char *sim_read_file(const char *path)
{
    size_t len;
    int fd = open(path, O_RDONLY);
    char *text = fd >= 0 ? cli_slurp(fd, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

/* Run cmd with /bin/sh (cli_shell); fails the test, with its output, unless it exits 0. */
static inline void sim_shell_ok(const char *cmd)
{
    static char out[1 << 14];
    if (cli_shell(cmd, out, sizeof out) != 0)
        fail_msg("%s failed: %s", cmd, out);
}

/* The status a shell command ending in `echo "exit $?"` printed last in out; fails the test when there is none. */
static inline int sim_last_exit(const char *out)
{
    int status = -1;
    const char *e = strstr(out, "exit ");
    while (e && strstr(e + 1, "exit "))
        e = strstr(e + 1, "exit ");
    if (!e || sscanf(e, "exit %d", &status) != 1)
        fail_msg("no exit status in: %s", out);
    return status;
}

/* How many of the n names contain part. */
static inline int sim_count_containing(char names[][64], int n, const char *part)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += strstr(names[i], part) != NULL;
    return k;
}

#endif

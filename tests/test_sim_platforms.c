/* test_sim_platforms.c - the platforms behind `mring simulate`, through the mring binary:
 * routes on minsky-64 (NVLink, X-bus, leaf-spine-leaf), the committed platform files equal the
 * generator's output byte for byte, bad platforms and bad --topo (one stderr line, exit 2), and
 * simulate's --breakdown and --trace.  Accuracy and bandwidth bounds are in test_sim.c.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim_cli.h"

#define MINSKY "platforms/minsky-64.xml"

/* ---- routes on minsky-64 ---- */

/* the link names of `mring route --platform minsky-64 from to`; the count */
static int route_links(const char *from, const char *to, char names[][64], char *cmd, size_t cmdlen)
{
    return sim_route_links(sim_repo_path(MINSKY), from, to, names, cmd, cmdlen);
}

static void test_route_nvlink(void **state)
{
    char names[SIM_MAX_LINKS][64], cmd[1024];
    int n = route_links("0", "1", names, cmd, sizeof cmd);
    if (sim_count_containing(names, n, "-nv-") != n)
        fail_msg("%s: %d links, %d of them NVLink (-nv-); want NVLink only", cmd, n,
                 sim_count_containing(names, n, "-nv-"));
}

static void test_route_xbus(void **state)
{
    char names[SIM_MAX_LINKS][64], cmd[1024];
    int n = route_links("0", "2", names, cmd, sizeof cmd);
    if (sim_count_containing(names, n, "xbus") < 1 || sim_count_containing(names, n, "-rail") != 0)
        fail_msg("%s: %d X-bus and %d NIC port links, want at least 1 X-bus and no NIC port", cmd,
                 sim_count_containing(names, n, "xbus"), sim_count_containing(names, n, "-rail"));
}

static void test_route_leaf_spine_leaf(void **state)
{
    static const char *const want[] = {"n0-rail0", "r0-uplink", "r1-uplink", "n16-rail0"};
    char names[SIM_MAX_LINKS][64], cmd[1024];
    int n = route_links("n0-gpu0", "n16-gpu0", names, cmd, sizeof cmd), k = 0;
    for (int i = 0; i < n && k < 4; i++)
        k += !strcmp(names[i], want[k]);
    if (k != 4)
        fail_msg("%s: links do not cross n0-rail0, r0-uplink, r1-uplink, n16-rail0 in that order (%s not found)", cmd,
                 want[k]);
}

/* ---- the committed platforms are the generator's output ---- */

static char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    char *s = fd >= 0 ? cli_slurp(fd, len) : NULL;
    if (fd >= 0)
        close(fd);
    if (!s)
        fail_msg("cannot read %s", path);
    return s;
}

static void check_generated(const char *kind, const char *committed)
{
    const char *out = sim_tmp_path(kind), *args[] = {"platform", kind, "-o", out, NULL};
    struct cli_result r = {0};
    size_t nw, ng, i = 0, line = 1;
    cli_run_ok(args, &r);
    char *want = read_file(sim_repo_path(committed), &nw), *got = read_file(out, &ng);
    for (; i < nw && i < ng && want[i] == got[i]; i++)
        line += want[i] == '\n';
    if (i < nw || i < ng)
        fail_msg("%s: %s (%zu bytes) differs from %s (%zu bytes) at byte %zu, line %zu", r.cmd, out, ng, committed,
                 nw, i, line);
    free(want);
    free(got);
    cli_free(&r);
}

static void test_committed_minsky(void **state) { check_generated("minsky", MINSKY); }
static void test_committed_dgx1(void **state) { check_generated("dgx1", "platforms/dgx1-p100-32.xml"); }
static void test_committed_bigbasin(void **state) { check_generated("bigbasin", "platforms/bigbasin-32.xml"); }
static void test_committed_dgxh100(void **state) { check_generated("dgxh100", "platforms/dgxh100-32.xml"); }

/* ---- bad platforms: one stderr line naming the problem, exit 2, empty stdout ---- */

static const char bad_xml[] = "<?xml version=\"1.0\"?>\n"
                              "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                              "<platform version=\"4.1\">\n"
                              "  <zone id=\"z\" routing=\"Full\">\n"
                              "    <host id=\"a\" speed=\"1Gf\"/>\n"
                              "    <host id=\"b\" speed=\"1Gf\"></hots>\n" /* line 6: bad end tag */
                              "  </zone>\n"
                              "</platform>\n";

/* a valid two-host platform; mid goes inside the root zone */
#define TWO_HOSTS(mid)                                                                                   \
    "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"          \
    "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n" mid                               \
    "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"                                         \
    "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n  </zone>\n</platform>\n"

static const char norank_xml[] = TWO_HOSTS("    <prop id=\"mring_topo\" value=\"2\"/>\n"
                                           "    <host id=\"a\" speed=\"1Gf\"/>\n    <host id=\"b\" speed=\"1Gf\"/>\n");
static const char notopo_xml[] = TWO_HOSTS("    <host id=\"a\" speed=\"1Gf\"><prop id=\"mring_rank\" value=\"0\"/></host>\n"
                                           "    <host id=\"b\" speed=\"1Gf\"><prop id=\"mring_rank\" value=\"1\"/></host>\n");

struct bad_platform {
    const char *name, *file, *content; /* content NULL: the file does not exist */
    const char *mention[3];            /* stderr must contain each ("@" = the file's path) */
};

static const struct bad_platform bad_platforms[] = {
    {"bad_platform_malformed", "broken.xml", bad_xml, {"@", ":6|line 6"}},
    {"bad_platform_missing", "missing.xml", NULL, {"@"}},
    {"bad_platform_no_rank_hosts", "norank.xml", norank_xml, {"mring_rank"}},
    {"bad_platform_no_mring_topo", "notopo.xml", notopo_xml, {"mring_topo"}},
};

/* does s hold the number n as a whole token (not part of a longer digit run)? */
static int has_number(const char *s, const char *n)
{
    for (const char *p = s; (p = strstr(p, n)) != NULL; p++)
        if ((p == s || !isdigit((unsigned char)p[-1])) && !isdigit((unsigned char)p[strlen(n)]))
            return 1;
    return 0;
}

/* does s contain one of the '|'-separated alternatives of want? ("@" stands for path, "#N" for
 * the number N as a whole token) */
static int mentions(const char *s, const char *want, const char *path)
{
    char buf[128];
    for (const char *w = want; *w; w += strcspn(w, "|") + (w[strcspn(w, "|")] == '|')) {
        snprintf(buf, sizeof buf, "%.*s", (int)strcspn(w, "|"), w);
        if (buf[0] == '#' ? has_number(s, buf + 1) : strstr(s, strcmp(buf, "@") ? buf : path) != NULL)
            return 1;
    }
    return 0;
}

/* run args; require exit 2, one stderr line mentioning each of mention[] (no backtrace), no stdout */
static void expect_error(const char *const *args, const char *const *mention, const char *path)
{
    struct cli_result r = {0};
    char how[64];
    if (cli_run(args, &r) != 0)
        fail_msg("could not run %s (%s)", r.cmd, cli_bin());
    const char *nl = strchr(r.err, '\n');
    int ok = r.exited && r.status == 2 && nl && nl == r.err + r.err_len - 1 && r.out_len == 0 &&
             !strstr(r.err, "backtrace") && !strstr(r.err, "Backtrace");
    for (int i = 0; ok && i < 3 && mention[i]; i++)
        ok = mentions(r.err, mention[i], path);
    if (!ok)
        fail_msg("%s: want exit 2, one stderr line mentioning %s%s%s%s%s, no stdout; got %s, stderr (%zu bytes): "
                 "%.600s, stdout %zu bytes",
                 r.cmd, mention[0], mention[1] ? " and " : "", mention[1] ? mention[1] : "", mention[2] ? " and " : "",
                 mention[2] ? mention[2] : "", cli_how(&r, how, sizeof how), r.err_len, r.err, r.out_len);
    cli_free(&r);
}

static void test_bad_platform(void **state)
{
    const struct bad_platform *c = *state;
    const char *path = sim_tmp_path(c->file);
    FILE *f = c->content ? fopen(path, "w") : NULL;
    if (c->content && (!f || fputs(c->content, f) < 0 || fclose(f) != 0))
        fail_msg("cannot write %s", path);
    const char *sim[] = {"simulate", "--platform", path, "-b", "1K", "-e", "1K", NULL};
    const char *model[] = {"model", "--platform", path, "-b", "1K", "-e", "1K", NULL};
    const char *route[] = {"route", "--platform", path, "0", "1", NULL};
    expect_error(sim, c->mention, path);
    expect_error(model, c->mention, path);
    expect_error(route, c->mention, path);
}

static void test_topo_rank_count(void **state)
{
    const char *const mention[] = {"4x2", "#8", "#256"};
    const char *sim[] = {"simulate", "--platform", sim_repo_path(MINSKY), "--topo", "4x2", "-b", "1K", "-e", "1K",
                         NULL};
    const char *model[] = {"model", "--platform", sim_repo_path(MINSKY), "--topo", "4x2", "-b", "1K", "-e", "1K",
                           NULL};
    expect_error(sim, mention, "");
    expect_error(model, mention, "");
}

static void test_route_unknown_host(void **state)
{
    const char *const mention[] = {"no-such-host", NULL, NULL};
    const char *args[] = {"route", "--platform", sim_repo_path(MINSKY), "n0-gpu0", "no-such-host", NULL};
    expect_error(args, mention, "");
}

/* ---- --breakdown and --trace ---- */

static void test_breakdown(void **state)
{
    const char *args[] = {"simulate", "--platform", sim_repo_path(MINSKY), "--topo", "4x16x4", "-b", "1M", "-e",
                          "1M", "--breakdown", NULL};
    static const char *const phases[] = {"reduce-scatter", "allgather"};
    struct cli_result r = {0};
    int seen[2][4] = {{0}};
    char dim[16];
    cli_run_ok(args, &r);
    char *out = strdup(r.out);
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        for (int p = 0; p < 2; p++)
            for (int d = 1; d <= 3; d++)
                seen[p][d] |= strstr(l, phases[p]) && strstr(l, (snprintf(dim, sizeof dim, "dim %d", d), dim));
    free(out);
    for (int p = 0; p < 2; p++)
        for (int d = 1; d <= 3; d++)
            if (!seen[p][d])
                fail_msg("%s: no line with '%s' and 'dim %d' in:\n%s", r.cmd, phases[p], d, r.out);
    cli_free(&r);
}

static void test_trace(void **state)
{
    enum { P = 256 };
    const char *path = sim_tmp_path("trace.json");
    const char *args[] = {"simulate", "--platform", sim_repo_path(MINSKY), "-b", "1M", "-e", "1M", "--trace", path,
                          NULL};
    struct cli_result r = {0};
    json_error_t jerr;
    int seen[P] = {0}, missing = 0, first = -1;
    cli_run_ok(args, &r);
    json_t *root = json_load_file(path, 0, &jerr), *events = json_object_get(root, "traceEvents"), *e;
    if (!root)
        fail_msg("%s: %s is not complete JSON: %s at line %d column %d", r.cmd, path, jerr.text, jerr.line,
                 jerr.column);
    if (!json_is_array(events))
        fail_msg("%s: %s has no \"traceEvents\" array", r.cmd, path);
    size_t i;
    json_array_foreach(events, i, e)
    {
        json_t *pid = json_object_get(e, "pid");
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (!json_is_integer(pid) || json_integer_value(pid) < 0 || json_integer_value(pid) >= P)
            fail_msg("%s: event %zu of %s has no pid in 0..%d", r.cmd, i, path, P - 1);
        if (ph && strcmp(ph, "M") != 0) /* metadata (process and thread names) are not the rank's work */
            seen[json_integer_value(pid)] = 1;
    }
    for (int p = P - 1; p >= 0; p--)
        if (!seen[p] && ++missing)
            first = p;
    if (missing)
        fail_msg("%s: %d of %d ranks (first: pid %d) have no event in %s", r.cmd, missing, P, first, path);
    json_decref(root);
    cli_free(&r);
}

int main(void)
{
    enum { NBAD = sizeof bad_platforms / sizeof bad_platforms[0] };
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_route_nvlink),       cmocka_unit_test(test_route_xbus),
        cmocka_unit_test(test_route_leaf_spine_leaf), cmocka_unit_test(test_committed_minsky),
        cmocka_unit_test(test_committed_dgx1),     cmocka_unit_test(test_committed_bigbasin),
        cmocka_unit_test(test_committed_dgxh100),
        cmocka_unit_test(test_topo_rank_count),    cmocka_unit_test(test_route_unknown_host),
        cmocka_unit_test(test_breakdown),          cmocka_unit_test(test_trace),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    struct CMUnitTest tests[NFIXED + NBAD];
    if (access(cli_bin(), X_OK) != 0) {
        fprintf(stderr, "test_sim_platforms: %s is not executable; build it (scons -Q) or set MRING_BIN\n", cli_bin());
        return 1;
    }
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < NBAD; i++)
        tests[NFIXED + i] = (struct CMUnitTest){bad_platforms[i].name, test_bad_platform, NULL, NULL,
                                                (void *)&bad_platforms[i]};
    return cmocka_run_group_tests_name("sim_platforms", tests, sim_tmp_setup, sim_tmp_teardown);
}

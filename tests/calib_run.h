/* calib_run.h - running mring-calibrate for a test: the binary beside $MRING_BIN (skipping without it or
 * mpiexec), runs under a deadline, exit-status and JSON checks.  Header-only; include after cmocka.h,
 * jansson.h, sim_cli.h and mpi_run.h, with LIMIT_S (seconds a run may take) defined. */
#ifndef MRING_TESTS_CALIB_RUN_H
#define MRING_TESTS_CALIB_RUN_H

#include <math.h>
#include <string.h>

/* build/bin/<name> next to $MRING_BIN, or NULL when missing */
static inline const char *bin_file(const char *name)
{
    static char path[PATH_MAX + 256];
    char bin[PATH_MAX], *slash;
    if (!realpath(cli_bin(), bin) || !(slash = strrchr(bin, '/')))
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/%s", bin, name);
    return access(path, X_OK) == 0 ? path : NULL;
}

/* mring-calibrate, skipping the test when it (or mpiexec, when mpi) is missing */
static inline const char *calibrate_bin(int mpi)
{
    const char *p = bin_file("mring-calibrate");
    if (!p || (mpi && system("command -v mpiexec >/dev/null 2>&1") != 0))
        skip();
    return p;
}

/* run argv (argv[0] from PATH) with `in` on stdin (NULL: /dev/null) and MPIEXEC_TIMEOUT=LIMIT_S
 * (mpi_run.h).  The caller frees r. */
static inline void run(const char *const *argv, const char *in, struct cli_result *r)
{
    double secs;
    if (mpi_run_input(argv, in, LIMIT_S, r, &secs))
        fail_msg("could not run %s", r->cmd);
    print_message("%s: %s\n", r->cmd, r->exited ? "exited" : "killed");
}

static inline void want_exit0(const struct cli_result *r)
{
    char how[64];
    if (!r->exited || r->status != 0)
        fail_msg("%s: want exit 0, got %s\nstdout: %.2000s\nstderr: %.2000s", r->cmd, cli_how(r, how, sizeof how),
                 r->out, r->err);
}

/* a refusal: exit `status`, exactly one stderr line holding `word`, nothing on stdout */
static inline void want_refusal(const struct cli_result *r, int status, const char *word)
{
    char how[64];
    if (!r->exited || r->status != status || !cli_one_line(r->err) || !strstr(r->err, word) || r->out[0])
        fail_msg("%s: want exit %d, no stdout and one stderr line naming '%s'; got %s, stdout:\n%.2000s\nstderr:\n%s",
                 r->cmd, status, word, cli_how(r, how, sizeof how), r->out, r->err);
}

/* bad input: want_refusal with exit 2 */
static inline void want_usage_error(const struct cli_result *r, const char *word)
{
    want_refusal(r, 2, word);
}

static inline json_t *parse_json(const struct cli_result *r)
{
    json_error_t e;
    json_t *j = json_loads(r->out, 0, &e);
    if (!j || !json_is_object(j))
        fail_msg("%s: stdout is not a JSON object (%s, line %d):\n%.2000s", r->cmd, e.text, e.line, r->out);
    return j;
}

static inline double num(const json_t *o, const char *key, const char *cmd)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("%s: no number \"%s\"", cmd, key);
    return json_number_value(v);
}

static inline int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

#endif

/* cli_sg.c - what the SimGrid commands (simulate, tune, route, model --platform) share: --cfg and loading. */
#include "cli.h"

#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SimGrid 3.32 options whose bad values stop the process (xbt_die, a segfault, a division by 0 or a run that never
 * ends) instead of raising an error mring could report: their values, checked here.  Models: the lists
 * SimGrid's own message gives, less the network models that abort on every mring platform (found by
 * trying them); numbers: finite, above lo (or >= lo when `closed`) and below hi where hi > lo (maxmin/precision
 * from 1 aborts: "The Impossible Did Happen"); maxmin/concurrency-limit: -1 (none) or a whole number >= 1 (0
 * leaves every flow unstarted). */
static const struct {
    const char *name, *values;
} cfg_models[] = {{"network/model", "LV08,SMPI,IB,CM02"}, /* Constant has no links, ns-3 needs its own set-up:
                                                            both abort on mring's platforms */
                  {"host/model", "default,compound,ptask_L07"},
                  {"cpu/model", "Cas01"},
                  {"network/optim", "Lazy,Full"},
                  {"network/solver", "fairbottleneck,maxmin"}, /* bmf aborts on mring's platforms */
                  {"cpu/optim", "Lazy,TI,Full"},
                  {"contexts/factory", "thread,ucontext,raw,boost"}}; /* another aborts at start */
static const struct {
    const char *name;
    double lo, hi;
    int closed;
} cfg_numbers[] = {{"maxmin/precision", 0, 1, 0},         {"surf/precision", 0, 0, 0},
                   {"precision/timing", 0, 0, 0},         {"precision/work-amount", 0, 0, 0},
                   {"network/bandwidth-factor", 0, 0, 0}, {"network/latency-factor", 0, 0, 1},
                   {"network/weight-S", 0, 0, 1}};

static void check_cfg(const char *cmd, const char *arg)
{
    const char *v = strchr(arg, ':') + 1;
    size_t n = (size_t)(v - 1 - arg);
    for (size_t i = 0; i < sizeof cfg_models / sizeof *cfg_models; i++) {
        const char *list = cfg_models[i].values;
        if (strlen(cfg_models[i].name) != n || strncmp(arg, cfg_models[i].name, n))
            continue;
        for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',') /* each name of the list */
            if (strcspn(p, ",") == strlen(v) && !strncmp(p, v, strlen(v)))
                return;
        cli_usage_error(cmd, "--cfg %s: '%s' is unknown; expected one of %s", cfg_models[i].name, v, list);
    }
    for (size_t i = 0; i < sizeof cfg_numbers / sizeof *cfg_numbers; i++) {
        char *end;
        double x;
        if (strlen(cfg_numbers[i].name) != n || strncmp(arg, cfg_numbers[i].name, n))
            continue;
        errno = 0;
        x = strtod(v, &end);
        double lo = cfg_numbers[i].lo, hi = cfg_numbers[i].hi;
        if (end == v || *end || errno || !isfinite(x) || !(cfg_numbers[i].closed ? x >= lo : x > lo) ||
            (hi > lo && x >= hi)) {
            char below[64] = "";
            if (hi > lo)
                snprintf(below, sizeof below, " and < %g", hi);
            cli_usage_error(cmd, "--cfg %s: '%s' is not valid; expected a finite number %s %g%s", cfg_numbers[i].name,
                            v, cfg_numbers[i].closed ? ">=" : ">", lo, below);
        }
    }
    if (!strncmp(arg, "maxmin/concurrency-limit:", n + 1)) {
        char *end;
        errno = 0;
        long k = strtol(v, &end, 10);
        if (end == v || *end || errno || (k != -1 && k < 1) || k > INT32_MAX)
            cli_usage_error(cmd, "--cfg maxmin/concurrency-limit: '%s' is not valid; expected -1 (no limit) or a whole "
                                 "number >= 1", v);
    }
}

int cli_cfg_opt(const char *cmd, cli_cfgs_t *c, int opt, const char *arg)
{
    if (opt == OPT_PROFILE) {
        cli_profile_parse(cmd, arg, &c->profile);
        c->has_profile = 1;
        return 1;
    }
    if (opt != OPT_CFG)
        return 0;
    if (!strchr(arg, ':') || c->n == CLI_MAX_CFGS)
        cli_usage_error(cmd, "--cfg '%s' is not valid; expected NAME:VALUE, e.g. network/model:LV08 (at most %d)", arg,
                        CLI_MAX_CFGS);
    check_cfg(cmd, arg);
    snprintf(c->buf[c->n], sizeof c->buf[0], "--cfg=%s", arg);
    c->argv[c->n] = c->buf[c->n];
    c->n++;
    return 1;
}

void cli_platform_load(const char *cmd, const cli_cfgs_t *cfgs, const char *file, mring_platform_t *pf)
{
    char err[1024];
    int rc = mring_platform_load(cfgs ? cfgs->argv : NULL, cfgs ? cfgs->n : 0, file, pf, err, sizeof err);
    if (rc == 2)
        cli_usage_error(cmd, "%s", err);
    if (rc)
        cli_fail(cmd, "%s", err);
    if (cfgs && cfgs->has_profile && mring_platform_set_profile(pf, &cfgs->profile, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
}

void cli_platform_topo(const char *cmd, const mring_platform_t *pf, cli_conf_t *cc, char *buf, size_t len)
{
    mring_topo_t t;
    char err[256];
    if (!cc->topo_s)
        cc->topo_s = mring_topo_format(&pf->topo, buf, len);
    if (mring_topo_parse(cc->topo_s, &t, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
    if (t.nranks != pf->nranks)
        cli_usage_error(cmd, "--topo %s has %d ranks; platform %s has %d rank hosts", cc->topo_s, t.nranks, pf->file,
                        pf->nranks);
}

void cli_embed_auto(const char *cmd, const mring_platform_t *pf, cli_conf_t *cc, char *buf, size_t len)
{
    mring_config_t c;
    mring_dtype_t t;
    char err[256];
    if (!cc->embed_s || strcmp(cc->embed_s, "auto"))
        return;
    cc->embed_s = NULL;
    cli_conf_build(cmd, cc, 0, NULL, &c, &t);
    if (mring_config_check(&c, err, sizeof err) || mring_embed_search(pf, &c, buf, len, err, sizeof err))
        cli_usage_error(cmd, "--embed auto: %s", err);
    cc->embed_s = buf;
}

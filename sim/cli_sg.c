/* cli_sg.c - what the SimGrid commands (simulate, tune, route, model --platform) share: --cfg and loading. */
#include "cli.h"

#include "sim.h"

#include <stdio.h>
#include <string.h>

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
    if (cfgs && cfgs->has_profile)
        mring_platform_set_profile(pf, &cfgs->profile);
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

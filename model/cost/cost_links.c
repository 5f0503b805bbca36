/* cost_links.c - links and the cost of one message or reduction (see cost.h). */
#include "cost.h"

#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_link(const char *spec, mring_link_t *l, char *err, size_t errlen)
{
    char buf[128], *f[4] = {0};
    int n = 0;
    if (strlen(spec) >= sizeof buf)
        goto bad;
    strcpy(buf, spec);
    for (char *p = buf, *tok; n < 4 && (tok = strsep(&p, ":")); n++)
        f[n] = tok;
    if (n < 2 || n > 3)
        goto bad;
    if (mring_parse_time(f[0], &l->alpha)) {
        snprintf(err, errlen, "--links latency '%s' is not valid; expected a time like 1us or 0.5ms", f[0]);
        return -1;
    }
    if (mring_parse_bandwidth(f[1], &l->bw)) {
        snprintf(err, errlen, "--links bandwidth '%s' is not valid; expected a rate like 12.5GBps or 100Gbps", f[1]);
        return -1;
    }
    l->share = 0;
    if (n == 3) {
        char *end;
        long s;
        errno = 0;
        s = strtol(f[2], &end, 10);
        if (end == f[2] || *end || errno || s < 1 || s > MRING_MAX_RANKS) {
            snprintf(err, errlen, "--links share '%s' is not valid; expected the number of ranks sharing one port (>= 1)",
                     f[2]);
            return -1;
        }
        l->share = (int)s;
    }
    return 0;
bad:
    snprintf(err, errlen, "--links entry '%s' is not valid; expected LAT:BW or LAT:BW:SHARE, e.g. 2us:12.5GBps:4", spec);
    return -1;
}

int mring_links_parse(const char *s, const mring_topo_t *t, mring_cost_params_t *p, char *err, size_t errlen)
{
    char *copy = strdup(s), *rest = copy, *tok;
    int n = 0;
    mring_cost_params_t out = {0};
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while ((tok = strsep(&rest, ","))) {
        if (n == MRING_MAX_DIMS || (n < MRING_MAX_DIMS && parse_link(tok, &out.link[n], err, errlen))) {
            if (n == MRING_MAX_DIMS)
                snprintf(err, errlen, "--links '%s' has more than %d entries", s, MRING_MAX_DIMS);
            free(copy);
            return -1;
        }
        n++;
    }
    free(copy);
    if (n != t->ndims) {
        char ts[128];
        snprintf(err, errlen, "--links '%s' has %d entr%s; topology %s has %d dimensions (one LAT:BW per dimension)",
                 s, n, n == 1 ? "y" : "ies", mring_topo_format(t, ts, sizeof ts), t->ndims);
        return -1;
    }
    out.ndims = n;
    out.gamma_bw = p->gamma_bw;
    for (int i = 0; i < n; i++) { /* port dimensions with the same SHARE share the port */
        out.link[i].port = i;
        for (int j = 0; j < i; j++)
            if (out.link[i].share > 0 && out.link[j].share == out.link[i].share) {
                out.link[i].port = out.link[j].port;
                break;
            }
    }
    *p = out;
    return 0;
}

double mring_cost_msg_busy(const mring_cost_params_t *p, int dim, double bytes, double m)
{
    return m * bytes / (mring_swprof_factor(p->sw.bw, p->sw.nbw, bytes) * p->link[dim].bw);
}

double mring_cost_msg(const mring_cost_params_t *p, int dim, double bytes, double m)
{
    double latency = p->link[dim].alpha * mring_swprof_factor(p->sw.lat, p->sw.nlat, bytes);
    return latency + mring_cost_msg_busy(p, dim, bytes, m);
}

double mring_cost_compute(const mring_cost_params_t *p, double bytes, double mg, int copy)
{
    if (p->gamma_bw <= 0)
        return 0;
    return mg * (copy ? 2.0 / 3.0 : 1.0) * bytes / p->gamma_bw;
}

char *mring_links_format(const mring_cost_params_t *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->ndims && used < len; i++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%.4gus:%.4gGBps", i ? "," : "", p->link[i].alpha * 1e6,
                                 p->link[i].bw / 1e9);
        if (p->link[i].share && used < len)
            used += (size_t)snprintf(buf + used, len - used, ":%d", p->link[i].share);
    }
    return buf;
}

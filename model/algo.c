/* algo.c - configurations, --rings parsing and the generator registry (see algo.h). */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mring_gen_t *const registry[MRING_NALGOS] = {
    [MRING_ALGO_MULTIRING] = &mring_gen_multiring,       [MRING_ALGO_RING] = &mring_gen_ring,
    [MRING_ALGO_RD] = &mring_gen_rd,                     [MRING_ALGO_RABENSEIFNER] = &mring_gen_rabenseifner,
    [MRING_ALGO_HIER] = &mring_gen_hier,
};

const mring_gen_t *mring_gen_get(mring_algo_t a) { return registry[a]; }

const char *mring_algo_name(mring_algo_t a) { return a < MRING_NALGOS ? registry[a]->name : "?"; }

const char *mring_algo_list(void) { return "multiring, ring, rd, rabenseifner, hier"; }

int mring_algo_parse(const char *s, mring_algo_t *a)
{
    for (int i = 0; i < MRING_NALGOS; i++)
        if (!strcmp(s, registry[i]->name)) {
            *a = (mring_algo_t)i;
            return 0;
        }
    return -1;
}

int mring_rings_parse(const char *s, const mring_topo_t *topo, int *rings, char *err, size_t errlen)
{
    int vals[MRING_MAX_DIMS + 1], n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        long v;
        errno = 0;
        v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > MRING_MAX_RINGS || (*end && *end != ',')) {
            snprintf(err, errlen, "--rings '%s' is not valid; expected R or R1,...,Rk with integers 1..%d",
                     s, MRING_MAX_RINGS);
            return -1;
        }
        if (n == MRING_MAX_DIMS + 1)
            break;
        vals[n++] = (int)v;
        if (!*end)
            break;
        p = end + 1;
    }
    if (n != 1 && n != topo->ndims) {
        char t[128];
        snprintf(err, errlen, "--rings '%s' has %d entries; topology %s has %d dimensions (give 1 or %d)", s,
                 n, mring_topo_format(topo, t, sizeof t), topo->ndims, topo->ndims);
        return -1;
    }
    for (int i = 0; i < topo->ndims; i++)
        rings[i] = n == 1 ? vals[0] : vals[i];
    return 0;
}

const char *mring_dim_algo_name(int a) { return a == MRING_DIM_RABENSEIFNER ? "rabenseifner" : "ring"; }

int mring_dim_algos_parse(const char *s, const mring_topo_t *topo, uint8_t *out, char *err, size_t errlen)
{
    uint8_t vals[MRING_MAX_DIMS];
    int n = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        int v = -1;
        for (int a = 0; a < MRING_NDIMALGOS; a++)
            if (strlen(mring_dim_algo_name(a)) == len && !strncmp(p, mring_dim_algo_name(a), len))
                v = a;
        if (v < 0 || n == MRING_MAX_DIMS) {
            snprintf(err, errlen, "--dim-algo '%s' is not valid; expected ring or rabenseifner, once or per dimension",
                     s);
            return -1;
        }
        vals[n++] = (uint8_t)v;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (n != 1 && n != topo->ndims) {
        snprintf(err, errlen, "--dim-algo '%s' has %d entries; the topology has %d dimensions (give 1 or %d)", s, n,
                 topo->ndims, topo->ndims);
        return -1;
    }
    for (int i = 0; i < topo->ndims; i++)
        out[i] = n == 1 ? vals[0] : vals[i];
    return 0;
}

static int rings_uniform(const mring_config_t *c)
{
    for (int i = 1; i < c->topo.ndims; i++)
        if (c->rings[i] != c->rings[0])
            return 0;
    return 1;
}

char *mring_rings_format(const mring_config_t *c, char *buf, size_t len)
{
    size_t used = 0;
    int n = rings_uniform(c) ? 1 : c->topo.ndims;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? ",%d" : "%d", c->rings[i]);
    return buf;
}

void mring_config_default(mring_config_t *c, const mring_topo_t *topo)
{
    memset(c, 0, sizeof *c);
    c->algo = MRING_ALGO_MULTIRING;
    c->topo = *topo;
    for (int i = 0; i < MRING_MAX_DIMS; i++)
        c->rings[i] = 1;
    c->elsize = 4;
}

int mring_config_nstreams(const mring_config_t *c)
{
    int s = 1;
    for (int i = 0; i < c->topo.ndims; i++)
        if (c->rings[i] > s)
            s = c->rings[i];
    return s;
}

int mring_config_check(const mring_config_t *c, char *err, size_t errlen)
{
    const mring_gen_t *g;
    if (c->algo >= MRING_NALGOS) {
        snprintf(err, errlen, "unknown algorithm %d; expected one of %s", (int)c->algo, mring_algo_list());
        return -1;
    }
    g = registry[c->algo];
    if (c->count < 0) {
        snprintf(err, errlen, "count %lld is negative; expected a count >= 0", (long long)c->count);
        return -1;
    }
    if (c->elsize < 1) {
        snprintf(err, errlen, "element size %zu is not valid; expected >= 1", c->elsize);
        return -1;
    }
    if (c->segment < 0 || (c->segment > 0 && (size_t)c->segment < c->elsize)) {
        snprintf(err, errlen, "--segment %lld is not valid; expected 0 (off) or at least one element (%zu bytes)",
                 (long long)c->segment, c->elsize);
        return -1;
    }
    for (int i = 0; i < c->topo.ndims; i++)
        if (c->rings[i] < 1 || c->rings[i] > MRING_MAX_RINGS) {
            snprintf(err, errlen, "rings %d in dimension %d is not valid; expected 1..%d", c->rings[i], i + 1,
                     MRING_MAX_RINGS);
            return -1;
        }
    for (int i = 0; i < c->topo.ndims; i++) {
        int d = c->topo.dims[i];
        if (c->dim_algo[i] >= MRING_NDIMALGOS) {
            snprintf(err, errlen, "dimension %d has unknown algorithm %d", i + 1, c->dim_algo[i]);
            return -1;
        }
        if (c->dim_algo[i] != MRING_DIM_RING && c->algo != MRING_ALGO_MULTIRING && c->algo != MRING_ALGO_HIER) {
            snprintf(err, errlen, "--dim-algo applies to multiring and hier only; %s has one algorithm", g->name);
            return -1;
        }
        if (c->dim_algo[i] == MRING_DIM_RABENSEIFNER && (d & (d - 1)) && c->algo == MRING_ALGO_MULTIRING) {
            snprintf(err, errlen,
                     "--dim-algo rabenseifner in dimension %d needs a power-of-two size, and %d is not; use ring there",
                     i + 1, d);
            return -1;
        }
    }
    if (c->algo != MRING_ALGO_MULTIRING && !rings_uniform(c)) {
        char r[128];
        snprintf(err, errlen, "--rings %s per dimension applies to multiring only; %s takes one value",
                 mring_rings_format(c, r, sizeof r), g->name);
        return -1;
    }
    return g->check ? g->check(c, err, errlen) : 0;
}

int mring_generate(const mring_config_t *c, int rank, mring_rank_sched_t *out)
{
    return registry[c->algo]->generate(c, rank, out);
}

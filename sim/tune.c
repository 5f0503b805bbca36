/* tune.c - candidate configurations, model pruning and simulated confirmation (see tune.h). */
#include "tune.h"

#include "cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOPOS 256

typedef struct cand {
    mring_config_t c;
    int topo; /* index into topos */
    double model;
} cand_t;

struct mring_tune {
    const mring_platform_t *pf;
    size_t elsize;
    mring_topo_t topos[MAX_TOPOS];
    mring_cost_params_t params[MAX_TOPOS]; /* links of each topology from the platform's routes */
    int ntopos;
    int flags; /* MRING_TUNE_* */
    cand_t *cands;
    int ncands, capcands;
};

static int topo_known(const mring_tune_t *t, const mring_topo_t *x)
{
    for (int i = 0; i < t->ntopos; i++)
        if (t->topos[i].ndims == x->ndims && !memcmp(t->topos[i].dims, x->dims, sizeof(int) * (size_t)x->ndims))
            return 1;
    return 0;
}

/* Every way of merging adjacent factors of f[0..n-1]. */
static void coarsen(mring_tune_t *t, const int *f, int n)
{
    for (unsigned mask = 0; mask < (1u << (n - 1)) && t->ntopos < MAX_TOPOS; mask++) {
        mring_topo_t x = {0};
        int cur = f[0];
        for (int i = 1; i < n; i++) {
            if (mask >> (i - 1) & 1)
                cur *= f[i];
            else {
                x.dims[x.ndims++] = cur;
                cur = f[i];
            }
        }
        x.dims[x.ndims++] = cur;
        x.nranks = t->pf->nranks;
        if (x.ndims <= MRING_MAX_DIMS && !topo_known(t, &x))
            t->topos[t->ntopos++] = x;
    }
}

/* Split natural level `lvl` onwards into one or two factors each, then coarsen. */
static void refine(mring_tune_t *t, int lvl, int *f, int n)
{
    const mring_topo_t *nat = &t->pf->topo;
    if (lvl == nat->ndims) {
        coarsen(t, f, n);
        return;
    }
    int d = nat->dims[lvl];
    f[n] = d;
    refine(t, lvl + 1, f, n + 1);
    for (int a = 2; a * 2 <= d && n + 2 <= 2 * MRING_MAX_DIMS; a++)
        if (d % a == 0) {
            f[n] = a;
            f[n + 1] = d / a;
            refine(t, lvl + 1, f, n + 2);
        }
}

/* The registry's candidate sink for one topology of the tuner. */
typedef struct sink {
    mring_cand_sink_t base;
    mring_tune_t *t;
    int topo;
} sink_t;

/* Keep a candidate an algorithm offers if its rules accept it. */
static int push(mring_tune_t *t, const mring_config_t *c, int topo)
{
    if (t->ncands == t->capcands) {
        int cap = t->capcands ? 2 * t->capcands : 256;
        cand_t *v = realloc(t->cands, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        t->cands = v;
        t->capcands = cap;
    }
    t->cands[t->ncands++] = (cand_t){*c, topo, 0};
    return 0;
}

/* Keep a candidate an algorithm offers if its rules accept it; where its rings follow two or more
 * cycles of a dimension, its twin on the cycles --embed auto finds (embed_search.c) too. */
static int add(mring_cand_sink_t *base, const mring_config_t *c)
{
    sink_t *s = (sink_t *)base;
    mring_tune_t *t = s->t;
    mring_config_t e = *c;
    static char text[65536];
    char err[256], why[256];
    if (mring_config_check(c, err, sizeof err) || mring_call_check(c, (mring_call_t){0, t->elsize}, err, sizeof err))
        return 0;
    if (push(t, c, s->topo))
        return -1;
    if (mring_algo_gen(c->algo)->embed == MRING_EMBED_NONE || c->embed || mring_config_nstreams(c) < 3)
        return 0;
    if (mring_embed_search(t->pf, c, text, sizeof text, why, sizeof why))
        return -1;
    mring_topo_t grid = mring_algo_embed_grid(c);
    if (mring_embed_parse(text, &grid, &e.embed, why, sizeof why) || !e.embed)
        return 0; /* every dimension natural: no twin */
    return mring_config_check(&e, err, sizeof err) ? 0 : push(t, &e, s->topo);
}

/* The registry's candidates on every topology (the natural one first). */
static int candidates(mring_tune_t *t)
{
    for (int ti = 0; ti < t->ntopos; ti++) {
        sink_t s = {{add}, t, ti};
        if (mring_algo_candidates(&t->topos[ti], ti == 0, &s.base))
            return -1;
    }
    return 0;
}

mring_tune_t *mring_tune_new(const mring_platform_t *pf, size_t elsize, int flags)
{
    mring_tune_t *t = calloc(1, sizeof *t);
    int f[2 * MRING_MAX_DIMS];
    if (!t)
        return NULL;
    t->pf = pf;
    t->elsize = elsize;
    t->flags = flags;
    t->topos[t->ntopos++] = pf->topo; /* the natural topology first */
    refine(t, 0, f, 0);
    for (int i = 0; i < t->ntopos; i++)
        mring_platform_params(pf, &t->topos[i], &t->params[i]);
    if (candidates(t)) {
        mring_tune_free(t);
        return NULL;
    }
    return t;
}

void mring_tune_free(mring_tune_t *t)
{
    if (!t)
        return;
    free(t->cands);
    free(t);
}

int mring_tune_ncandidates(const mring_tune_t *t) { return t->ncands; }

int mring_tune_embed_id(const mring_tune_t *t, const mring_embed_t *e)
{
    for (int i = 0; e && i < t->ncands; i++)
        if (t->cands[i].c.embed == e)
            return i;
    return -1;
}

const mring_embed_t *mring_tune_embed_of(const mring_tune_t *t, int id)
{
    return id >= 0 && id < t->ncands ? t->cands[id].c.embed : NULL;
}

static const mring_tune_t *sort_ctx;

static int by_model(const void *a, const void *b)
{
    double x = sort_ctx->cands[*(const int *)a].model, y = sort_ctx->cands[*(const int *)b].model;
    return x < y ? -1 : x > y;
}

static int find(const mring_tune_t *t, mring_algo_t algo)
{
    for (int i = 0; i < t->ncands; i++)
        if (t->cands[i].c.algo == algo && t->cands[i].topo == 0 && mring_config_nstreams(&t->cands[i].c) == 1)
            return i;
    return -1;
}

static int simulate(mring_tune_t *t, mring_config_t *c, mring_call_t k, double *time, mring_tune_size_t *out,
                    char *err, size_t errlen)
{
    mring_sim_result_t res;
    int rc = mring_simulate(t->pf, c, k, 0, 0, &res, err, errlen);
    *time = res.time;
    mring_sim_result_free(&res);
    if (!rc && (out->per_algo[c->algo].time == 0 || *time < out->per_algo[c->algo].time))
        out->per_algo[c->algo] = (mring_tune_pick_t){*c, *time};
    if (!rc && (out->best.time == 0 || *time < out->best.time))
        out->best = (mring_tune_pick_t){*c, *time};
    return rc;
}

/* Indices to simulate: the best 2 by the model, and when both are on one topology the model's best on
 * another too (near-twins on one grid, e.g. halving then doubling or then a ring across its last
 * dimension of 2, take both places when the model overrates that grid), the three baselines (flat ring, rabenseifner and the
 * default, multiring on the natural grid with one ring), and with every_algo the best of each
 * algorithm (the model's latency ranking is least sure for small sizes, where that is cheap).  So the
 * pick is never slower in simulation than the default configuration. */
static int shortlist(mring_tune_t *t, const int *order, int *pick, int every_algo, int all)
{
    /* the baselines first: a candidate must beat them strictly to be named (equal schedules under
     * other names, such as halving in every dimension of any grid, do not displace rabenseifner) */
    int n = 0, seen[MRING_MAX_ALGOS] = {0},
        base[3] = {find(t, MRING_ALGO_RING), find(t, MRING_ALGO_RABENSEIFNER), find(t, MRING_ALGO_MULTIRING)};
    for (int b = 0; b < 3; b++)
        if (base[b] >= 0)
            pick[n++] = base[b];
    for (int i = 0, other = 0; i < t->ncands; i++) {
        int k = order[i], a = t->cands[k].c.algo, topo = t->cands[k].topo;
        int by_model = i < 2 || (!other && topo != t->cands[order[0]].topo);
        int take = all || by_model || (every_algo && !seen[a]);
        seen[a] = 1;
        other |= i > 0 && topo != t->cands[order[0]].topo;
        for (int j = 0; j < n && take; j++)
            take = pick[j] != k;
        if (take)
            pick[n++] = k;
    }
    return n;
}

/* The pipelining variants of a multi-dimensional configuration c: its own segment or 1 MiB pieces, times
 * its own chunks or, where the algorithm takes chunks and c has none, 2, 4, 8 and 16 chunks (the closed
 * form of chunks is a pipeline bound, less sure than the simulation: chunks hide the input copy).
 * Pieces where c's blocks, size / dims[0], are larger than two, up to 512 MiB per rank: beyond, one
 * simulation in pieces takes tens of seconds at 256 ranks (35 s for minsky-64 at 1 GiB) and chunks
 * pipeline as well (there 4x4x4x4, 2 rings: 16 chunks in pieces 12.30 GB/s, 32 chunks 12.55).
 * Variant (seg, ch) of that space into *out; returns 0 when it is not in the space or is c, else 1. */
static const int variant_chunks[] = {1, 2, 4, 8, 16};
enum { NCHUNKS = sizeof variant_chunks / sizeof *variant_chunks };

static int variant(const mring_config_t *c, int64_t size, int seg, int ch, mring_config_t *out)
{
    int chunkable = c->chunks <= 1 && mring_algo_gen(c->algo)->takes_chunks;
    if (c->topo.ndims < 2 || (seg && (size / c->topo.dims[0] <= 2 << 20 || size > 512 << 20)) || (ch && !chunkable))
        return 0;
    *out = *c;
    if (seg)
        out->segment = 1 << 20;
    if (ch)
        out->chunks = variant_chunks[ch];
    return seg || ch;
}

/* Simulate the pipelining variants of c (simulated in ctime seconds) into out.  Exhaustive: all of them.
 * Otherwise the walk: c without its chunks where it has some (simulated first), then 1 MiB pieces, kept
 * where they win, then 2, 4, 8, 16 chunks on the better of the two while each is faster than the last
 * (one DGX-1 node at 512 MB: 4 rings with 1 MiB pieces and 8 chunks, 4% faster than either alone,
 * where the model ranks 16 chunks first).
 * Returns 0, or 1 with err. */
static int variants(mring_tune_t *t, const mring_config_t *c, double ctime, mring_call_t k, int64_t size,
                    int exhaustive, mring_tune_size_t *out, char *err, size_t errlen)
{
    mring_config_t v, base = *c;
    double time, last;
    int seg = 0;
    if (!exhaustive && base.chunks > 1) {
        base.chunks = 1;
        if (simulate(t, &base, k, &ctime, out, err, errlen))
            return 1;
    }
    if (variant(&base, size, 1, 0, &v)) {
        if (simulate(t, &v, k, &time, out, err, errlen))
            return 1;
        seg = time < ctime;
        ctime = seg ? time : ctime;
    }
    for (int s = exhaustive ? 0 : seg; s <= (exhaustive ? 1 : seg); s++) {
        last = ctime;
        for (int ch = 1; ch < NCHUNKS && variant(&base, size, s, ch, &v); ch++, last = time) {
            if (simulate(t, &v, k, &time, out, err, errlen))
                return 1;
            if (!exhaustive && time >= last)
                break; /* the walk stops where more chunks stop paying */
        }
    }
    return 0;
}

int mring_tune_size(mring_tune_t *t, int64_t size, mring_tune_size_t *out, char *err, size_t errlen)
{
    mring_call_t k = {size / (int64_t)t->elsize, t->elsize};
    int exhaustive = t->flags & MRING_TUNE_EXHAUSTIVE, n, rc = 1;
    int *order = malloc((size_t)t->ncands * sizeof *order),
        *pick = malloc(((size_t)t->ncands + 3 + MRING_MAX_ALGOS) * sizeof *pick);
    memset(out, 0, sizeof *out);
    out->size = size;
    if (!order || !pick) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < t->ncands; i++) {
        t->cands[i].model = mring_cost_closed(&t->cands[i].c, k, &t->params[t->cands[i].topo], 0);
        order[i] = i;
    }
    sort_ctx = t;
    qsort(order, (size_t)t->ncands, sizeof *order, by_model);
    n = shortlist(t, order, pick, (t->flags & MRING_TUNE_EVERY_ALGO) || size <= (4 << 20), exhaustive);
    mring_tune_pick_t top = {.time = 0}; /* the fastest simulated */
    for (int i = 0; i < n; i++) {
        double time;
        mring_config_t c = t->cands[pick[i]].c;
        if (simulate(t, &c, k, &time, out, err, errlen) ||
            (exhaustive && variants(t, &c, time, k, size, 1, out, err, errlen)))
            goto done;
        if (c.algo == MRING_ALGO_RING && pick[i] == find(t, MRING_ALGO_RING))
            out->ring_time = time;
        if (c.algo == MRING_ALGO_RABENSEIFNER && pick[i] == find(t, MRING_ALGO_RABENSEIFNER))
            out->rabenseifner_time = time;
        if (top.time == 0 || time < top.time)
            top = (mring_tune_pick_t){c, time};
    }
    /* the walk through pipelining from the fastest (the second fastest's walk too changed no pick on
     * minsky-64, one DGX-1 node or the 4-node Minsky of bench_tune, and took the main job from 133 s to 256 s) */
    rc = !exhaustive && top.time > 0 ? variants(t, &top.c, top.time, k, size, 0, out, err, errlen) : 0;
done:
    free(order);
    free(pick);
    return rc;
}

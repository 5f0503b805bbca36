/* symbolic.c - hash-consed reduction trees and interval maps for the verifier (see symbolic.h). */
#include "symbolic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A node's rank set is a sorted list of disjoint, non-adjacent rank intervals [lo, hi) in the pool: a
 * reduction's partial sums cover runs of ranks (a ring's neighbours, a dimension's group, a halving
 * block), so the lists stay short where a bitmap would take P bits a node (P^2 bits for the leaves). */
typedef struct node {
    uint32_t left, right;
    int nranks;
    uint32_t nint; /* intervals */
    size_t at;     /* first interval's index in the pool */
} node_t;

typedef struct rint {
    int32_t lo, hi;
} rint_t;

struct mring_exprs {
    int P;
    node_t *nodes; /* [0] poison, [1..P] leaves */
    uint32_t n, cap;
    uint32_t *table; /* hash of (left, right) -> id; 0 = empty */
    uint32_t tcap;
    rint_t *pool; /* every node's intervals */
    size_t npool, poolcap;
};

static int reserve(mring_exprs_t *e, size_t nint)
{
    if (e->n >= e->cap) {
        uint32_t cap = e->cap * 2;
        node_t *nodes = realloc(e->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return -1;
        e->nodes = nodes;
        e->cap = cap;
    }
    if (e->npool + nint > e->poolcap) {
        size_t cap = 2 * (e->npool + nint);
        rint_t *pool = realloc(e->pool, cap * sizeof *pool);
        if (!pool)
            return -1;
        e->pool = pool;
        e->poolcap = cap;
    }
    return 0;
}

mring_exprs_t *mring_exprs_new(int nranks)
{
    mring_exprs_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->P = nranks;
    e->cap = (uint32_t)nranks + 64;
    e->tcap = 1024;
    e->poolcap = (size_t)nranks + 64;
    e->nodes = calloc(e->cap, sizeof *e->nodes);
    e->table = calloc(e->tcap, sizeof *e->table);
    e->pool = malloc(e->poolcap * sizeof *e->pool);
    if (!e->nodes || !e->table || !e->pool) {
        mring_exprs_free(e);
        return NULL;
    }
    for (int r = 0; r < nranks; r++) {
        uint32_t id = mring_sym_leaf(r);
        e->nodes[id] = (node_t){0, 0, 1, 1, e->npool};
        e->pool[e->npool++] = (rint_t){r, r + 1};
    }
    e->n = (uint32_t)nranks + 1;
    return e;
}

void mring_exprs_free(mring_exprs_t *e)
{
    if (!e)
        return;
    free(e->nodes);
    free(e->table);
    free(e->pool);
    free(e);
}

int mring_exprs_nranks(const mring_exprs_t *e, uint32_t x) { return e->nodes[x].nranks; }

static uint32_t hash2(uint32_t a, uint32_t b, uint32_t cap)
{
    uint64_t k = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(k >> 32) & (cap - 1);
}

static int rehash(mring_exprs_t *e)
{
    uint32_t cap = e->tcap * 2, *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; i < e->tcap; i++) {
        uint32_t id = e->table[i];
        if (!id)
            continue;
        uint32_t h = hash2(e->nodes[id].left, e->nodes[id].right, cap);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = id;
    }
    free(e->table);
    e->table = t;
    e->tcap = cap;
    return 0;
}

/* The lowest rank in both sets, -1 when they are disjoint (one merge walk of the two lists). */
static int first_common_rank(const mring_exprs_t *e, uint32_t a, uint32_t b)
{
    const rint_t *x = &e->pool[e->nodes[a].at], *y = &e->pool[e->nodes[b].at];
    uint32_t i = 0, j = 0, nx = e->nodes[a].nint, ny = e->nodes[b].nint;
    while (i < nx && j < ny) {
        int32_t lo = x[i].lo > y[j].lo ? x[i].lo : y[j].lo, hi = x[i].hi < y[j].hi ? x[i].hi : y[j].hi;
        if (lo < hi)
            return lo;
        if (x[i].hi < y[j].hi)
            i++;
        else
            j++;
    }
    return -1;
}

/* Node id's set: the union of disjoint a and b, appended to the pool (room reserved), runs joined. */
static void union_into(mring_exprs_t *e, uint32_t id, uint32_t a, uint32_t b)
{
    const rint_t *x = &e->pool[e->nodes[a].at], *y = &e->pool[e->nodes[b].at];
    uint32_t i = 0, j = 0, nx = e->nodes[a].nint, ny = e->nodes[b].nint, n = 0;
    rint_t *out = &e->pool[e->npool];
    while (i < nx || j < ny) {
        rint_t v = j >= ny || (i < nx && x[i].lo < y[j].lo) ? x[i++] : y[j++];
        if (n > 0 && out[n - 1].hi == v.lo)
            out[n - 1].hi = v.hi;
        else
            out[n++] = v;
    }
    e->nodes[id].at = e->npool;
    e->nodes[id].nint = n;
    e->npool += n;
}

uint32_t mring_exprs_combine(mring_exprs_t *e, uint32_t a, uint32_t b, char *err, size_t errlen)
{
    uint32_t h, id;
    int common;
    if (a == MRING_SYM_POISON || b == MRING_SYM_POISON) {
        snprintf(err, errlen, "reduces an element that was never written");
        return 0;
    }
    if ((common = first_common_rank(e, a, b)) >= 0) {
        snprintf(err, errlen, "counts rank %d's input twice in one element", common);
        return 0;
    }
    if (2 * (e->n + 1) > e->tcap && rehash(e))
        goto oom;
    for (h = hash2(a, b, e->tcap); (id = e->table[h]); h = (h + 1) & (e->tcap - 1))
        if (e->nodes[id].left == a && e->nodes[id].right == b)
            return id;
    if (reserve(e, (size_t)e->nodes[a].nint + e->nodes[b].nint))
        goto oom;
    id = e->n++;
    e->nodes[id] = (node_t){a, b, e->nodes[a].nranks + e->nodes[b].nranks, 0, 0};
    union_into(e, id, a, b);
    e->table[h] = id;
    return id;
oom:
    snprintf(err, errlen, "out of memory");
    return 0;
}

int mring_imap_init(mring_imap_t *m, int64_t size, uint32_t expr)
{
    m->cap = 8;
    m->n = 0;
    m->v = malloc((size_t)m->cap * sizeof *m->v);
    if (!m->v)
        return -1;
    if (size > 0)
        m->v[m->n++] = (mring_ival_t){0, size, 0, expr};
    return 0;
}

void mring_imap_free(mring_imap_t *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

/* First interval with hi > x. */
static int64_t find(const mring_imap_t *m, int64_t x)
{
    int64_t lo = 0, hi = m->n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (m->v[mid].hi <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int mring_imap_read(const mring_imap_t *m, int64_t off, int64_t count, mring_ival_t **out, int64_t *n)
{
    int64_t i = find(m, off), k = 0, end = off + count;
    int64_t cap = 0;
    for (int64_t j = i; j < m->n && m->v[j].lo < end; j++)
        cap++;
    *out = malloc((size_t)(cap ? cap : 1) * sizeof **out);
    if (!*out)
        return -1;
    for (; i < m->n && m->v[i].lo < end; i++) {
        mring_ival_t v = m->v[i];
        if (v.lo < off)
            v.lo = off;
        if (v.hi > end)
            v.hi = end;
        (*out)[k++] = v;
    }
    *n = k;
    return 0;
}

int mring_imap_write(mring_imap_t *m, int64_t off, const mring_ival_t *src, int64_t n, int64_t src_off)
{
    int64_t end = off, first, last, keep_left, keep_right, count;
    mring_ival_t left = {0}, right = {0};
    for (int64_t i = 0; i < n; i++)
        end = off + (src[i].hi - src_off) > end ? off + (src[i].hi - src_off) : end;
    count = end - off;
    if (count <= 0)
        return 0;
    first = find(m, off);
    last = find(m, end); /* first interval with hi > end */
    keep_left = first < m->n && m->v[first].lo < off;
    if (keep_left) {
        left = m->v[first];
        left.hi = off;
    }
    keep_right = last < m->n && m->v[last].lo < end;
    if (keep_right) {
        right = m->v[last];
        right.lo = end;
    }
    int64_t removed = (last + (last < m->n && m->v[last].lo < end ? 1 : 0)) - first;
    int64_t added = keep_left + n + keep_right;
    int64_t newn = m->n - removed + added;
    if (newn > m->cap) {
        int64_t cap = newn * 2;
        mring_ival_t *v = realloc(m->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        m->v = v;
        m->cap = cap;
    }
    memmove(&m->v[first + added], &m->v[first + removed], (size_t)(m->n - first - removed) * sizeof *m->v);
    int64_t k = first;
    if (keep_left)
        m->v[k++] = left;
    for (int64_t i = 0; i < n; i++) {
        mring_ival_t v = src[i];
        int64_t d = off - src_off; /* destination element = source element + d */
        m->v[k++] = (mring_ival_t){v.lo + d, v.hi + d, v.shift - d, v.expr};
    }
    if (keep_right)
        m->v[k++] = right;
    m->n = newn;
    return 0;
}

/* topology.c - parse d1x...xdk and map ranks to grid coordinates (see topology.h). */
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mring_topo_parse(const char *s, mring_topo_t *t, char *err, size_t errlen)
{
    mring_topo_t r = {0};
    long prod = 1;
    const char *p = s;

    if (!s || !*s) {
        snprintf(err, errlen, "topology '' is empty; expected d1xd2x...xdk, e.g. 4x16x4");
        return -1;
    }
    for (;;) {
        char *end;
        long d;
        if (!isdigit((unsigned char)*p)) {
            snprintf(err, errlen,
                     "topology '%s' is malformed at '%s'; expected d1xd2x...xdk with positive integers, "
                     "e.g. 4x16x4", s, p);
            return -1;
        }
        errno = 0;
        d = strtol(p, &end, 10);
        if (errno || d < 1 || d > MRING_MAX_RANKS) {
            snprintf(err, errlen, "topology '%s' has dimension size %.*s; expected an integer from 1 to %d",
                     s, (int)(end - p), p, MRING_MAX_RANKS);
            return -1;
        }
        if (r.ndims == MRING_MAX_DIMS) {
            snprintf(err, errlen, "topology '%s' has more than %d dimensions", s, MRING_MAX_DIMS);
            return -1;
        }
        r.dims[r.ndims++] = (int)d;
        prod *= d;
        if (prod > MRING_MAX_RANKS) {
            snprintf(err, errlen, "topology '%s' has more than %d ranks; expected at most %d", s, MRING_MAX_RANKS,
                     MRING_MAX_RANKS);
            return -1;
        }
        p = end;
        if (*p == '\0')
            break;
        if (*p != 'x' && *p != 'X') {
            snprintf(err, errlen,
                     "topology '%s' is malformed at '%s'; expected d1xd2x...xdk, e.g. 4x16x4", s, p);
            return -1;
        }
        p++;
    }
    r.nranks = (int)prod;
    *t = r;
    return 0;
}

mring_topo_t mring_topo_flat(int p)
{
    mring_topo_t t = {0};
    t.ndims = 1;
    t.dims[0] = p;
    t.nranks = p;
    return t;
}

mring_topo_t mring_topo_from_nodes(int p, int ranks_per_node, int regular)
{
    mring_topo_t t = mring_topo_flat(p);
    if (regular && ranks_per_node > 1 && ranks_per_node < p && p % ranks_per_node == 0) {
        t.ndims = 2;
        t.dims[0] = ranks_per_node;
        t.dims[1] = p / ranks_per_node;
    }
    return t;
}

int mring_topo_prefix(const mring_topo_t *t, int n, mring_topo_t *out, char *err, size_t errlen)
{
    long below = 1; /* D_k: ranks in one group of the dimensions inside dimension k */
    int k = 0;
    if (n < 1 || n > t->nranks) {
        snprintf(err, errlen, "%d ranks is not in 1..%d (the ranks of %dx...)", n, t->nranks, t->dims[0]);
        return -1;
    }
    while (below * t->dims[k] < n)
        below *= t->dims[k++];
    if (n % below) {
        snprintf(err, errlen, "%d ranks do not fill whole groups of %ld (dimensions 1..%d); use a multiple of %ld",
                 n, below, k, below);
        return -1;
    }
    *out = (mring_topo_t){0};
    for (int i = 0; i < k; i++)
        out->dims[out->ndims++] = t->dims[i];
    if (n / below > 1 || k == 0)
        out->dims[out->ndims++] = (int)(n / below);
    out->nranks = n;
    return 0;
}

char *mring_topo_format(const mring_topo_t *t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->ndims && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? "x%d" : "%d", t->dims[i]);
    return buf;
}

long mring_topo_stride(const mring_topo_t *t, int dim)
{
    long s = 1;
    for (int i = 0; i < dim; i++)
        s *= t->dims[i];
    return s;
}

int mring_topo_coord(const mring_topo_t *t, int rank, int dim)
{
    return (int)((rank / mring_topo_stride(t, dim)) % t->dims[dim]);
}

void mring_topo_coords(const mring_topo_t *t, int rank, int *coords)
{
    for (int i = 0; i < t->ndims; i++) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int mring_topo_rank(const mring_topo_t *t, const int *coords)
{
    int r = 0;
    for (int i = t->ndims - 1; i >= 0; i--)
        r = r * t->dims[i] + coords[i];
    return r;
}

int mring_topo_group_member(const mring_topo_t *t, int rank, int dim, int c)
{
    long stride = mring_topo_stride(t, dim);
    int own = (int)((rank / stride) % t->dims[dim]);
    return (int)(rank + (long)(c - own) * stride);
}

int mring_topo_neighbor(const mring_topo_t *t, int rank, int dim, int delta)
{
    int d = t->dims[dim];
    int c = mring_topo_coord(t, rank, dim);
    int n = ((c + delta) % d + d) % d;
    return mring_topo_group_member(t, rank, dim, n);
}

int mring_topo_link_dim(const mring_topo_t *t, int a, int b)
{
    for (int i = t->ndims - 1; i >= 0; i--)
        if (mring_topo_coord(t, a, i) != mring_topo_coord(t, b, i))
            return i;
    return -1;
}

/* embed.c - parsing and interning embeddings (see embed.h). */
#include "embed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mring_embed {
    mring_topo_t grid;
    int ncycles[MRING_MAX_DIMS];
    int *order[MRING_MAX_DIMS][MRING_MAX_CYCLES], *pos[MRING_MAX_DIMS][MRING_MAX_CYCLES];
    char *text;
    struct mring_embed *next; /* the intern list */
};

static mring_embed_t *interned;

const char *mring_embed_text(const mring_embed_t *e) { return e ? e->text : "natural"; }
const mring_topo_t *mring_embed_grid(const mring_embed_t *e) { return &e->grid; }
int mring_embed_ncycles(const mring_embed_t *e, int dim) { return e && dim < e->grid.ndims ? e->ncycles[dim] : 0; }

static int cycle_of(const mring_embed_t *e, int dim, int ring)
{
    return (ring / 2) % e->ncycles[dim];
}

const int *mring_embed_order(const mring_embed_t *e, int dim, int ring)
{
    return mring_embed_ncycles(e, dim) ? e->order[dim][cycle_of(e, dim, ring)] : NULL;
}

const int *mring_embed_pos(const mring_embed_t *e, int dim, int ring)
{
    return mring_embed_ncycles(e, dim) ? e->pos[dim][cycle_of(e, dim, ring)] : NULL;
}

static void embed_free(mring_embed_t *e)
{
    for (int i = 0; e && i < MRING_MAX_DIMS; i++)
        for (int k = 0; k < MRING_MAX_CYCLES; k++) {
            free(e->order[i][k]);
            free(e->pos[i][k]);
        }
    if (e)
        free(e->text);
    free(e);
}

/* One cycle "a.b.c" of a dimension of size d into e (dimension i, cycle k). */
static int parse_cycle(const char *p, size_t n, mring_embed_t *e, int i, int k, char *err, size_t errlen)
{
    int d = e->grid.dims[i], x = 0;
    int *ord = malloc((size_t)d * sizeof *ord), *pos = malloc((size_t)d * sizeof *pos);
    e->order[i][k] = ord;
    e->pos[i][k] = pos;
    if (!ord || !pos) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int c = 0; c < d; c++)
        pos[c] = -1;
    for (const char *q = p, *end = p + n;; q++) { /* a coordinate, then '.' or the end */
        char *stop;
        size_t digits = strspn(q, "0123456789"); /* '.', '/', ';' and the end stop it */
        errno = 0;
        long v = digits ? strtol(q, &stop, 10) : -1;
        if (!digits || errno || v >= d || pos[v] >= 0 || x == d || (stop < end && *stop != '.')) {
            snprintf(err, errlen, "cycle %d of dimension %d ('%.*s') is not an order of the coordinates 0..%d, "
                     "each once, separated by '.'", k + 1, i + 1, (int)n, p, d - 1);
            return -1;
        }
        ord[x] = (int)v;
        pos[v] = x++;
        if ((q = stop) == end)
            break;
    }
    if (x != d) {
        snprintf(err, errlen, "cycle %d of dimension %d has %d coordinates; the dimension has %d", k + 1,
                 i + 1, x, d);
        return -1;
    }
    return 0;
}

/* Dimension i's part: "-" or cycles separated by '/'. */
static int parse_dim(const char *p, size_t n, mring_embed_t *e, int i, char *err, size_t errlen)
{
    if (n == 1 && *p == '-')
        return 0;
    for (const char *q = p, *end = p + n;;) {
        const char *slash = memchr(q, '/', (size_t)(end - q));
        size_t len = slash ? (size_t)(slash - q) : (size_t)(end - q);
        if (e->ncycles[i] == MRING_MAX_CYCLES) {
            snprintf(err, errlen, "dimension %d has more than %d cycles", i + 1, MRING_MAX_CYCLES);
            return -1;
        }
        if (parse_cycle(q, len, e, i, e->ncycles[i]++, err, errlen))
            return -1;
        if (!slash)
            return 0;
        q = slash + 1;
    }
}

int mring_embed_parse(const char *text, const mring_topo_t *grid, const mring_embed_t **out, char *err, size_t errlen)
{
    mring_embed_t *e;
    int any = 0, parts = 0;
    *out = NULL;
    if (!strcmp(text, "natural"))
        return 0;
    for (e = interned; e; e = e->next)
        if (!strcmp(e->text, text) && e->grid.ndims == grid->ndims &&
            !memcmp(e->grid.dims, grid->dims, sizeof(int) * (size_t)grid->ndims)) {
            *out = e;
            return 0;
        }
    if (!(e = calloc(1, sizeof *e)) || !(e->text = strdup(text))) {
        free(e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->grid = *grid;
    for (const char *p = text;; parts++) {
        size_t len = strcspn(p, ";");
        if (parts == grid->ndims) {
            snprintf(err, errlen, "'%.60s' has more parts than the grid's %d dimension(s)", text, grid->ndims);
            embed_free(e);
            return -1;
        }
        if (parse_dim(p, len, e, parts, err, errlen)) {
            embed_free(e);
            return -1;
        }
        any |= e->ncycles[parts] > 0;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (parts + 1 != grid->ndims) {
        snprintf(err, errlen, "'%.60s' has %d part(s); the grid has %d dimension(s) (give '-' for a natural one)",
                 text, parts + 1, grid->ndims);
        embed_free(e);
        return -1;
    }
    if (!any) { /* every dimension natural */
        embed_free(e);
        return 0;
    }
    e->next = interned;
    interned = e;
    *out = e;
    return 0;
}

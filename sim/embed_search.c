/*
 * embed_search.c - `--embed auto`: cycles through each dimension's group that share the fewest
 * links of the platform's routes (see sim.h).
 *
 * For every dimension whose rings are to follow more than one cycle (rings R >= 3: ring r follows
 * cycle r / 2, embed.h), the group of rank 0 in that dimension stands for all of them (every node is
 * alike on the platforms mring writes).  Cycles are chosen one after another: each minimises the
 * time its busiest link would need, load / bandwidth, where a link's load counts every ring
 * direction of the cycles chosen so far that crosses it (rings run both directions of a cycle, and
 * SPLITDUPLEX links are one link per direction); ties go to the smaller sum of route latencies.  Small
 * groups (up to 8 members) try every Hamiltonian cycle; larger ones grow a cycle greedily from member
 * 0, each time to the unvisited member whose route adds the least to that figure, so a flat ring's
 * node-crossing hops spread over the NICs (rails) instead of all leaving through one.
 * This is the search NCCL does over its topology graph (src/graph/search.cc), on SimGrid's routes.
 */
#include "sim.h"

#include "algo.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/dynar.h>

#define EXHAUSTIVE_MAX 8

/* The links of the routes between the members of one group, and their load. */
typedef struct group {
    int d;
    sg_host_t *host;
    int nlinks;
    sg_link_t *link;   /* distinct links seen */
    double *bw, *load; /* per distinct link */
    int **route;       /* route[a * d + b]: indices into link, -1 terminated */
    double *lat;       /* route latency a -> b */
} group_t;

static int link_index(group_t *g, sg_link_t l)
{
    for (int i = 0; i < g->nlinks; i++)
        if (g->link[i] == l)
            return i;
    g->link[g->nlinks] = l;
    g->bw[g->nlinks] = sg_link_get_bandwidth(l);
    g->load[g->nlinks] = 0;
    return g->nlinks++;
}

static void group_free(group_t *g)
{
    for (int i = 0; g->route && i < g->d * g->d; i++)
        free(g->route[i]);
    free(g->route);
    free(g->host);
    free(g->link);
    free(g->bw);
    free(g->load);
    free(g->lat);
}

/* The routes between every two members of rank 0's group in dimension i of grid. */
static int group_init(group_t *g, const mring_platform_t *pf, const mring_topo_t *grid, int i)
{
    int d = grid->dims[i], cap = 0;
    memset(g, 0, sizeof *g);
    g->d = d;
    g->host = calloc((size_t)d, sizeof *g->host);
    g->route = calloc((size_t)d * (size_t)d, sizeof *g->route);
    g->lat = calloc((size_t)d * (size_t)d, sizeof *g->lat);
    if (!g->host || !g->route || !g->lat)
        return -1;
    for (int x = 0; x < d; x++)
        g->host[x] = pf->hosts[mring_topo_group_member(grid, 0, i, x)];
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            if (a == b)
                continue;
            xbt_dynar_reset(links);
            sg_host_get_route(g->host[a], g->host[b], links);
            int n = (int)xbt_dynar_length(links);
            if (g->nlinks + n > cap) {
                cap = 2 * (g->nlinks + n) + 16;
                sg_link_t *l = realloc(g->link, (size_t)cap * sizeof *l);
                g->link = l ? l : g->link;
                double *bw = realloc(g->bw, (size_t)cap * sizeof *bw);
                g->bw = bw ? bw : g->bw;
                double *load = realloc(g->load, (size_t)cap * sizeof *load);
                g->load = load ? load : g->load;
                if (!l || !bw || !load) {
                    xbt_dynar_free(&links);
                    return -1;
                }
            }
            int *r = g->route[a * d + b] = malloc((size_t)(n + 1) * sizeof *r);
            if (!r) {
                xbt_dynar_free(&links);
                return -1;
            }
            for (int k = 0; k < n; k++)
                r[k] = link_index(g, xbt_dynar_get_as(links, k, sg_link_t));
            r[n] = -1;
            g->lat[a * d + b] = sg_host_get_route_latency(g->host[a], g->host[b]);
        }
    xbt_dynar_free(&links);
    return 0;
}

/* The busiest link's load / bandwidth if cycle cyc (both directions when both) were added, and its
 * routes' latency; the loads are left as they were. */
static double cycle_cost(group_t *g, const int *cyc, int both, double *lat)
{
    double worst = 0;
    *lat = 0;
    for (int pass = 0; pass < 2; pass++) /* add, then take back */
        for (int x = 0; x < g->d; x++)
            for (int dir = 0; dir <= both; dir++) {
                int a = cyc[x], b = cyc[(x + 1) % g->d];
                const int *r = dir ? g->route[b * g->d + a] : g->route[a * g->d + b];
                for (int k = 0; r[k] >= 0; k++) {
                    g->load[r[k]] += pass ? -1 : 1;
                    if (!pass && g->load[r[k]] / g->bw[r[k]] > worst)
                        worst = g->load[r[k]] / g->bw[r[k]];
                }
                if (!pass)
                    *lat += g->lat[a * g->d + b];
            }
    return worst;
}

static void cycle_add(group_t *g, const int *cyc, int both)
{
    for (int x = 0; x < g->d; x++)
        for (int dir = 0; dir <= both; dir++) {
            int a = cyc[x], b = cyc[(x + 1) % g->d];
            const int *r = dir ? g->route[b * g->d + a] : g->route[a * g->d + b];
            for (int k = 0; r[k] >= 0; k++)
                g->load[r[k]] += 1;
        }
}

/* Every cycle through member 0 (the rest permuted in lexicographic order), keeping the best in best. */
static void exhaustive(group_t *g, int *cyc, int at, int *used, int both, int *best, double *bcost, double *blat)
{
    if (at == g->d) {
        double lat, cost = cycle_cost(g, cyc, both, &lat);
        if (cost < *bcost * (1 - 1e-9) || (cost <= *bcost * (1 + 1e-9) && lat < *blat * (1 - 1e-9))) {
            *bcost = cost, *blat = lat;
            memcpy(best, cyc, (size_t)g->d * sizeof *cyc);
        }
        return;
    }
    for (int x = 1; x < g->d; x++)
        if (!used[x]) {
            used[x] = 1;
            cyc[at] = x;
            exhaustive(g, cyc, at + 1, used, both, best, bcost, blat);
            used[x] = 0;
        }
}

/* A cycle grown from member 0, each hop to the unvisited member whose route's busiest link would be least busy. */
static void greedy(group_t *g, int *cyc, int both)
{
    int *used = calloc((size_t)g->d, sizeof *used);
    cyc[0] = 0;
    if (!used) { /* no memory: the natural order */
        for (int at = 1; at < g->d; at++)
            cyc[at] = at;
        return;
    }
    for (int at = 1; at < g->d; at++) {
        int pick = -1;
        double pcost = 0, plat = 0;
        for (int x = 1; x < g->d; x++) {
            if (used[x])
                continue;
            const int *r = g->route[cyc[at - 1] * g->d + x];
            double cost = 0;
            for (int k = 0; r[k] >= 0; k++)
                cost = (g->load[r[k]] + 1) / g->bw[r[k]] > cost ? (g->load[r[k]] + 1) / g->bw[r[k]] : cost;
            double lat = g->lat[cyc[at - 1] * g->d + x];
            if (pick < 0 || cost < pcost * (1 - 1e-9) || (cost <= pcost * (1 + 1e-9) && lat < plat)) {
                pick = x, pcost = cost, plat = lat;
            }
        }
        used[pick] = 1;
        cyc[at] = pick;
        const int *r = g->route[cyc[at - 1] * g->d + pick]; /* count the hop now, so the next ones avoid it */
        for (int k = 0; r[k] >= 0; k++)
            g->load[r[k]] += 1;
    }
    for (int at = 1; at < g->d; at++) { /* take the provisional loads back: cycle_add counts the cycle */
        const int *r = g->route[cyc[at - 1] * g->d + cyc[at]];
        for (int k = 0; r[k] >= 0; k++)
            g->load[r[k]] -= 1;
    }
    free(used);
}

/* Whether cycle a (starting at member 0) is cycle b, either way round. */
static int same_cycle(const int *a, const int *b, int d)
{
    int fwd = 1, back = 1;
    for (int x = 0; x < d; x++) {
        fwd &= a[x] == b[x];
        back &= a[x] == b[(d - x) % d];
    }
    return fwd || back;
}

/* Append dimension i's cycles ("a.b.c/d.e.f") to text; a cycle found again ends the list (no use running
 * two rings' pairs on the same links), and a dimension whose only cycle is the coordinate order is "-". */
static int search_dim(const mring_platform_t *pf, const mring_topo_t *grid, int i, int ncycles, int both, char *text,
                      size_t len)
{
    group_t g = {0};
    int d = grid->dims[i], rc = -1;
    int *cyc = malloc((size_t)d * sizeof *cyc), *best = malloc((size_t)d * (size_t)ncycles * sizeof *best),
        *used = calloc((size_t)d, sizeof *used), found = 0;
    if (cyc && best && used && group_init(&g, pf, grid, i) == 0) {
        for (int k = 0; k < ncycles; k++) {
            int *b = best + (size_t)k * (size_t)d, again = 0;
            double bcost = 1e300, blat = 1e300;
            cyc[0] = 0;
            if (d <= EXHAUSTIVE_MAX)
                exhaustive(&g, cyc, 1, used, both, b, &bcost, &blat);
            else
                greedy(&g, b, both);
            for (int j = 0; j < k; j++)
                again |= same_cycle(b, best + (size_t)j * (size_t)d, d);
            if (again)
                break;
            cycle_add(&g, b, both);
            found++;
        }
        int natural = found == 1;
        for (int x = 0; natural && x < d; x++)
            natural = best[x] == x;
        for (int k = 0; k < found && !natural; k++)
            for (int x = 0; x < d; x++)
                snprintf(text + strlen(text), len - strlen(text), "%s%d", x ? "." : k ? "/" : "", best[k * d + x]);
        if (natural)
            snprintf(text + strlen(text), len - strlen(text), "-");
        rc = 0;
    }
    group_free(&g);
    free(cyc);
    free(best);
    free(used);
    return rc;
}

/* Dimension searches already made (the tuner asks for the same group and cycle count under many
 * candidates): what search_dim depends on, and the text it appended. */
typedef struct memo {
    const mring_platform_t *pf;
    int dims[MRING_MAX_DIMS], i, ncycles, both;
    char *text;
} memo_t;
static memo_t memo[1024];
static int nmemo;

/* search_dim through the memo (a full memo is only bypassed). */
static int search_dim_memo(const mring_platform_t *pf, const mring_topo_t *grid, int i, int ncycles, int both,
                           char *text, size_t len)
{
    memo_t key;
    memset(&key, 0, sizeof key); /* padding too: keys compare with memcmp */
    key.pf = pf, key.i = i, key.ncycles = ncycles, key.both = both;
    memcpy(key.dims, grid->dims, sizeof(int) * (size_t)(i + 1)); /* rank 0's group of dimension i */
    for (int k = 0; k < nmemo; k++)
        if (!memcmp(&memo[k], &key, offsetof(memo_t, text))) {
            snprintf(text, len, "%s", memo[k].text);
            return 0;
        }
    if (search_dim(pf, grid, i, ncycles, both, text, len))
        return -1;
    if (nmemo < (int)(sizeof memo / sizeof *memo) && (key.text = strdup(text)))
        memo[nmemo++] = key;
    return 0;
}

int mring_embed_search(const mring_platform_t *pf, const mring_config_t *c, char *text, size_t len, char *err,
                       size_t errlen)
{
    const mring_gen_t *g = mring_algo_gen(c->algo);
    mring_topo_t grid = mring_algo_embed_grid(c);
    text[0] = '\0';
    if (g->embed == MRING_EMBED_NONE) {
        snprintf(err, errlen, "--embed applies to %s only; %s follows its own orders", mring_algo_list_embed(), g->name);
        return -1;
    }
    for (int i = 0; i < grid.ndims; i++) {
        int rings = g->embed == MRING_EMBED_FLAT ? c->rings[0] : c->rings[i], ncycles = (rings + 1) / 2;
        if (i)
            snprintf(text + strlen(text), len - strlen(text), ";");
        if (grid.dims[i] < 3 || ncycles < 2 || c->dim_algo[i] != MRING_DIM_RING) {
            snprintf(text + strlen(text), len - strlen(text), "-");
            continue;
        }
        if (search_dim_memo(pf, &grid, i, ncycles, rings > 1, text + strlen(text), len - strlen(text))) {
            snprintf(err, errlen, "out of memory searching an embedding");
            return -1;
        }
    }
    return 0;
}

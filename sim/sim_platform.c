/* sim_platform.c - load a SimGrid platform and read mring's conventions from it (see sim.h). */
#include "sim.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/zone.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mring_sg_load_platform(const char *file, char *err, size_t errlen); /* sg_load.cpp */
int mring_sg_init(int *argc, char **argv, char *err, size_t errlen);     /* sg_load.cpp */
int mring_sg_set_factors(const mring_piece_t *lat, int nlat, const mring_piece_t *bw, int nbw, char *err,
                         size_t errlen); /* sg_load.cpp */
int mring_sg_route_ok(sg_host_t a, sg_host_t b, char *err, size_t errlen); /* sg_load.cpp */

static int read_ranks(mring_platform_t *pf, char *err, size_t errlen)
{
    size_t nhosts = sg_host_count();
    sg_host_t *all = sg_host_list();
    int max = -1, n = 0;
    for (size_t i = 0; i < nhosts; i++) {
        const char *v = sg_host_get_property_value(all[i], "mring_rank");
        if (!v)
            continue;
        char *end;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (end == v || *end || errno || r < 0 || r >= MRING_MAX_RANKS) {
            snprintf(err, errlen, "platform %s: host %s has mring_rank '%s'; expected an integer 0..%d", pf->file,
                     sg_host_get_name(all[i]), v, MRING_MAX_RANKS - 1);
            free(all);
            return 2;
        }
        max = r > max ? (int)r : max;
        n++;
    }
    if (n == 0) {
        snprintf(err, errlen,
                 "platform %s has no rank hosts; add <prop id=\"mring_rank\" value=\"R\"/> to each host that runs "
                 "a rank (R = 0..P-1)", pf->file);
        free(all);
        return 2;
    }
    pf->nranks = n;
    pf->hosts = calloc((size_t)n, sizeof *pf->hosts);
    for (size_t i = 0; pf->hosts && i < nhosts; i++) {
        const char *v = sg_host_get_property_value(all[i], "mring_rank");
        long r = v ? strtol(v, NULL, 10) : -1;
        if (r < 0)
            continue;
        if (r >= n || pf->hosts[r]) {
            snprintf(err, errlen, "platform %s: mring_rank %ld on host %s is %s; expected ranks 0..%d, each once",
                     pf->file, r, sg_host_get_name(all[i]), r >= n ? "out of range" : "repeated", n - 1);
            free(all);
            return 2;
        }
        pf->hosts[r] = all[i];
    }
    free(all);
    return pf->hosts ? 0 : -1;
}

/* Every host's speed and every link's bandwidth positive and finite, every latency finite and >= 0: SimGrid
 * accepts a 0 or negative figure in some places and then divides by it or aborts mid-run.  Returns 0, or 2
 * with one line naming the file, the host or link and the figure. */
static int check_resources(const char *file, char *err, size_t errlen)
{
    size_t nh = sg_host_count(), nl = sg_link_count();
    sg_host_t *hosts = sg_host_list();
    sg_link_t *links = sg_link_list();
    int rc = 0;
    for (size_t i = 0; i < nh && !rc; i++) {
        double v = sg_host_get_speed(hosts[i]);
        if (!(v > 0) || !isfinite(v)) {
            snprintf(err, errlen, "platform %s: host %s has speed %g flop/s; expected a positive speed", file,
                     sg_host_get_name(hosts[i]), v);
            rc = 2;
        }
    }
    for (size_t i = 0; i < nl && !rc; i++) {
        double bw = sg_link_get_bandwidth(links[i]), lat = sg_link_get_latency(links[i]);
        if (!(bw > 0) || !isfinite(bw) || !(lat >= 0) || !isfinite(lat)) {
            snprintf(err, errlen, "platform %s: link %s has bandwidth %g B/s and latency %g s; expected a positive "
                     "bandwidth and a latency >= 0", file, sg_link_get_name(links[i]), bw, lat);
            rc = 2;
        }
    }
    free(hosts);
    free(links);
    return rc;
}

/* Every rank's route to every other: all P (P - 1) pairs up to ROUTE_CHECK_ALL ranks; above (P^2 lookups
 * would cost seconds), each rank's routes to its neighbours in every dimension of the platform's topology
 * (the ranks a schedule sends to) and to and from rank 0.  Returns 0, or 2 with the pair in err. */
#define ROUTE_CHECK_ALL 512
static int check_routes(const mring_platform_t *pf, char *err, size_t errlen)
{
    char why[512];
    int P = pf->nranks, bad = 0;
    for (int r = 0; r < P && !bad; r++) {
        if (P <= ROUTE_CHECK_ALL) {
            for (int q = 0; q < P && !bad; q++)
                bad = q != r && mring_sg_route_ok(pf->hosts[r], pf->hosts[q], why, sizeof why);
            continue;
        }
        bad = r > 0 && (mring_sg_route_ok(pf->hosts[r], pf->hosts[0], why, sizeof why) ||
                        mring_sg_route_ok(pf->hosts[0], pf->hosts[r], why, sizeof why));
        for (int i = 0; i < pf->topo.ndims && !bad; i++)
            for (int delta = -1; delta <= 1 && !bad; delta += 2) {
                int q = mring_topo_neighbor(&pf->topo, r, i, delta);
                bad = q != r && mring_sg_route_ok(pf->hosts[r], pf->hosts[q], why, sizeof why);
            }
    }
    if (bad)
        snprintf(err, errlen, "platform %s: %s; expected a route between every two rank hosts", pf->file, why);
    return bad ? 2 : 0;
}

/* SimGrid started with mring's configuration, then cfgs[0 .. ncfgs - 1] (the user's --cfg, which come after),
 * and file loaded: 0, or 2 with a one-line reason in err (-1: out of memory).
 *
 * Alpha-beta predictions need CM02 and no cross-traffic (LV08 scales latency by 13.01 and bandwidth by 0.97;
 * cross-traffic adds 5% reverse load).  network/optim:Full because SimGrid 3.32's default lazy update gives wrong
 * rates when flows start while others of different latency share their links: two intra-node flows per node
 * started, then 4.74 ms later one inter-node flow per rank both ways (4 hosts, 2 nodes, a 31 MB/s NIC each way):
 * lazy delivers the flows leaving node 1 at 22 MB/s each on average, 44 MB/s through one 31 MB/s link, and those
 * leaving node 0 at 15.5 MB/s; Full gives every one the max-min 15.5 MB/s (measured 2026-12-03 with mring and with
 * a bare s4u program of those 8 flows; tests/test_sim_maxmin.c checks it through its symmetry and fails under
 * Lazy).  network/solver:fairbottleneck because CM02's default max-min solver weights each flow's share of a link
 * by its route's latency (the flow's sharing penalty is the sum of its links' latencies: RTT-unfair TCP, Velho and
 * Legrand 2009, hal inria-00361031; SimGrid's network_cm02.cpp), and fair-bottleneck ignores those weights and
 * gives every flow through a saturated link an equal share.  GPU fabrics arbitrate per flow, not per RTT, and so
 * does the testbed: with a calibrated intra-node link latency of 0.16 us against 34 us across nodes, maxmin
 * starved the inter-node flows of a 4-chunk 2x4 multiring on the rank ports (64 MiB: 4.43 s simulated),
 * fair-bottleneck gives 3.57 s and the testbed measured 3.59 s (2026-12-06, validation/README.md).
 * tests/test_sim_maxmin.c checks the equal shares.
 */
static int sg_start(const char *const *cfgs, int ncfgs, const char *file, char *err, size_t errlen)
{
    int rc, argc = 0;
    char **argv = calloc((size_t)ncfgs + 6, sizeof *argv), why[512];
    if (!argv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    argv[argc++] = "mring";
    argv[argc++] = "--cfg=network/model:CM02";
    argv[argc++] = "--cfg=network/crosstraffic:0";
    argv[argc++] = "--cfg=network/optim:Full";
    argv[argc++] = "--cfg=network/solver:fairbottleneck";
    for (int i = 0; i < ncfgs; i++)
        argv[argc++] = (char *)cfgs[i];
    xbt_log_control_set("root.thresh:critical ker_engine.app:file:/dev/null");
    rc = mring_sg_init(&argc, argv, err, errlen);
    free(argv);
    if (rc) { /* SimGrid's line may not name the option ("not a boolean"): the user's options, then it */
        char given[512] = "";
        for (int i = 0, n = 0; i < ncfgs && n < (int)sizeof given; i++) /* each "--cfg=name:value" (sim.h) */
            n += snprintf(given + n, sizeof given - (size_t)n, "%s%s", i ? " " : "", cfgs[i] + strlen("--cfg="));
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "--cfg %s: %s", given, why);
        return 2;
    }
    if (mring_sg_load_platform(file, err, errlen)) {
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "platform %s: %s", file, why);
        return 2;
    }
    return 0;
}

/* the root zone's mring_topo (its product the pf->nranks rank hosts) into pf->topo and its mring_sw (none: an
 * empty profile) into *prof: 0, or 2 with a one-line reason in err */
static int read_root_props(mring_platform_t *pf, mring_swprof_t *prof, char *err, size_t errlen)
{
    char why[256];
    const char *topo = sg_zone_get_property_value(sg_zone_get_root(), "mring_topo");
    const char *sw = sg_zone_get_property_value(sg_zone_get_root(), "mring_sw");
    if (!topo) {
        snprintf(err, errlen,
                 "platform %s has no mring_topo; add <prop id=\"mring_topo\" value=\"d1xd2x...\"/> to the root zone "
                 "(its product must be the %d rank hosts)", pf->file, pf->nranks);
        return 2;
    }
    if (mring_topo_parse(topo, &pf->topo, why, sizeof why)) {
        snprintf(err, errlen, "platform %s: mring_topo: %s", pf->file, why);
        return 2;
    }
    if (pf->topo.nranks != pf->nranks) {
        snprintf(err, errlen, "platform %s: mring_topo %s has %d ranks but %d hosts carry mring_rank", pf->file,
                 topo, pf->topo.nranks, pf->nranks);
        return 2;
    }
    *prof = (mring_swprof_t){0};
    if (sw && mring_swprof_parse(sw, prof, why, sizeof why)) {
        snprintf(err, errlen, "platform %s: mring_sw: %s", pf->file, why);
        return 2;
    }
    return 0;
}

int mring_platform_load(const char *const *cfgs, int ncfgs, const char *file, mring_platform_t *pf, char *err,
                        size_t errlen)
{
    int rc;
    mring_swprof_t prof;
    memset(pf, 0, sizeof *pf);
    snprintf(pf->file, sizeof pf->file, "%s", file);
    if ((rc = mring_platform_precheck(file, err, errlen)) || (rc = sg_start(cfgs, ncfgs, file, err, errlen)) ||
        (rc = read_ranks(pf, err, errlen)) || (rc = check_resources(file, err, errlen)))
        return rc;
    simgrid_run(); /* no actors yet: this only seals the platform (Floyd zones compute their routes) */
    if ((rc = read_root_props(pf, &prof, err, errlen)) || (rc = check_routes(pf, err, errlen)))
        return rc;
    return mring_platform_set_profile(pf, &prof, err, errlen);
}

int mring_platform_set_profile(mring_platform_t *pf, const mring_swprof_t *sw, char *err, size_t errlen)
{
    char why[512];
    pf->sw = *sw;
    if (!mring_sg_set_factors(sw->lat, sw->nlat, sw->bw, sw->nbw, why, sizeof why))
        return 0;
    snprintf(err, errlen, "platform %s: its software profile's factors: %s (a --cfg network/bandwidth-factor or "
             "latency-factor cannot be combined with mring_sw or --profile)", pf->file, why);
    return 2;
}

/* route_links's bound where a caller holds a route: longer ones are cut there (mring platform's routes cross at
 * most 10 links) */
enum { MAX_ROUTE_LINKS = 64 };

/* The links of the route from a to b, into links (up to max); returns how many (0: an empty route). */
static int route_links(sg_host_t a, sg_host_t b, const_sg_link_t *links, int max)
{
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    unsigned i;
    sg_link_t l;
    int n = 0;
    sg_host_get_route(a, b, d);
    xbt_dynar_foreach (d, i, l)
        if (n < max)
            links[n++] = l;
    xbt_dynar_free(&d);
    return n;
}

/*
 * The bottleneck of dimension i's step from rank w to its neighbour peer: the route's narrowest link, and
 * *sharers the ranks of w's group (the first group of stride D_{i+1}) whose own step in dimension i crosses
 * it (w among them).  Where no other rank crosses the narrowest link (a GPU's own NVLink) but a link the
 * group shares gives each rank less bandwidth (a NIC that 4 GPUs share: 12.5 GB/s, 3.1 each, beside a
 * 10 GB/s NVLink), that link instead.  A shared narrowest link stays even where another shared one gives
 * a little less per rank: the ports dimensions share (mring_platform_params) follow the narrowest links.
 * NULL for an empty route.
 */
static const_sg_link_t bottleneck(const mring_platform_t *pf, const mring_topo_t *t, int i, int w, int peer,
                                  int *sharers)
{
    const_sg_link_t mine[MAX_ROUTE_LINKS], theirs[MAX_ROUTE_LINKS];
    int n = route_links(pf->hosts[w], pf->hosts[peer], mine, MAX_ROUTE_LINKS), count[MAX_ROUTE_LINKS] = {0};
    int narrow = 0, least = 0;
    for (int r = 0; n > 0 && r < t->nranks && r < mring_topo_stride(t, i + 1); r++) {
        int m = route_links(pf->hosts[r], pf->hosts[mring_topo_neighbor(t, r, i, 1)], theirs, MAX_ROUTE_LINKS);
        for (int a = 0; a < n; a++)
            for (int b = 0; b < m; b++)
                if (theirs[b] == mine[a]) {
                    count[a]++;
                    break;
                }
    }
    if (n == 0) {
        *sharers = 0;
        return NULL;
    }
    for (int a = 1; a < n; a++) {
        double bw = sg_link_get_bandwidth(mine[a]);
        narrow = bw < sg_link_get_bandwidth(mine[narrow]) ? a : narrow;
        least = bw / (count[a] > 1 ? count[a] : 1) <
                        sg_link_get_bandwidth(mine[least]) / (count[least] > 1 ? count[least] : 1)
                    ? a
                    : least;
    }
    int pick = count[narrow] > 1 ? narrow : least;
    *sharers = count[pick];
    return mine[pick];
}

static int route_has(sg_host_t a, sg_host_t b, const_sg_link_t link)
{
    const_sg_link_t links[MAX_ROUTE_LINKS];
    int n = route_links(a, b, links, MAX_ROUTE_LINKS);
    for (int i = 0; i < n; i++)
        if (links[i] == link)
            return 1;
    return 0;
}

/* The slowest step of dimension i among the ranks of the first group of stride D_{i+1} (a node for
 * dimension 1, a rack for dimension 2, every rank for a flat grid): the rank whose route to its next
 * neighbour has the least bandwidth (then the most latency); *lat gets the largest latency of them all. */
static int slowest_rank(const mring_platform_t *pf, const mring_topo_t *t, int i, double *lat)
{
    int worst = 0;
    double wbw = 0;
    *lat = 0;
    for (int r = 0; r < t->nranks && r < mring_topo_stride(t, i + 1); r++) {
        sg_host_t a = pf->hosts[r], b = pf->hosts[mring_topo_neighbor(t, r, i, 1)];
        double bw = sg_host_get_route_bandwidth(a, b), l = sg_host_get_route_latency(a, b);
        if (r == 0 || bw < wbw) {
            worst = r;
            wbw = bw;
        }
        *lat = l > *lat ? l : *lat;
    }
    return worst;
}

void mring_platform_params(const mring_platform_t *pf, const mring_topo_t *t, mring_cost_params_t *p)
{
    const_sg_link_t narrow[MRING_MAX_DIMS] = {0};
    memset(p, 0, sizeof *p);
    p->ndims = t->ndims;
    p->gamma_bw = sg_host_get_speed(pf->hosts[0]);
    p->sw = pf->sw;
    for (int i = 0; i < t->ndims; i++) {
        int sharers = 0, own = 0, w, peer;
        const_sg_link_t nl;
        if (t->dims[i] == 1) { /* a dimension of size 1 carries nothing: any figures do */
            p->link[i] = (mring_link_t){0, 1e9, 0, i};
            continue;
        }
        w = slowest_rank(pf, t, i, &p->link[i].alpha);
        peer = mring_topo_neighbor(t, w, i, 1);
        nl = narrow[i] = bottleneck(pf, t, i, w, peer, &sharers);
        p->link[i].bw = nl ? sg_link_get_bandwidth(nl) : sg_host_get_route_bandwidth(pf->hosts[w], pf->hosts[peer]);
        p->link[i].port = i;
        for (int j = 0; j < i; j++) /* the same bottleneck as an earlier dimension: the same port */
            if (nl && narrow[j] == nl) {
                p->link[i].port = p->link[j].port;
                break;
            }
        /* a port when other ranks cross it too, or when the rank's route to a neighbour in any other
         * direction or dimension does (a rank with a single way out); else a point-to-point link per
         * neighbour (NVLink) */
        for (int j = 0; nl && j < t->ndims && !own; j++)
            for (int dir = -1; dir <= 1 && !own; dir += 2) {
                int q = t->dims[j] > 1 ? mring_topo_neighbor(t, w, j, dir) : w;
                own = q != w && q != peer && route_has(pf->hosts[w], pf->hosts[q], nl);
            }
        p->link[i].share = sharers > 1 ? sharers : own ? 1 : 0;
    }
}

/* config.c - configurations from named fields, their checks, equality and formatting (see config.h). */
#include "config.h"

#include "algo.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of field `key` ("topo", "algo", "rings", "dim_algo", "segment", "chunks", "embed") in style s, e.g.
 * "--dim-algo", "MRING_DIM_ALGO", "dim_algo".  Returns buf. */
static const char *field_name(const char *key, mring_fields_style_t s, char *buf, size_t len)
{
    size_t n = 0;
    if (s == MRING_FIELDS_JSON) {
        snprintf(buf, len, "%s", key);
        return buf;
    }
    n = (size_t)snprintf(buf, len, "%s", s == MRING_FIELDS_FLAGS ? "--" : "MRING_");
    for (const char *p = key; *p && n + 1 < len; p++)
        buf[n++] = s == MRING_FIELDS_FLAGS ? (*p == '_' ? '-' : *p) : (char)toupper((unsigned char)*p);
    if (n < len)
        buf[n] = '\0';
    return buf;
}

/* Split s at commas into at most MRING_MAX_DIMS + 1 items parsed by item(); then spread one value over all
 * dimensions or take one per dimension. */
static int per_dim(const char *name, const char *s, const mring_topo_t *topo, int (*item)(const char *p, size_t n),
                   int *out, const char *expected, char *err, size_t errlen)
{
    int vals[MRING_MAX_DIMS + 1], n = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        int v = item(p, len);
        if (v < 0 || n == MRING_MAX_DIMS + 1) {
            snprintf(err, errlen, "%s '%s' is not valid; expected %s", name, s, expected);
            return -1;
        }
        vals[n++] = v;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (n != 1 && n != topo->ndims) {
        char t[128];
        char give[32] = "give 1";
        if (topo->ndims > 1) /* "give 1 or 1" on a one-dimensional topology */
            snprintf(give, sizeof give, "give 1 or %d", topo->ndims);
        snprintf(err, errlen, "%s '%s' has %d entries; topology %s has %d dimension%s (%s)", name, s, n,
                 mring_topo_format(topo, t, sizeof t), topo->ndims, topo->ndims > 1 ? "s" : "", give);
        return -1;
    }
    for (int i = 0; i < topo->ndims; i++)
        out[i] = n == 1 ? vals[0] : vals[i];
    return 0;
}

static int ring_item(const char *p, size_t n)
{
    char buf[16], *end;
    long v;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    return *end || errno || v < 1 || v > MRING_MAX_RINGS || !isdigit((unsigned char)buf[0]) ? -1 : (int)v;
}

static int chunk_item(const char *p, size_t n)
{
    int v = ring_item(p, n); /* the same integer syntax */
    return v > MRING_MAX_CHUNKS ? -1 : v;
}

static int dim_algo_item(const char *p, size_t n)
{
    for (int a = 0; a < MRING_NDIMALGOS; a++)
        if (strlen(mring_dim_algo_name(a)) == n && !strncmp(p, mring_dim_algo_name(a), n))
            return a;
    return -1;
}

int mring_config_fields_read(const mring_config_fields_t *f, mring_fields_style_t style,
                             const mring_topo_t *default_topo, mring_config_t *c, char *err, size_t errlen)
{
    char name[32], expected[64];
    mring_topo_t topo;
    if (f->topo) {
        if (mring_topo_parse(f->topo, &topo, err, errlen))
            return -1;
    } else if (default_topo)
        topo = *default_topo;
    else {
        snprintf(err, errlen, "%s is required (e.g. 4x16x4)", field_name("topo", style, name, sizeof name));
        return -1;
    }
    mring_config_default(c, &topo);
    if (f->algo && mring_algo_parse(f->algo, &c->algo)) {
        snprintf(err, errlen, "%s '%s' is unknown; expected one of %s",
                 field_name("algo", style, name, sizeof name), f->algo, mring_algo_list());
        return -1;
    }
    snprintf(expected, sizeof expected, "R or R1,...,Rk with integers 1..%d", MRING_MAX_RINGS);
    if (f->rings && per_dim(field_name("rings", style, name, sizeof name), f->rings, &topo, ring_item,
                            c->rings, expected, err, errlen))
        return -1;
    if (f->dim_algo) {
        int v[MRING_MAX_DIMS];
        if (per_dim(field_name("dim_algo", style, name, sizeof name), f->dim_algo, &topo, dim_algo_item,
                    v, "ring, rabenseifner or rd, once or per dimension", err, errlen))
            return -1;
        for (int i = 0; i < topo.ndims; i++)
            c->dim_algo[i] = (uint8_t)v[i];
    }
    if (f->embed && !strcmp(f->embed, "auto")) {
        snprintf(err, errlen, "%s auto searches a platform's routes: give --platform to mring simulate or mring "
                 "tune, or give the cycles", field_name("embed", style, name, sizeof name));
        return -1;
    }
    if (f->embed) { /* on the algorithm's grid; whether the algorithm takes one is check_embed's */
        mring_topo_t grid = mring_algo_embed_grid(c);
        char why[256];
        if (mring_embed_parse(f->embed, &grid, &c->embed, why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", field_name("embed", style, name, sizeof name), why);
            return -1;
        }
    }
    if (f->chunks && (c->chunks = chunk_item(f->chunks, strlen(f->chunks))) < 0) {
        snprintf(err, errlen, "%s '%s' is not valid; expected an integer 1..%d",
                 field_name("chunks", style, name, sizeof name), f->chunks, MRING_MAX_CHUNKS);
        return -1;
    }
    if (f->segment && mring_parse_size(f->segment, &c->segment)) {
        snprintf(err, errlen, "%s '%s' is not a size; expected bytes with an optional K, M, G or T suffix, e.g. 1M",
                 field_name("segment", style, name, sizeof name), f->segment);
        return -1;
    }
    return 0;
}

int mring_config_parse(const mring_config_fields_t *f, mring_fields_style_t style, const mring_topo_t *default_topo,
                       mring_config_t *c, char *err, size_t errlen)
{
    if (mring_config_fields_read(f, style, default_topo, c, err, errlen))
        return -1;
    return mring_config_check(c, err, errlen);
}

static int rings_uniform(const mring_config_t *c)
{
    for (int i = 1; i < c->topo.ndims; i++)
        if (c->rings[i] != c->rings[0])
            return 0;
    return 1;
}

/* The embedding fits the algorithm's grid, and gives no cycles to a dimension that runs halving. */
static int check_embed(const mring_config_t *c, const mring_gen_t *g, char *err, size_t errlen)
{
    const mring_topo_t *eg;
    mring_topo_t want = mring_algo_embed_grid(c);
    char a[64], b[64];
    if (!c->embed)
        return 0;
    eg = mring_embed_grid(c->embed);
    if (g->embed == MRING_EMBED_NONE) {
        snprintf(err, errlen, "--embed applies to %s only; %s follows its own orders", mring_algo_list_embed(), g->name);
        return -1;
    }
    if (eg->ndims != want.ndims || memcmp(eg->dims, want.dims, sizeof(int) * (size_t)want.ndims)) {
        snprintf(err, errlen, "--embed is for the grid %s; %s runs on %s", mring_topo_format(eg, a, sizeof a),
                 g->name, mring_topo_format(&want, b, sizeof b));
        return -1;
    }
    for (int i = 0; i < want.ndims && g->embed == MRING_EMBED_PER_DIM; i++)
        if (mring_embed_ncycles(c->embed, i) && c->dim_algo[i] != MRING_DIM_RING) {
            snprintf(err, errlen, "--embed gives cycles to dimension %d, which runs %s; rings only follow cycles",
                     i + 1, mring_dim_algo_name(c->dim_algo[i]));
            return -1;
        }
    return 0;
}

/* The rules every algorithm declares in its registry entry (algo.h), then its own check. */
int mring_config_check(const mring_config_t *c, char *err, size_t errlen)
{
    const mring_gen_t *g = mring_algo_gen(c->algo);
    char r[128];
    if (!g) {
        snprintf(err, errlen, "unknown algorithm %d; expected one of %s", (int)c->algo, mring_algo_list());
        return -1;
    }
    if (c->segment < 0) {
        snprintf(err, errlen, "--segment %lld is not valid; expected 0 (off) or a size in bytes", (long long)c->segment);
        return -1;
    }
    for (int i = 0; i < c->topo.ndims; i++) {
        if (c->rings[i] < 1 || c->rings[i] > MRING_MAX_RINGS) {
            snprintf(err, errlen, "rings %d in dimension %d is not valid; expected 1..%d", c->rings[i], i + 1,
                     MRING_MAX_RINGS);
            return -1;
        }
        if (c->dim_algo[i] >= MRING_NDIMALGOS) {
            snprintf(err, errlen, "dimension %d has unknown algorithm %d", i + 1, c->dim_algo[i]);
            return -1;
        }
        if (c->dim_algo[i] != MRING_DIM_RING && !g->dim_algo_help) {
            snprintf(err, errlen, "--dim-algo applies to %s only; %s has one algorithm", mring_algo_list_dim_algo(),
                     g->name);
            return -1;
        }
    }
    if (check_embed(c, g, err, errlen))
        return -1;
    if (c->chunks < 0 || c->chunks > MRING_MAX_CHUNKS) {
        snprintf(err, errlen, "--chunks %d is not valid; expected 1..%d", c->chunks, MRING_MAX_CHUNKS);
        return -1;
    }
    if (c->chunks > 1 && !g->takes_chunks) {
        snprintf(err, errlen, "--chunks %d: %s has no stages to pipeline chunks through; expected --chunks 1",
                 c->chunks, g->name);
        return -1;
    }
    if (g->rings == MRING_RINGS_ONE && c->rings[0] != 1) {
        snprintf(err, errlen, "--rings %s: %s runs one stream; expected --rings 1", mring_rings_format(c, r, sizeof r),
                 g->name);
        return -1;
    }
    if (g->rings != MRING_RINGS_PER_DIM && !rings_uniform(c)) {
        snprintf(err, errlen, "--rings %s per dimension applies to %s only; %s takes one value",
                 mring_rings_format(c, r, sizeof r), mring_algo_list_per_dim(), g->name);
        return -1;
    }
    return g->check ? g->check(c, err, errlen) : 0;
}

int mring_call_check(const mring_config_t *c, mring_call_t k, char *err, size_t errlen)
{
    if (k.count < 0) {
        snprintf(err, errlen, "count %lld is negative; expected a count >= 0", (long long)k.count);
        return -1;
    }
    if (k.elsize < 1) {
        snprintf(err, errlen, "element size %zu is not valid; expected >= 1", k.elsize);
        return -1;
    }
    if (k.count > INT64_MAX / (int64_t)k.elsize) {
        snprintf(err, errlen, "count %lld of %zu-byte elements is more than 2^63 - 1 bytes", (long long)k.count,
                 k.elsize);
        return -1;
    }
    if (c->segment > 0 && (size_t)c->segment < k.elsize) {
        snprintf(err, errlen, "--segment %lld is not valid; expected 0 (off) or at least one element (%zu bytes)",
                 (long long)c->segment, k.elsize);
        return -1;
    }
    if (c->segment > 0 && k.count * (int64_t)k.elsize / c->segment > MRING_MAX_PIECES) {
        snprintf(err, errlen, "--segment %lld cuts %lld bytes into more than %d pieces (each several ops of every "
                 "rank's schedule, held in memory); expected a larger --segment",
                 (long long)c->segment, (long long)(k.count * (int64_t)k.elsize), MRING_MAX_PIECES);
        return -1;
    }
    return 0;
}

int mring_config_equal(const mring_config_t *a, const mring_config_t *b)
{
    if (a->algo != b->algo || a->segment != b->segment || a->topo.ndims != b->topo.ndims ||
        (a->chunks > 1 ? a->chunks : 1) != (b->chunks > 1 ? b->chunks : 1) || a->embed != b->embed)
        return 0;
    for (int i = 0; i < a->topo.ndims; i++)
        if (a->topo.dims[i] != b->topo.dims[i] || a->rings[i] != b->rings[i] || a->dim_algo[i] != b->dim_algo[i])
            return 0;
    return 1;
}

/* Items 0..ndims-1 of v as "a,b,c", or one item when all are equal. */
static char *format_per_dim(const mring_config_t *c, const int *ints, const uint8_t *dims, char *buf, size_t len)
{
    size_t used = 0;
    int n = 1;
    for (int i = 1; i < c->topo.ndims; i++)
        if (ints ? ints[i] != ints[0] : dims[i] != dims[0])
            n = c->topo.ndims;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        if (ints)
            used += (size_t)snprintf(buf + used, len - used, i ? ",%d" : "%d", ints[i]);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", mring_dim_algo_name(dims[i]));
    }
    return buf;
}

char *mring_rings_format(const mring_config_t *c, char *buf, size_t len)
{
    return format_per_dim(c, c->rings, NULL, buf, len);
}

char *mring_dim_algos_format(const mring_config_t *c, char *buf, size_t len)
{
    return format_per_dim(c, NULL, c->dim_algo, buf, len);
}

/* A size in bytes with the largest K/M/G suffix that divides it. */
static void size_format(int64_t b, char *buf, size_t len)
{
    static const char suffix[] = "KMG";
    int k = -1;
    while (k < 2 && b > 0 && b % 1024 == 0) {
        b /= 1024;
        k++;
    }
    if (k >= 0)
        snprintf(buf, len, "%lld%c", (long long)b, suffix[k]);
    else
        snprintf(buf, len, "%lld", (long long)b);
}

char *mring_config_describe(const mring_config_t *c, char *buf, size_t len)
{
    char topo[64], rings[64], dims[128], seg[32];
    int any_dim = 0;
    size_t used;
    for (int i = 0; i < c->topo.ndims; i++)
        any_dim |= c->dim_algo[i] != MRING_DIM_RING;
    used = (size_t)snprintf(buf, len, "--algo %s --topo %s --rings %s", mring_algo_name(c->algo),
                            mring_topo_format(&c->topo, topo, sizeof topo), mring_rings_format(c, rings, sizeof rings));
    if (any_dim && used < len)
        used += (size_t)snprintf(buf + used, len - used, " --dim-algo %s", mring_dim_algos_format(c, dims, sizeof dims));
    if (c->segment && used < len) {
        size_format(c->segment, seg, sizeof seg);
        used += (size_t)snprintf(buf + used, len - used, " --segment %s", seg);
    }
    if (c->chunks > 1 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " --chunks %d", c->chunks);
    if (c->embed && used < len) /* ';' separates dimensions: quoted, so the description pastes into a shell */
        snprintf(buf + used, len - used, strchr(mring_embed_text(c->embed), ';') ? " --embed '%s'" : " --embed %s",
                 mring_embed_text(c->embed));
    return buf;
}

/* tuning.c - the tuning file reader (jansson; see tuning.h). */
#include "tuning.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct entry {
    int64_t lo, hi;
    mring_config_t c;
} entry_t;

struct mring_tuning {
    int ranks;
    int n;
    entry_t *e;
};

static int entry_of(json_t *o, entry_t *e, char *err, size_t errlen)
{
    json_int_t lo, hi, seg = 0;
    const char *algo, *topo, *rings, *dims = NULL;
    mring_topo_t t;
    if (json_unpack(o, "{s:I,s:I,s:s,s:s,s:s,s?s,s?I}", "min_size", &lo, "max_size", &hi, "algo", &algo, "topo",
                    &topo, "rings", &rings, "dim_algo", &dims, "segment", &seg)) {
        snprintf(err, errlen, "an entry lacks min_size, max_size, algo, topo or rings");
        return -1;
    }
    if (mring_topo_parse(topo, &t, err, errlen))
        return -1;
    mring_config_default(&e->c, &t);
    e->lo = lo;
    e->hi = hi;
    e->c.segment = seg;
    if (mring_algo_parse(algo, &e->c.algo)) {
        snprintf(err, errlen, "unknown algorithm '%s'", algo);
        return -1;
    }
    if (mring_rings_parse(rings, &t, e->c.rings, err, errlen) ||
        (dims && mring_dim_algos_parse(dims, &t, e->c.dim_algo, err, errlen)))
        return -1;
    return mring_config_check(&e->c, err, errlen);
}

mring_tuning_t *mring_tuning_load(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je), *entries, *o;
    mring_tuning_t *t = calloc(1, sizeof *t);
    char why[256];
    size_t i;
    if (!doc) {
        snprintf(err, errlen, "tuning file %s: %s (line %d)", path, je.text, je.line);
        goto fail;
    }
    entries = json_object_get(doc, "entries");
    t->ranks = (int)json_integer_value(json_object_get(doc, "ranks"));
    if (!t || !json_is_array(entries) || t->ranks < 1) {
        snprintf(err, errlen, "tuning file %s: expected {\"ranks\": P, \"entries\": [...]}", path);
        goto fail;
    }
    if (!(t->e = calloc(json_array_size(entries) + 1, sizeof *t->e)))
        goto fail;
    json_array_foreach (entries, i, o) {
        if (entry_of(o, &t->e[t->n], why, sizeof why)) {
            snprintf(err, errlen, "tuning file %s, entry %zu: %s", path, i, why);
            goto fail;
        }
        t->n++;
    }
    json_decref(doc);
    return t;
fail:
    json_decref(doc);
    mring_tuning_free(t);
    return NULL;
}

int mring_tuning_pick(const mring_tuning_t *t, int nranks, int64_t bytes, mring_config_t *c, char *err,
                      size_t errlen)
{
    if (nranks != t->ranks) {
        snprintf(err, errlen, "the tuning file is for %d ranks, not %d", t->ranks, nranks);
        return -1;
    }
    for (int i = 0; i < t->n; i++)
        if (t->e[i].lo <= bytes && bytes <= t->e[i].hi) {
            *c = t->e[i].c;
            return 0;
        }
    snprintf(err, errlen, "the tuning file has no entry for %lld bytes", (long long)bytes);
    return -1;
}

void mring_tuning_free(mring_tuning_t *t)
{
    if (!t)
        return;
    free(t->e);
    free(t);
}

/* tuning.c - the tuning file's reader and writer (jansson; see tuning.h). */
#include "tuning.h"

#include "algo.h"
#include "dtype.h"
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mring_tuning {
    int ranks;
    int n;
    mring_tuning_entry_t *e;
};

/* An optional string field, or an integer one written as a number (segment). */
static int field(json_t *o, const char *key, const char **out, char *buf, size_t len, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v)
        return 0;
    if (json_is_string(v))
        *out = json_string_value(v);
    else if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        *out = buf;
    } else {
        snprintf(err, errlen, "%s is not a string or an integer", key);
        return -1;
    }
    return 0;
}

static int entry_of(json_t *o, mring_tuning_entry_t *e, char *err, size_t errlen)
{
    static const char *const known[] = {"min_size", "max_size", "algo",  "topo",    "rings",      "dim_algo",
                                        "segment",  "chunks",   "embed", "time_us", "busbw_gbps", NULL};
    json_int_t lo, hi;
    mring_config_fields_t f = {0};
    char seg[32], chunks[32], unused[5][32];
    if (!json_is_object(o)) {
        snprintf(err, errlen, "an entry is not an object");
        return -1;
    }
    if (mring_json_unknown_key(o, "", known, err, errlen)) /* a misspelt "chunk" was ignored */
        return -1;
    if (!json_object_get(o, "min_size") || !json_object_get(o, "max_size") || !json_object_get(o, "algo") ||
        !json_object_get(o, "topo") || !json_object_get(o, "rings")) {
        snprintf(err, errlen, "an entry lacks min_size, max_size, algo, topo or rings");
        return -1;
    }
    if (json_unpack(o, "{s:I,s:I}", "min_size", &lo, "max_size", &hi)) {
        snprintf(err, errlen, "min_size and max_size must be integers (bytes)");
        return -1;
    }
    if (lo < 0 || hi < lo) {
        snprintf(err, errlen, "min_size %lld and max_size %lld are not a range of sizes (0 <= min <= max)",
                 (long long)lo, (long long)hi);
        return -1;
    }
    if (field(o, "topo", &f.topo, unused[0], sizeof unused[0], err, errlen) ||
        field(o, "algo", &f.algo, unused[1], sizeof unused[1], err, errlen) ||
        field(o, "rings", &f.rings, unused[2], sizeof unused[2], err, errlen) ||
        field(o, "dim_algo", &f.dim_algo, unused[3], sizeof unused[3], err, errlen) ||
        field(o, "segment", &f.segment, seg, sizeof seg, err, errlen) ||
        field(o, "chunks", &f.chunks, chunks, sizeof chunks, err, errlen) ||
        field(o, "embed", &f.embed, unused[4], sizeof unused[4], err, errlen))
        return -1;
    e->min_size = lo;
    e->max_size = hi;
    return mring_config_parse(&f, MRING_FIELDS_JSON, NULL, &e->c, err, errlen);
}

/* The file's "mring_tuning" (its format's version: 1, where given) and "type" (a data type's name, where
 * given): 0, or -1 with the bad one in err */
static int header_check(const json_t *doc, char *err, size_t errlen)
{
    const json_t *v = json_object_get(doc, "mring_tuning"), *type = json_object_get(doc, "type");
    mring_dtype_t t;
    if (v && (!json_is_integer(v) || json_integer_value(v) != 1)) {
        snprintf(err, errlen, "\"mring_tuning\" is not 1, the version this mring reads");
        return -1;
    }
    if (type && (!json_is_string(type) || mring_dtype_parse(json_string_value(type), &t))) {
        snprintf(err, errlen, "\"type\" is not a data type's name (e.g. float32)");
        return -1;
    }
    return 0;
}

/* The array entries into t->e[0 .. t->n - 1], each a valid configuration of t->ranks ranks whose sizes no
 * other entry's overlap: 0, or -1 with "tuning file PATH, entry I: why" in err */
static int read_entries(mring_tuning_t *t, const json_t *entries, const char *path, char *err, size_t errlen)
{
    char why[256];
    size_t i;
    json_t *o;
    json_array_foreach (entries, i, o) {
        mring_tuning_entry_t *e = &t->e[t->n];
        if (entry_of(o, e, why, sizeof why)) {
            snprintf(err, errlen, "tuning file %s, entry %zu: %s", path, i, why);
            return -1;
        }
        if (e->c.topo.nranks != t->ranks) { /* a pick must never run another rank count's schedule */
            snprintf(err, errlen, "tuning file %s, entry %zu: topo has %d ranks; the file is for %d (\"ranks\")", path,
                     i, e->c.topo.nranks, t->ranks);
            return -1;
        }
        for (int k = 0; k < t->n; k++) /* one configuration per size: a size in two ranges is ambiguous */
            if (e->min_size <= t->e[k].max_size && t->e[k].min_size <= e->max_size) {
                snprintf(err, errlen, "tuning file %s, entry %zu: sizes %lld..%lld overlap entry %d's %lld..%lld", path,
                         i, (long long)e->min_size, (long long)e->max_size, k, (long long)t->e[k].min_size,
                         (long long)t->e[k].max_size);
                return -1;
            }
        t->n++;
    }
    return 0;
}

mring_tuning_t *mring_tuning_load(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je), *entries, *ranks;
    int open_errno = errno; /* jansson's fopen, when the file could not be opened */
    mring_tuning_t *t = calloc(1, sizeof *t);
    char why[256];
    if (!t) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (!doc && je.line < 1) { /* not opened: jansson's text repeats the path */
        snprintf(err, errlen, "tuning file %s: cannot read it (%s)", path, strerror(open_errno));
        goto fail;
    }
    if (!doc) {
        char text[160];
        snprintf(err, errlen, "tuning file %s: %s (line %d)", path, mring_escape_line(je.text, text, sizeof text),
                 je.line);
        goto fail;
    }
    entries = json_object_get(doc, "entries");
    ranks = json_object_get(doc, "ranks");
    if (!json_is_array(entries) || !json_is_integer(ranks) || json_integer_value(ranks) < 1 ||
        json_integer_value(ranks) > MRING_MAX_RANKS) {
        snprintf(err, errlen, "tuning file %s: expected {\"ranks\": P (1..%d), \"entries\": [...]}", path,
                 MRING_MAX_RANKS);
        goto fail;
    }
    static const char *const top[] = {"mring_tuning", "platform", "ranks", "type", "entries", NULL};
    if (mring_json_unknown_key(doc, "", top, why, sizeof why) || header_check(doc, why, sizeof why)) {
        snprintf(err, errlen, "tuning file %s: %s", path, why);
        goto fail;
    }
    t->ranks = (int)json_integer_value(ranks);
    if (!(t->e = calloc(json_array_size(entries) + 1, sizeof *t->e))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (read_entries(t, entries, path, err, errlen))
        goto fail;
    json_decref(doc);
    return t;
fail:
    json_decref(doc);
    mring_tuning_free(t);
    return NULL;
}

int mring_tuning_ranks(const mring_tuning_t *t) { return t->ranks; }

int mring_tuning_pick(const mring_tuning_t *t, int nranks, int64_t bytes, mring_config_t *c, char *err,
                      size_t errlen)
{
    if (nranks != t->ranks) {
        snprintf(err, errlen, "the tuning file is for %d ranks, not %d", t->ranks, nranks);
        return -1;
    }
    for (int i = 0; i < t->n; i++)
        if (t->e[i].min_size <= bytes && bytes <= t->e[i].max_size) {
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

static json_t *entry_json(const mring_tuning_entry_t *e)
{
    char topo[64], rings[64], dims[128] = "";
    const mring_config_t *c = &e->c;
    for (int i = 0; i < c->topo.ndims; i++) /* written per dimension, so a reader sees every one */
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s", i ? "," : "", mring_dim_algo_name(c->dim_algo[i]));
    json_t *o = json_pack("{s:I,s:I,s:s,s:s,s:s,s:s,s:I}", "min_size", (json_int_t)e->min_size, "max_size",
                          (json_int_t)e->max_size, "algo", mring_algo_name(c->algo), "topo",
                          mring_topo_format(&c->topo, topo, sizeof topo), "rings",
                          mring_rings_format(c, rings, sizeof rings), "dim_algo", dims, "segment", (json_int_t)c->segment);
    if (o && ((c->chunks > 1 && json_object_set_new(o, "chunks", json_integer(c->chunks))) ||
              (c->embed && json_object_set_new(o, "embed", json_string(mring_embed_text(c->embed)))) ||
              json_object_set_new(o, "time_us", json_real(e->time_us)) ||
              json_object_set_new(o, "busbw_gbps", json_real(e->busbw_gbps)))) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

int mring_tuning_write(const char *path, const char *platform, int ranks, const char *type,
                       const mring_tuning_entry_t *e, int n, char *err, size_t errlen)
{
    json_t *entries = json_array(), *doc;
    char tmp[4096];
    for (int i = 0; entries && i < n; i++)
        if (json_array_append_new(entries, entry_json(&e[i]))) {
            json_decref(entries);
            entries = NULL;
        }
    doc = entries ? json_pack("{s:i,s:s,s:i,s:s,s:o}", "mring_tuning", 1, "platform", platform, "ranks", ranks,
                              "type", type, "entries", entries)
                  : NULL;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!doc || json_dump_file(doc, tmp, JSON_INDENT(1)) || rename(tmp, path)) {
        unlink(tmp);
        json_decref(doc);
        snprintf(err, errlen, "cannot write the tuning file %s", path);
        return -1;
    }
    json_decref(doc);
    return 0;
}

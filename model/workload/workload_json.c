/*
 * workload_json.c - the workload profile reader (jansson): the schema of platforms/workloads/README.md,
 * checked key by key.  An unknown key, a missing one or a bad value is one line naming the file, the
 * key (with its parents: compute.batch, layers[3].tensors[0].elements) and the value.
 */
#include "workload_build.h"

#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_BATCH (1 << 20)
#define MAX_ELEMENTS 1000000000000LL /* per tensor: 4 TB of fp32 */
#define NO_MAX ((json_int_t)INT64_MAX)

/* Where messages go and which file they name. */
typedef struct ctx {
    const char *file;
    char *err;
    size_t errlen;
} ctx_t;

/* Value v as compact JSON, cut to fit buf. */
static const char *value_text(json_t *v, char *buf, size_t len)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(buf, len, "%s", s ? s : "?");
    if (s && strlen(s) >= len && len > 4)
        strcpy(buf + len - 4, "...");
    free(s);
    return buf;
}

/* "FILE: PRE KEY is VALUE; expected WHAT"; returns 2. */
static int bad(const ctx_t *c, const char *pre, const char *key, json_t *v, const char *what)
{
    char val[64];
    snprintf(c->err, c->errlen, "%s: %s%s is %s; expected %s", c->file, pre, key, value_text(v, val, sizeof val),
             what);
    return 2;
}

/* "FILE: missing key PRE KEY (WHAT)"; returns 2. */
static int missing(const ctx_t *c, const char *pre, const char *key, const char *what)
{
    snprintf(c->err, c->errlen, "%s: missing key \"%s%s\" (%s)", c->file, pre, key, what);
    return 2;
}

/* An error unless every key of o is in the NULL-terminated list `keys`. */
static int check_keys(const ctx_t *c, json_t *o, const char *pre, const char *const *keys)
{
    char why[1024];
    if (!mring_json_unknown_key(o, pre, keys, why, sizeof why))
        return 0;
    snprintf(c->err, c->errlen, "%s: %s", c->file, why);
    return 2;
}

/* Integer KEY of o in [lo, hi] into *out; when absent, an error if required, else *out is kept. */
static int get_int(const ctx_t *c, json_t *o, const char *pre, const char *key, int required, json_int_t lo,
                   json_int_t hi, json_int_t *out)
{
    json_t *v = json_object_get(o, key);
    char what[96];
    if (hi == NO_MAX)
        snprintf(what, sizeof what, "an integer >= %lld", (long long)lo);
    else
        snprintf(what, sizeof what, "an integer from %lld to %lld", (long long)lo, (long long)hi);
    if (!v)
        return required ? missing(c, pre, key, what) : 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(c, pre, key, v, what);
    *out = json_integer_value(v);
    return 0;
}

/* Number KEY of o with lo < value < hi (required) into *out; `what` describes it in messages. */
static int get_num(const ctx_t *c, json_t *o, const char *pre, const char *key, double lo, double hi,
                   const char *what, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return missing(c, pre, key, what);
    if (!json_is_number(v) || !(json_number_value(v) > lo && json_number_value(v) < hi))
        return bad(c, pre, key, v, what);
    *out = json_number_value(v);
    return 0;
}

/* String KEY of o, minlen <= length < size, into *out; when absent, an error if required, else NULL. */
static int get_str(const ctx_t *c, json_t *o, const char *pre, const char *key, int required, size_t minlen,
                   size_t size, const char **out)
{
    json_t *v = json_object_get(o, key);
    char what[96];
    snprintf(what, sizeof what, "a string of %zu to %zu characters", minlen, size - 1);
    *out = NULL;
    if (!v)
        return required ? missing(c, pre, key, what) : 0;
    if (!json_is_string(v) || json_string_length(v) < minlen || json_string_length(v) >= size ||
        strlen(json_string_value(v)) != json_string_length(v))
        return bad(c, pre, key, v, what);
    *out = json_string_value(v);
    return 0;
}

/* Object KEY of o into *out; when absent, an error if required, else NULL. */
static int get_obj(const ctx_t *c, json_t *o, const char *pre, const char *key, int required, json_t **out)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v)
        return required ? missing(c, pre, key, "an object") : 0;
    if (!json_is_object(v))
        return bad(c, pre, key, v, "an object");
    *out = v;
    return 0;
}

/* The "architecture" object: derive its layers into w, with `classes` outputs when > 0 (else its own). */
static int parse_arch(const ctx_t *c, json_t *a, int classes, mring_workload_t *w)
{
    static const char *const keys[] = {"family", "blocks", "classes", "image", NULL};
    static const char blocks_what[] = "4 integers from 1 to 1000 (bottleneck blocks per stage), e.g. [3,4,6,3]";
    const char *pre = "architecture.", *family;
    json_int_t ncls = 0, image = 224;
    json_t *b = json_object_get(a, "blocks"), *v;
    int blocks[4], rc;
    size_t i;
    if ((rc = check_keys(c, a, pre, keys)) || (rc = get_str(c, a, pre, "family", 1, 1, 64, &family)))
        return rc;
    if (strcmp(family, "resnet-bottleneck"))
        return bad(c, pre, "family", json_object_get(a, "family"), "\"resnet-bottleneck\" (or give \"layers\")");
    if (!b)
        return missing(c, pre, "blocks", blocks_what);
    if (!json_is_array(b) || json_array_size(b) != 4)
        return bad(c, pre, "blocks", b, blocks_what);
    json_array_foreach (b, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1000)
            return bad(c, pre, "blocks", b, blocks_what);
        blocks[i] = (int)json_integer_value(v);
    }
    if ((rc = get_int(c, a, pre, "classes", 1, 1, 10000000, &ncls)) ||
        (rc = get_int(c, a, pre, "image", 0, 1, 65536, &image)))
        return rc;
    return mring_workload_resnet(w, blocks, classes > 0 ? classes : (int)ncls, (int)image);
}

/* Tensor j of layer l, object t: append it to w. */
static int parse_tensor(const ctx_t *c, json_t *t, int l, int j, mring_workload_t *w)
{
    static const char *const keys[] = {"name", "elements", NULL};
    char pre[64];
    const char *name;
    json_int_t n = 0;
    int rc;
    snprintf(pre, sizeof pre, "layers[%d].tensors[%d]", l, j);
    if (!json_is_object(t))
        return bad(c, "", pre, t, "an object {\"name\": ..., \"elements\": N}");
    strcat(pre, ".");
    if ((rc = check_keys(c, t, pre, keys)) || (rc = get_str(c, t, pre, "name", 1, 1, sizeof w->tensors->name, &name)) ||
        (rc = get_int(c, t, pre, "elements", 1, 1, MAX_ELEMENTS, &n)))
        return rc;
    return mring_workload_add_tensor(w, name, n);
}

/* The explicit "layers" list (forward order): append its layers and tensors to w. */
static int parse_layers(const ctx_t *c, json_t *layers, mring_workload_t *w)
{
    static const char *const keys[] = {"name", "macs", "tensors", NULL};
    json_t *o, *ts, *t;
    size_t l, j;
    int rc;
    if (!json_is_array(layers) || json_array_size(layers) == 0)
        return bad(c, "", "layers", layers, "a non-empty array of layers in forward order");
    json_array_foreach (layers, l, o) {
        char pre[32];
        const char *name;
        double macs;
        snprintf(pre, sizeof pre, "layers[%zu]", l);
        if (!json_is_object(o))
            return bad(c, "", pre, o, "an object {\"name\": ..., \"macs\": ..., \"tensors\": [...]}");
        strcat(pre, ".");
        if ((rc = check_keys(c, o, pre, keys)) ||
            (rc = get_str(c, o, pre, "name", 1, 1, sizeof w->layers->name, &name)) ||
            (rc = get_num(c, o, pre, "macs", 0, HUGE_VAL, "a number > 0 (forward multiply-accumulates per image)",
                          &macs)))
            return rc;
        if (!(ts = json_object_get(o, "tensors")))
            return missing(c, pre, "tensors", "an array of {\"name\": ..., \"elements\": N}");
        if (!json_is_array(ts))
            return bad(c, pre, "tensors", ts, "an array of {\"name\": ..., \"elements\": N}");
        if (mring_workload_add_layer(w, name, macs))
            return -1;
        json_array_foreach (ts, j, t)
            if ((rc = parse_tensor(c, t, (int)l, (int)j, w)))
                return rc;
    }
    if (w->ntensors == 0)
        return bad(c, "", "layers", layers, "at least one gradient tensor");
    return 0;
}

/* The MACs per image of the measured variant: the architecture with compute.classes outputs. */
static int ref_macs(const ctx_t *c, json_t *arch, int classes, mring_workload_t *w)
{
    mring_workload_t v = {0};
    int rc = parse_arch(c, arch, classes, &v);
    w->ref_macs_per_image = rc ? 0 : mring_workload_sum_macs(&v);
    mring_workload_free(&v);
    return rc;
}

/* The "compute" object: the measured throughput and the backward share. */
static int parse_compute(const ctx_t *c, json_t *o, json_t *arch, mring_workload_t *w)
{
    static const char *const keys[] = {"gpu",    "batch",  "images_per_s",          "classes",
                                       "backward_share", "source", "backward_share_source", NULL};
    const char *pre = "compute.", *gpu, *src, *bsrc;
    json_int_t batch = 0, classes = 0;
    int rc;
    if ((rc = check_keys(c, o, pre, keys)) || (rc = get_str(c, o, pre, "gpu", 1, 1, sizeof w->gpu, &gpu)) ||
        (rc = get_int(c, o, pre, "batch", 1, 1, MAX_BATCH, &batch)) ||
        (rc = get_num(c, o, pre, "images_per_s", 0, HUGE_VAL, "a number > 0 (measured images per second)",
                      &w->ref_images_per_s)) ||
        (rc = get_int(c, o, pre, "classes", 0, 1, 10000000, &classes)) ||
        (rc = get_num(c, o, pre, "backward_share", 0, 1, "a number between 0 and 1 (backward / iteration time)",
                      &w->backward_share)) ||
        (rc = get_str(c, o, pre, "source", 1, 1, sizeof w->source, &src)) ||
        (rc = get_str(c, o, pre, "backward_share_source", 0, 1, sizeof w->source, &bsrc)))
        return rc;
    if (classes && !arch)
        return bad(c, pre, "classes", json_object_get(o, "classes"),
                   "no class count with an explicit \"layers\" list (it applies to \"architecture\" profiles)");
    w->ref_batch = (int)batch;
    snprintf(w->gpu, sizeof w->gpu, "%s", gpu);
    if ((size_t)snprintf(w->source, sizeof w->source, "%s%s%s", src, bsrc ? "; backward share: " : "",
                         bsrc ? bsrc : "") >= sizeof w->source)
        return bad(c, pre, "backward_share_source", json_object_get(o, "backward_share_source"),
                   "a shorter text (compute.source + \"; backward share: \" + it must fit 511 characters)");
    w->ref_macs_per_image = w->macs_per_image;
    return classes ? ref_macs(c, arch, (int)classes, w) : 0;
}

/* An error unless "notes" (when there) is an array of strings. */
static int check_notes(const ctx_t *c, json_t *notes)
{
    json_t *v;
    size_t i;
    if (!notes)
        return 0;
    if (!json_is_array(notes))
        return bad(c, "", "notes", notes, "an array of strings");
    json_array_foreach (notes, i, v)
        if (!json_is_string(v))
            return bad(c, "", "notes", v, "an array of strings");
    return 0;
}

/* The layers (from "architecture" or "layers"), their totals and the published parameter count. */
static int parse_model(const ctx_t *c, json_t *doc, json_t *arch, mring_workload_t *w)
{
    json_t *layers = json_object_get(doc, "layers");
    json_int_t published = 0;
    int rc;
    if (arch && layers) {
        snprintf(c->err, c->errlen, "%s: both \"architecture\" and \"layers\" given; expected one of them", c->file);
        return 2;
    }
    if (!arch && !layers)
        return missing(c, "", "architecture\" or \"layers", "the model's layers, derived or listed");
    if ((rc = arch ? parse_arch(c, arch, 0, w) : parse_layers(c, layers, w)))
        return rc;
    for (int t = 0; t < w->ntensors; t++)
        w->parameters += w->tensors[t].elements;
    w->macs_per_image = mring_workload_sum_macs(w);
    if ((rc = get_int(c, doc, "", "published_parameters", 0, 1, NO_MAX, &published)))
        return rc;
    if (published && published != w->parameters) {
        snprintf(c->err, c->errlen,
                 "%s: published_parameters is %lld but the %s give %lld parameters; expected them equal", c->file,
                 (long long)published, arch ? "architecture's layers" : "layers", (long long)w->parameters);
        return 2;
    }
    return 0;
}

/* The whole profile document. */
static int parse_doc(const ctx_t *c, json_t *doc, mring_workload_t *w)
{
    static const char *const keys[] = {"name",          "description",       "architecture", "layers",
                                       "published_parameters", "parameters_source", "default_batch", "compute",
                                       "notes",         NULL};
    const char *name, *desc, *psrc;
    json_t *arch, *compute;
    json_int_t batch = 0;
    int rc;
    if (!json_is_object(doc))
        return bad(c, "", "the document", doc, "a JSON object");
    if ((rc = check_keys(c, doc, "", keys)) || (rc = get_str(c, doc, "", "name", 1, 1, sizeof w->name, &name)) ||
        (rc = get_str(c, doc, "", "description", 0, 0, sizeof w->description, &desc)) ||
        (rc = get_str(c, doc, "", "parameters_source", 0, 0, 4096, &psrc)) ||
        (rc = get_obj(c, doc, "", "architecture", 0, &arch)) || (rc = parse_model(c, doc, arch, w)) ||
        (rc = get_int(c, doc, "", "default_batch", 1, 1, MAX_BATCH, &batch)) ||
        (rc = get_obj(c, doc, "", "compute", 1, &compute)) || (rc = parse_compute(c, compute, arch, w)) ||
        (rc = check_notes(c, json_object_get(doc, "notes"))))
        return rc;
    snprintf(w->name, sizeof w->name, "%s", name);
    snprintf(w->description, sizeof w->description, "%s", desc ? desc : "");
    w->default_batch = (int)batch;
    return 0;
}

int mring_workload_parse_file(const char *path, mring_workload_t *w, char *err, size_t errlen)
{
    ctx_t c = {path, err, errlen};
    json_error_t je;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* jansson reads a directory as an empty text */
        snprintf(err, errlen, "%s: not a regular file; expected a workload profile (JSON)", path);
        return 2;
    }
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    char text[160];
    int rc;
    if (!doc) {
        if (je.line > 0)
            snprintf(err, errlen, "%s:%d: %s", path, je.line, mring_escape_line(je.text, text, sizeof text));
        else
            snprintf(err, errlen, "%s", mring_escape_line(je.text, text, sizeof text)); /* jansson names the file */
        return 2;
    }
    rc = parse_doc(&c, doc, w);
    json_decref(doc);
    return rc;
}

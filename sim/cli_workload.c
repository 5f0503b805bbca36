/* cli_workload.c - `mring workload`: a training workload profile, its gradients in backward order, when
 * each is ready and how DDP buckets them (model/workload.h). */
#include "cli.h"

#include "workload.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELSIZE 4 /* fp32 gradients */

static void help(void)
{
    char names[1024];
    printf("usage: mring workload NAME|FILE [--batch B] [--bucket BYTES] [--format table|csv|json]\n\n"
           "Print a data-parallel training workload: the gradient tensors one iteration allreduces, in the\n"
           "order the backward pass produces them, when each is ready, and the buckets PyTorch DDP would\n"
           "fill with them.  NAME is a profile in the workload directory ($MRING_WORKLOAD_DIR, else the\n"
           "source tree's platforms/workloads), FILE a profile's path (.json).  The schema and the\n"
           "assumptions are in platforms/workloads/README.md.  Profiles: %s.\n\n"
           "  --batch B         images per GPU per iteration, default: the profile's default_batch\n"
           "  --bucket BYTES    bucket cap (K/M/G = powers of two), default 25M as DDP's bucket_cap_mb=25;\n"
           "                    a bucket closes once it holds at least the cap; 0 = one bucket\n"
           "  --format F        table (default), csv or json\n\n"
           "Compute per iteration = B / the measured images/s (times the MACs ratio when the measurement\n"
           "is of another class count): throughput is taken as independent of batch.  The backward pass\n"
           "takes the profile's backward share of it, split between layers in proportion to their\n"
           "forward multiply-accumulates; ready(ms) is when a tensor's gradient is ready, counted from\n"
           "the start of the backward pass.  Gradients are fp32 (4 bytes per parameter).\n",
           mring_workload_list(names, sizeof names));
}

/* What the three formats print. */
typedef struct view {
    const mring_workload_t *w;
    int batch;
    int64_t cap;
    double iter_s, back_s;
    mring_bucket_t *b;
    int nb;
    int *bucket_of; /* per backward index */
} view_t;

/* Backward index i's tensor. */
static const mring_tensor_t *tensor(const view_t *v, int i)
{
    return &v->w->tensors[v->w->ntensors - 1 - i];
}

/* When backward index i's gradient is ready, in ms from the start of the backward pass. */
static double ready_ms(const view_t *v, int i)
{
    return mring_workload_ready_frac(v->w, v->w->ntensors - 1 - i) * v->back_s * 1e3;
}

static void print_table(const view_t *v)
{
    const mring_workload_t *w = v->w;
    int64_t bytes = w->parameters * ELSIZE;
    printf("# mring workload: %s%s%s\n", w->name, *w->description ? ": " : "", w->description);
    printf("# %lld parameters in %d tensors, %d layers; fp32 gradient %lld bytes (%.2f MiB)\n",
           (long long)w->parameters, w->ntensors, w->nlayers, (long long)bytes, (double)bytes / (1 << 20));
    printf("# forward %.0f MACs per image (%.4g G)\n", w->macs_per_image, w->macs_per_image / 1e9);
    printf("# batch %d per GPU: iteration %.3f ms, backward %.3f ms (share %.4f)\n", v->batch, v->iter_s * 1e3,
           v->back_s * 1e3, w->backward_share);
    printf("#   measured %g img/s at batch %d on %s%s\n#   source: %s\n", w->ref_images_per_s, w->ref_batch, w->gpu,
           w->ref_macs_per_image != w->macs_per_image ? " (another variant, scaled by MACs)" : "", w->source);
    if (v->cap)
        printf("# buckets: cap %lld bytes (%.4g MiB) -> %d bucket%s\n#\n", (long long)v->cap,
               (double)v->cap / (1 << 20), v->nb, v->nb == 1 ? "" : "s");
    else
        printf("# buckets: no cap -> 1 bucket\n#\n");
    printf("# %6s  %-32s %12s %12s %10s %6s\n", "index", "name", "elements", "bytes", "ready", "bucket");
    printf("# %6s  %-32s %12s %12s %10s %6s\n", "", "(backward order)", "", "", "(ms)", "");
    for (int i = 0; i < w->ntensors; i++)
        printf("  %6d  %-32s %12lld %12lld %10.3f %6d\n", i, tensor(v, i)->name, (long long)tensor(v, i)->elements,
               (long long)tensor(v, i)->elements * ELSIZE, ready_ms(v, i), v->bucket_of[i]);
    for (int k = 0; k < v->nb; k++)
        printf("# bucket %d: tensors %d..%d, %lld elements, %lld bytes, ready at %.3f ms\n", k, v->b[k].first,
               v->b[k].first + v->b[k].n - 1, (long long)v->b[k].elements, (long long)v->b[k].elements * ELSIZE,
               v->b[k].ready_frac * v->back_s * 1e3);
}

/* s as a CSV field (quoted when it holds a comma, a quote or a newline), then `after`. */
static void csv_field(const char *s, const char *after)
{
    if (strpbrk(s, ",\"\n")) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
    fputs(after, stdout);
}

static void print_csv(const view_t *v)
{
    printf("workload,batch,bucket_cap,index,name,layer,elements,bytes,ready_ms,bucket\n");
    for (int i = 0; i < v->w->ntensors; i++) {
        const mring_tensor_t *t = tensor(v, i);
        csv_field(v->w->name, ",");
        printf("%d,%lld,%d,", v->batch, (long long)v->cap, i);
        csv_field(t->name, ",");
        csv_field(v->w->layers[t->layer].name, ",");
        printf("%lld,%lld,%.6g,%d\n", (long long)t->elements, (long long)t->elements * ELSIZE, ready_ms(v, i),
               v->bucket_of[i]);
    }
}

/* The tensors in backward order, as JSON. NULL when memory runs out. */
static json_t *tensors_json(const view_t *v)
{
    json_t *ts = json_array();
    for (int i = 0; ts && i < v->w->ntensors; i++) {
        const mring_tensor_t *t = tensor(v, i);
        if (json_array_append_new(ts, json_pack("{s:i,s:s,s:s,s:I,s:I,s:f,s:i}", "index", i, "name", t->name, "layer",
                                                v->w->layers[t->layer].name, "elements", (json_int_t)t->elements,
                                                "bytes", (json_int_t)t->elements * ELSIZE, "ready_ms", ready_ms(v, i),
                                                "bucket", v->bucket_of[i]))) {
            json_decref(ts);
            ts = NULL;
        }
    }
    return ts;
}

/* The buckets, as JSON. NULL when memory runs out. */
static json_t *buckets_json(const view_t *v)
{
    json_t *bs = json_array();
    for (int k = 0; bs && k < v->nb; k++)
        if (json_array_append_new(bs, json_pack("{s:i,s:i,s:i,s:I,s:I,s:f}", "index", k, "first", v->b[k].first, "n",
                                                v->b[k].n, "elements", (json_int_t)v->b[k].elements, "bytes",
                                                (json_int_t)v->b[k].elements * ELSIZE, "ready_ms",
                                                v->b[k].ready_frac * v->back_s * 1e3))) {
            json_decref(bs);
            bs = NULL;
        }
    return bs;
}

/* The JSON document: totals, "tensors" in backward order and "buckets". NULL when memory runs out. */
static json_t *json_of(const view_t *v)
{
    const mring_workload_t *w = v->w;
    json_t *ts = tensors_json(v), *bs = buckets_json(v);
    if (!ts || !bs) {
        json_decref(ts);
        json_decref(bs);
        return NULL;
    }
    return json_pack("{s:s,s:s,s:I,s:I,s:f,s:i,s:f,s:f,s:f,s:s,s:f,s:i,s:f,s:s,s:I,s:o,s:o}", "workload", w->name,
                     "description", w->description, "parameters", (json_int_t)w->parameters, "gradient_bytes",
                     (json_int_t)w->parameters * ELSIZE, "macs_per_image", w->macs_per_image, "batch", v->batch,
                     "iteration_ms", v->iter_s * 1e3, "backward_ms", v->back_s * 1e3, "backward_share",
                     w->backward_share, "gpu", w->gpu, "images_per_s", w->ref_images_per_s, "measured_batch",
                     w->ref_batch, "measured_macs_per_image", w->ref_macs_per_image, "source", w->source, "bucket_cap",
                     (json_int_t)v->cap, "tensors", ts, "buckets", bs);
}

/* Which bucket each backward index falls in (allocated). */
static int *bucket_index(const char *cmd, const mring_workload_t *w, const mring_bucket_t *b, int nb)
{
    int *of = malloc(((size_t)w->ntensors + 1) * sizeof *of);
    if (!of)
        cli_fail(cmd, "out of memory");
    for (int k = 0; k < nb; k++)
        for (int i = b[k].first; i < b[k].first + b[k].n; i++)
            of[i] = k;
    return of;
}

int cmd_workload(int argc, char **argv)
{
    enum { OPT_BATCH = OPT_FIRST_FREE, OPT_BUCKET, OPT_FORMAT };
    static const struct option opts[] = {{"batch", required_argument, 0, OPT_BATCH},
                                         {"bucket", required_argument, 0, OPT_BUCKET},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "workload";
    mring_format_t fmt = MRING_FMT_TABLE;
    mring_workload_t w;
    view_t v = {.w = &w, .cap = 25 << 20};
    char err[1024];
    int opt, rc;
    while ((opt = cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        switch (opt) {
        case OPT_BATCH: v.batch = cli_int(cmd, "--batch", optarg, 1, 1 << 20); break;
        case OPT_BUCKET: v.cap = cli_size(cmd, "--bucket", optarg); break;
        case OPT_FORMAT:
            if (mring_format_parse(optarg, &fmt))
                cli_usage_error(cmd, "--format '%s' is unknown; expected table, csv or json", optarg);
            break;
        case 'h': help(); return 0;
        }
    }
    if (optind >= argc)
        cli_usage_error(cmd, "missing the workload: a name (%s) or a profile's path; see 'mring workload --help'",
                        mring_workload_list(err, sizeof err));
    if (optind + 1 < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if ((rc = mring_workload_load(argv[optind], &w, err, sizeof err)) < 0)
        cli_fail(cmd, "out of memory");
    if (rc)
        cli_usage_error(cmd, "%s", err);
    v.batch = v.batch ? v.batch : w.default_batch;
    v.iter_s = mring_workload_iter_s(&w, v.batch);
    v.back_s = mring_workload_backward_s(&w, v.batch);
    if ((v.nb = mring_workload_buckets(&w, v.cap, ELSIZE, &v.b)) < 0)
        cli_fail(cmd, "out of memory");
    v.bucket_of = bucket_index(cmd, &w, v.b, v.nb);
    if (fmt == MRING_FMT_TABLE)
        print_table(&v);
    else if (fmt == MRING_FMT_CSV)
        print_csv(&v);
    else {
        json_t *doc = json_of(&v);
        if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1)) < 0)
            cli_fail(cmd, "writing the report failed");
        putchar('\n');
        json_decref(doc);
    }
    free(v.bucket_of);
    free(v.b);
    mring_workload_free(&w);
    if (fflush(stdout) || ferror(stdout))
        cli_fail(cmd, "writing the report failed");
    return 0;
}

/* scaling_out.c - `mring scaling`'s output: table, CSV, JSON and the efficiency plot (scaling_cli.h). */
#include "scaling_cli.h"

#include "plot.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "25 MiB", "256 KiB", "100 B" */
static char *bytes_h(int64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, len, "%.4g %s", v, unit[u]);
    return buf;
}

/* The configuration in words: algorithm, rings, per-dimension algorithms, segment, type, in flight. */
static char *config_words(const mring_scaling_opts_t *so, const scaling_cli_t *o, char *buf, size_t len)
{
    const mring_config_t *c = so->proto;
    char rings[64], seg[32], dims[128] = "";
    for (int i = 0; i < c->topo.ndims; i++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s", i ? "," : "", mring_dim_algo_name(c->dim_algo[i]));
    char flight[48] = "any number of allreduces in flight";
    if (so->inflight)
        snprintf(flight, sizeof flight, "%d allreduce%s in flight per GPU", so->inflight, so->inflight == 1 ? "" : "s");
    snprintf(buf, len, "%s rings %s, dim-algo %s, segment %s, %s gradients, %s", mring_algo_name(c->algo),
             mring_rings_format(c, rings, sizeof rings), dims, c->segment ? bytes_h(c->segment, seg, sizeof seg) : "off",
             mring_dtype_name(o->dtype), flight);
    return buf;
}

void scaling_print_table(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_platform_t *pf,
                         const mring_step_t *s)
{
    const mring_workload_t *w = so->w;
    char topo[64], words[512], cap[32];
    mring_topo_format(&so->proto->topo, topo, sizeof topo);
    printf("# mring scaling: %s (%lld parameters, %.1f MiB of %s gradients), batch %d per GPU, overlap %s\n",
           w->name, (long long)w->parameters, (double)w->parameters * (double)so->elsize / (1 << 20),
           mring_dtype_name(o->dtype), so->batch, so->overlap ? "on" : "off");
    printf("# %s\n", so->bucket_bytes ? (snprintf(words, sizeof words, "buckets of at least %s (DDP's rule)",
                                                   bytes_h(so->bucket_bytes, cap, sizeof cap)), words)
                                      : "one fused allreduce after backward");
    printf("# platform %s (%s, %d GPUs, one node = %d GPUs)\n", o->platform, topo, pf->nranks, o->node);
    printf("# %s\n", config_words(so, o, words, sizeof words));
    if (o->tuning)
        printf("# tuning %s: used where its rank count matches (column tuned)\n", o->tuning);
    printf("# compute per GPU and iteration: forward %.2f ms + backward %.2f ms (%s: %.1f img/s at batch %d,\n"
           "#   backward share %.3f, throughput taken as independent of batch; %s)\n",
           1e3 * s[0].forward_s, 1e3 * s[0].backward_s, w->gpu, w->ref_images_per_s, w->ref_batch,
           w->backward_share, w->source);
    printf("# %6s %-10s %7s%s %10s %10s %10s %10s %10s %10s\n", "gpus", "topo", "buckets", o->tuning ? "   tuned" : "",
           "compute_ms", "comm_ms", "exposed_ms", "iter_ms", "images/s", "efficiency");
    for (int i = 0; i < o->ngpus; i++) {
        printf("  %6d %-10s %7d", s[i].gpus, s[i].topo, s[i].nbuckets);
        if (o->tuning)
            printf(" %7d", s[i].tuned);
        printf(" %10.2f %10.2f %10.2f %10.2f %10.1f %9.1f%%\n", 1e3 * (s[i].forward_s + s[i].backward_s),
               1e3 * s[i].comm_s, 1e3 * s[i].exposed_s, 1e3 * s[i].iter_s, s[i].images_per_s, 100 * s[i].efficiency);
    }
}

void scaling_print_csv(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s)
{
    char rings[64];
    mring_rings_format(so->proto, rings, sizeof rings);
    printf("workload,gpus,topo,algo,rings,type,segment,batch,bucket_bytes,overlap,inflight,buckets,tuned_buckets,"
           "forward_ms,backward_ms,comm_ms,exposed_ms,iter_ms,images_per_s,efficiency\n");
    for (int i = 0; i < o->ngpus; i++) {
        printf("%s,%d,%s,%s,", so->w->name, s[i].gpus, s[i].topo, mring_algo_name(so->proto->algo));
        mring_csv_field(stdout, rings);
        printf(",%s,%lld,%d,%lld,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.6f\n", mring_dtype_name(o->dtype),
               (long long)so->proto->segment, so->batch, (long long)so->bucket_bytes, so->overlap, so->inflight,
               s[i].nbuckets, s[i].tuned, 1e3 * s[i].forward_s, 1e3 * s[i].backward_s, 1e3 * s[i].comm_s,
               1e3 * s[i].exposed_s, 1e3 * s[i].iter_s, s[i].images_per_s, s[i].efficiency);
    }
}

static json_t *json_rows(const scaling_cli_t *o, const mring_step_t *s)
{
    json_t *rows = json_array();
    for (int i = 0; rows && i < o->ngpus; i++)
        if (json_array_append_new(rows, json_pack("{s:i,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "gpus", s[i].gpus,
                                                  "topo", s[i].topo, "buckets", s[i].nbuckets, "tuned_buckets",
                                                  s[i].tuned, "forward_ms", 1e3 * s[i].forward_s, "backward_ms",
                                                  1e3 * s[i].backward_s, "comm_ms", 1e3 * s[i].comm_s, "exposed_ms",
                                                  1e3 * s[i].exposed_s, "iter_ms", 1e3 * s[i].iter_s,
                                                  "images_per_s", s[i].images_per_s, "efficiency", s[i].efficiency))) {
            json_decref(rows);
            return NULL;
        }
    return rows;
}

int scaling_print_json(const mring_scaling_opts_t *so, const scaling_cli_t *o, const mring_step_t *s)
{
    const mring_config_t *c = so->proto;
    json_t *rows = json_rows(o, s), *dims = json_array(), *doc = NULL;
    char rings[64];
    int rc;
    for (int i = 0; dims && i < c->topo.ndims; i++)
        json_array_append_new(dims, json_string(mring_dim_algo_name(c->dim_algo[i])));
    if (rows && dims)
        doc = json_pack("{s:s,s:s,s:I,s:i,s:I,s:s,s:s,s:O,s:I,s:s,s:b,s:i,s:s?,s:O}", "workload", so->w->name,
                        "platform", o->platform, "parameters", (json_int_t)so->w->parameters, "batch", so->batch,
                        "bucket_bytes", (json_int_t)so->bucket_bytes, "algo", mring_algo_name(c->algo), "rings",
                        mring_rings_format(c, rings, sizeof rings), "dim_algo", dims, "segment",
                        (json_int_t)c->segment, "type", mring_dtype_name(o->dtype), "overlap", so->overlap,
                        "inflight", so->inflight, "tuning", o->tuning, "rows", rows);
    rc = !doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) || printf("\n") < 0;
    json_decref(doc);
    json_decref(rows);
    json_decref(dims);
    return rc;
}

/* ---- --plot: efficiency against GPUs, one baseline for every line ---- */

typedef struct plot_data {
    const scaling_series_t *series;
    int nseries, n, batch, node;
    const char *workload, *platform, *main_algo;
} plot_data_t;

static int plot_data(FILE *f, void *arg)
{
    const plot_data_t *p = arg;
    for (int k = 0; k < p->nseries; k++) {
        const mring_step_t *st = p->series[k].steps;
        fprintf(f, "# %s\n", p->series[k].title);
        for (int i = 0; st && i < p->n; i++)
            if (st[i].iter_s > 0)
                fprintf(f, "%d %g\n", st[i].gpus, 100 * st[i].efficiency);
        fprintf(f, "\n\n");
    }
    return 0;
}

static void plot_script(FILE *g, const char *data, void *arg)
{
    const plot_data_t *p = arg;
    fprintf(g, "set logscale x 2\nset xlabel 'GPUs'\nset ylabel 'images/s per GPU against one node of %d with %s (%%)'\n"
               "set key left bottom\nset grid\nset title 'mring scaling: %s, batch %d per GPU, on %s (simulated)'\nplot ",
            p->node, p->main_algo, p->workload, p->batch, p->platform);
    for (int k = 0; k < p->nseries; k++)
        fprintf(g, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "", data, k, p->series[k].title);
    fprintf(g, "\n");
}

void scaling_plot(const char *cmd, const mring_scaling_opts_t *so, const scaling_cli_t *o, const scaling_series_t *series,
                  int n)
{
    const char *file = strrchr(o->platform, '/');
    plot_data_t p = {series, n, o->ngpus, so->batch, o->node, so->w->name, file ? file + 1 : o->platform,
                     mring_algo_name(so->proto->algo)};
    char err[1024], names[256] = "";
    if (mring_plot_png(o->plot, plot_data, plot_script, &p, err, sizeof err))
        cli_fail(cmd, "%s", err);
    for (int k = 0; k < n; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", series[k].title);
    if (o->fmt == MRING_FMT_TABLE)
        printf("# plot: %s (%s)\n", o->plot, names);
}

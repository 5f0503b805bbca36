/* tune_out.c - the tuning file (JSON, jansson) and the busbw plot (gnuplot) of `mring tune` (see tune.h). */
#include "tune.h"

#include "plot.h"
#include "report.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same(const mring_config_t *a, const mring_config_t *b)
{
    return a->algo == b->algo && a->segment == b->segment && a->topo.ndims == b->topo.ndims &&
           !memcmp(a->topo.dims, b->topo.dims, sizeof a->topo.dims) && !memcmp(a->rings, b->rings, sizeof a->rings) &&
           !memcmp(a->dim_algo, b->dim_algo, sizeof a->dim_algo);
}

static json_t *entry(const mring_tune_size_t *s, int64_t lo, int64_t hi, int P)
{
    char topo[64], rings[64], dims[128] = "";
    const mring_config_t *c = &s->best.c;
    for (int i = 0; i < c->topo.ndims; i++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s", i ? "," : "", mring_dim_algo_name(c->dim_algo[i]));
    return json_pack("{s:I,s:I,s:s,s:s,s:s,s:s,s:I,s:f,s:f}", "min_size", (json_int_t)lo, "max_size", (json_int_t)hi,
                     "algo", mring_algo_name(c->algo), "topo", mring_topo_format(&c->topo, topo, sizeof topo),
                     "rings", mring_rings_format(c, rings, sizeof rings), "dim_algo", dims, "segment",
                     (json_int_t)c->segment, "time_us", s->best.time * 1e6, "busbw_gbps",
                     mring_busbw_gbps(s->size, s->best.time * 1e6, P));
}

int mring_tune_write_file(const char *path, const char *platform, const mring_tune_size_t *s, int n, int P,
                          const char *type, char *err, size_t errlen)
{
    json_t *entries = json_array(), *doc;
    char tmp[4096];
    int64_t lo = 0;
    for (int i = 0; entries && i < n; i++) {
        if (i + 1 < n && same(&s[i].best.c, &s[i + 1].best.c))
            continue; /* merged into the next range */
        int64_t hi = i + 1 < n ? s[i + 1].size - 1 : INT64_MAX;
        if (json_array_append_new(entries, entry(&s[i], lo, hi, P)))
            entries = NULL;
        lo = hi + 1;
    }
    doc = entries ? json_pack("{s:i,s:s,s:i,s:s,s:o}", "mring_tuning", 1, "platform", platform, "ranks", P, "type",
                              type, "entries", entries)
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

/* The plot's data: per algorithm its best configuration's busbw per size, then the best overall. */
struct plot_arg {
    const mring_tune_size_t *s;
    int n, P;
};

static int write_data(FILE *f, void *arg)
{
    const struct plot_arg *a = arg;
    for (int al = 0; al < MRING_NALGOS; al++) {
        fprintf(f, "# %s\n", mring_algo_name((mring_algo_t)al));
        for (int i = 0; i < a->n; i++)
            if (a->s[i].per_algo[al].time > 0)
                fprintf(f, "%lld %g\n", (long long)a->s[i].size,
                        mring_busbw_gbps(a->s[i].size, a->s[i].per_algo[al].time * 1e6, a->P));
        fprintf(f, "\n\n");
    }
    fprintf(f, "# best\n");
    for (int i = 0; i < a->n; i++)
        if (a->s[i].best.time > 0)
            fprintf(f, "%lld %g\n", (long long)a->s[i].size, mring_busbw_gbps(a->s[i].size, a->s[i].best.time * 1e6, a->P));
    return 0;
}

static void write_script(FILE *g, const char *data, void *arg)
{
    (void)arg;
    fprintf(g, "set logscale x 2\nset format x '%%.0s%%cB'\n"
               "set xlabel 'size per rank'\nset ylabel 'busbw (GB/s)'\nset key left top\nset grid\n"
               "set title 'mring tune: best configuration of each algorithm (simulated)'\nplot ");
    for (int a = 0; a < MRING_NALGOS; a++)
        fprintf(g, "'%s' index %d using 1:2 with linespoints title '%s', ", data, a, mring_algo_name((mring_algo_t)a));
    fprintf(g, "'%s' index %d using 1:2 with lines lw 3 title 'best'\n", data, MRING_NALGOS);
}

int mring_tune_plot(const char *path, const mring_tune_size_t *s, int n, int P, char *err, size_t errlen)
{
    struct plot_arg a = {s, n, P};
    return mring_plot_png(path, write_data, write_script, &a, err, errlen);
}

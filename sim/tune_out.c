/* tune_out.c - the tuning file (JSON, jansson) and the busbw plot (gnuplot) of `mring tune` (see tune.h). */
#include "tune.h"

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

static int write_data(const char *path, const mring_tune_size_t *s, int n, int P)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int a = 0; a < MRING_NALGOS; a++) {
        fprintf(f, "# %s\n", mring_algo_name((mring_algo_t)a));
        for (int i = 0; i < n; i++)
            if (s[i].per_algo[a].time > 0)
                fprintf(f, "%lld %g\n", (long long)s[i].size, mring_busbw_gbps(s[i].size, s[i].per_algo[a].time * 1e6, P));
        fprintf(f, "\n\n");
    }
    fprintf(f, "# best\n");
    for (int i = 0; i < n; i++)
        if (s[i].best.time > 0)
            fprintf(f, "%lld %g\n", (long long)s[i].size, mring_busbw_gbps(s[i].size, s[i].best.time * 1e6, P));
    return fclose(f);
}

int mring_tune_plot(const char *path, const mring_tune_size_t *s, int n, int P, char *err, size_t errlen)
{
    char dir[] = "/tmp/mring-plot-XXXXXX", data[64], script[64], tmp[4096], cmd[256];
    FILE *g;
    int rc = -1;
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory for the plot");
        return -1;
    }
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (write_data(data, s, n, P) || !(g = fopen(script, "w"))) {
        snprintf(err, errlen, "cannot write the plot data");
        goto out;
    }
    fprintf(g, "set terminal png size 900,600\nset output '%s'\nset logscale x 2\nset format x '%%.0s%%cB'\n"
               "set xlabel 'size per rank'\nset ylabel 'busbw (GB/s)'\nset key left top\nset grid\n"
               "set title 'mring tune: best configuration of each algorithm (simulated)'\nplot ",
            tmp);
    for (int a = 0; a < MRING_NALGOS; a++)
        fprintf(g, "'%s' index %d using 1:2 with linespoints title '%s', ", data, a, mring_algo_name((mring_algo_t)a));
    fprintf(g, "'%s' index %d using 1:2 with lines lw 3 title 'best'\n", data, MRING_NALGOS);
    fclose(g);
    snprintf(cmd, sizeof cmd, "gnuplot %s 2>%s/log", script, dir);
    if (system(cmd) != 0 || rename(tmp, path)) {
        snprintf(err, errlen, "gnuplot could not draw %s (is gnuplot installed? apt-get install gnuplot-nox)", path);
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 0;
    return rc;
}

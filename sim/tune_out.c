/* tune_out.c - the tuning file (JSON, jansson) and the busbw plot (gnuplot) of `mring tune` (see tune.h). */
#include "tune.h"

#include "plot.h"
#include "report.h"
#include "tuning.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mring_tune_write_file(const char *path, const char *platform, const mring_tune_size_t *s, int n, int P,
                          const char *type, char *err, size_t errlen)
{
    mring_tuning_entry_t *e = calloc((size_t)n + 1, sizeof *e);
    int ne = 0, rc;
    int64_t lo = 0;
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (i + 1 < n && mring_config_equal(&s[i].best.c, &s[i + 1].best.c))
            continue; /* merged into the next range */
        int64_t hi = i + 1 < n ? s[i + 1].size - 1 : INT64_MAX;
        e[ne++] = (mring_tuning_entry_t){lo, hi, s[i].best.c, s[i].best.time * 1e6,
                                         mring_busbw_gbps(s[i].size, s[i].best.time * 1e6, P)};
        if (hi < INT64_MAX)
            lo = hi + 1;
    }
    rc = mring_tuning_write(path, platform, P, type, e, ne, err, errlen);
    free(e);
    return rc;
}

/* The plot's data: per algorithm its best configuration's busbw per size, then the best overall. */
struct plot_arg {
    const mring_tune_size_t *s;
    int n, P;
};

static int write_data(FILE *f, void *arg)
{
    const struct plot_arg *a = arg;
    for (int al = 0; al < mring_algo_count(); al++) {
        fprintf(f, "# %s\n", mring_algo_name(al));
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
    for (int a = 0; a < mring_algo_count(); a++)
        fprintf(g, "'%s' index %d using 1:2 with linespoints title '%s', ", data, a, mring_algo_name(a));
    fprintf(g, "'%s' index %d using 1:2 with lines lw 3 title 'best'\n", data, mring_algo_count());
}

int mring_tune_plot(const char *path, const mring_tune_size_t *s, int n, int P, char *err, size_t errlen)
{
    struct plot_arg a = {s, n, P};
    return mring_plot_png(path, write_data, write_script, &a, err, errlen);
}

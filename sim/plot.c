/* plot.c - run gnuplot on a data file and a script in a temporary directory (see plot.h). */
#include "plot.h"

#include <stdlib.h>
#include <unistd.h>

int mring_plot_png(const char *path, int (*data)(FILE *f, void *arg),
                   void (*script)(FILE *g, const char *datafile, void *arg), void *arg, char *err, size_t errlen)
{
    char dir[] = "/tmp/mring-plot-XXXXXX", datafile[64], scriptfile[64], tmp[4096], cmd[256];
    FILE *f, *g;
    int rc = -1;
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory for the plot");
        return -1;
    }
    snprintf(datafile, sizeof datafile, "%s/data", dir);
    snprintf(scriptfile, sizeof scriptfile, "%s/plot.gp", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(datafile, "w")) || (data(f, arg) | fclose(f)) || !(g = fopen(scriptfile, "w"))) {
        snprintf(err, errlen, "cannot write the plot data in %s", dir);
        goto out;
    }
    fprintf(g, "set terminal png size 900,600\nset output '%s'\n", tmp);
    script(g, datafile, arg);
    if (fclose(g)) {
        snprintf(err, errlen, "cannot write the plot script in %s", dir);
        goto out;
    }
    snprintf(cmd, sizeof cmd, "gnuplot %s 2>%s/log", scriptfile, dir);
    if (system(cmd) != 0 || rename(tmp, path)) {
        snprintf(err, errlen, "gnuplot could not draw %s (is gnuplot installed? apt-get install gnuplot-nox)", path);
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0 && rc == 0)
        snprintf(err, errlen, "could not remove %s", dir); /* the plot is drawn: not an error */
    return rc;
}

/* plot.c - run gnuplot on a data file and a script in a temporary directory (see plot.h). */
#include "plot.h"

#include <stdlib.h>
#include <unistd.h>

/* Copy file from to file to (created or truncated).  Returns 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    int bad = 0;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        bad |= fwrite(buf, 1, n, out) != n;
    bad |= !in || !out || ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out))
        bad = 1;
    return bad ? -1 : 0;
}

int mring_plot_png(const char *path, int (*data)(FILE *f, void *arg),
                   void (*script)(FILE *g, const char *datafile, void *arg), void *arg, char *err, size_t errlen)
{
    char dir[] = "/tmp/mring-plot-XXXXXX", datafile[64], scriptfile[64], pngfile[64], tmp[4096], cmd[256];
    FILE *f, *g;
    int rc = -1;
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory for the plot");
        return -1;
    }
    snprintf(datafile, sizeof datafile, "%s/data", dir);
    snprintf(scriptfile, sizeof scriptfile, "%s/plot.gp", dir);
    snprintf(pngfile, sizeof pngfile, "%s/plot.png", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(datafile, "w")) || (data(f, arg) | fclose(f)) || !(g = fopen(scriptfile, "w"))) {
        snprintf(err, errlen, "cannot write the plot data in %s", dir);
        goto out;
    }
    /* gnuplot draws into the temporary directory (a name of safe characters), then the PNG is copied next to
     * path and renamed over it: a path of any characters works and is written whole or not at all */
    fprintf(g, "set terminal png size 900,600\nset output '%s'\n", pngfile);
    script(g, datafile, arg);
    if (fclose(g)) {
        snprintf(err, errlen, "cannot write the plot script in %s", dir);
        goto out;
    }
    snprintf(cmd, sizeof cmd, "gnuplot %s 2>%s/log", scriptfile, dir);
    if (system(cmd) != 0) {
        snprintf(err, errlen, "gnuplot could not draw %s (is gnuplot installed? apt-get install gnuplot-nox)", path);
        goto out;
    }
    if (copy_file(pngfile, tmp) || rename(tmp, path)) {
        snprintf(err, errlen, "cannot write the plot %s", path);
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

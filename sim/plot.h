/*
 * plot.h - PNG plots drawn by gnuplot (Debian gnuplot-nox), for `mring tune --plot` and
 * `mring scaling --plot`.
 */
#ifndef MRING_PLOT_H
#define MRING_PLOT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Draw the PNG `path` (900x600): data(f, arg) writes gnuplot's data file (blocks separated by two
 * blank lines, for `index`); script(g, datafile, arg) writes the commands after the terminal and
 * output lines (labels, `plot ...`).  Work files go to a fresh temporary directory, removed after;
 * the PNG is written under a temporary name and renamed, so `path` appears whole or not at all.
 * Returns 0, or -1 with a one-line reason in err (no gnuplot: names the package).
 */
int mring_plot_png(const char *path, int (*data)(FILE *f, void *arg),
                   void (*script)(FILE *g, const char *datafile, void *arg), void *arg, char *err, size_t errlen);

#endif

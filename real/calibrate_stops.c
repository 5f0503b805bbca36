/* calibrate_stops.c - mring-calibrate --stops: the passes' points a stop of the machine overlapped, and the
 * median of the others (see calibrate_stops.h). */
#include "calibrate_stops.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the 0-based column of name in a CSV header line, or -1 */
static int column(const char *header, const char *name)
{
    size_t len = strlen(name);
    int col = 0;
    for (const char *p = header;; col++) {
        const char *end = p + strcspn(p, ",\n");
        if ((size_t)(end - p) == len && !strncmp(p, name, len))
            return col;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

/* field col of a CSV line as a finite number into *x; 0, or -1 */
static int field(const char *line, int col, double *x)
{
    const char *p = line;
    char *end;
    for (int c = 0; c < col; c++)
        if (!(p = strchr(p, ',')) || !*++p)
            return -1;
    errno = 0;
    *x = strtod(p, &end);
    return end == p || errno || !isfinite(*x) || (*end != ',' && *end != '\n') ? -1 : 0;
}

int calib_mark_stopped(const char *path, level_t *pass, int n, char *err, size_t errlen)
{
    char *line = NULL;
    size_t cap = 0;
    int from_col = -1, to_col = -1, marked = 0, row = 1;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "--stops '%s': %s", path, strerror(errno));
        return -1;
    }
    if (getline(&line, &cap, f) < 0 || (from_col = column(line, "from_s")) < 0 || (to_col = column(line, "to_s")) < 0) {
        snprintf(err, errlen, "--stops '%s': no header with columns from_s and to_s", path);
        marked = -1;
    }
    while (marked >= 0 && getline(&line, &cap, f) > 0 && strchr(line, '\n')) {
        double from, to;
        row++;
        if (field(line, from_col, &from) || field(line, to_col, &to)) {
            snprintf(err, errlen, "--stops '%s': line %d has no number in from_s or to_s", path, row);
            marked = -1;
            break;
        }
        for (int k = 0; k < n; k++)
            for (int i = 0; i < pass[k].n; i++) {
                point_t *p = &pass[k].pt[i];
                if (!p->stopped && from < p->to_s && to > p->from_s)
                    p->stopped = 1, marked++;
            }
    }
    free(line);
    fclose(f);
    return marked;
}

int calib_settle(const char *stops, level_t *pass, int n, level_t *med, char *err, size_t errlen)
{
    int marked = stops ? calib_mark_stopped(stops, pass, n, err, errlen) : 0;
    if (marked < 0 || calib_median_level(pass, n, med, err, errlen) || calib_fit_level(med, err, errlen))
        return -1;
    return marked;
}

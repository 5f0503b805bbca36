/* csv_table.h - read mring's CSV output by column name, for the tests and benchmarks.
 *
 * Header-only, like cli_run.h, so each tests/test_*.c stays one translation unit.  It reads what
 * mring writes (model/core/report.c, mring_csv_field): fields separated by commas, a field holding
 * a comma, a double quote or a newline inside double quotes with its quotes doubled (RFC 4180).
 * Lines starting with '#' are skipped; the first other line is the header, every later one a row
 * that must have exactly as many fields as the header.  A test names the columns it reads, so a
 * column added to the output does not silently shift the figures a test checks.
 */
#ifndef MRING_TESTS_CSV_TABLE_H
#define MRING_TESTS_CSV_TABLE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct csv_table {
    int ncols, nrows; /* rows after the header */
    char **cell;      /* (nrows + 1) x ncols field pointers into buf; row 0 is the header */
    char *buf;        /* the fields, unquoted and NUL-terminated, back to back */
};

/* One field of the line at *p into *out, unquoted and NUL-terminated; *p moves past the field and
 * the comma or newline after it, *out past the NUL.  *out may be the line itself (in-place: a field
 * never grows when unquoted).  Returns 1 if another field follows on the line, 0 at its end, -1 on a
 * quote left open or text after a closing quote. */
static inline int csv_field_(const char **p, char **out)
{
    const char *s = *p;
    char *o = *out;
    if (*s == '"') {
        for (s++;; s++) {
            if (!*s)
                return -1;
            if (*s == '"' && s[1] != '"')
                break;
            s += *s == '"'; /* a doubled quote is one quote */
            *o++ = *s;
        }
        s++;
    } else {
        size_t n = strcspn(s, ",\n");
        memmove(o, s, n);
        o += n, s += n;
    }
    char end = *s; /* read before the NUL below, which may land on it in place */
    if (end && end != ',' && end != '\n')
        return -1;
    *o++ = '\0';
    *out = o;
    *p = s + (end != '\0');
    return end == ',';
}

/* Split one CSV line in place into at most max fields (f[i] point into line); the field count, or
 * -1 for a line with more fields, an unclosed quote or text after a closing quote. */
static inline int csv_split(char *line, char **f, int max)
{
    const char *p = line;
    char *o = line;
    int n = 0, more = 1;
    while (more == 1) {
        if (n == max)
            return -1;
        f[n++] = o;
        if ((more = csv_field_(&p, &o)) < 0)
            return -1;
    }
    return n;
}

/* Free what csv_read allocated; t is then empty. */
static inline void csv_free(struct csv_table *t)
{
    free(t->cell);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

/* Parse text (a whole CSV document) into t.
 * Returns 0, or -1 with one line in err (len bytes) saying which line is wrong and how; t is then empty. */
static inline int csv_read(const char *text, struct csv_table *t, char *err, size_t len)
{
    size_t cap = 16, used = 0;
    int line = 0;
    memset(t, 0, sizeof *t);
    t->buf = malloc(strlen(text) + 1);
    t->cell = malloc(cap * sizeof *t->cell);
    if (!t->buf || !t->cell)
        return snprintf(err, len, "out of memory"), csv_free(t), -1;
    char *o = t->buf;
    for (const char *p = text; *p; line++) {
        if (*p == '#' || *p == '\n') { /* a comment or an empty line */
            p += strcspn(p, "\n");
            p += *p == '\n';
            continue;
        }
        int nf = 0, more = 1;
        while (more == 1) {
            if (used == cap && !(t->cell = realloc(t->cell, (cap *= 2) * sizeof *t->cell)))
                return snprintf(err, len, "out of memory"), csv_free(t), -1;
            t->cell[used++] = o;
            nf++;
            if ((more = csv_field_(&p, &o)) < 0)
                return snprintf(err, len, "line %d: a quoted field is not closed properly", line + 1), csv_free(t), -1;
        }
        if (t->ncols == 0)
            t->ncols = nf;
        else if (nf != t->ncols)
            return snprintf(err, len, "line %d has %d fields, the header %d", line + 1, nf, t->ncols), csv_free(t), -1;
        else
            t->nrows++;
    }
    if (t->ncols == 0)
        return snprintf(err, len, "no header line"), csv_free(t), -1;
    return 0;
}

/* The index of column name, or -1 if the header has none. */
static inline int csv_col(const struct csv_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cell[c], name))
            return c;
    return -1;
}

/* Field name of row (0 .. nrows-1, after the header); NULL if there is no such row or column. */
static inline const char *csv_str(const struct csv_table *t, int row, const char *name)
{
    int c = csv_col(t, name);
    return c < 0 || row < 0 || row >= t->nrows ? NULL : t->cell[(size_t)(row + 1) * t->ncols + c];
}

/* Field name of row as a number; NAN if it is missing or not wholly a number. */
static inline double csv_num(const struct csv_table *t, int row, const char *name)
{
    const char *s = csv_str(t, row, name);
    char *end;
    double v = s && *s ? strtod(s, &end) : NAN;
    return s && *s && !*end ? v : NAN;
}

#ifdef fail_msg /* cmocka's: the same, failing the test with the command and column instead of returning */

/* csv_read of what's output; fails the test naming what and the bad line. */
static inline void csv_read_ok(const char *text, struct csv_table *t, const char *what)
{
    char err[128];
    if (csv_read(text, t, err, sizeof err) != 0)
        fail_msg("%s: not CSV with a header: %s", what, err);
}

/* csv_num that fails the test when the field is missing or not a number. */
static inline double csv_need(const struct csv_table *t, int row, const char *name)
{
    double v = csv_num(t, row, name);
    if (isnan(v))
        fail_msg("CSV row %d: column %s is %s", row + 1, name,
                 csv_col(t, name) < 0 ? "missing" : row >= t->nrows ? "past the last row" : "not a number");
    return v;
}

/* Field name of row as an integer; fails the test when it is missing or not wholly an integer. */
static inline long long csv_need_int(const struct csv_table *t, int row, const char *name)
{
    const char *s = csv_str(t, row, name);
    char *end = NULL;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || *end)
        fail_msg("CSV row %d: column %s is %s", row + 1, name, s ? "not an integer" : "missing");
    return v;
}
#endif

#endif

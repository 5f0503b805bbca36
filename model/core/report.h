/*
 * report.h - result rows in the output conventions shared by `mring model`,
 * `mring simulate` and `mring-bench` (nccl-tests' columns, plus the fields that join predictions
 * with measurements).
 *
 * table: nccl-tests style (size, count, type, redop, time(us), algbw, busbw per
 *        row; "# Avg bus bandwidth" at the end);
 * csv:   source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps
 *        (+ inplace,wrong,time_min_us,time_max_us for real runs), then config: the whole
 *        configuration as flags (chunks, embedding: what the other fields do not say);
 * json:  {"rows": [ {same fields}, ... ]}.
 * algbw = size / time, busbw = algbw * 2(P-1)/P, in decimal GB/s (nccl-tests,
 * doc/PERFORMANCE.md); size is bytes per rank.
 */
#ifndef MRING_REPORT_H
#define MRING_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { MRING_FMT_TABLE, MRING_FMT_CSV, MRING_FMT_JSON } mring_format_t;

/* Write s as one CSV field: as it is, or in double quotes (quotes doubled) when it holds a comma,
 * quote or newline (RFC 4180). */
void mring_csv_field(FILE *f, const char *s);

/* s with its control characters written as \n, \t or \xNN, into buf (len bytes, cut to fit), so that a
 * message quoting text from a user's file stays one line.  Returns buf. */
char *mring_escape_line(const char *s, char *buf, size_t len);

struct json_t; /* jansson's */

/* The user's JSON files' readers (tuning files, workloads) refuse a key they do not know, so a misspelt one is not
 * ignored: 0 when every key of object o is in the NULL-terminated list keys; else -1 and, in err (one line),
 * 'unknown key "PRE KEY"; expected one of KEYS' (the key escaped, pre the path of o, e.g. "layers[2]."). */
int mring_json_unknown_key(struct json_t *o, const char *pre, const char *const *keys, char *err, size_t errlen);

/* Parse "table", "csv" or "json". Returns 0 or -1. */
int mring_format_parse(const char *s, mring_format_t *f);

/* Time span of one phase in one dimension (a --breakdown line). */
typedef struct mring_phase_span {
    const char *phase; /* "reduce-scatter", ... */
    int dim;           /* 1-based */
    double start_us, end_us;
} mring_phase_span_t;

typedef struct mring_row {
    const char *source; /* "model", "sim" or "real" */
    const char *algo;
    const char *topo;
    const char *rings;
    int ranks;
    int64_t size;  /* bytes per rank */
    int64_t count; /* elements per rank */
    const char *type, *redop;
    double time_us;
    const char *config; /* the whole configuration as flags (mring_config_describe), or NULL */
    /* real runs only (set real = 1) */
    int real;
    int inplace;
    int64_t wrong;
    double time_min_us, time_max_us;
    /* optional breakdown: table prints a line per span after the row, json adds "phases" */
    const mring_phase_span_t *spans;
    int nspans;
} mring_row_t;

/* algbw and busbw in GB/s of a row (0 when time is 0). */
double mring_algbw_gbps(int64_t size, double time_us);
double mring_busbw_gbps(int64_t size, double time_us, int ranks);

typedef struct mring_report mring_report_t;

/* Start a report on f; `title` is printed as a comment line in table format. NULL when out of memory. */
mring_report_t *mring_report_open(FILE *f, mring_format_t fmt, int real, const char *title);
/* Add a row. Returns 0 or -1. */
int mring_report_row(mring_report_t *r, const mring_row_t *row);
/* Finish (table footer, JSON document) and free. Returns 0, or -1 when writing failed. */
int mring_report_close(mring_report_t *r);

#endif

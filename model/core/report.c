/* report.c - table/CSV/JSON result rows (see report.h); JSON through jansson. */
#include "report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct mring_report {
    FILE *f;
    mring_format_t fmt;
    int real;
    json_t *rows;
    double busbw_sum;
    int nrows;
};

int mring_format_parse(const char *s, mring_format_t *f)
{
    if (!strcmp(s, "table"))
        *f = MRING_FMT_TABLE;
    else if (!strcmp(s, "csv"))
        *f = MRING_FMT_CSV;
    else if (!strcmp(s, "json"))
        *f = MRING_FMT_JSON;
    else
        return -1;
    return 0;
}

double mring_algbw_gbps(int64_t size, double time_us)
{
    return time_us > 0 ? (double)size / (time_us * 1e-6) / 1e9 : 0;
}

double mring_busbw_gbps(int64_t size, double time_us, int ranks)
{
    return mring_algbw_gbps(size, time_us) * (ranks > 1 ? 2.0 * (ranks - 1) / ranks : 1.0);
}

mring_report_t *mring_report_open(FILE *f, mring_format_t fmt, int real, const char *title)
{
    mring_report_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->f = f;
    r->fmt = fmt;
    r->real = real;
    if (fmt == MRING_FMT_JSON && !(r->rows = json_array())) {
        free(r);
        return NULL;
    }
    if (fmt == MRING_FMT_CSV)
        fprintf(f, "source,algo,topo,rings,ranks,size,count,type,redop,time_us,algbw_gbps,busbw_gbps%s,config\n",
                real ? ",inplace,wrong,time_min_us,time_max_us" : "");
    if (fmt == MRING_FMT_TABLE) {
        if (title)
            fprintf(f, "# %s\n", title);
        fprintf(f, "#\n# %12s %12s %8s %6s %10s %8s %8s%s\n", "size", "count", "type", "redop", "time", "algbw",
                "busbw", real ? "   #wrong  inplace" : "");
        fprintf(f, "# %12s %12s %8s %6s %10s %8s %8s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)");
    }
    return r;
}

void mring_csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

char *mring_escape_line(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return buf;
    for (; *s && n + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        char esc[8];
        if (ch >= 0x20 && ch != 0x7f) {
            buf[n++] = (char)ch;
            continue;
        }
        snprintf(esc, sizeof esc, ch == '\n' ? "\\n" : ch == '\t' ? "\\t" : "\\x%02x", ch);
        if (n + strlen(esc) + 1 > len)
            break;
        memcpy(buf + n, esc, strlen(esc));
        n += strlen(esc);
    }
    buf[n] = '\0';
    return buf;
}

int mring_json_unknown_key(struct json_t *o, const char *pre, const char *const *keys, char *err, size_t errlen)
{
    const char *k;
    json_t *v;
    json_object_foreach (o, k, v) {
        size_t i = 0, used;
        while (keys[i] && strcmp(keys[i], k))
            i++;
        if (keys[i])
            continue;
        char kt[80];
        used = (size_t)snprintf(err, errlen, "unknown key \"%s%s\"; expected one of", pre,
                                mring_escape_line(k, kt, sizeof kt));
        for (i = 0; keys[i] && used < errlen; i++)
            used += (size_t)snprintf(err + used, errlen - used, "%s %s", i ? "," : "", keys[i]);
        return -1;
    }
    return 0;
}

int mring_report_row(mring_report_t *r, const mring_row_t *w)
{
    double alg = mring_algbw_gbps(w->size, w->time_us), bus = mring_busbw_gbps(w->size, w->time_us, w->ranks);
    r->busbw_sum += bus;
    r->nrows++;
    switch (r->fmt) {
    case MRING_FMT_TABLE:
        fprintf(r->f, "  %12lld %12lld %8s %6s %10.2f %8.2f %8.2f", (long long)w->size, (long long)w->count, w->type,
                w->redop, w->time_us, alg, bus);
        if (r->real)
            fprintf(r->f, " %8lld %8s", (long long)w->wrong, w->inplace ? "yes" : "no");
        fputc('\n', r->f);
        for (int i = 0; i < w->nspans; i++)
            fprintf(r->f, "#   %-15s dim %d: %12.2f .. %12.2f us  (%.2f us)\n", w->spans[i].phase, w->spans[i].dim,
                    w->spans[i].start_us, w->spans[i].end_us, w->spans[i].end_us - w->spans[i].start_us);
        break;
    case MRING_FMT_CSV:
        fprintf(r->f, "%s,%s,%s,", w->source, w->algo, w->topo);
        mring_csv_field(r->f, w->rings);
        fprintf(r->f, ",%d,%lld,%lld,%s,%s,%.6g,%.6g,%.6g", w->ranks, (long long)w->size, (long long)w->count, w->type,
                w->redop, w->time_us, alg, bus);
        if (r->real)
            fprintf(r->f, ",%d,%lld,%.6g,%.6g", w->inplace, (long long)w->wrong, w->time_min_us, w->time_max_us);
        fputc(',', r->f);
        mring_csv_field(r->f, w->config ? w->config : "");
        fputc('\n', r->f);
        break;
    case MRING_FMT_JSON: {
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:I,s:I,s:s,s:s,s:f,s:f,s:f}", "source", w->source, "algo",
                              w->algo, "topo", w->topo, "rings", w->rings, "ranks", w->ranks, "size",
                              (json_int_t)w->size, "count", (json_int_t)w->count, "type", w->type, "redop", w->redop,
                              "time_us", w->time_us, "algbw_gbps", alg, "busbw_gbps", bus);
        if (!o || (w->config && json_object_set_new(o, "config", json_string(w->config)))) {
            json_decref(o);
            return -1;
        }
        if (r->real && json_object_update_new(o, json_pack("{s:b,s:I,s:f,s:f}", "inplace", w->inplace, "wrong",
                                                       (json_int_t)w->wrong, "time_min_us", w->time_min_us,
                                                       "time_max_us", w->time_max_us))) {
            json_decref(o);
            return -1;
        }
        if (w->nspans) {
            json_t *spans = json_array();
            for (int i = 0; spans && i < w->nspans; i++)
                json_array_append_new(spans, json_pack("{s:s,s:i,s:f,s:f}", "phase", w->spans[i].phase, "dim",
                                                       w->spans[i].dim, "start_us", w->spans[i].start_us, "end_us",
                                                       w->spans[i].end_us));
            if (!spans || json_object_set_new(o, "phases", spans)) {
                json_decref(o);
                return -1;
            }
        }
        if (json_array_append_new(r->rows, o))
            return -1;
        break;
    }
    }
    return ferror(r->f) ? -1 : 0;
}

int mring_report_close(mring_report_t *r)
{
    int rc = 0;
    if (r->fmt == MRING_FMT_TABLE)
        fprintf(r->f, "# Avg bus bandwidth    : %g\n", r->nrows ? r->busbw_sum / r->nrows : 0.0);
    if (r->fmt == MRING_FMT_JSON) {
        json_t *doc = json_pack("{s:o}", "rows", r->rows);
        if (!doc || json_dumpf(doc, r->f, JSON_INDENT(1)) < 0)
            rc = -1;
        fputc('\n', r->f);
        json_decref(doc);
    }
    if (fflush(r->f) || ferror(r->f))
        rc = -1;
    free(r);
    return rc;
}

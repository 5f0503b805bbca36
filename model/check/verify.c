/* verify.c - static checks, symbolic run and result checks of all ranks' schedules (see verify.h). */
#include "verify.h"

#include "local.h"
#include "symbolic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sym {
    const mring_rank_sched_t *scheds;
    int P, inplace;
    int64_t count;
    mring_exprs_t *ex;
    mring_imap_t (*maps)[MRING_NBUFS]; /* per rank: OUT, SCRATCH, IN */
} sym_t;

static int failf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 1;
}

static mring_imap_t *buf_map(sym_t *s, int rank, int buf)
{
    if (buf == MRING_BUF_IN && s->inplace)
        buf = MRING_BUF_OUT;
    return &s->maps[rank][buf];
}

static int move(sym_t *s, int src_rank, int src_buf, int64_t src_off, int dst_rank, int dst_buf, int64_t dst_off,
                int64_t count, char *err, size_t errlen)
{
    mring_ival_t *v;
    int64_t n;
    if (mring_imap_read(buf_map(s, src_rank, src_buf), src_off, count, &v, &n))
        return failf(err, errlen, "out of memory");
    int rc = mring_imap_write(buf_map(s, dst_rank, dst_buf), dst_off, v, n, src_off);
    free(v);
    return rc ? failf(err, errlen, "out of memory") : 0;
}

static int sym_deliver(void *ctx, int src, const mring_op_t *send, int dst, const mring_op_t *recv, char *err,
                       size_t errlen)
{
    if (send->count != recv->count) {
        char a[256], b[256];
        mring_op_format(send, a, sizeof a);
        mring_op_format(recv, b, sizeof b);
        return failf(err, errlen, "size mismatch: rank %d sends %lld elements (%s), rank %d receives %lld (%s)", src,
                     (long long)send->count, a, dst, (long long)recv->count, b);
    }
    return move(ctx, src, send->buf, send->off, dst, recv->buf, recv->off, send->count, err, errlen);
}

static int sym_copy(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen)
{
    return move(ctx, rank, op->src_buf, op->src_off, rank, op->buf, op->off, op->count, err, errlen);
}

static int sym_reduce(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen)
{
    sym_t *s = ctx;
    mring_ival_t *d = NULL, *src = NULL, *out = NULL;
    int64_t nd, ns, no = 0, i = 0, j = 0;
    int rc = 1;
    if (mring_imap_read(buf_map(s, rank, op->buf), op->off, op->count, &d, &nd) ||
        mring_imap_read(buf_map(s, rank, op->src_buf), op->src_off, op->count, &src, &ns) ||
        !(out = malloc((size_t)(nd + ns) * sizeof *out))) {
        failf(err, errlen, "out of memory");
        goto done;
    }
    /* walk both interval lists over the destination's element numbering */
    for (int64_t y = op->off, end = op->off + op->count; y < end;) {
        mring_ival_t a = d[i], b = src[j];
        int64_t bshift = b.shift + op->src_off - op->off; /* source position seen from destination element y */
        int64_t hi = a.hi < b.hi - op->src_off + op->off ? a.hi : b.hi - op->src_off + op->off;
        char why[160];
        if (a.shift != bshift) {
            char f[256];
            mring_op_format(op, f, sizeof f);
            failf(err, errlen, "rank %d: %s combines element position %lld with position %lld", rank, f,
                  (long long)(y + a.shift), (long long)(y + bshift));
            goto done;
        }
        uint32_t x = (op->flags & MRING_REDUCE_SRC_FIRST) ? mring_exprs_combine(s->ex, b.expr, a.expr, why, sizeof why)
                                                         : mring_exprs_combine(s->ex, a.expr, b.expr, why, sizeof why);
        if (!x) {
            char f[256];
            mring_op_format(op, f, sizeof f);
            failf(err, errlen, "rank %d: %s %s (element %lld)", rank, f, why, (long long)y);
            goto done;
        }
        out[no++] = (mring_ival_t){y, hi, a.shift, x};
        y = hi;
        if (y >= a.hi)
            i++;
        if (y >= b.hi - op->src_off + op->off)
            j++;
    }
    if (mring_imap_write(buf_map(s, rank, op->buf), op->off, out, no, op->off)) {
        failf(err, errlen, "out of memory");
        goto done;
    }
    rc = 0;
done:
    free(d);
    free(src);
    free(out);
    return rc;
}

/* ---- static checks ---- */

static int64_t buf_size(const mring_rank_sched_t *rs, int64_t count, int buf)
{
    return buf == MRING_BUF_SCRATCH ? rs->scratch_count : count;
}

static int check_range(const mring_rank_sched_t *rs, int64_t count, int buf, int64_t off, int64_t n,
                       const mring_op_t *op, char *err, size_t errlen)
{
    char f[256];
    /* written so that no sum overflows: off and n are arbitrary 64-bit values here */
    if (buf < 0 || buf >= MRING_NBUFS || off < 0 || n < 0 || n > buf_size(rs, count, buf) ||
        off > buf_size(rs, count, buf) - n) {
        mring_op_format(op, f, sizeof f);
        return failf(err, errlen, "rank %d: %s is outside %s of %lld elements", rs->rank, f, mring_buf_name(buf),
                     (long long)(buf >= 0 && buf < MRING_NBUFS ? buf_size(rs, count, buf) : 0));
    }
    return 0;
}

/* op in words, for a failure message (formatted only when one is written). */
static const char *op_words(const mring_op_t *op, char *f, size_t flen)
{
    mring_op_format(op, f, flen);
    return f;
}

static int check_op(const mring_rank_sched_t *rs, int P, int64_t count, const mring_op_t *op, char *err,
                    size_t errlen)
{
    char f[256];
    int b;
    int64_t off, n;
    if (op->kind > MRING_OP_COPY)
        return failf(err, errlen, "rank %d: op of unknown kind %d", rs->rank, op->kind);
    if (op->count <= 0)
        return failf(err, errlen, "rank %d: %s has count %lld; expected > 0", rs->rank, op_words(op, f, sizeof f),
                     (long long)op->count);
    if ((op->kind == MRING_OP_SEND || op->kind == MRING_OP_RECV) &&
        (op->peer < 0 || op->peer >= P || op->peer == rs->rank))
        return failf(err, errlen, "rank %d: %s has peer %d; expected another rank of 0..%d", rs->rank,
                     op_words(op, f, sizeof f), op->peer, P - 1);
    if (mring_op_write(op, &b, &off, &n) && b == MRING_BUF_IN)
        return failf(err, errlen, "rank %d: %s writes the send buffer IN", rs->rank, op_words(op, f, sizeof f));
    if (mring_op_write(op, &b, &off, &n) && check_range(rs, count, b, off, n, op, err, errlen))
        return 1;
    if (mring_op_read(op, &b, &off, &n) && check_range(rs, count, b, off, n, op, err, errlen))
        return 1;
    return 0;
}

typedef struct span {
    int64_t lo, hi;
    int buf, write, stream;
} span_t;

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    if (x->buf != y->buf)
        return x->buf - y->buf;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Streams of one rank may not touch a range another stream writes (IN counts as OUT: in-place). */
static int check_races(const mring_rank_sched_t *rs, char *err, size_t errlen)
{
    int64_t n = 0, k = 0;
    span_t *v;
    if (rs->nstreams < 2)
        return 0;
    for (int s = 0; s < rs->nstreams; s++)
        n += 2 * rs->streams[s].nops;
    if (!(v = malloc((size_t)(n ? n : 1) * sizeof *v)))
        return failf(err, errlen, "out of memory");
    for (int s = 0; s < rs->nstreams; s++)
        for (int64_t i = 0; i < rs->streams[s].nops; i++) {
            const mring_op_t *op = &rs->streams[s].ops[i];
            int b;
            int64_t off, c;
            if (mring_op_read(op, &b, &off, &c))
                v[k++] = (span_t){off, off + c, b == MRING_BUF_IN ? MRING_BUF_OUT : b, 0, s};
            if (mring_op_write(op, &b, &off, &c))
                v[k++] = (span_t){off, off + c, b, 1, s};
        }
    qsort(v, (size_t)k, sizeof *v, span_cmp);
    /* sorted by buffer and start: compare each span with the later spans that start inside it */
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = i + 1; j < k && v[j].buf == v[i].buf && v[j].lo < v[i].hi; j++)
            if (v[i].stream != v[j].stream && (v[i].write || v[j].write)) {
                int rc = failf(err, errlen, "rank %d: streams %d and %d race on %s[%lld..%lld)", rs->rank, v[i].stream,
                               v[j].stream, mring_buf_name(v[i].buf), (long long)(v[j].lo),
                               (long long)(v[i].hi < v[j].hi ? v[i].hi : v[j].hi));
                free(v);
                return rc;
            }
    free(v);
    return 0;
}

static int static_checks(const mring_rank_sched_t *scheds, int P, int64_t count, char *err, size_t errlen)
{
    for (int r = 0; r < P; r++) {
        if (scheds[r].rank != r)
            return failf(err, errlen, "schedule %d is labelled rank %d", r, scheds[r].rank);
        for (int s = 0; s < scheds[r].nstreams; s++)
            for (int64_t i = 0; i < scheds[r].streams[s].nops; i++)
                if (check_op(&scheds[r], P, count, &scheds[r].streams[s].ops[i], err, errlen))
                    return 1;
        if (check_races(&scheds[r], err, errlen))
            return 1;
    }
    return 0;
}

/* ---- the symbolic run and the result checks ---- */

static void sym_free(sym_t *s)
{
    if (s->maps)
        for (int r = 0; r < s->P; r++)
            for (int b = 0; b < MRING_NBUFS; b++)
                mring_imap_free(&s->maps[r][b]);
    free(s->maps);
    s->maps = NULL;
}

static int sym_init(sym_t *s)
{
    s->maps = calloc((size_t)s->P, sizeof *s->maps);
    if (!s->maps)
        return -1;
    for (int r = 0; r < s->P; r++) {
        uint32_t leaf = mring_sym_leaf(r);
        if (mring_imap_init(&s->maps[r][MRING_BUF_OUT], s->count, s->inplace ? leaf : MRING_SYM_POISON) ||
            mring_imap_init(&s->maps[r][MRING_BUF_SCRATCH], s->scheds[r].scratch_count, MRING_SYM_POISON) ||
            mring_imap_init(&s->maps[r][MRING_BUF_IN], s->count, leaf))
            return -1;
    }
    return 0;
}

/* Every OUT element: written, at its own position, all P ranks, and the same tree as on rank 0. */
static int check_results(sym_t *s, char *err, size_t errlen)
{
    const mring_imap_t *ref = &s->maps[0][MRING_BUF_OUT];
    const char *mode = s->inplace ? "in place" : "out of place";
    for (int r = 0; r < s->P; r++) {
        const mring_imap_t *m = &s->maps[r][MRING_BUF_OUT];
        for (int64_t i = 0; i < m->n; i++) {
            const mring_ival_t *v = &m->v[i];
            if (v->expr == MRING_SYM_POISON)
                return failf(err, errlen, "%s: rank %d element %lld of OUT is never written", mode, r, (long long)v->lo);
            if (v->shift != 0)
                return failf(err, errlen, "%s: rank %d element %lld of OUT holds the data of element %lld", mode, r,
                             (long long)v->lo, (long long)(v->lo + v->shift));
            if (mring_exprs_nranks(s->ex, v->expr) != s->P)
                return failf(err, errlen, "%s: rank %d element %lld of OUT reduces %d of %d ranks", mode, r,
                             (long long)v->lo, mring_exprs_nranks(s->ex, v->expr), s->P);
        }
        for (int64_t i = 0, j = 0; i < m->n && j < ref->n;) {
            const mring_ival_t *a = &m->v[i], *b = &ref->v[j];
            int64_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
            if (lo < hi && a->expr != b->expr)
                return failf(err, errlen,
                             "%s: rank %d element %lld is reduced in a different order than on rank 0 (results "
                             "would not be bitwise identical)",
                             mode, r, (long long)lo);
            i += a->hi <= b->hi;
            j += b->hi <= a->hi;
        }
        if (!s->inplace) {
            const mring_imap_t *in = &s->maps[r][MRING_BUF_IN];
            if (in->n != (s->count > 0) || (in->n && in->v[0].expr != mring_sym_leaf(r)))
                return failf(err, errlen, "rank %d: the send buffer IN changed", r);
        }
    }
    return 0;
}

static int run_symbolic(const mring_rank_sched_t *scheds, int P, int64_t count, int inplace, char *err, size_t errlen)
{
    static const mring_local_ops_t ops = {sym_deliver, sym_reduce, sym_copy};
    sym_t s = {scheds, P, inplace, count, mring_exprs_new(P), NULL};
    int rc = -1;
    if (!s.ex || sym_init(&s)) {
        failf(err, errlen, "out of memory");
        goto out;
    }
    if (mring_local_run(scheds, P, inplace, &ops, &s, err, errlen)) {
        size_t n = strlen(err);
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s: %.*s", inplace ? "in place" : "out of place", (int)n, err);
        snprintf(err, errlen, "%s", tmp);
        rc = 1;
        goto out;
    }
    rc = check_results(&s, err, errlen);
out:
    sym_free(&s);
    mring_exprs_free(s.ex);
    return rc;
}

static void traffic(const mring_rank_sched_t *scheds, int P, const mring_topo_t *topo, size_t elsize,
                    mring_verify_result_t *res)
{
    for (int r = 0; r < P; r++) {
        double bytes = 0, dim[MRING_MAX_DIMS] = {0};
        int64_t msgs = 0;
        for (int s = 0; s < scheds[r].nstreams; s++)
            for (int64_t i = 0; i < scheds[r].streams[s].nops; i++) {
                const mring_op_t *op = &scheds[r].streams[s].ops[i];
                if (op->kind != MRING_OP_SEND)
                    continue;
                double b = (double)op->count * (double)elsize;
                msgs++;
                bytes += b;
                dim[mring_topo_link_dim(topo, r, op->peer)] += b;
            }
        res->ops += mring_rank_sched_nops(&scheds[r]);
        res->msgs_max = msgs > res->msgs_max ? msgs : res->msgs_max;
        res->bytes_max = bytes > res->bytes_max ? bytes : res->bytes_max;
        res->scratch_max = scheds[r].scratch_count > res->scratch_max ? scheds[r].scratch_count : res->scratch_max;
        for (int d = 0; d < topo->ndims; d++)
            res->bytes_dim_max[d] = dim[d] > res->bytes_dim_max[d] ? dim[d] : res->bytes_dim_max[d];
    }
}

int mring_verify_schedules(const mring_rank_sched_t *scheds, const mring_topo_t *topo, int64_t count, size_t elsize,
                           mring_verify_result_t *res)
{
    int P = topo->nranks, rc;
    memset(res, 0, sizeof *res);
    if (static_checks(scheds, P, count, res->msg, sizeof res->msg))
        return 1;
    traffic(scheds, P, topo, elsize, res);
    for (int inplace = 0; inplace < 2; inplace++)
        if ((rc = run_symbolic(scheds, P, count, inplace, res->msg, sizeof res->msg)))
            return rc;
    res->ok = 1;
    return 0;
}

int mring_verify(const mring_config_t *c, mring_call_t k, mring_verify_result_t *res)
{
    int P = c->topo.nranks, n = 0, rc = -1;
    mring_rank_sched_t *scheds = calloc((size_t)P, sizeof *scheds);
    memset(res, 0, sizeof *res);
    if (!scheds)
        return -1;
    for (; n < P; n++)
        if (mring_generate(c, k, n, &scheds[n]))
            goto out;
    rc = mring_verify_schedules(scheds, &c->topo, k.count, k.elsize, res);
out:
    for (int r = 0; r < n; r++)
        mring_rank_sched_free(&scheds[r]);
    free(scheds);
    if (rc < 0)
        snprintf(res->msg, sizeof res->msg, "out of memory");
    return rc;
}

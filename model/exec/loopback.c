/* loopback.c - in-process allreduce on real buffers (see loopback.h). */
#include "loopback.h"

#include "local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lb {
    const mring_config_t *c;
    mring_call_t k;
    mring_dtype_t dtype;
    mring_redop_t op;
    size_t es;
    const void *const *in;
    void *const *out;
    unsigned char **scratch;
    const mring_rank_sched_t *scheds;
} lb_t;

static unsigned char *addr(const lb_t *lb, int rank, int buf, int64_t off, int64_t count, char *err,
                           size_t errlen)
{
    int64_t size = buf == MRING_BUF_SCRATCH ? lb->scheds[rank].scratch_count : lb->k.count;
    unsigned char *base = buf == MRING_BUF_OUT       ? lb->out[rank]
                          : buf == MRING_BUF_SCRATCH ? lb->scratch[rank]
                                                     : (unsigned char *)lb->in[rank];
    if (off < 0 || count < 0 || off + count > size || !base) {
        snprintf(err, errlen, "rank %d: range [%lld, %lld) outside %s of %lld elements", rank, (long long)off,
                 (long long)(off + count), mring_buf_name(buf), (long long)size);
        return NULL;
    }
    return base + (size_t)off * lb->es;
}

static int deliver(void *ctx, int src, const mring_op_t *send, int dst, const mring_op_t *recv, char *err,
                   size_t errlen)
{
    lb_t *lb = ctx;
    unsigned char *s, *d;
    if (send->count != recv->count) {
        snprintf(err, errlen, "rank %d sends %lld elements to rank %d, which receives %lld", src,
                 (long long)send->count, dst, (long long)recv->count);
        return -1;
    }
    if (!(s = addr(lb, src, send->buf, send->off, send->count, err, errlen)) ||
        !(d = addr(lb, dst, recv->buf, recv->off, recv->count, err, errlen)))
        return -1;
    memcpy(d, s, (size_t)send->count * lb->es);
    return 0;
}

static int reduce(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen)
{
    lb_t *lb = ctx;
    unsigned char *d = addr(lb, rank, op->buf, op->off, op->count, err, errlen);
    unsigned char *s = d ? addr(lb, rank, op->src_buf, op->src_off, op->count, err, errlen) : NULL;
    if (!s)
        return -1;
    mring_reduce(d, s, (size_t)op->count, lb->dtype, lb->op, op->flags & MRING_REDUCE_SRC_FIRST);
    return 0;
}

static int copy(void *ctx, int rank, const mring_op_t *op, char *err, size_t errlen)
{
    lb_t *lb = ctx;
    unsigned char *d = addr(lb, rank, op->buf, op->off, op->count, err, errlen);
    unsigned char *s = d ? addr(lb, rank, op->src_buf, op->src_off, op->count, err, errlen) : NULL;
    if (!s)
        return -1;
    memmove(d, s, (size_t)op->count * lb->es);
    return 0;
}

int mring_loopback_allreduce(const mring_config_t *c, int64_t count, mring_dtype_t dtype, mring_redop_t op,
                             const void *const *sendbufs, void *const *recvbufs, char *err, size_t errlen)
{
    static const mring_local_ops_t ops = {deliver, reduce, copy};
    int P = c->topo.nranks, rc = -1, ngen = 0;
    lb_t lb = {c, {count, mring_dtype_size(dtype)}, dtype, op, mring_dtype_size(dtype), sendbufs ? sendbufs : (const void *const *)recvbufs,
               recvbufs, NULL, NULL};
    mring_rank_sched_t *scheds = calloc((size_t)P, sizeof *scheds);
    lb.scratch = calloc((size_t)P, sizeof *lb.scratch);
    lb.scheds = scheds;
    if (mring_config_check(c, err, errlen) || mring_call_check(c, lb.k, err, errlen))
        goto out;
    if (!scheds || !lb.scratch)
        goto oom;
    for (int r = 0; r < P; r++) {
        if (mring_generate(c, lb.k, r, &scheds[r]))
            goto oom;
        ngen++;
        if (scheds[r].scratch_count > 0 &&
            !(lb.scratch[r] = malloc((size_t)scheds[r].scratch_count * lb.es)))
            goto oom;
    }
    if (mring_local_run(scheds, P, sendbufs == NULL, &ops, &lb, err, errlen))
        goto out;
    if (op == MRING_AVG)
        for (int r = 0; r < P; r++)
            mring_scale_avg(recvbufs[r], (size_t)count, dtype, P);
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    for (int r = 0; r < ngen; r++) {
        mring_rank_sched_free(&scheds[r]);
        free(lb.scratch[r]);
    }
    free(scheds);
    free(lb.scratch);
    return rc;
}

/* schedule.c - the schedule IR: building, hazards, printing (see schedule.h). */
#include "schedule.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int mring_rank_sched_init(mring_rank_sched_t *rs, int rank, int nstreams)
{
    memset(rs, 0, sizeof *rs);
    rs->rank = rank;
    rs->streams = calloc((size_t)(nstreams > 0 ? nstreams : 1), sizeof *rs->streams);
    if (!rs->streams)
        return -1;
    rs->nstreams = nstreams;
    return 0;
}

void mring_rank_sched_free(mring_rank_sched_t *rs)
{
    if (!rs->streams)
        return;
    for (int i = 0; i < rs->nstreams; i++)
        free(rs->streams[i].ops);
    free(rs->streams);
    memset(rs, 0, sizeof *rs);
}

static void need_scratch(mring_rank_sched_t *rs, int buf, int64_t off, int64_t count)
{
    /* a range past INT64_MAX is left for the verifier to reject */
    if (buf == MRING_BUF_SCRATCH && off >= 0 && off <= INT64_MAX - count && off + count > rs->scratch_count)
        rs->scratch_count = off + count;
}

int mring_emit(mring_rank_sched_t *rs, int stream, mring_op_t op)
{
    mring_stream_t *s = &rs->streams[stream];
    if (op.count <= 0)
        return 0;
    if (s->nops == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 64;
        mring_op_t *ops = realloc(s->ops, (size_t)cap * sizeof *ops);
        if (!ops)
            return -1;
        s->ops = ops;
        s->cap = cap;
    }
    s->ops[s->nops++] = op;
    need_scratch(rs, op.buf, op.off, op.count);
    if (op.kind == MRING_OP_REDUCE || op.kind == MRING_OP_COPY)
        need_scratch(rs, op.src_buf, op.src_off, op.count);
    return 0;
}

int64_t mring_rank_sched_nops(const mring_rank_sched_t *rs)
{
    int64_t n = 0;
    for (int i = 0; i < rs->nstreams; i++)
        n += rs->streams[i].nops;
    return n;
}

int mring_op_read(const mring_op_t *op, int *buf, int64_t *off, int64_t *count)
{
    *count = op->count;
    switch (op->kind) {
    case MRING_OP_SEND:
        *buf = op->buf;
        *off = op->off;
        return 1;
    case MRING_OP_REDUCE:
    case MRING_OP_COPY:
        *buf = op->src_buf;
        *off = op->src_off;
        return 1;
    default:
        return 0;
    }
}

int mring_op_write(const mring_op_t *op, int *buf, int64_t *off, int64_t *count)
{
    if (op->kind == MRING_OP_SEND)
        return 0;
    *buf = op->buf;
    *off = op->off;
    *count = op->count;
    return 1;
}

static int overlap(int ba, int64_t oa, int64_t ca, int bb, int64_t ob, int64_t cb)
{
    if (ba == MRING_BUF_IN)
        ba = MRING_BUF_OUT; /* IN may alias OUT (in-place): treat them as one */
    if (bb == MRING_BUF_IN)
        bb = MRING_BUF_OUT;
    return ba == bb && oa < ob + cb && ob < oa + ca;
}

int mring_ops_conflict(const mring_op_t *a, const mring_op_t *b)
{
    int ra, rb, wa, wb, bra = 0, brb = 0, bwa = 0, bwb = 0;
    int64_t ora = 0, orb = 0, owa = 0, owb = 0, cra = 0, crb = 0, cwa = 0, cwb = 0;
    ra = mring_op_read(a, &bra, &ora, &cra);
    rb = mring_op_read(b, &brb, &orb, &crb);
    wa = mring_op_write(a, &bwa, &owa, &cwa);
    wb = mring_op_write(b, &bwb, &owb, &cwb);
    if (wa && wb && overlap(bwa, owa, cwa, bwb, owb, cwb))
        return 1;
    if (wa && rb && overlap(bwa, owa, cwa, brb, orb, crb))
        return 1;
    if (ra && wb && overlap(bra, ora, cra, bwb, owb, cwb))
        return 1;
    return 0;
}

const char *mring_opkind_name(int kind)
{
    static const char *const n[] = {"SEND", "RECV", "REDUCE", "COPY"};
    return kind >= 0 && kind < 4 ? n[kind] : "?";
}

const char *mring_buf_name(int buf)
{
    static const char *const n[] = {"OUT", "SCRATCH", "IN"};
    return buf >= 0 && buf < MRING_NBUFS ? n[buf] : "?";
}

const char *mring_phase_name(int phase)
{
    static const char *const n[] = {"prologue", "reduce-scatter", "allgather", "reduce", "broadcast",
                                    "exchange"};
    return phase >= 0 && phase < MRING_NPHASES ? n[phase] : "?";
}

/* End of a range without signed overflow (ops under verification may be arbitrary). */
static long long end_of(int64_t off, int64_t count) { return (long long)((uint64_t)off + (uint64_t)count); }

void mring_op_format(const mring_op_t *op, char *buf, size_t len)
{
    static const char *const ph[] = {"PRO", "RS", "AG", "RED", "BC", "EX"};
    char where[64];
    snprintf(where, sizeof where, "%s d%d s%u", op->phase < MRING_NPHASES ? ph[op->phase] : "?",
             op->dim + 1, (unsigned)op->step);
    switch (op->kind) {
    case MRING_OP_SEND:
    case MRING_OP_RECV:
        snprintf(buf, len, "%-14s %-6s %s%-5d tag 0x%08x %s[%" PRId64 "..%lld)", where,
                 mring_opkind_name(op->kind), op->kind == MRING_OP_SEND ? "->" : "<-", op->peer, op->tag,
                 mring_buf_name(op->buf), op->off, end_of(op->off, op->count));
        break;
    default:
        snprintf(buf, len, "%-14s %-6s %s[%" PRId64 "..%lld) %s %s[%" PRId64 "..%lld)%s", where,
                 mring_opkind_name(op->kind), mring_buf_name(op->buf), op->off, end_of(op->off, op->count),
                 op->kind == MRING_OP_COPY ? "=" : "op=", mring_buf_name(op->src_buf), op->src_off,
                 end_of(op->src_off, op->count), (op->flags & MRING_REDUCE_SRC_FIRST) ? " (src first)" : "");
    }
}

void mring_rank_sched_print(const mring_rank_sched_t *rs, FILE *f)
{
    char line[256];
    fprintf(f, "# rank %d: %d stream(s), %" PRId64 " ops, scratch %" PRId64 " elements\n", rs->rank,
            rs->nstreams, mring_rank_sched_nops(rs), rs->scratch_count);
    for (int s = 0; s < rs->nstreams; s++) {
        fprintf(f, "# stream %d: %" PRId64 " ops\n", s, rs->streams[s].nops);
        for (int64_t i = 0; i < rs->streams[s].nops; i++) {
            mring_op_format(&rs->streams[s].ops[i], line, sizeof line);
            fprintf(f, "%d %6" PRId64 "  %s\n", s, i, line);
        }
    }
}

int64_t mring_split_len(int64_t n, int64_t parts, int64_t i)
{
    return n / parts + (i < n % parts ? 1 : 0);
}

int64_t mring_split_off(int64_t n, int64_t parts, int64_t i)
{
    int64_t q = n / parts, r = n % parts;
    return i * q + (i < r ? i : r);
}

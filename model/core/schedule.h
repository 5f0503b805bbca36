/*
 * schedule.h - the schedule IR: the one seam between algorithms and back ends.
 *
 * A generator turns (algorithm, topology, rings, count, element size) into a
 * schedule; for each rank, a few streams (one per ring) that run concurrently.
 * A stream is an ordered list of ops on element ranges of three buffers:
 *
 *   IN       the user's send buffer (read only; may alias OUT for in-place calls)
 *   OUT      the user's receive buffer, count elements; holds the result
 *   SCRATCH  per-rank scratch space of mring_rank_sched_t.scratch_count elements
 *
 *   SEND(peer, buf, off, count)        post a send of buf[off, off+count)
 *   RECV(peer, buf, off, count)        post a receive into buf[off, off+count)
 *   REDUCE(buf, off, src_buf, src_off, count)   buf[off..] = buf[off..] op src[..]
 *   COPY(buf, off, src_buf, src_off, count)     buf[off..] = src[..]
 *
 * Execution semantics (what every back end implements through the interpreter):
 * ops of a stream are issued in order; an op is issued only when every earlier
 * op of its stream whose element ranges conflict with it (read-after-write,
 * write-after-read, write-after-write) has completed.  SEND and RECV complete
 * asynchronously; messages between two ranks with the same tag match in the
 * order they were posted.  Streams of one rank never touch overlapping ranges
 * where one of them writes (the verifier checks this), so they need no
 * ordering between them.  Offsets and counts are 64-bit element indices; no
 * op has count 0.
 */
#ifndef MRING_SCHEDULE_H
#define MRING_SCHEDULE_H

#include <stdint.h>
#include <stdio.h>

typedef enum { MRING_OP_SEND, MRING_OP_RECV, MRING_OP_REDUCE, MRING_OP_COPY } mring_opkind_t;
typedef enum { MRING_BUF_OUT, MRING_BUF_SCRATCH, MRING_BUF_IN, MRING_NBUFS } mring_buf_t;

/* Phase of an op, for reports, traces and per-phase time breakdowns. */
typedef enum {
    MRING_PHASE_PROLOGUE, /* copy of IN to OUT */
    MRING_PHASE_RS,       /* reduce-scatter */
    MRING_PHASE_AG,       /* allgather */
    MRING_PHASE_REDUCE,   /* reduce to a root (hier, fold-in of rd/rabenseifner) */
    MRING_PHASE_BCAST,    /* broadcast from a root (hier, fold-out) */
    MRING_PHASE_EXCHANGE, /* recursive-doubling exchange */
    MRING_NPHASES
} mring_phase_t;

/* REDUCE flag: compute src op dst instead of dst op src. */
#define MRING_REDUCE_SRC_FIRST 1u

typedef struct mring_op {
    uint8_t kind;    /* mring_opkind_t */
    uint8_t buf;     /* SEND: source buffer; others: destination buffer (mring_buf_t) */
    uint8_t src_buf; /* REDUCE/COPY: source buffer */
    uint8_t flags;   /* MRING_REDUCE_SRC_FIRST */
    int8_t dim;      /* dimension of the algorithm stage (0-based), -1 if none */
    uint8_t phase;   /* mring_phase_t */
    uint16_t step;   /* step within (phase, dim): the label that matches concurrent work */
    int32_t peer;    /* SEND/RECV: the other rank */
    uint32_t tag;    /* SEND/RECV: unique per (stream, message step) */
    int64_t off;     /* element offset in buf */
    int64_t src_off; /* REDUCE/COPY: element offset in src_buf */
    int64_t count;   /* elements, > 0 */
} mring_op_t;

typedef struct mring_stream {
    mring_op_t *ops;
    int64_t nops, cap;
} mring_stream_t;

typedef struct mring_rank_sched {
    int rank;
    int nstreams;
    mring_stream_t *streams;
    int64_t scratch_count; /* elements of SCRATCH this rank needs */
} mring_rank_sched_t;

/* Tag of a message: stream in the top 8 bits, the stream's message step below. */
static inline uint32_t mring_tag(int stream, uint32_t seq) { return ((uint32_t)stream << 24) | (seq & 0xffffffu); }

/* Allocate a rank schedule with nstreams empty streams. Returns 0 or -1 (no memory). */
int mring_rank_sched_init(mring_rank_sched_t *rs, int rank, int nstreams);
void mring_rank_sched_free(mring_rank_sched_t *rs);

/* Append op to a stream; raises rs->scratch_count to cover SCRATCH ranges.
 * Ops with count 0 are dropped (empty blocks are skipped on both sides). Returns 0 or -1. */
int mring_emit(mring_rank_sched_t *rs, int stream, mring_op_t op);

/* Total ops of a rank. */
int64_t mring_rank_sched_nops(const mring_rank_sched_t *rs);

/* 1 if ops a and b (of one stream) conflict: their element ranges overlap and one writes. */
int mring_ops_conflict(const mring_op_t *a, const mring_op_t *b);

/* Read range of an op in buffer terms; returns 0 if it reads nothing. */
int mring_op_read(const mring_op_t *op, int *buf, int64_t *off, int64_t *count);
/* Write range; returns 0 if it writes nothing. For REDUCE the destination is also read. */
int mring_op_write(const mring_op_t *op, int *buf, int64_t *off, int64_t *count);

const char *mring_opkind_name(int kind);
const char *mring_buf_name(int buf);
const char *mring_phase_name(int phase);

/* One readable line for op (no newline), e.g. "RS d1 s3 SEND ->5 tag 0x3 OUT[24..32)". */
void mring_op_format(const mring_op_t *op, char *buf, size_t len);

/* Print a rank's schedule, one op per line, grouped by stream. */
void mring_rank_sched_print(const mring_rank_sched_t *rs, FILE *f);

/*
 * Balanced split of n items into parts: part i gets n/parts + (i < n%parts) items
 * and starts at mring_split_off(n, parts, i).  Sizes differ by at most one.
 */
int64_t mring_split_len(int64_t n, int64_t parts, int64_t i);
int64_t mring_split_off(int64_t n, int64_t parts, int64_t i);

#endif

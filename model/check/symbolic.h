/*
 * symbolic.h - symbolic buffer contents for the verifier (internal to model/).
 *
 * An expression is a leaf (rank r's input) or an ordered pair (left op right),
 * hash-consed so that equal trees have equal ids; each node knows the set of
 * ranks it contains (as a list of rank intervals, short for the runs of ranks a
 * reduction sums) and refuses to combine two sets that share a rank.
 * A buffer is a sorted list of intervals: elements [lo, hi) hold expression
 * `expr` taken at element position x + shift (shift tracks where data came from,
 * so that a reduction of mismatched positions is caught).
 */
#ifndef MRING_SYMBOLIC_H
#define MRING_SYMBOLIC_H

#include <stddef.h>
#include <stdint.h>

#define MRING_SYM_POISON 0u /* never written */

typedef struct mring_exprs mring_exprs_t;

/* Expression store for nranks leaves (ids 1..nranks are the leaves of ranks 0..nranks-1). */
mring_exprs_t *mring_exprs_new(int nranks);
void mring_exprs_free(mring_exprs_t *e);
static inline uint32_t mring_sym_leaf(int rank) { return (uint32_t)rank + 1u; }
/* Id of (a op b); 0 with a reason in err when a and b share a rank or memory runs out. */
uint32_t mring_exprs_combine(mring_exprs_t *e, uint32_t a, uint32_t b, char *err, size_t errlen);
/* Number of distinct ranks in expression x. */
int mring_exprs_nranks(const mring_exprs_t *e, uint32_t x);

typedef struct mring_ival {
    int64_t lo, hi;
    int64_t shift;
    uint32_t expr;
} mring_ival_t;

typedef struct mring_imap {
    mring_ival_t *v;
    int64_t n, cap;
} mring_imap_t;

/* A map of size elements all holding expr at their own position. Returns 0 or -1. */
int mring_imap_init(mring_imap_t *m, int64_t size, uint32_t expr);
void mring_imap_free(mring_imap_t *m);

/* The intervals covering [off, off+count), clipped, into *out (malloc'd, *n entries). Returns 0 or -1. */
int mring_imap_read(const mring_imap_t *m, int64_t off, int64_t count, mring_ival_t **out, int64_t *n);

/* Overwrite [off, off+count) with the n intervals `src` read from [src_off, ...) of some
 * buffer; positions are kept (shift adjusted for the move). Returns 0 or -1. */
int mring_imap_write(mring_imap_t *m, int64_t off, const mring_ival_t *src, int64_t n, int64_t src_off);

#endif

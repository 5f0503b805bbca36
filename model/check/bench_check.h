/*
 * bench_check.h - the data check of mring-bench: inputs whose exact result is known whatever the
 * reduction order (small integers, exact in every type up to 128 ranks, or a single contributor per
 * element beyond), the expected value per element, guard words, hashes.
 */
#ifndef MRING_BENCH_CHECK_H
#define MRING_BENCH_CHECK_H

#include "dtype.h"

#include <stddef.h>
#include <stdint.h>

#define MRING_GUARD_BYTES 64

/* A buffer of count elements with MRING_GUARD_BYTES of 0x5A on each side. */
typedef struct guarded {
    unsigned char *base; /* allocation */
    void *data;          /* base + MRING_GUARD_BYTES */
    size_t bytes;        /* of data */
} guarded_t;

int guarded_alloc(guarded_t *g, size_t bytes);
void guarded_free(guarded_t *g);
/* 1 if both guards still hold 0x5A. */
int guarded_intact(const guarded_t *g);

/* Fill buf with rank r's input for op (count elements). */
void bench_fill(void *buf, mring_dtype_t t, mring_redop_t op, int r, int P, int64_t count);

/* Elements of buf that differ from the exact result (avg: by more than 2 ulps). */
int64_t bench_wrong(const void *buf, mring_dtype_t t, mring_redop_t op, int P, int64_t count);

/* FNV-1a hash of bytes. */
uint64_t bench_hash(const void *buf, size_t bytes);

#endif

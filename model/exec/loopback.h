/*
 * loopback.h - run an allreduce of P ranks in one process on real buffers.
 *
 * The in-process transport: every rank's schedule runs through the
 * interpreter (local.h) and the host reduction kernels (dtype.h), so the
 * results are the bits a real back end must produce.  Used by the tests.
 */
#ifndef MRING_LOOPBACK_H
#define MRING_LOOPBACK_H

#include "algo.h"
#include "dtype.h"

#include <stddef.h>

/*
 * Allreduce of count elements of dtype with configuration c:
 * sendbufs[r] and recvbufs[r] hold count elements for rank r; for an
 * in-place call pass sendbufs == NULL (recvbufs hold the input).  avg divides
 * by P once at the end.  Returns 0, or -1 with a one-line reason in err.
 */
int mring_loopback_allreduce(const mring_config_t *c, int64_t count, mring_dtype_t dtype, mring_redop_t op,
                             const void *const *sendbufs, void *const *recvbufs, char *err, size_t errlen);

#endif
